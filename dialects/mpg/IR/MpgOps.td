//===- MpgOps.td - mpg dialect operations --------------------*- tablegen -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Op families, in the order of docs/design.md ("Dialects"): graph structure,
// dot-product, pointwise, reductions and normalisation, losses, shape,
// training (state, optimizers, loss scaling) and the gradient ops that
// autodiff emits where a forward op has no VJP in terms of other ops.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPG_OPS
#define MPC_DIALECT_MPG_OPS

include "dialects/mpg/IR/MpgBase.td"
include "dialects/mpg/IR/MpgInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

class Mpg_Op<string mnemonic, list<Trait> traits = []>
    : Op<Mpg_Dialect, mnemonic, traits>;

/// Ops with a VJP rule (MpgVjp.cpp).
def Mpg_Differentiable : DeclareOpInterfaceMethods<Mpg_DifferentiableOpInterface>;

//===----------------------------------------------------------------------===//
// Graph structure
//===----------------------------------------------------------------------===//

def Mpg_GraphOp : Mpg_Op<"graph", [IsolatedFromAbove, Symbol, SingleBlock,
                                   NoTerminator]> {
  let summary = "One training step of a model: inputs, parameters, forward, loss and optimizer.";
  let description = [{
    A named region holding a training graph. Its single block lists the
    graph's `mpg.input`s and `mpg.param`s, the forward computation, the
    `mpg.output`s and at most one `mpg.minimize`. Names of inputs, outputs and
    of parameters and state are unique within the graph; each state tensor is
    written at most once.

    ```mlir
    mpg.graph @affine {
      %x = mpg.input "x" : tensor<2x3xf32>
      %w = mpg.param "w" init(ones) : tensor<3x4xf32>
      %y = mpg.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
      mpg.output "y" %y : tensor<2x4xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "llvm::StringRef":$name)>];
  let skipDefaultBuilders = 1;
  let extraClassDeclaration = [{
    /// The graph's `mpg.minimize`, or null for an inference-only graph.
    MinimizeOp getMinimize();
  }];
}

def Mpg_InputOp : Mpg_Op<"input", [HasParent<"GraphOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A tensor fed to the step from outside (a batch of data or labels).";
  let description = [{
    Declares a named input of the graph; the runtime binds data to it by name.

    ```mlir
    %x = mpg.input "pixels" : tensor<64x64xf32>
    %y = mpg.input "labels" : tensor<64xi32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Mpg_ParamOp : Mpg_Op<"param", [HasParent<"GraphOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A named model parameter with its initializer.";
  let description = [{
    Declares a parameter. Parameters are trainable unless marked `frozen`;
    autodiff gives gradients to trainable parameters only. The initializer
    and its arguments are described under `#mpg.init`.

    ```mlir
    %w = mpg.param "fc1.weight" init(glorot_uniform) : tensor<64x128xf32>
    %b = mpg.param "fc1.bias" init(zeros) : tensor<128xf32>
    %e = mpg.param "embed" frozen init(normal, std = 2.000000e-02) : tensor<96x32xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Mpg_InitializerAttr:$init, UnitAttr:$frozen);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $name (`frozen` $frozen^)? `init` `` custom<KindAndArgs>($init) attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isTrainable() { return !getFrozen(); }
  }];
}

def Mpg_ConstantOp : Mpg_Op<"constant", [ConstantLike, Pure,
                                         AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor.";
  let description = [{
    ```mlir
    %half = mpg.constant dense<5.000000e-01> : tensor<f32>
    %ids = mpg.constant dense<[0, 2, 1]> : tensor<3xi32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Mpg_OutputOp : Mpg_Op<"output", [HasParent<"GraphOp">]> {
  let summary = "Marks a value as a named output of the step.";
  let description = [{
    Outputs are what `mpc run` and the runtime read back by name after a
    step (logits, predictions, metrics).

    ```mlir
    mpg.output "logits" %logits : tensor<64x10xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Mpg_Tensor:$value);
  let assemblyFormat = "$name $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Mpg_MinimizeOp : Mpg_Op<"minimize", [HasParent<"GraphOp">]> {
  let summary = "Names the scalar loss of the step and the optimizer that minimizes it.";
  let description = [{
    The loss is a rank-0 float tensor. The optimizer and its hyper-parameters
    are described under `#mpg.optimizer`. `mpg-autodiff` replaces this op by
    the backward graph and the parameter updates.

    ```mlir
    mpg.minimize %loss optimizer(sgd, lr = 1.000000e-01, momentum = 9.000000e-01) : tensor<f32>
    mpg.minimize %loss optimizer(adamw, lr = 1.000000e-03, weight_decay = 1.000000e-02) : tensor<f32>
    ```
  }];
  let arguments = (ins Mpg_FloatScalar:$loss, Mpg_OptimizerAttr:$optimizer);
  let assemblyFormat = [{
    $loss `optimizer` `` custom<KindAndArgs>($optimizer) attr-dict `:` type($loss)
  }];
}

def Mpg_FusionOp : Mpg_Op<"fusion", [IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">,
                                     RecursiveMemoryEffects]> {
  let summary = "A fusion group: ops that become one kernel launch or library call.";
  let description = [{
    Made by `mpg-fuse`. The region computes the group's results from its
    block arguments, which stand for the operands; `mpg.yield` returns the
    values used outside the group. The kind says how the group lowers:

    | kind        | contents                                                      |
    |-------------|---------------------------------------------------------------|
    | `pointwise` | pointwise ops whose results all have the group's shape        |
    | `reduction` | one reduction, its pointwise prologue and epilogue            |
    | `row`       | one softmax, log_softmax, layer_norm, softmax_cross_entropy or its gradient |
    | `gemm`      | one matmul/batch_matmul and a cuBLASLt epilogue (bias, relu, gelu) |
    | `conv`      | one conv2d                                                    |
    | `single`    | one op with a kernel of its own (pooling, transpose, ...)     |

    ```mlir
    %h = mpg.fusion gemm(%x, %w, %b : tensor<64x64xf32>, tensor<64x128xf32>, tensor<128xf32>)
        -> tensor<64x128xf32> {
    ^bb0(%a: tensor<64x64xf32>, %c: tensor<64x128xf32>, %d: tensor<128xf32>):
      %0 = mpg.matmul %a, %c : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
      %1 = mpg.add %0, %d : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
      %2 = mpg.relu %1 : tensor<64x128xf32>
      mpg.yield %2 : tensor<64x128xf32>
    }
    ```
  }];
  let arguments = (ins Mpg_FusionKind:$kind, Variadic<Mpg_Tensor>:$inputs);
  let results = (outs Variadic<Mpg_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` ($inputs^ `:` type($inputs))? `)` `->` type($results) attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "FusionKind":$kind, "mlir::ValueRange":$inputs,
                                "mlir::TypeRange":$resultTypes)>];
}

def Mpg_YieldOp : Mpg_Op<"yield", [Pure, Terminator, ReturnLike, HasParent<"FusionOp">]> {
  let summary = "Returns the results of a fusion group.";
  let description = [{
    ```mlir
    mpg.yield %0, %1 : tensor<64x128xf32>, tensor<64x128xf16>
    ```
  }];
  let arguments = (ins Variadic<Mpg_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* empty yield */ }]>];
}

//===----------------------------------------------------------------------===//
// Dot-product ops
//===----------------------------------------------------------------------===//

def Mpg_MatmulOp : Mpg_Op<"matmul", [Pure, Mpg_Differentiable, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
  let summary = "Matrix product of two rank-2 tensors, with optional transposes.";
  let description = [{
    `result = op(lhs) x op(rhs)` where `op` transposes when `transpose_a` /
    `transpose_b` is set. Both operands have the same float element type; the
    result may have another float type (the accumulation is the compiler's
    decision: fp16 operands accumulate in fp32).

    ```mlir
    %y = mpg.matmul %x, %w : tensor<64x784xf32>, tensor<784x128xf32> -> tensor<64x128xf32>
    %g = mpg.matmul %x, %dy transpose_a : tensor<64x784xf32>, tensor<64x128xf32> -> tensor<784x128xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$lhs, Mpg_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Mpg_BatchMatmulOp : Mpg_Op<"batch_matmul", [Pure, Mpg_Differentiable, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
  let summary = "Batched matrix product over identical leading dimensions.";
  let description = [{
    Operands of rank >= 3 with identical leading (batch) dimensions; the last
    two dimensions are multiplied as in `mpg.matmul`, with the same transpose
    flags and the same rule for the result's element type.

    ```mlir
    %scores = mpg.batch_matmul %q, %k transpose_b
        : tensor<8x16x32xf32>, tensor<8x16x32xf32> -> tensor<8x16x16xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$lhs, Mpg_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Mpg_AttentionOp : Mpg_Op<"attention", [Pure, Mpg_Differentiable]> {
  let hasVerifier = 1;
  let summary = "Scaled dot-product attention, fused: the S x S probabilities are never stored.";
  let description = [{
    For queries `[..., Sq, D]`, keys and values `[..., Sk, D]` (identical
    leading batch dimensions, such as batch and heads):
    `scores = scale * query x key^T + mask`, with the elements above the
    diagonal (key index > query index) left out when `causal` is set
    (then Sq = Sk); `result = softmax(scores) x value` along the keys, and
    `lse` (f32, `[..., Sq]`) the natural log of each row's sum of
    `exp(scores)`, which the backward pass (`mpg.attention_grad`) reads
    instead of the probabilities. The optional additive `mask` is `[Sq, Sk]`,
    the same for every batch element, and gets no gradient. The softmax is
    computed online over blocks of keys with fp32 statistics; the products
    accumulate in fp32 whatever the operands' type. The result has the
    query's element type.

    `mpg-fuse-attention` forms this op from the written-out pattern
    (batch_matmul, scale, mask, softmax, batch_matmul) that an ONNX export
    of a hand-written attention block gives.

    ```mlir
    %y, %lse = mpg.attention %q, %k, %v scale 0.125 causal
        : tensor<8x12x1024x64xf16>, tensor<8x12x1024x64xf16>, tensor<8x12x1024x64xf16>
        -> tensor<8x12x1024x64xf16>, tensor<8x12x1024xf32>
    %z, %lse2 = mpg.attention %q, %k, %v mask(%m : tensor<16x16xf32>) scale 0.25
        : tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x32xf32>
        -> tensor<2x16x32xf32>, tensor<2x16xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$query, Mpg_FloatTensor:$key, Mpg_FloatTensor:$value,
                       Optional<Mpg_FloatTensor>:$mask, F64Attr:$scale, UnitAttr:$causal);
  let results = (outs Mpg_FloatTensor:$result, Mpg_FloatTensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)? `scale` $scale
    (`causal` $causal^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($result) `,` type($lse)
  }];
}

def Mpg_ConvAttrs {
  dag attrs = (ins OptionalAttr<DenseI64ArrayAttr>:$stride,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilation,
                   OptionalAttr<I64Attr>:$groups);
  string format = [{
    (`stride` $stride^)? (`padding` $padding^)? (`dilation` $dilation^)? (`groups` $groups^)?
  }];
  code accessors = [{
    /// Stride [h, w]; [1, 1] when absent.
    llvm::SmallVector<int64_t, 2> getStrideValues();
    /// Padding [top, left, bottom, right]; zeros when absent.
    llvm::SmallVector<int64_t, 4> getPaddingValues();
    /// Dilation [h, w]; [1, 1] when absent.
    llvm::SmallVector<int64_t, 2> getDilationValues();
    /// Number of groups; 1 when absent.
    int64_t getGroupCount();
  }];
}

def Mpg_Conv2DOp : Mpg_Op<"conv2d", [Pure, Mpg_Differentiable, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
  let summary = "2-D convolution (cross-correlation) in NCHW layout.";
  let description = [{
    `input` is `[N, C, H, W]`, `filter` is `[O, C / groups, kH, kW]`, the
    result is `[N, O, Ho, Wo]` with
    `Ho = (H + top + bottom - dilation_h * (kH - 1) - 1) / stride_h + 1`
    (likewise `Wo`). `stride` and `dilation` are `[h, w]` (default 1),
    `padding` is `[top, left, bottom, right]` (default 0), `groups` divides
    both C and O (default 1). The result's float type may differ from the
    operands' as for `mpg.matmul`.

    ```mlir
    %y = mpg.conv2d %x, %w stride [2, 2] padding [1, 1, 1, 1]
        : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32> -> tensor<8x16x16x16xf32>
    ```
  }];
  let arguments = !con((ins Mpg_FloatTensor:$input, Mpg_FloatTensor:$filter),
                       Mpg_ConvAttrs.attrs);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = !strconcat("$input `,` $filter ", Mpg_ConvAttrs.format,
      "attr-dict `:` type($input) `,` type($filter) `->` type($result)");
  let extraClassDeclaration = Mpg_ConvAttrs.accessors;
}

//===----------------------------------------------------------------------===//
// Pointwise ops
//===----------------------------------------------------------------------===//

class Mpg_UnaryOp<string mnemonic, Type type, string summ, string example,
                  list<Trait> traits = []>
    : Mpg_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                    InferTypeOpInterface, Mpg_Differentiable], traits)> {
  let summary = summ;
  let description = "Applied elementwise.\n\n```mlir\n" # example # "\n```";
  let arguments = (ins type:$operand);
  let results = (outs type:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Mpg_NegOp : Mpg_UnaryOp<"neg", Mpg_NumericTensor, "Elementwise negation.",
    "%y = mpg.neg %x : tensor<4x8xf32>">;
def Mpg_AbsOp : Mpg_UnaryOp<"abs", Mpg_NumericTensor, "Elementwise absolute value.",
    "%y = mpg.abs %x : tensor<4x8xf32>">;
def Mpg_ExpOp : Mpg_UnaryOp<"exp", Mpg_FloatTensor, "Elementwise natural exponential.",
    "%y = mpg.exp %x : tensor<4x8xf32>">;
def Mpg_LogOp : Mpg_UnaryOp<"log", Mpg_FloatTensor, "Elementwise natural logarithm.",
    "%y = mpg.log %x : tensor<4x8xf32>">;
def Mpg_SqrtOp : Mpg_UnaryOp<"sqrt", Mpg_FloatTensor, "Elementwise square root.",
    "%y = mpg.sqrt %x : tensor<4x8xf32>">;
def Mpg_RsqrtOp : Mpg_UnaryOp<"rsqrt", Mpg_FloatTensor, "Elementwise reciprocal square root.",
    "%y = mpg.rsqrt %x : tensor<4x8xf32>">;
def Mpg_TanhOp : Mpg_UnaryOp<"tanh", Mpg_FloatTensor, "Elementwise hyperbolic tangent.",
    "%y = mpg.tanh %x : tensor<4x8xf32>">;
def Mpg_SinOp : Mpg_UnaryOp<"sin", Mpg_FloatTensor, "Elementwise sine (radians).",
    "%y = mpg.sin %x : tensor<4x8xf32>">;
def Mpg_CosOp : Mpg_UnaryOp<"cos", Mpg_FloatTensor, "Elementwise cosine (radians).",
    "%y = mpg.cos %x : tensor<4x8xf32>">;
def Mpg_SigmoidOp : Mpg_UnaryOp<"sigmoid", Mpg_FloatTensor,
    "Elementwise logistic sigmoid, 1 / (1 + exp(-x)).",
    "%y = mpg.sigmoid %x : tensor<4x8xf32>">;
def Mpg_ReluOp : Mpg_UnaryOp<"relu", Mpg_FloatTensor, "Elementwise max(x, 0).",
    "%y = mpg.relu %x : tensor<4x8xf32>">;

def Mpg_LeakyReluOp : Mpg_UnaryOp<"leaky_relu", Mpg_FloatTensor,
    "Elementwise x for x > 0, alpha * x otherwise.",
    "%y = mpg.leaky_relu %x alpha 2.000000e-01 : tensor<4x8xf32>"> {
  let description = [{
    Applied elementwise; `alpha` (default 0.01) is finite and >= 0.

    ```mlir
    %y = mpg.leaky_relu %x alpha 2.000000e-01 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$operand,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
  let assemblyFormat = "$operand (`alpha` $alpha^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Mpg_GeluOp : Mpg_UnaryOp<"gelu", Mpg_FloatTensor,
    "Elementwise Gaussian error linear unit, x * Phi(x).",
    "%y = mpg.gelu %x : tensor<4x8xf32>"> {
  let description = [{
    `x * Phi(x)` with the exact normal CDF, or with the tanh approximation
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` when `approximate` is
    set (cuBLASLt's GELU epilogue uses the approximation).

    ```mlir
    %y = mpg.gelu %x : tensor<4x8xf32>
    %z = mpg.gelu %x approximate : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$operand, UnitAttr:$approximate);
  let assemblyFormat = "$operand (`approximate` $approximate^)? attr-dict `:` type($result)";
}

class Mpg_BroadcastBinaryOp<string mnemonic, Type type, string summ>
    : Mpg_Op<mnemonic, [Pure, InferTypeOpAdaptor, Mpg_Differentiable]> {
  let hasVerifier = 1;
  let summary = summ;
  let description = [{
    Elementwise with NumPy broadcasting: shapes are aligned at the trailing
    dimension and a dimension of size 1 (or a missing one) stretches to the
    other. Both operands have the same element type.

    ```mlir
    %y = mpg.}] # mnemonic # [{ %a, %b : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Mpg_AddOp : Mpg_BroadcastBinaryOp<"add", Mpg_NumericTensor, "Elementwise sum with broadcasting.">;
def Mpg_SubOp : Mpg_BroadcastBinaryOp<"sub", Mpg_NumericTensor, "Elementwise difference with broadcasting.">;
def Mpg_MulOp : Mpg_BroadcastBinaryOp<"mul", Mpg_NumericTensor, "Elementwise product with broadcasting.">;
def Mpg_DivOp : Mpg_BroadcastBinaryOp<"div", Mpg_NumericTensor,
    "Elementwise quotient with broadcasting (integer division truncates).">;
def Mpg_PowOp : Mpg_BroadcastBinaryOp<"pow", Mpg_FloatTensor,
    "Elementwise lhs raised to the power rhs, with broadcasting.">;
def Mpg_MaximumOp : Mpg_BroadcastBinaryOp<"maximum", Mpg_NumericTensor,
    "Elementwise maximum with broadcasting.">;
def Mpg_MinimumOp : Mpg_BroadcastBinaryOp<"minimum", Mpg_NumericTensor,
    "Elementwise minimum with broadcasting.">;

def Mpg_CompareOp : Mpg_Op<"compare", [Pure, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "Elementwise comparison with broadcasting, giving an i1 tensor.";
  let description = [{
    Predicates: `eq ne lt le gt ge`. Operands have the same element type and
    broadcast as for `mpg.add`.

    ```mlir
    %m = mpg.compare gt, %x, %zero : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Mpg_ComparePredicate:$predicate,
                       Mpg_NumericTensor:$lhs, Mpg_NumericTensor:$rhs);
  let results = (outs Mpg_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
}

def Mpg_SelectOp : Mpg_Op<"select", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "Elementwise choice between two tensors by an i1 condition, with broadcasting.";
  let description = [{
    `result[i] = cond[i] ? on_true[i] : on_false[i]`; the three operands
    broadcast together; `on_true` and `on_false` have the same element type.

    ```mlir
    %y = mpg.select %m, %x, %zero
        : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Mpg_BoolTensor:$cond, Mpg_Tensor:$on_true, Mpg_Tensor:$on_false);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,` type($on_true) `,`
    type($on_false) `->` type($result)
  }];
}

def Mpg_CastOp : Mpg_Op<"cast", [Pure, Mpg_Differentiable, SameOperandsAndResultShape]> {
  let summary = "Elementwise conversion to another element type.";
  let description = [{
    Float to float rounds to nearest even; float to integer truncates toward
    zero; to i1 tests for non-zero. Precision assignment inserts these at
    the boundaries between fp16 and fp32 regions.

    ```mlir
    %h = mpg.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
    ```

    Folds away when the type does not change. A cast of a cast that widens
    exactly (f16 or bf16 to f32 or f64, f32 to f64) casts the first one's
    operand instead: the same value, rounded once either way; back to the
    operand's own type, it is the operand.
  }];
  let arguments = (ins Mpg_Tensor:$operand);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, normalisation and pooling
//===----------------------------------------------------------------------===//

class Mpg_ReduceOp<string mnemonic, string summ, Type type, list<Trait> traits>
    : Mpg_Op<mnemonic, !listconcat([Pure, Mpg_Differentiable], traits)> {
  let hasVerifier = 1;
  let summary = summ;
  let description = [{
    Reduces over `axes` (distinct, each in [-rank, rank); negative counts
    from the end). With `keepdim` the reduced dimensions stay with size 1.

    ```mlir
    %s = mpg.}] # mnemonic # [{ %x axes [1] : tensor<64x10xf32> -> tensor<64xf32>
    %k = mpg.}] # mnemonic # [{ %x axes [0, 1] keepdim : tensor<64x10xf32> -> tensor<1x1xf32>
    ```
  }];
  let arguments = (ins type:$operand, DenseI64ArrayAttr:$axes, UnitAttr:$keepdim);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $operand `axes` $axes (`keepdim` $keepdim^)? attr-dict `:` type($operand) `->` type($result)
  }];
}

def Mpg_ReduceSumOp : Mpg_ReduceOp<"reduce_sum", "Sum over the given axes.",
    Mpg_NumericTensor, [InferTypeOpAdaptorWithIsCompatible]>;
def Mpg_ReduceMeanOp : Mpg_ReduceOp<"reduce_mean", "Mean over the given axes.",
    Mpg_FloatTensor, [InferTypeOpAdaptorWithIsCompatible]>;
def Mpg_ReduceMaxOp : Mpg_ReduceOp<"reduce_max", "Maximum over the given axes.",
    Mpg_NumericTensor, [InferTypeOpAdaptor]>;

class Mpg_SoftmaxLikeOp<string mnemonic, string summ, string formula>
    : Mpg_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible, Mpg_Differentiable]> {
  let hasVerifier = 1;
  let summary = summ;
  let description = "`" # formula # "` along `axis` (default -1, the last "
      # "dimension). Computed in fp32 whatever the storage type; the result "
      # "may have another float type than the operand.\n\n```mlir\n%p = mpg."
      # mnemonic # " %logits axis 1 : tensor<64x10xf32> -> tensor<64x10xf32>\n```";
  let arguments = (ins Mpg_FloatTensor:$operand, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $operand (`axis` $axis^)? attr-dict `:` type($operand) `->` type($result)
  }];
}

def Mpg_SoftmaxOp : Mpg_SoftmaxLikeOp<"softmax", "Softmax along one axis.",
    "exp(x - max) / sum(exp(x - max))">;
def Mpg_LogSoftmaxOp : Mpg_SoftmaxLikeOp<"log_softmax", "Logarithm of the softmax along one axis.",
    "x - max - log(sum(exp(x - max)))">;

def Mpg_LayerNormOp : Mpg_Op<"layer_norm", [Pure, Mpg_Differentiable, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
  let summary = "Layer normalisation over the trailing dimensions from `axis`, with scale and shift.";
  let description = [{
    Normalises over dimensions `axis ... rank-1` (default -1: the last one):
    `(x - mean) / sqrt(var + eps) * gamma + beta`, with the biased variance.
    `gamma` and `beta` have the shape of the normalised dimensions. `eps`
    (default 1e-5) is > 0.

    ```mlir
    %y = mpg.layer_norm %x, %gamma, %beta
        : tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<4x16x64xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$operand, Mpg_FloatTensor:$gamma,
                       Mpg_FloatTensor:$beta,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $operand `,` $gamma `,` $beta (`axis` $axis^)? (`eps` $eps^)? attr-dict
    `:` type($operand) `,` type($gamma) `,` type($beta) `->` type($result)
  }];
}

def Mpg_BatchNormOp : Mpg_Op<"batch_norm", [Pure, Mpg_Differentiable, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
  let summary = "Batch normalisation in training mode, with the running statistics update.";
  let description = [{
    `input` is `[N, C, ...]`; statistics are taken per channel C over every
    other dimension. The result is `(x - mean) / sqrt(var + eps) * gamma + beta`
    with the batch mean and biased batch variance; the op also returns the
    updated running statistics
    `new = (1 - momentum) * running + momentum * batch` (the running variance
    takes the unbiased batch variance, as PyTorch does). `gamma`, `beta`,
    `running_mean` and `running_var` are `[C]`. `eps` > 0, `momentum` in [0, 1].

    ```mlir
    %y, %mean2, %var2 = mpg.batch_norm %x, %gamma, %beta, %mean, %var momentum 1.000000e-01
        : tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
        -> tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$operand, Mpg_FloatTensor:$gamma,
                       Mpg_FloatTensor:$beta, Mpg_FloatTensor:$running_mean,
                       Mpg_FloatTensor:$running_var,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Mpg_FloatTensor:$result, Mpg_FloatTensor:$new_running_mean,
                      Mpg_FloatTensor:$new_running_var);
  let assemblyFormat = [{
    $operand `,` $gamma `,` $beta `,` $running_mean `,` $running_var
    (`momentum` $momentum^)? (`eps` $eps^)? attr-dict
    `:` type($operand) `,` type($gamma) `,` type($beta) `,` type($running_mean) `,`
    type($running_var) `->` type($result) `,` type($new_running_mean) `,` type($new_running_var)
  }];
}

def Mpg_PoolAttrs {
  dag attrs = (ins DenseI64ArrayAttr:$kernel,
                   OptionalAttr<DenseI64ArrayAttr>:$stride,
                   OptionalAttr<DenseI64ArrayAttr>:$padding);
  string format = "`kernel` $kernel (`stride` $stride^)? (`padding` $padding^)? ";
  code accessors = [{
    /// Stride [h, w]; the kernel size when absent (as in PyTorch).
    llvm::SmallVector<int64_t, 2> getStrideValues();
    /// Padding [top, left, bottom, right]; zeros when absent.
    llvm::SmallVector<int64_t, 4> getPaddingValues();
  }];
}

def Mpg_MaxPool2DOp : Mpg_Op<"max_pool2d", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "2-D max pooling in NCHW layout.";
  let description = [{
    `kernel` and `stride` are `[h, w]` (stride defaults to the kernel),
    `padding` is `[top, left, bottom, right]` (default 0, each smaller than
    the kernel); padded positions never win. The output size follows the
    convolution formula with dilation 1.

    ```mlir
    %y = mpg.max_pool2d %x kernel [2, 2] : tensor<8x16x28x28xf32> -> tensor<8x16x14x14xf32>
    ```
  }];
  let arguments = !con((ins Mpg_FloatTensor:$operand), Mpg_PoolAttrs.attrs);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = !strconcat("$operand ", Mpg_PoolAttrs.format,
      "attr-dict `:` type($operand) `->` type($result)");
  let extraClassDeclaration = Mpg_PoolAttrs.accessors;
}

def Mpg_AvgPool2DOp : Mpg_Op<"avg_pool2d", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "2-D average pooling in NCHW layout.";
  let description = [{
    As `mpg.max_pool2d`; the average divides by the number of positions
    inside the input, or by the full window when `count_include_pad` is set.

    ```mlir
    %y = mpg.avg_pool2d %x kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1]
        : tensor<8x16x28x28xf32> -> tensor<8x16x28x28xf32>
    ```
  }];
  let arguments = !con((ins Mpg_FloatTensor:$operand), Mpg_PoolAttrs.attrs,
                       (ins UnitAttr:$count_include_pad));
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = !strconcat("$operand ", Mpg_PoolAttrs.format,
      "(`count_include_pad` $count_include_pad^)? attr-dict `:` type($operand) `->` type($result)");
  let extraClassDeclaration = Mpg_PoolAttrs.accessors;
}

def Mpg_GlobalAvgPoolOp : Mpg_Op<"global_avg_pool", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "Mean over the spatial dimensions of an NCHW tensor, giving [N, C].";
  let description = [{
    ```mlir
    %f = mpg.global_avg_pool %x : tensor<8x32x7x7xf32> -> tensor<8x32xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$operand);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Mpg_SoftmaxCrossEntropyOp : Mpg_Op<"softmax_cross_entropy",
                                       [Pure, Mpg_Differentiable, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
  let summary = "Mean cross-entropy of softmax(logits) against integer class labels.";
  let description = [{
    `logits` is `[N, C]`, `labels` is `[N]` of i32 or i64 with values in
    [0, C); the result is the rank-0 mean over the batch of
    `-log_softmax(logits)[n, labels[n]]`, computed in fp32.

    ```mlir
    %loss = mpg.softmax_cross_entropy %logits, %labels
        : tensor<64x10xf32>, tensor<64xi32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$logits, Mpg_IntTensor:$labels);
  let results = (outs Mpg_FloatScalar:$result);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels) `->` type($result)
  }];
}

def Mpg_MseLossOp : Mpg_Op<"mse_loss", [Pure, Mpg_Differentiable, InferTypeOpAdaptorWithIsCompatible]> {
  let hasVerifier = 1;
  let summary = "Mean squared error between two tensors of the same shape.";
  let description = [{
    The rank-0 mean over all elements of `(prediction - target)^2`.

    ```mlir
    %loss = mpg.mse_loss %pred, %target : tensor<32x1xf32>, tensor<32x1xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$prediction, Mpg_FloatTensor:$target);
  let results = (outs Mpg_FloatScalar:$result);
  let assemblyFormat = [{
    $prediction `,` $target attr-dict `:` type($prediction) `,` type($target) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Mpg_ReshapeOp : Mpg_Op<"reshape", [Pure, Mpg_Differentiable]> {
  let summary = "Reinterprets a tensor with another shape of the same element count.";
  let description = [{
    Row-major order is kept; the element type does not change.

    ```mlir
    %flat = mpg.reshape %x : tensor<8x32x7x7xf32> -> tensor<8x1568xf32>
    ```

    Folds away to its operand when the shape does not change, and a
    reshape of a reshape reads the first one's operand.
  }];
  let arguments = (ins Mpg_Tensor:$operand);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Mpg_TransposeOp : Mpg_Op<"transpose", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "Permutes the dimensions of a tensor.";
  let description = [{
    Result dimension `i` is operand dimension `perm[i]`.

    ```mlir
    %t = mpg.transpose %x perm [0, 2, 1, 3]
        : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
    ```
  }];
  let arguments = (ins Mpg_Tensor:$operand, DenseI64ArrayAttr:$perm);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "$operand `perm` $perm attr-dict `:` type($operand) `->` type($result)";
}

def Mpg_BroadcastToOp : Mpg_Op<"broadcast_to", [Pure, Mpg_Differentiable]> {
  let summary = "Broadcasts a tensor to a larger shape by NumPy rules.";
  let description = [{
    The result shape is the type's; the operand must broadcast to it
    (trailing alignment, size-1 or missing dimensions stretch).

    ```mlir
    %b = mpg.broadcast_to %bias : tensor<128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Mpg_Tensor:$operand);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
}

def Mpg_SliceAttrs {
  dag attrs = (ins DenseI64ArrayAttr:$start, DenseI64ArrayAttr:$limit,
                   OptionalAttr<DenseI64ArrayAttr>:$step);
  string format = "`start` $start `limit` $limit (`step` $step^)? ";
  code accessors = [{
    /// The step per dimension; all ones when absent.
    llvm::SmallVector<int64_t, 4> getStepValues();
  }];
}

def Mpg_SliceOp : Mpg_Op<"slice", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "A strided window of a tensor.";
  let description = [{
    Per dimension `d`: indices `start[d], start[d] + step[d], ...` below
    `limit[d]`, with `0 <= start <= limit <= dim` and `step >= 1` (default 1).

    ```mlir
    %s = mpg.slice %x start [0, 4] limit [8, 12] : tensor<8x16xf32> -> tensor<8x8xf32>
    ```
  }];
  let arguments = !con((ins Mpg_Tensor:$operand), Mpg_SliceAttrs.attrs);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = !strconcat("$operand ", Mpg_SliceAttrs.format,
      "attr-dict `:` type($operand) `->` type($result)");
  let extraClassDeclaration = Mpg_SliceAttrs.accessors;
}

def Mpg_ConcatOp : Mpg_Op<"concat", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "Joins tensors along one axis.";
  let description = [{
    All inputs have the same rank, element type and dimensions except along
    `axis` (in [-rank, rank)).

    ```mlir
    %c = mpg.concat %a, %b axis 1 : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Mpg_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "$inputs `axis` $axis attr-dict `:` type($inputs) `->` type($result)";
}

def Mpg_EmbeddingOp : Mpg_Op<"embedding", [Pure, Mpg_Differentiable, InferTypeOpAdaptor]> {
  let hasVerifier = 1;
  let summary = "Gathers rows of a [V, D] table by integer indices.";
  let description = [{
    The result has the indices' shape followed by D. Indices are i32 or i64
    with values in [0, V).

    ```mlir
    %e = mpg.embedding %table, %ids : tensor<96x32xf32>, tensor<8x16xi32> -> tensor<8x16x32xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$table, Mpg_IntTensor:$indices);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $indices attr-dict `:` type($table) `,` type($indices) `->` type($result)
  }];
}

def Mpg_DropoutOp : Mpg_Op<"dropout", [Mpg_Differentiable,
    AllTypesMatch<["input", "result"]>]> {
  let hasVerifier = 1;
  let summary = "Zeroes each element with probability `rate`, scales the others by 1 / (1 - rate).";
  let description = [{
    Inverted dropout. Without a key the op is the user's request for dropout
    in training: the training pipeline keys it (mpg-seed-dropout) and a
    forward-only program (inference, evaluation) drops it (mpg-remove-dropout),
    so the result is then the input itself.

    With a key (`seed`, `run`: i64 scalars) and a `stream` number the op is
    deterministic: element e is kept when the 32 bits that Philox 4x32-10
    draws for it (runtime/device/random.cuh: key = seed, counter =
    (e / 4, stream, run), word e % 4) are at least `rate * 2^32`, rounded,
    and its value is then `x * (1 / (1 - rate))` computed in f32. The same
    key and stream give the same mask on the CPU and the GPU, and the
    gradient is the same dropout of the incoming gradient (the mask is drawn
    again, never stored). A tensor has fewer than 2^34 elements.

    ```mlir
    %y = mpg.dropout %x rate 1.000000e-01 : tensor<8x64xf32>
    %z = mpg.dropout %x rate 1.000000e-01 key(%seed, %run) stream 3
        : tensor<8x64xf32>, tensor<i64>, tensor<i64>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$input, Variadic<Mpg_IntScalar>:$key, F64Attr:$rate,
                       OptionalAttr<I64Attr>:$stream);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $input `rate` $rate (`key` `(` $key^ `)` `stream` $stream)? attr-dict
    `:` type($input) (`,` type($key)^)?
  }];
  let extraClassDeclaration = [{
    /// Whether the op has its key (seed, run) and stream.
    bool isKeyed() { return !getKey().empty(); }
  }];
}

//===----------------------------------------------------------------------===//
// Training: persistent state
//===----------------------------------------------------------------------===//

def Mpg_StateOp : Mpg_Op<"state", [HasParent<"GraphOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A named tensor that persists across steps; its value at the start of the step.";
  let description = [{
    Persistent state that is not a parameter: batch-norm running statistics,
    optimizer moments, the loss scale, the step counter. It is initialised
    once with its initializer, saved in checkpoints, and given a new value by
    at most one `mpg.state_write` per step. State names share the namespace of
    parameter names.

    ```mlir
    %mean = mpg.state "bn1.running_mean" init(zeros) : tensor<16xf32>
    %step = mpg.state "step" init(zeros) : tensor<i64>
    ```
  }];
  let arguments = (ins StrAttr:$name, Mpg_InitializerAttr:$init);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = "$name `init` `` custom<KindAndArgs>($init) attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Mpg_StateWriteOp : Mpg_Op<"state_write", [HasParent<"GraphOp">,
                                               AllTypesMatch<["state", "value"]>]> {
  let summary = "Gives a persistent tensor (state or parameter) its value for the next step.";
  let description = [{
    `state` is the result of an `mpg.state` or an `mpg.param` (the optimizer
    writes the updated parameters back); `value` has the same type. The
    write takes effect at the end of the step.

    ```mlir
    mpg.state_write %mean, %new_mean : tensor<16xf32>
    ```
  }];
  let arguments = (ins Mpg_Tensor:$state, Mpg_Tensor:$value);
  let assemblyFormat = "$state `,` $value attr-dict `:` type($state)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The mpg.state or mpg.param written to, or null.
    Operation *getTarget();
    /// Its name.
    llvm::StringRef getTargetName();
  }];
}

//===----------------------------------------------------------------------===//
// Training: optimizer updates
//===----------------------------------------------------------------------===//

def Mpg_SgdOp : Mpg_Op<"sgd", [Pure]> {
  let summary = "One SGD update of a parameter, with optional momentum, Nesterov and weight decay.";
  let description = [{
    With `g' = grad + weight_decay * param`:
    without momentum `param' = param - lr * g'`; with momentum `v' = momentum
    * v + g'` and `param' = param - lr * v'` (Nesterov: `param - lr * (g' +
    momentum * v')`). `lr` is a rank-0 tensor so that schedules can compute
    it; `velocity` is present exactly when `momentum` > 0.

    ```mlir
    %p2, %v2 = mpg.sgd %p, %g, %lr, %v momentum 9.000000e-01
        : tensor<64x10xf32>, tensor<64x10xf32>, tensor<f32>, tensor<64x10xf32>
        -> tensor<64x10xf32>, tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$param, Mpg_FloatTensor:$grad,
                       Mpg_FloatScalar:$lr, Optional<Mpg_FloatTensor>:$velocity,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       UnitAttr:$nesterov,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let results = (outs Mpg_FloatTensor:$new_param,
                      Optional<Mpg_FloatTensor>:$new_velocity);
  let assemblyFormat = [{
    $param `,` $grad `,` $lr (`,` $velocity^)? (`momentum` $momentum^)?
    (`nesterov` $nesterov^)? (`weight_decay` $weight_decay^)? attr-dict
    `:` type($param) `,` type($grad) `,` type($lr) (`,` type($velocity)^)?
    `->` type($new_param) (`,` type($new_velocity)^)?
  }];
  let hasVerifier = 1;
}

class Mpg_AdamLikeOp<string mnemonic, string summ, string wdDefault, string wdRule>
    : Mpg_Op<mnemonic, [Pure]> {
  let summary = summ;
  let description = [{
    With `t = step` (counting from 1):
    `m' = beta1 m + (1 - beta1) g`, `v' = beta2 v + (1 - beta2) g^2`,
    `param' = param - lr * (m' / (1 - beta1^t)) / (sqrt(v' / (1 - beta2^t)) + eps)`.
    }] # wdRule # [{ `beta1`, `beta2` are in [0, 1), `eps` > 0,
    `weight_decay` >= 0. `m` and `v` have the parameter's type.

    ```mlir
    %p2, %m2, %v2 = mpg.}] # mnemonic # [{ %p, %g, %m, %v, %lr, %step
        : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<f32>, tensor<i64>
        -> tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$param, Mpg_FloatTensor:$grad,
                       Mpg_FloatTensor:$m, Mpg_FloatTensor:$v,
                       Mpg_FloatScalar:$lr, Mpg_IntScalar:$step,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps,
                       DefaultValuedAttr<F64Attr, wdDefault>:$weight_decay);
  let results = (outs Mpg_FloatTensor:$new_param, Mpg_FloatTensor:$new_m,
                      Mpg_FloatTensor:$new_v);
  let assemblyFormat = [{
    $param `,` $grad `,` $m `,` $v `,` $lr `,` $step (`beta1` $beta1^)? (`beta2` $beta2^)?
    (`eps` $eps^)? (`weight_decay` $weight_decay^)? attr-dict
    `:` type($param) `,` type($grad) `,` type($m) `,` type($v) `,` type($lr) `,` type($step)
    `->` type($new_param) `,` type($new_m) `,` type($new_v)
  }];
  let hasVerifier = 1;
}

def Mpg_AdamOp : Mpg_AdamLikeOp<"adam", "One Adam update of a parameter.", "0.0",
    "Weight decay is added to the gradient: `g = grad + weight_decay * param`.">;
def Mpg_AdamWOp : Mpg_AdamLikeOp<"adamw",
    "One AdamW update of a parameter (decoupled weight decay).", "0.01",
    "Weight decay is decoupled: `param` is first multiplied by `1 - lr * weight_decay`.">;

//===----------------------------------------------------------------------===//
// Training: loss scaling
//===----------------------------------------------------------------------===//

class Mpg_ScaleLikeOp<string mnemonic, string summ, string formula>
    : Mpg_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible, Mpg_Differentiable]> {
  let hasVerifier = 1;
  let summary = summ;
  let description = "`" # formula # "` elementwise, with `scale` a rank-0 "
      # "float tensor. The result has the operand's shape and may have another "
      # "float type.\n\n```mlir\n%r = mpg." # mnemonic
      # " %g, %s : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf32>\n```";
  let arguments = (ins Mpg_FloatTensor:$operand, Mpg_FloatScalar:$scale);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $operand `,` $scale attr-dict `:` type($operand) `,` type($scale) `->` type($result)
  }];
}

def Mpg_ScaleOp : Mpg_ScaleLikeOp<"scale",
    "Multiplies a tensor by the loss scale (the seed of the backward pass).", "operand * scale">;
def Mpg_UnscaleOp : Mpg_ScaleLikeOp<"unscale",
    "Divides a gradient by the loss scale.", "operand / scale"> {
  let description = [{
    `operand / scale` elementwise, with `scale` a rank-0 float tensor. The
    result has the operand's shape and may have another float type.

    With `power_of_two_scale` (set by `mpg-insert-loss-scaling` when every
    scale the step can use is a power of two), kernels multiply by the
    scale's reciprocal instead. The reciprocal of a power of two is exact,
    so the product is the same correctly rounded value as the quotient,
    subnormal results included. A multiply is cheaper than a division, and
    unlike a division it costs no more on subnormal operands on the CPU.

    ```mlir
    %r = mpg.unscale %g, %s : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf32>
    %q = mpg.unscale %g, %s {power_of_two_scale} : tensor<64x10xf16>, tensor<f32> -> tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$operand, Mpg_FloatScalar:$scale,
                       UnitAttr:$power_of_two_scale);
}

def Mpg_AllFiniteOp : Mpg_Op<"all_finite", [Pure]> {
  let summary = "True when no element of any operand is inf or NaN.";
  let description = [{
    The overflow check of dynamic loss scaling, over all gradients at once.

    ```mlir
    %ok = mpg.all_finite %g1, %g2 : tensor<64x10xf16>, tensor<10xf16> -> tensor<i1>
    ```
  }];
  let arguments = (ins Variadic<Mpg_FloatTensor>:$operands);
  let results = (outs Mpg_BoolScalar:$result);
  let assemblyFormat = "$operands attr-dict `:` type($operands) `->` type($result)";
  let hasVerifier = 1;
}

def Mpg_UpdateLossScaleOp : Mpg_Op<"update_loss_scale", [Pure,
    AllTypesMatch<["scale", "new_scale"]>,
    AllTypesMatch<["good_steps", "new_good_steps"]>]> {
  let summary = "The dynamic loss-scale state machine: grow after good steps, back off on overflow.";
  let description = [{
    `good_steps` counts the finite steps since the scale last changed, or,
    when negative, minus the consecutive overflowing steps. When `finite` is
    false: `good_steps' = min(good_steps, 0) - 1`, and when that reaches
    `-hysteresis`, `scale' = max(scale * backoff_factor, min_scale)` and
    `good_steps' = 0`. Otherwise `good_steps' = max(good_steps, 0) + 1`; when
    it reaches `growth_interval`, `scale' = min(scale * growth_factor,
    max_scale)` and `good_steps' = 0`. Defaults follow the paper and PyTorch:
    growth 2, backoff 0.5, interval 2000, hysteresis 1 (back off at the
    first overflow), scales in [1, 2^24].

    ```mlir
    %s2, %n2 = mpg.update_loss_scale %s, %n, %ok growth_interval 1000
        : tensor<f32>, tensor<i64>, tensor<i1>
    ```
  }];
  let arguments = (ins Mpg_FloatScalar:$scale, Mpg_IntScalar:$good_steps,
                       Mpg_BoolScalar:$finite,
                       DefaultValuedAttr<F64Attr, "2.0">:$growth_factor,
                       DefaultValuedAttr<F64Attr, "0.5">:$backoff_factor,
                       DefaultValuedAttr<I64Attr, "2000">:$growth_interval,
                       DefaultValuedAttr<I64Attr, "1">:$hysteresis,
                       DefaultValuedAttr<F64Attr, "1.0">:$min_scale,
                       DefaultValuedAttr<F64Attr, "16777216.0">:$max_scale);
  let results = (outs Mpg_FloatScalar:$new_scale, Mpg_IntScalar:$new_good_steps);
  let assemblyFormat = [{
    $scale `,` $good_steps `,` $finite (`growth_factor` $growth_factor^)?
    (`backoff_factor` $backoff_factor^)? (`growth_interval` $growth_interval^)?
    (`hysteresis` $hysteresis^)?
    (`min_scale` $min_scale^)? (`max_scale` $max_scale^)? attr-dict
    `:` type($scale) `,` type($good_steps) `,` type($finite)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

def Mpg_AllReduceOp : Mpg_Op<"all_reduce", [Mpg_Differentiable,
    SameOperandsAndResultType]> {
  let hasVerifier = 1;
  let summary = "Reduces a tensor over every rank of a data-parallel job: sum, mean or max.";
  let description = [{
    Every rank of the job runs the same step on its own batch; the result,
    on every rank, is the elementwise sum, mean (the sum divided by the
    number of ranks, known when the step runs) or maximum of the operand's
    values on all ranks, the same bits everywhere. In a job of one rank the
    result is the operand. `mpg-all-reduce-gradients` inserts it: the
    mean of the gradients, bucketed into a few large flat tensors, and of
    the loss. Elements: f16, bf16, f32, f64, and i32 for sum and max (a
    mean is of floats). f16 and bf16 reduce in f32, rounded once, on the
    CPU (MPI); NCCL rounds at each step of its ring.

    Not `Pure`: every rank must run the same all-reduces, so none is
    removed or merged as dead or common code. (Every rank compiles the same
    graph with the same deterministic passes, so their order is the same
    on every rank; the runtime checks it when a program is loaded.)

    ```mlir
    %g = mpg.all_reduce mean %bucket : tensor<1290xf32>
    ```
  }];
  let arguments = (ins Mpg_AllReduceKind:$reduce,
                       StaticShapeTensorOf<[F16, BF16, F32, F64, I32]>:$operand);
  let results = (outs StaticShapeTensorOf<[F16, BF16, F32, F64, I32]>:$result);
  let assemblyFormat = "$reduce $operand attr-dict `:` type($operand)";
}

//===----------------------------------------------------------------------===//
// Gradient ops (emitted by autodiff)
//===----------------------------------------------------------------------===//

def Mpg_Conv2DGradInputOp : Mpg_Op<"conv2d_grad_input", [Pure]> {
  let summary = "Gradient of `mpg.conv2d` with respect to its input.";
  let description = [{
    Given the output gradient `[N, O, Ho, Wo]` and the filter, produces the
    input gradient, whose shape is the result type; the attributes are those
    of the forward convolution, which must map the result shape to the
    gradient's.

    ```mlir
    %dx = mpg.conv2d_grad_input %dy, %w padding [1, 1, 1, 1]
        : tensor<8x16x28x28xf32>, tensor<16x3x3x3xf32> -> tensor<8x3x28x28xf32>
    ```
  }];
  let arguments = !con((ins Mpg_FloatTensor:$grad_output, Mpg_FloatTensor:$filter),
                       Mpg_ConvAttrs.attrs);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = !strconcat("$grad_output `,` $filter ", Mpg_ConvAttrs.format,
      "attr-dict `:` type($grad_output) `,` type($filter) `->` type($result)");
  let extraClassDeclaration = Mpg_ConvAttrs.accessors;
  let hasVerifier = 1;
}

def Mpg_Conv2DGradFilterOp : Mpg_Op<"conv2d_grad_filter", [Pure]> {
  let summary = "Gradient of `mpg.conv2d` with respect to its filter.";
  let description = [{
    Given the forward input and the output gradient, produces the filter
    gradient, whose shape is the result type.

    ```mlir
    %dw = mpg.conv2d_grad_filter %x, %dy padding [1, 1, 1, 1]
        : tensor<8x3x28x28xf32>, tensor<8x16x28x28xf32> -> tensor<16x3x3x3xf32>
    ```
  }];
  let arguments = !con((ins Mpg_FloatTensor:$input, Mpg_FloatTensor:$grad_output),
                       Mpg_ConvAttrs.attrs);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = !strconcat("$input `,` $grad_output ", Mpg_ConvAttrs.format,
      "attr-dict `:` type($input) `,` type($grad_output) `->` type($result)");
  let extraClassDeclaration = Mpg_ConvAttrs.accessors;
  let hasVerifier = 1;
}

def Mpg_MaxPool2DGradOp : Mpg_Op<"max_pool2d_grad", [Pure]> {
  let summary = "Gradient of `mpg.max_pool2d`: routes each output gradient to its window's maximum.";
  let description = [{
    Recomputes the arg-max of each window from the forward input (the first
    maximum in row-major order wins ties).

    ```mlir
    %dx = mpg.max_pool2d_grad %x, %dy kernel [2, 2]
        : tensor<8x16x28x28xf32>, tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf32>
    ```
  }];
  let arguments = !con((ins Mpg_FloatTensor:$input, Mpg_FloatTensor:$grad_output),
                       Mpg_PoolAttrs.attrs);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = !strconcat("$input `,` $grad_output ", Mpg_PoolAttrs.format,
      "attr-dict `:` type($input) `,` type($grad_output) `->` type($result)");
  let extraClassDeclaration = Mpg_PoolAttrs.accessors;
  let hasVerifier = 1;
}

def Mpg_AvgPool2DGradOp : Mpg_Op<"avg_pool2d_grad", [Pure]> {
  let summary = "Gradient of `mpg.avg_pool2d`: spreads each output gradient over its window.";
  let description = [{
    The result type is the forward input's.

    ```mlir
    %dx = mpg.avg_pool2d_grad %dy kernel [2, 2]
        : tensor<8x16x14x14xf32> -> tensor<8x16x28x28xf32>
    ```
  }];
  let arguments = !con((ins Mpg_FloatTensor:$grad_output), Mpg_PoolAttrs.attrs,
                       (ins UnitAttr:$count_include_pad));
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = !strconcat("$grad_output ", Mpg_PoolAttrs.format,
      "(`count_include_pad` $count_include_pad^)? attr-dict `:` type($grad_output) `->` type($result)");
  let extraClassDeclaration = Mpg_PoolAttrs.accessors;
  let hasVerifier = 1;
}

def Mpg_BatchNormGradOp : Mpg_Op<"batch_norm_grad", [Pure]> {
  let summary = "Gradient of training-mode `mpg.batch_norm` for input, gamma and beta.";
  let description = [{
    Recomputes the batch statistics from the forward input.

    ```mlir
    %dx, %dgamma, %dbeta = mpg.batch_norm_grad %x, %gamma, %dy
        : tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<8x16x28x28xf32>
        -> tensor<8x16x28x28xf32>, tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$input, Mpg_FloatTensor:$gamma,
                       Mpg_FloatTensor:$grad_output,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Mpg_FloatTensor:$grad_input, Mpg_FloatTensor:$grad_gamma,
                      Mpg_FloatTensor:$grad_beta);
  let assemblyFormat = [{
    $input `,` $gamma `,` $grad_output (`eps` $eps^)? attr-dict
    `:` type($input) `,` type($gamma) `,` type($grad_output)
    `->` type($grad_input) `,` type($grad_gamma) `,` type($grad_beta)
  }];
  let hasVerifier = 1;
}

def Mpg_LayerNormGradOp : Mpg_Op<"layer_norm_grad", [Pure]> {
  let summary = "Gradient of `mpg.layer_norm` for input, gamma and beta.";
  let description = [{
    Recomputes the statistics from the forward input; `axis` and `eps` are
    the forward op's.

    ```mlir
    %dx, %dgamma, %dbeta = mpg.layer_norm_grad %x, %gamma, %dy
        : tensor<4x16x64xf32>, tensor<64xf32>, tensor<4x16x64xf32>
        -> tensor<4x16x64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$input, Mpg_FloatTensor:$gamma,
                       Mpg_FloatTensor:$grad_output,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$eps);
  let results = (outs Mpg_FloatTensor:$grad_input, Mpg_FloatTensor:$grad_gamma,
                      Mpg_FloatTensor:$grad_beta);
  let assemblyFormat = [{
    $input `,` $gamma `,` $grad_output (`axis` $axis^)? (`eps` $eps^)? attr-dict
    `:` type($input) `,` type($gamma) `,` type($grad_output)
    `->` type($grad_input) `,` type($grad_gamma) `,` type($grad_beta)
  }];
  let hasVerifier = 1;
}

def Mpg_SoftmaxCrossEntropyGradOp : Mpg_Op<"softmax_cross_entropy_grad", [Pure]> {
  let summary = "Gradient of `mpg.softmax_cross_entropy` with respect to the logits.";
  let description = [{
    `(softmax(logits) - onehot(labels)) * grad_loss / N`, where `grad_loss`
    is the rank-0 gradient of the loss (the loss scale during mixed-precision
    training). The result has the logits' shape.

    ```mlir
    %dlogits = mpg.softmax_cross_entropy_grad %logits, %labels, %dloss
        : tensor<64x10xf32>, tensor<64xi32>, tensor<f32> -> tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$logits, Mpg_IntTensor:$labels,
                       Mpg_FloatScalar:$grad_loss);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels `,` $grad_loss attr-dict
    `:` type($logits) `,` type($labels) `,` type($grad_loss) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Mpg_EmbeddingGradOp : Mpg_Op<"embedding_grad", [Pure]> {
  let summary = "Gradient of `mpg.embedding`: scatter-adds output rows into a [V, D] table.";
  let description = [{
    The result type gives V; rows that no index selects are zero.

    ```mlir
    %dtable = mpg.embedding_grad %ids, %dy
        : tensor<8x16xi32>, tensor<8x16x32xf32> -> tensor<96x32xf32>
    ```
  }];
  let arguments = (ins Mpg_IntTensor:$indices, Mpg_FloatTensor:$grad_output);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $indices `,` $grad_output attr-dict `:` type($indices) `,` type($grad_output) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Mpg_SliceGradOp : Mpg_Op<"slice_grad", [Pure]> {
  let summary = "Gradient of `mpg.slice`: places the gradient in a zero tensor of the input's shape.";
  let description = [{
    The attributes are the forward slice's; the result type is the forward
    input's.

    ```mlir
    %dx = mpg.slice_grad %dy start [0, 4] limit [8, 12] : tensor<8x8xf32> -> tensor<8x16xf32>
    ```
  }];
  let arguments = !con((ins Mpg_Tensor:$grad_output), Mpg_SliceAttrs.attrs);
  let results = (outs Mpg_Tensor:$result);
  let assemblyFormat = !strconcat("$grad_output ", Mpg_SliceAttrs.format,
      "attr-dict `:` type($grad_output) `->` type($result)");
  let extraClassDeclaration = Mpg_SliceAttrs.accessors;
  let hasVerifier = 1;
}

def Mpg_AttentionGradOp : Mpg_Op<"attention_grad", [Pure]> {
  let summary = "Gradient of `mpg.attention` for queries, keys and values.";
  let description = [{
    Recomputes each block of probabilities from the forward op's `lse`
    (`p = exp(scores - lse)`) rather than reading them: with
    `delta = rowsum(grad_result * result)`,
    `dscores = p * (grad_result x value^T - delta)`,
    `grad_query = scale * dscores x key`, `grad_key = scale * dscores^T x query`
    and `grad_value = p^T x grad_result`. `mask`, `scale` and `causal` are
    the forward op's; the gradients have their operands' types.

    ```mlir
    %dq, %dk, %dv = mpg.attention_grad %q, %k, %v, %y, %lse, %dy scale 0.25 causal
        : tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x32xf32>,
          tensor<2x16x32xf32>, tensor<2x16xf32>, tensor<2x16x32xf32>
        -> tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x32xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$query, Mpg_FloatTensor:$key, Mpg_FloatTensor:$value,
                       Mpg_FloatTensor:$result, Mpg_FloatTensor:$lse,
                       Mpg_FloatTensor:$grad_result, Optional<Mpg_FloatTensor>:$mask,
                       F64Attr:$scale, UnitAttr:$causal);
  let results = (outs Mpg_FloatTensor:$grad_query, Mpg_FloatTensor:$grad_key,
                      Mpg_FloatTensor:$grad_value);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $result `,` $lse `,` $grad_result
    (`mask` `(` $mask^ `:` type($mask) `)`)? `scale` $scale (`causal` $causal^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($result) `,` type($lse) `,`
    type($grad_result) `->` type($grad_query) `,` type($grad_key) `,` type($grad_value)
  }];
  let hasVerifier = 1;
}

def Mpg_GeluGradOp : Mpg_Op<"gelu_grad", [Pure, SameOperandsAndResultType,
                                          InferTypeOpInterface]> {
  let summary = "Gradient of `mpg.gelu`: grad_output * gelu'(input).";
  let description = [{
    `approximate` is the forward op's.

    ```mlir
    %dx = mpg.gelu_grad %x, %dy : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Mpg_FloatTensor:$input, Mpg_FloatTensor:$grad_output,
                       UnitAttr:$approximate);
  let results = (outs Mpg_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grad_output (`approximate` $approximate^)? attr-dict `:` type($result)
  }];
}

#endif // MPC_DIALECT_MPG_OPS
