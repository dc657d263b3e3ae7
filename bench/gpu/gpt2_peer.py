#!/usr/bin/env python3
"""PyTorch's side of the GPT-2 GPU benchmark, and the batch both sides run.

bench/gpt2/gpt2.py's GPT-2 (its attention through PyTorch 2's fused
scaled_dot_product_attention, causal) trained one AdamW step per batch in
PyTorch's best documented setup: autocast to fp16 (with GradScaler) or
bf16, AdamW(fused=True) where the PyTorch has it, and torch.compile; fp32
without autocast. TF32 is off (as mpc computes fp32 GEMMs in fp32).

  gpt2_peer.py inputs --config small --batch 8 --out DIR
      DIR/weights.safetensors (the model at seed 0, for mpc-bench --params),
      DIR/tokens.npy and DIR/targets.npy (one batch over the vocabulary)
  gpt2_peer.py train --config small --batch 8 --inputs DIR
      [--runs fp16:eager,bf16:eager,fp32:eager,fp16:compile,bf16:compile]
      [--steps 20] [--repeats 3] [--warmup 5] [--json FILE]
      each run: ms per step (median of the repeats, each ended by one
      synchronisation), tokens/s, peak device memory, the first step's loss
  gpt2_peer.py attention --config small --batch 8 [--json FILE]
      scaled_dot_product_attention alone, forward and backward, on one
      layer's shapes in fp16 and bf16, against which mpc's attention kernels
      are compared
--device cpu runs the same code on the CPU (fp32 eager only) to check it.
A run that fails (a mode this PyTorch lacks) is recorded with its error;
the JSON is rewritten after every run, so a run cut short keeps the rest.
"""
import argparse
import contextlib
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpt2"))
import safetensors_file  # noqa: E402
from gpt2 import CONFIGS, Gpt2, mpc_weights  # noqa: E402
from torch_peer import compiled, grad_scaler, time_steps, write_json  # noqa: E402 (beside)

# The optimizer both sides run (bench/gpu/prepare.sh compiles mpc's so).
LR, BETAS, EPS, WEIGHT_DECAY = 6e-4, (0.9, 0.999), 1e-8, 0.1
AUTOCAST = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": None}


def write_inputs(args):
    os.makedirs(args.out, exist_ok=True)
    config = CONFIGS[args.config]
    torch.manual_seed(0)
    safetensors_file.write(os.path.join(args.out, "weights.safetensors"),
                           mpc_weights(Gpt2(config)))
    generator = np.random.default_rng(3)
    shape = (args.batch, config.context)
    np.save(os.path.join(args.out, "tokens.npy"),
            generator.integers(0, config.vocab, shape, dtype=np.int64))
    np.save(os.path.join(args.out, "targets.npy"),
            generator.integers(0, config.vocab, shape).astype(np.int32))
    print("gpt2_peer.py: GPT-2 %s's weights and a batch of %d in %s" % (
        args.config, args.batch, args.out))


def load_model(config, inputs, device):
    model = Gpt2(config, sdpa=hasattr(torch.nn.functional, "scaled_dot_product_attention"))
    weights = safetensors_file.read(os.path.join(inputs, "weights.safetensors"))
    result = model.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in weights.items()},
                                   strict=False)
    # (every parameter from the file; only the masks, buffers, are not in it)
    if result.unexpected_keys or any(not k.endswith(".mask") for k in result.missing_keys):
        raise SystemExit("gpt2_peer.py: the weights do not match the model: unexpected %s, "
                         "missing %s" % (result.unexpected_keys, result.missing_keys))
    return model.to(device)


def adamw(parameters, device):
    try:  # fused: one kernel for all parameters (PyTorch 2.0 and later, on CUDA)
        return torch.optim.AdamW(parameters, lr=LR, betas=BETAS, eps=EPS,
                                 weight_decay=WEIGHT_DECAY, fused=device == "cuda")
    except TypeError:
        return torch.optim.AdamW(parameters, lr=LR, betas=BETAS, eps=EPS,
                                 weight_decay=WEIGHT_DECAY)


def measure_training(config, args, precision, mode):
    device = args.device
    model = load_model(config, args.inputs, device)
    optimizer = adamw(model.parameters(), device)
    tokens = torch.from_numpy(np.load(os.path.join(args.inputs, "tokens.npy"))).to(device)
    targets = torch.from_numpy(np.load(os.path.join(args.inputs, "targets.npy")))
    targets = targets.long().reshape(-1).to(device)
    dtype = AUTOCAST[precision]
    scaler = grad_scaler(precision == "fp16" and device == "cuda")
    forward = compiled(model, mode, ("eager", "compile", "max-autotune"))

    def step(_):
        optimizer.zero_grad(set_to_none=True)
        with (torch.autocast(device_type=device, dtype=dtype) if dtype
              else contextlib.nullcontext()):
            loss = torch.nn.functional.cross_entropy(forward(tokens), targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    first_loss, loss, times, warm_seconds = time_steps(step, device, max(args.warmup, 1),
                                                       args.steps, args.repeats)
    ms = statistics.median(times)
    result = {"precision": precision, "mode": mode, "steps": args.steps,
              "repeats": args.repeats, "ms_per_step": ms, "ms_per_step_all": times,
              "tokens_per_s": args.batch * config.context / (ms * 1e-3),
              "first_loss": first_loss, "last_loss": float(loss),
              "warmup_seconds": warm_seconds, "fused_adamw": optimizer.defaults.get("fused")}
    if device == "cuda":
        result["peak_bytes"] = torch.cuda.max_memory_allocated()
    return result


def measure_attention(config, args, precision):
    """SDPA's forward and backward on one layer's [B, heads, T, head] shapes."""
    device, dtype = args.device, AUTOCAST[precision] or torch.float32
    shape = (args.batch, config.heads, config.context, config.width // config.heads)
    generator = torch.Generator(device="cpu").manual_seed(4)
    q, k, v = (torch.randn(shape, generator=generator).to(device, dtype).requires_grad_()
               for _ in range(3))
    grad = torch.randn(shape, generator=generator).to(device, dtype)

    def call(backward):
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        if backward:  # (the gradients returned, not accumulated into .grad)
            torch.autograd.grad(out, (q, k, v), grad)

    def timed(backward, calls):
        for _ in range(3):
            call(backward)
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            call(backward)
        if device == "cuda":
            torch.cuda.synchronize()
        return (time.perf_counter() - start) * 1e3 / calls

    calls = args.steps * 5
    forward_ms = timed(False, calls)
    both_ms = timed(True, calls)
    # Causal: half the S x S scores. Forward 2 GEMMs, backward 5 (FlashAttention-2's count).
    b, h, t, d = shape
    forward_flop = 2 * 2 * b * h * t * t * d / 2
    return {"precision": precision, "shape": list(shape), "causal": True,
            "forward_ms": forward_ms, "forward_backward_ms": both_ms,
            "forward_tflops": forward_flop / (forward_ms * 1e-3) / 1e12,
            "forward_backward_tflops": 3.5 * forward_flop / (both_ms * 1e-3) / 1e12}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["inputs", "train", "attention"])
    parser.add_argument("--config", choices=sorted(CONFIGS), default="small")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--out", help="inputs: the folder to write")
    parser.add_argument("--inputs", help="train: the folder `inputs` wrote")
    parser.add_argument("--runs", default="fp16:eager,bf16:eager,fp32:eager,fp16:compile,"
                        "bf16:compile", help="train: PRECISION:MODE,...")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.command == "inputs":
        if not args.out:
            parser.error("inputs needs --out")
        return write_inputs(args)
    if args.command == "train" and not args.inputs:
        parser.error("train needs --inputs")
    config = CONFIGS[args.config]

    results = {"torch": torch.__version__, "config": args.config, "batch": args.batch,
               "context": config.context, "device": args.device, "results": []}

    def write():
        return write_json(args.json, results)

    if args.device == "cuda" and not torch.cuda.is_available():
        results.update(skipped=True, reason="PyTorch sees no CUDA GPU")
        print("gpt2_peer.py: skipped: PyTorch sees no CUDA GPU", file=sys.stderr)
        write()
        return 0
    if args.device == "cuda":
        torch.set_float32_matmul_precision("highest")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        results["gpu"] = torch.cuda.get_device_name()
    results["tf32"] = False
    if args.command == "attention":
        runs = [("fp16", None), ("bf16", None)] if args.device == "cuda" else [("fp32", None)]
    else:
        runs = [tuple(run.split(":")) for run in args.runs.split(",")]
    for precision, mode in runs:
        if precision not in AUTOCAST:
            raise SystemExit("gpt2_peer.py: unknown precision '%s'" % precision)
        try:
            if args.command == "attention":
                result = measure_attention(config, args, precision)
            else:
                result = measure_training(config, args, precision, mode)
        except Exception as error:  # recorded: e.g. a mode this PyTorch cannot run
            result = {"precision": precision, "mode": mode, "error": repr(error)[:2000]}
        if args.device == "cuda":
            torch.cuda.empty_cache()
        print(json.dumps(result), file=sys.stderr)
        results["results"].append(result)
        write()
    text = write()
    if not args.json:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
