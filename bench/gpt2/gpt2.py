#!/usr/bin/python3
"""GPT-2, defined once in PyTorch for mpc's tests and benchmarks, and its
ONNX export.

The architecture of GPT-2 (Radford et al., 2019; the layout of Karpathy's
nanoGPT and llm.c): token and learned position embeddings, pre-LN blocks of
causal multi-head attention and a 4x MLP with GPT-2's tanh GELU, a final
layer norm, and the output projection tied to the token embedding. The
attention is written out (scores, a causal mask, softmax, weighted sum),
which is what mpc imports from an ONNX export; dropout is left out (GPT-2
small's training runs keep it at 0 in these configurations).

Configurations (`CONFIGS`): "small" is GPT-2 small (12 layers, d_model
768, 12 heads, context 1024, vocabulary 50257: 124,439,808 parameters);
"mini" is the CPU benchmark's (6 x 384, 6 heads, context 256); "tiny" is
the test suite's (2 x 64, 4 heads, context 32, a character vocabulary).

  bench/gpt2/gpt2.py export --config small --batch 8 -o gpt2-small.onnx
  bench/gpt2/gpt2.py params --config small
  bench/gpt2/gpt2.py weights --config small -o gpt2-small.safetensors

`Gpt2(config, sdpa=True)` computes the same attention with PyTorch 2's
fused scaled_dot_product_attention and the same GELU with its fused op
(the peer of mpc's GPU benchmark); its parameters and their names are the
same.
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from configs import CONFIGS, Config  # noqa: E402,F401


def gelu_tanh(x):
    """GPT-2's GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


class Block(torch.nn.Module):
    def __init__(self, config, sdpa=False):
        super().__init__()
        c = config
        self.heads = c.heads
        self.sdpa = sdpa
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(c.width), torch.nn.LayerNorm(c.width)
        self.c_attn = torch.nn.Linear(c.width, 3 * c.width)
        self.c_proj = torch.nn.Linear(c.width, c.width)
        self.c_fc = torch.nn.Linear(c.width, 4 * c.width)
        self.mlp_proj = torch.nn.Linear(4 * c.width, c.width)
        # (added to the scores: -1e4 above the diagonal, a constant of the export)
        self.register_buffer("mask", torch.triu(torch.full((c.context, c.context), -1e4), 1))

    def attention(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        split = lambda z: z.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)  # noqa
        q, k, v = split(q), split(k), split(v)
        if self.sdpa:
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).reshape(b, t, c))
        scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(c // self.heads)) + self.mask
        y = torch.softmax(scores, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        # (the PyTorch 2 peer's form: the same formula as one fused op)
        gelu = (lambda z: torch.nn.functional.gelu(z, approximate="tanh")) if self.sdpa \
            else gelu_tanh
        return x + self.mlp_proj(gelu(self.c_fc(self.ln_2(x))))


class Gpt2(torch.nn.Module):
    """Tokens [B, T] (T the context) to logits [B * T, vocab]."""

    def __init__(self, config, sdpa=False):
        super().__init__()
        self.config = config
        self.wte = torch.nn.Embedding(config.vocab, config.width)
        self.wpe = torch.nn.Embedding(config.context, config.width)
        self.blocks = torch.nn.Sequential(*[Block(config, sdpa) for _ in range(config.layers)])
        self.ln_f = torch.nn.LayerNorm(config.width)
        # GPT-2's initialisation: N(0, 0.02), residual projections scaled
        # by 1/sqrt(2 * layers), zero biases.
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                std = 0.02 / math.sqrt(2 * config.layers) if "proj" in name else 0.02
                torch.nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                torch.nn.init.zeros_(p)

    def forward(self, tokens):
        positions = torch.arange(self.config.context, device=tokens.device)
        x = self.blocks(self.wte(tokens) + self.wpe(positions))
        return (self.ln_f(x) @ self.wte.weight.t()).reshape(-1, self.config.vocab)


def export(model, batch, path, opset=17):
    """Exports `model` for mpc (training mode, nothing folded). Import it
    with `--batch BATCH --constant '*mask' --loss softmax_cross_entropy`."""
    example = torch.zeros((batch, model.config.context), dtype=torch.int64)
    torch.onnx.export(model, example, path, opset_version=opset, input_names=["tokens"],
                      output_names=["logits"], training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False)


def mpc_weights(model):
    """{name: float32 array} of the model's parameters, as mpc names them
    (the export's initializers; the mask is a constant, not a parameter)."""
    return {name: p.detach().cpu().float().numpy() for name, p in model.named_parameters()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    exporting = sub.add_parser("export", help="write the ONNX model")
    exporting.add_argument("--config", choices=sorted(CONFIGS), required=True)
    exporting.add_argument("--batch", type=int, default=8)
    exporting.add_argument("--seed", type=int, default=0)
    exporting.add_argument("-o", "--output", required=True)
    counting = sub.add_parser("params", help="print the parameter count")
    counting.add_argument("--config", choices=sorted(CONFIGS), required=True)
    saving = sub.add_parser("weights", help="write the initial weights for mpc (--params, --init)")
    saving.add_argument("--config", choices=sorted(CONFIGS), required=True)
    saving.add_argument("--seed", type=int, default=0)
    saving.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    torch.manual_seed(getattr(args, "seed", 0))
    model = Gpt2(CONFIGS[args.config])
    if args.command == "params":
        print(sum(p.numel() for p in model.parameters()))
        return 0
    if args.command == "weights":
        import safetensors_file  # noqa: E402 (beside this file)
        safetensors_file.write(args.output, mpc_weights(model))
        print("%s: GPT-2 %s's weights, seed %d" % (args.output, args.config, args.seed))
        return 0
    export(model, args.batch, args.output)
    print("%s: GPT-2 %s, %d parameters, batch %d" % (
        args.output, args.config, sum(p.numel() for p in model.parameters()), args.batch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
