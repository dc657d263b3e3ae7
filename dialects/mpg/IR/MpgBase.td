//===- MpgBase.td - mpg dialect, enums, attributes, type constraints -*- tablegen -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPG_BASE
#define MPC_DIALECT_MPG_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"

def Mpg_Dialect : Dialect {
  let name = "mpg";
  let cppNamespace = "::mlir::mpg";
  let summary = "Training graphs: the model, its loss and its optimizer, at tensor level.";
  let description = [{
    The `mpg` dialect describes one training step of a model as a graph of
    statically shaped tensor operations: inputs, parameters, the forward ops,
    a loss, and an `mpg.minimize` that names the loss and the optimizer. mpc's
    passes derive the backward graph and the update from it, assign precisions
    (fp16/bf16 storage, fp32 accumulation), insert loss scaling and rewrite the
    parameters into fp32 master weights.

    A graph is written in f32; precisions are the compiler's decision.

    ```mlir
    mpg.graph @linear {
      %x = mpg.input "x" : tensor<8x4xf32>
      %y = mpg.input "y" : tensor<8xi32>
      %w = mpg.param "w" init(glorot_uniform) : tensor<4x3xf32>
      %logits = mpg.matmul %x, %w : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
      %loss = mpg.softmax_cross_entropy %logits, %y
          : tensor<8x3xf32>, tensor<8xi32> -> tensor<f32>
      mpg.minimize %loss optimizer(sgd, lr = 1.000000e-01) : tensor<f32>
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;

  // The discardable attributes that mpc's passes exchange, declared here so
  // that each has one name and typed accessors
  // (MpgDialect::<Name>AttrHelper: getAttr, setAttr, isAttrPresent).
  let discardableAttrs = (ins
    // Written by the user on an op: force its precision ("fp32", "fp16",
    // "bf16"); read by mpg-assign-precision.
    "::mlir::StringAttr":$precision,
    // mpg-assign-precision: on each op, the decision and its reason; on the
    // graph, the mode and the counts (mpg-master-weights adds its own).
    "::mlir::DictionaryAttr":$precision_decision,
    "::mlir::DictionaryAttr":$precision_summary,
    // mpg-autodiff: the constant that seeds the backward pass (the loss's
    // gradient); mpg-insert-loss-scaling marks it scaled.
    "::mlir::UnitAttr":$loss_seed,
    "::mlir::UnitAttr":$loss_scaled,
    // mpg-autodiff: on the graph, the optimizer's clip_grad_norm, which
    // mpg-clip-gradients applies (after loss scaling) and removes.
    "::mlir::FloatAttr":$clip_grad_norm,
    // mpg-autodiff: on the graph, the optimizer's accumulate_steps (> 1),
    // which mpg-accumulate-gradients applies and removes.
    "::mlir::IntegerAttr":$accumulate_steps,
    // mpg-decompose: a reduction that checks a gradient for the loss scaler.
    "::mlir::UnitAttr":$finite_check,
    // mpg-master-weights: on a working copy's state, its fp32 parameter.
    "::mlir::StringAttr":$cast_of,
    // mpg-plan-memory: on mpg.input and mpg.fusion the arena offset of each
    // result; on mpg.param, mpg.state and mpg.constant the offset in
    // persistent memory; on a fusion group that writes results straight
    // into the state they update, per result that state's offset (-1 for a
    // result in the arena, whose arena offset is then -1); on a group that
    // needs scratch memory its offset; on mpg.graph both memories' sizes.
    "::mlir::DenseI64ArrayAttr":$arena_offsets,
    "::mlir::IntegerAttr":$persistent_offset,
    "::mlir::DenseI64ArrayAttr":$state_offsets,
    "::mlir::IntegerAttr":$scratch_offset,
    "::mlir::IntegerAttr":$arena_bytes,
    "::mlir::IntegerAttr":$persistent_bytes
  );
}

//===----------------------------------------------------------------------===//
// Element types and tensor constraints
//===----------------------------------------------------------------------===//

def Mpg_FloatElement : AnyTypeOf<[F16, BF16, F32, F64], "float (f16, bf16, f32, f64)">;

def Mpg_Tensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I32, I64, I1]>;
def Mpg_NumericTensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I32, I64]>;
def Mpg_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
def Mpg_IntTensor : StaticShapeTensorOf<[I32, I64]>;
def Mpg_BoolTensor : StaticShapeTensorOf<[I1]>;
def Mpg_FloatScalar : 0DTensorOf<[F16, BF16, F32, F64]>;
def Mpg_IntScalar : 0DTensorOf<[I32, I64]>;
def Mpg_BoolScalar : 0DTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Mpg_InitKind : I32EnumAttr<"InitKind", "parameter and state initializer", [
    I32EnumAttrCase<"Zeros", 0, "zeros">,
    I32EnumAttrCase<"Ones", 1, "ones">,
    I32EnumAttrCase<"Constant", 2, "constant">,
    I32EnumAttrCase<"Normal", 3, "normal">,
    I32EnumAttrCase<"Uniform", 4, "uniform">,
    I32EnumAttrCase<"GlorotUniform", 5, "glorot_uniform">,
    I32EnumAttrCase<"HeNormal", 6, "he_normal">,
    I32EnumAttrCase<"Seed", 7, "seed">
  ]> {
  let cppNamespace = "::mlir::mpg";
  let genSpecializedAttr = 0;
}

def Mpg_OptimizerKind : I32EnumAttr<"OptimizerKind", "optimizer", [
    I32EnumAttrCase<"SGD", 0, "sgd">,
    I32EnumAttrCase<"Adam", 1, "adam">,
    I32EnumAttrCase<"AdamW", 2, "adamw">
  ]> {
  let cppNamespace = "::mlir::mpg";
  let genSpecializedAttr = 0;
}

def Mpg_ComparePredicate : I32EnumAttr<"ComparePredicate", "comparison", [
    I32EnumAttrCase<"EQ", 0, "eq">,
    I32EnumAttrCase<"NE", 1, "ne">,
    I32EnumAttrCase<"LT", 2, "lt">,
    I32EnumAttrCase<"LE", 3, "le">,
    I32EnumAttrCase<"GT", 4, "gt">,
    I32EnumAttrCase<"GE", 5, "ge">
  ]> {
  let cppNamespace = "::mlir::mpg";
}

def Mpg_AllReduceKind : I32EnumAttr<"AllReduceKind", "reduction over the ranks of a job", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Mean", 1, "mean">,
    I32EnumAttrCase<"Max", 2, "max">
  ]> {
  let cppNamespace = "::mlir::mpg";
}

def Mpg_FusionKind : I32EnumAttr<"FusionKind", "kind of fusion group", [
    I32EnumAttrCase<"Pointwise", 0, "pointwise">,
    I32EnumAttrCase<"Reduction", 1, "reduction">,
    I32EnumAttrCase<"Row", 2, "row">,
    I32EnumAttrCase<"Gemm", 3, "gemm">,
    I32EnumAttrCase<"Conv", 4, "conv">,
    I32EnumAttrCase<"Single", 5, "single">
  ]> {
  let cppNamespace = "::mlir::mpg";
}



//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Mpg_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Mpg_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Mpg_InitializerAttr : Mpg_Attr<"Initializer", "init"> {
  let summary = "How a parameter or state tensor is initialised.";
  let description = [{
    A kind and its numeric arguments. The kinds and their arguments (defaults
    in parentheses):

    | kind             | arguments                         |
    |------------------|-----------------------------------|
    | `zeros`, `ones`  | none                              |
    | `constant`       | `value` (required)                |
    | `normal`         | `mean` (0), `std` (1, > 0)        |
    | `uniform`        | `low` (0), `high` (1), low < high |
    | `glorot_uniform` | `gain` (1, > 0); rank >= 2        |
    | `he_normal`      | `gain` (sqrt 2, > 0); rank >= 2   |

    Fans: a rank-2 tensor is a matmul right-hand side `[in, out]`, so
    fan_in = dim 0 and fan_out = dim 1; a higher-rank tensor is a convolution
    filter `[out, in, k...]`, so fan_in = dim 1 * prod(k) and fan_out =
    dim 0 * prod(k). `glorot_uniform` draws from U(-a, a) with
    a = gain * sqrt(6 / (fan_in + fan_out)); `he_normal` from N(0, s) with
    s = gain / sqrt(fan_in).

    In op syntax it is written `init(normal, std = 2.000000e-02)`; on its own,
    `#mpg.init<normal, {std = 2.000000e-02 : f64}>`.
  }];
  let parameters = (ins
    EnumParameter<Mpg_InitKind>:$kind,
    "DictionaryAttr":$args
  );
  let assemblyFormat = "`<` $kind `,` $args `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The numeric argument `name`, or `fallback` when it is absent.
    double getArg(llvm::StringRef name, double fallback) const;
  }];
}

def Mpg_OptimizerAttr : Mpg_Attr<"Optimizer", "optimizer"> {
  let summary = "The optimizer of an `mpg.minimize` and its hyper-parameters.";
  let description = [{
    A kind and its hyper-parameters (defaults in parentheses):

    | kind    | hyper-parameters |
    |---------|------------------|
    | `sgd`   | `lr` (required, > 0), `momentum` (0, in [0, 1)), `nesterov` (false; needs momentum > 0), `weight_decay` (0, >= 0) |
    | `adam`  | `lr` (required, > 0), `beta1` (0.9), `beta2` (0.999), both in [0, 1), `eps` (1e-8, > 0), `weight_decay` (0, >= 0, added to the gradient) |
    | `adamw` | as `adam`, with `weight_decay` (0.01) decoupled from the gradient |

    Every optimizer also takes a learning-rate schedule, evaluated on the
    device from the step count t (from 1): a linear warm-up over
    `warmup_steps` (0: none), `lr * min(1, t / warmup_steps)`, then, when
    `decay_steps` > 0, a cosine decay to `min_lr` (0, at most `lr`) over
    `decay_steps`: `min_lr + (lr - min_lr) * (1 + cos(pi * p)) / 2` with
    `p = clamp((t - warmup_steps) / decay_steps, 0, 1)`.

    Any optimizer also takes `clip_grad_norm` (0: none, >= 0): the
    gradients, unscaled, are multiplied by `min(1, clip_grad_norm /
    (norm + 1e-6))` before the update, `norm` being their global L2 norm in
    fp32, as PyTorch's `clip_grad_norm_` does after `GradScaler.unscale_`
    (`mpg-clip-gradients`).

    And `accumulate_steps` (1: none, a whole number >= 1): each run of the
    step is one micro-batch; the gradients of `accumulate_steps` runs are
    summed in fp32 and their mean updates the parameters once, on the last
    run of each window, with one overflow check and one loss-scale update
    (`mpg-accumulate-gradients`).

    In op syntax it is written `optimizer(sgd, lr = 1.000000e-01, momentum = 9.000000e-01)`.
  }];
  let parameters = (ins
    EnumParameter<Mpg_OptimizerKind>:$kind,
    "DictionaryAttr":$args
  );
  let assemblyFormat = "`<` $kind `,` $args `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The numeric hyper-parameter `name`, or `fallback` when it is absent.
    double getArg(llvm::StringRef name, double fallback) const;
    /// The boolean hyper-parameter `name`, or `fallback` when it is absent.
    bool getFlag(llvm::StringRef name, bool fallback) const;
  }];
}

#endif // MPC_DIALECT_MPG_BASE
