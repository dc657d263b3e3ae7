#!/usr/bin/python3
"""The GPU check's independent reference for GPT-2: one batch through the
model in float64 with PyTorch on the CPU, from the weights mpc runs.

Reads the weights `mpc compile` wrote beside a GPT-2 bundle (bench/gpt2/
gpt2.py's model, exported to ONNX), draws a batch of tokens and targets over
the whole vocabulary, and writes one safetensors file that mpc-gpu-check
(bench/runtime) compares the device against:
  input.tokens, input.targets   the batch ([B, T] int64 and int32)
  forward.logits, forward.loss  the forward step's outputs, float64
  update.NAME                   one SGD step's change to parameter NAME
                                (-lr x its float64 gradient of the mean loss)
The model must be compiled with `--optimizer sgd` (no momentum, no weight
decay) and the same --lr.

  bench/gpu/float64_reference.py --config tiny --batch 8 --lr 0.01 \\
      --weights gpt2_tiny.safetensors -o gpt2_tiny.reference.safetensors
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpt2"))
from gpt2 import CONFIGS, Gpt2  # noqa: E402
import safetensors_file  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--lr", type=float, required=True, help="the bundle's SGD learning rate")
    parser.add_argument("--weights", required=True,
                        help="the weights mpc compile wrote beside the bundle")
    parser.add_argument("--seed", type=int, default=5, help="of the batch")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    config = CONFIGS[args.config]

    model = Gpt2(config).double()
    weights = safetensors_file.read(args.weights)
    expected = {name for name, _ in model.named_parameters()}
    if set(weights) != expected:
        sys.exit("%s: its tensors %s are not the model's parameters %s" % (
            args.weights, sorted(set(weights) ^ expected), args.config))
    model.load_state_dict({k: torch.from_numpy(v.astype(np.float64)) for k, v in weights.items()},
                          strict=False)

    generator = np.random.default_rng(args.seed)
    shape = (args.batch, config.context)
    tokens = generator.integers(0, config.vocab, shape, dtype=np.int64)
    targets = generator.integers(0, config.vocab, shape).astype(np.int32)
    logits = model(torch.from_numpy(tokens))
    loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(targets).long().reshape(-1))
    loss.backward()

    arrays = {"input.tokens": tokens, "input.targets": targets,
              "forward.logits": logits.detach().numpy(), "forward.loss": loss.detach().numpy()}
    for name, parameter in model.named_parameters():
        arrays["update." + name] = (-args.lr * parameter.grad).numpy()
    safetensors_file.write(args.output, arrays)
    print("%s: GPT-2 %s, batch %d, loss %.6f, %d parameters' updates in float64" % (
        args.output, args.config, args.batch, loss.item(), len(expected)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
