#!/usr/bin/python3
"""Writes an mpg graph of a stack of transformer blocks, the model of
bench/compile_time.py: examples/transformer_block.mlir's pre-norm block
(4-head self-attention, GELU MLP, residuals) repeated BLOCKS times between
the token and position embeddings and the final layer-norm and vocabulary
projection; AdamW.

  bench/make_transformer.py BLOCKS [-o FILE]   (default: standard output)
"""
import argparse
import sys

B, S, D, H, DH, V, F = 8, 16, 64, 4, 16, 32, 256
T = "tensor<%sxf32>"


def t(*dims):
    return T % "x".join(str(d) for d in dims)


def block(i, x):
    """The ops of block i reading %x; returns (lines, params, result name)."""
    p = "b%d." % i
    params = [
        (p + "ln1.weight", "ones", t(D)), (p + "ln1.bias", "zeros", t(D)),
        (p + "q.weight", "glorot_uniform", t(D, D)), (p + "q.bias", "zeros", t(D)),
        (p + "k.weight", "glorot_uniform", t(D, D)), (p + "k.bias", "zeros", t(D)),
        (p + "v.weight", "glorot_uniform", t(D, D)), (p + "v.bias", "zeros", t(D)),
        (p + "out.weight", "glorot_uniform", t(D, D)), (p + "out.bias", "zeros", t(D)),
        (p + "ln2.weight", "ones", t(D)), (p + "ln2.bias", "zeros", t(D)),
        (p + "fc1.weight", "he_normal", t(D, F)), (p + "fc1.bias", "zeros", t(F)),
        (p + "fc2.weight", "glorot_uniform", t(F, D)), (p + "fc2.bias", "zeros", t(D)),
    ]
    n = "b%d_" % i
    w = lambda name: "%" + p + name
    lines = [
        "  %{n}ln1 = mpg.layer_norm %{x}, {a}, {b} : {t3}, {td}, {td} -> {t3}",
        "  %{n}ln1f = mpg.reshape %{n}ln1 : {t3} -> {t2}",
    ]
    for proj in ("q", "k", "v"):
        lines += [line.replace("@", proj) for line in (
            "  %{n}@mm = mpg.matmul %{n}ln1f, %{p}@.weight : {t2}, {tdd} -> {t2}",
            "  %{n}@ = mpg.add %{n}@mm, %{p}@.bias : {t2}, {td} -> {t2}",
            "  %{n}@4 = mpg.reshape %{n}@ : {t2} -> {t4a}",
            "  %{n}@t = mpg.transpose %{n}@4 perm [0, 2, 1, 3] : {t4a} -> {t4b}",
            "  %{n}@h = mpg.reshape %{n}@t : {t4b} -> {th}")]
    lines += [
        "  %{n}raw = mpg.batch_matmul %{n}qh, %{n}kh transpose_b : {th}, {th} -> {ts}",
        "  %{n}scale = mpg.constant dense<0.25> : tensor<f32>",
        "  %{n}scores = mpg.mul %{n}raw, %{n}scale : {ts}, tensor<f32> -> {ts}",
        "  %{n}probs = mpg.softmax %{n}scores : {ts} -> {ts}",
        "  %{n}ctxh = mpg.batch_matmul %{n}probs, %{n}vh : {ts}, {th} -> {th}",
        "  %{n}ctx4 = mpg.reshape %{n}ctxh : {th} -> {t4b}",
        "  %{n}ctxt = mpg.transpose %{n}ctx4 perm [0, 2, 1, 3] : {t4b} -> {t4a}",
        "  %{n}ctx = mpg.reshape %{n}ctxt : {t4a} -> {t2}",
        "  %{n}amm = mpg.matmul %{n}ctx, " + w("out.weight") + " : {t2}, {tdd} -> {t2}",
        "  %{n}af = mpg.add %{n}amm, " + w("out.bias") + " : {t2}, {td} -> {t2}",
        "  %{n}a = mpg.reshape %{n}af : {t2} -> {t3}",
        "  %{n}x1 = mpg.add %{x}, %{n}a : {t3}, {t3} -> {t3}",
        "  %{n}ln2 = mpg.layer_norm %{n}x1, {c}, {d} : {t3}, {td}, {td} -> {t3}",
        "  %{n}ln2f = mpg.reshape %{n}ln2 : {t3} -> {t2}",
        "  %{n}f1mm = mpg.matmul %{n}ln2f, " + w("fc1.weight") + " : {t2}, {tdf} -> {t2f}",
        "  %{n}f1 = mpg.add %{n}f1mm, " + w("fc1.bias") + " : {t2f}, {tf} -> {t2f}",
        "  %{n}g = mpg.gelu %{n}f1 : {t2f}",
        "  %{n}f2mm = mpg.matmul %{n}g, " + w("fc2.weight") + " : {t2f}, {tfd} -> {t2}",
        "  %{n}f2 = mpg.add %{n}f2mm, " + w("fc2.bias") + " : {t2}, {td} -> {t2}",
        "  %{n}m = mpg.reshape %{n}f2 : {t2} -> {t3}",
        "  %{n}x2 = mpg.add %{n}x1, %{n}m : {t3}, {t3} -> {t3}",
    ]
    values = dict(n=n, p=p, x=x, a=w("ln1.weight"), b=w("ln1.bias"), c=w("ln2.weight"),
                  d=w("ln2.bias"), t3=t(B, S, D), t2=t(B * S, D), td=t(D), tdd=t(D, D),
                  t4a=t(B, S, H, DH), t4b=t(B, H, S, DH), th=t(B * H, S, DH),
                  ts=t(B * H, S, S), tdf=t(D, F), t2f=t(B * S, F), tf=t(F), tfd=t(F, D))
    return [line.format(**values) for line in lines], params, n + "x2"


def graph(blocks):
    params = [("tok_emb.weight", "normal, std = 0.02", t(V, D)),
              ("pos_emb", "normal, std = 0.02", t(S, D))]
    body = ["  %tok = mpg.embedding %tok_emb.weight, %tokens : {}, tensor<{}x{}xi32> -> {}".format(
                t(V, D), B, S, t(B, S, D)),
            "  %x0 = mpg.add %tok, %pos_emb : {}, {} -> {}".format(t(B, S, D), t(S, D), t(B, S, D))]
    x = "x0"
    for i in range(blocks):
        lines, block_params, x = block(i, x)
        params += block_params
        body += lines
    params += [("ln_f.weight", "ones", t(D)), ("ln_f.bias", "zeros", t(D)),
               ("lm_head.weight", "glorot_uniform", t(D, V)), ("lm_head.bias", "zeros", t(V))]
    body += [
        "  %lnf = mpg.layer_norm %{}, %ln_f.weight, %ln_f.bias : {}, {}, {} -> {}".format(
            x, t(B, S, D), t(D), t(D), t(B, S, D)),
        "  %lnff = mpg.reshape %lnf : {} -> {}".format(t(B, S, D), t(B * S, D)),
        "  %hmm = mpg.matmul %lnff, %lm_head.weight : {}, {} -> {}".format(t(B * S, D), t(D, V), t(B * S, V)),
        "  %logits = mpg.add %hmm, %lm_head.bias : {}, {} -> {}".format(t(B * S, V), t(V), t(B * S, V)),
        "  %tf = mpg.reshape %targets : tensor<{}x{}xi32> -> tensor<{}xi32>".format(B, S, B * S),
        "  %loss = mpg.softmax_cross_entropy %logits, %tf : {}, tensor<{}xi32> -> tensor<f32>".format(
            t(B * S, V), B * S),
        "  mpg.output \"logits\" %logits : {}".format(t(B * S, V)),
        "  mpg.minimize %loss optimizer(adamw, lr = 1.0e-3, weight_decay = 0.01) : tensor<f32>",
    ]
    head = ["// %d pre-norm transformer blocks (bench/make_transformer.py)." % blocks,
            "mpg.graph @transformer_%d {" % blocks,
            "  %tokens = mpg.input \"tokens\" : tensor<{}x{}xi32>".format(B, S),
            "  %targets = mpg.input \"targets\" : tensor<{}x{}xi32>".format(B, S)]
    head += ["  %%%s = mpg.param \"%s\" init(%s) : %s" % (name, name, init, ty)
             for name, init, ty in params]
    return "\n".join(head + body + ["}"]) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("blocks", type=int)
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    if args.blocks < 1:
        sys.exit("make_transformer.py: BLOCKS must be at least 1")
    text = graph(args.blocks)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
