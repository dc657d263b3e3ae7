//===- MpkOps.td - mpk dialect: kernels over planned buffers -*- tablegen -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// One op per kernel launch or library call, in execution order, on buffers
// that are slices of the planned arena or of persistent memory. The CUDA
// emitter and the bundle writer read this level.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_DIALECT_MPK_OPS
#define MPC_DIALECT_MPK_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Mpk_Dialect : Dialect {
  let name = "mpk";
  let cppNamespace = "::mlir::mpk";
  let summary = "Kernels and library calls of a compiled step, on planned buffers.";
  let description = [{
    An `mpk.program` lists, in execution order, the launches and library
    calls of one step. Operands are `memref` views of the arena or of
    persistent memory made by `mpk.buffer`. Kernel bodies are regions of
    `arith`/`math` ops on scalars: values are loaded and widened to their
    compute type (f32 for f16/bf16/f32 storage, f64 for f64), and rounded
    once when stored.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::mpg::MpgDialect"];

  // The discardable attributes that the conversion to mpk writes for code
  // generation and reports (MpkDialect::<Name>AttrHelper).
  let discardableAttrs = (ins
    // On a kernel: the names of the mpg ops fused into it (reports).
    "::mlir::ArrayAttr":$fused,
    // On a pointwise kernel: a parameter's update (multi-tensor launches).
    "::mlir::UnitAttr":$update,
    // On a reduction kernel: a finite check of the loss scaler.
    "::mlir::UnitAttr":$finite_check
  );
}

class Mpk_Op<string mnemonic, list<Trait> traits = []> : Op<Mpk_Dialect, mnemonic, traits>;

def Mpk_Space : I32EnumAttr<"Space", "memory a buffer lives in", [
    I32EnumAttrCase<"Arena", 0, "arena">,
    I32EnumAttrCase<"Persistent", 1, "persistent">
  ]> {
  let cppNamespace = "::mlir::mpk";
}

def Mpk_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">
  ]> {
  let cppNamespace = "::mlir::mpk";
}

def Mpk_AllReduceKind : I32EnumAttr<"AllReduceKind", "reduction over the ranks of a job", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Mean", 1, "mean">,
    I32EnumAttrCase<"Max", 2, "max">
  ]> {
  let cppNamespace = "::mlir::mpk";
}

def Mpk_GemmEpilogue : I32EnumAttr<"GemmEpilogue", "cuBLASLt epilogue", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Bias", 1, "bias">,
    I32EnumAttrCase<"Relu", 2, "relu">,
    I32EnumAttrCase<"BiasRelu", 3, "bias_relu">,
    I32EnumAttrCase<"Gelu", 4, "gelu">,
    I32EnumAttrCase<"BiasGelu", 5, "bias_gelu">
  ]> {
  let cppNamespace = "::mlir::mpk";
}

def Mpk_PoolKind : I32EnumAttr<"PoolKind", "pooling", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Avg", 1, "avg">
  ]> {
  let cppNamespace = "::mlir::mpk";
}

// An `#mpg.init` initializer, kept as a plain attribute so that it prints
// with its dialect prefix.
def Mpk_InitializerAttr : Attr<CPred<"::llvm::isa<::mlir::mpg::InitializerAttr>($_self)">,
                               "an #mpg.init initializer"> {
  let storageType = "::mlir::Attribute";
  let returnType = "::mlir::Attribute";
  let convertFromStorage = "$_self";
  let constBuilderCall = "$0";
}

def Mpk_Buffer : MemRefRankOf<[F16, BF16, F32, F64, I32, I64, I1], [0, 1, 2, 3, 4, 5, 6, 7, 8]>;

//===----------------------------------------------------------------------===//
// Program structure
//===----------------------------------------------------------------------===//

def Mpk_ProgramOp : Mpk_Op<"program", [IsolatedFromAbove, Symbol, SingleBlock, NoTerminator]> {
  let summary = "The launches and library calls of one step, in order.";
  let description = [{
    ```mlir
    mpk.program @mlp arena 49408 persistent 38656 {
      %x = mpk.buffer arena 0 : memref<64x64xf32>
      mpk.input "pixels" %x : memref<64x64xf32>
      ...
    }
    ```

    Every buffer lies inside its memory (`arena_bytes` or
    `persistent_bytes`); an input, output or parameter name is declared
    once; parameters live in persistent memory; a working copy (`cast_of`)
    is f16 or bf16 and names an f32 parameter of its shape that is not
    itself a copy. (The runtime checks the same of a bundle's manifest.)
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$arena_bytes, I64Attr:$persistent_bytes);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `arena` $arena_bytes `persistent` $persistent_bytes attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

def Mpk_BufferOp : Mpk_Op<"buffer", [Pure]> {
  let summary = "A view of the arena or of persistent memory at a byte offset.";
  let description = [{
    Row-major, contiguous. Two buffers at the same offset alias (a reshape).

    ```mlir
    %h = mpk.buffer arena 16384 : memref<64x128xf16>
    %w = mpk.buffer persistent 0 : memref<64x128xf32>
    ```
  }];
  let arguments = (ins Mpk_Space:$space, I64Attr:$offset);
  let results = (outs Mpk_Buffer:$result);
  let assemblyFormat = "$space $offset attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Mpk_InputOp : Mpk_Op<"input"> {
  let summary = "Binds a named input of the step to the buffer it is copied into.";
  let description = [{
    ```mlir
    mpk.input "pixels" %x : memref<64x64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Mpk_Buffer:$buffer);
  let assemblyFormat = "$name $buffer attr-dict `:` type($buffer)";
}

def Mpk_OutputOp : Mpk_Op<"output"> {
  let summary = "Names a buffer that holds an output when the step ends.";
  let description = [{
    ```mlir
    mpk.output "logits" %y : memref<64x10xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Mpk_Buffer:$buffer);
  let assemblyFormat = "$name $buffer attr-dict `:` type($buffer)";
}

def Mpk_ParamOp : Mpk_Op<"param"> {
  let summary = "Declares persistent storage of a parameter or state tensor and its initializer.";
  let description = [{
    ```mlir
    mpk.param "fc1.weight" %w init(#mpg.init<glorot_uniform, {}>) : memref<64x128xf32>
    mpk.param "bn1.running_mean" %m state init(#mpg.init<zeros, {}>) : memref<16xf32>
    mpk.param "fc1.weight.f16" %wh state frozen cast_of "fc1.weight" init(#mpg.init<zeros, {}>) : memref<64x128xf16>
    ```

    `cast_of` marks a low-precision working copy of a parameter, which the
    runtime keeps equal to the parameter converted (and leaves out of
    checkpoints).
  }];
  let arguments = (ins StrAttr:$name, Mpk_Buffer:$buffer, Mpk_InitializerAttr:$init, UnitAttr:$state,
                       UnitAttr:$frozen, OptionalAttr<StrAttr>:$cast_of);
  let assemblyFormat = [{
    $name $buffer (`state` $state^)? (`frozen` $frozen^)? (`cast_of` $cast_of^)? `init` `(` $init `)` attr-dict `:` type($buffer)
  }];
}

def Mpk_ConstantOp : Mpk_Op<"constant"> {
  let summary = "Persistent storage filled with constant data when the program is loaded.";
  let description = [{
    ```mlir
    mpk.constant %c dense<[1.0, 2.0]> : memref<2xf32>
    ```
  }];
  let arguments = (ins Mpk_Buffer:$buffer, ElementsAttr:$value);
  let assemblyFormat = "$buffer $value attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Mpk_CopyOp : Mpk_Op<"copy", [AllTypesMatch<["source", "target"]>]> {
  let summary = "Copies one buffer into another of the same type (state writes).";
  let description = [{
    ```mlir
    mpk.copy %new_mean, %running_mean : memref<16xf32>
    ```
  }];
  let arguments = (ins Mpk_Buffer:$source, Mpk_Buffer:$target);
  let assemblyFormat = "$source `,` $target attr-dict `:` type($source)";
}

def Mpk_AllReduceOp : Mpk_Op<"all_reduce"> {
  let summary = "Reduces a buffer in place over every rank of a data-parallel job.";
  let description = [{
    The runtime's collective (MPI on the CPU backend) replaces the buffer's
    elements, on every rank, by their sum, mean or maximum over the ranks
    (`mpg.all_reduce` after memory planning; the bundle's `all_reduce`
    step).

    ```mlir
    mpk.all_reduce mean %bucket : memref<1290xf32>
    ```
  }];
  let arguments = (ins Mpk_AllReduceKind:$reduce, Mpk_Buffer:$buffer);
  let assemblyFormat = "$reduce $buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Generated kernels
//===----------------------------------------------------------------------===//

def Mpk_YieldOp : Mpk_Op<"yield", [Pure, Terminator, ReturnLike]> {
  let summary = "Returns the scalar results of a kernel body.";
  let description = [{
    ```mlir
    mpk.yield %v : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
}

def Mpk_PointwiseOp : Mpk_Op<"pointwise", [AttrSizedOperandSegments,
                                           SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A generated kernel computing each element of its iteration space.";
  let description = [{
    For every index `d` of `iteration` (row-major), input `i` is loaded at
    `indexing[i](d)` and widened to its compute type, the body runs, and
    output `j` is stored at `indexing[num_inputs + j](d)`, rounded once to
    its element type. Broadcasting, transposes, slices and concatenation are
    indexing maps.

    ```mlir
    mpk.pointwise @k0 ins(%x, %b : memref<64x128xf16>, memref<128xf32>)
        outs(%y : memref<64x128xf16>) iteration [64, 128]
        indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                  affine_map<(d0, d1) -> (d0, d1)>] {
    ^bb0(%a: f32, %c: f32):
      %s = arith.addf %a, %c : f32
      mpk.yield %s : f32
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Variadic<Mpk_Buffer>:$inputs,
                       Variadic<Mpk_Buffer>:$outputs, DenseI64ArrayAttr:$iteration,
                       AffineMapArrayAttr:$indexing);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`ins` `(` $inputs^ `:` type($inputs) `)`)? `outs` `(` $outputs `:` type($outputs) `)`
    `iteration` $iteration `indexing` $indexing attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Mpk_ReduceOp : Mpk_Op<"reduce", [AttrSizedOperandSegments]> {
  let summary = "A generated reduction kernel with a fused prologue and epilogue.";
  let description = [{
    The iteration space is `iteration`; `reduction_dims` are combined
    (`sum` or `max`, in fp32 or wider), the others form the output space.
    The prologue maps the loaded `inputs` (indexed over the iteration space)
    to the value accumulated; the epilogue gets the accumulator and the
    `epilogue_inputs` (indexed over the output space) and yields one value
    per output (stored over the output space).

    ```mlir
    mpk.reduce @k1 sum ins(%x : memref<64x10xf32>) epilogue_ins()
        outs(%s : memref<64xf32>) iteration [64, 10] reduction_dims [1]
        indexing [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0) -> (d0)>] {
    ^bb0(%v: f32):
      mpk.yield %v : f32
    } epilogue {
    ^bb0(%acc: f32):
      mpk.yield %acc : f32
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_ReduceKind:$kind,
                       Variadic<Mpk_Buffer>:$inputs, Variadic<Mpk_Buffer>:$epilogue_inputs,
                       Variadic<Mpk_Buffer>:$outputs, DenseI64ArrayAttr:$iteration,
                       DenseI64ArrayAttr:$reduction_dims, AffineMapArrayAttr:$indexing);
  let regions = (region SizedRegion<1>:$prologue, SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $sym_name $kind `ins` `(` ($inputs^ `:` type($inputs))? `)`
    `epilogue_ins` `(` ($epilogue_inputs^ `:` type($epilogue_inputs))? `)`
    `outs` `(` $outputs `:` type($outputs) `)`
    `iteration` $iteration `reduction_dims` $reduction_dims `indexing` $indexing
    attr-dict-with-keyword $prologue `epilogue` $epilogue
  }];
  let hasVerifier = 1;
}

def Mpk_SoftmaxOp : Mpk_Op<"softmax"> {
  let summary = "A generated row kernel: softmax or log-softmax of each row.";
  let description = [{
    The operand is viewed as `[outer, cols, inner]`; each of the
    `outer * inner` rows holds `cols` elements `inner` apart.

    ```mlir
    mpk.softmax @k2 %x -> %y outer 64 cols 10 inner 1 : memref<64x10xf32>, memref<64x10xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$input, Mpk_Buffer:$output,
                       I64Attr:$outer, I64Attr:$cols, I64Attr:$inner, UnitAttr:$log);
  let assemblyFormat = [{
    $sym_name $input `->` $output `outer` $outer `cols` $cols `inner` $inner (`log` $log^)?
    attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Mpk_AttentionOp : Mpk_Op<"attention"> {
  let summary = "A generated kernel: fused attention, the probabilities never stored.";
  let description = [{
    `batch` independent attentions of `queries` x `head` queries over
    `keys` x `head` keys and values (buffers [batch..., S, head]); the
    optional mask is [queries, keys]. Writes the output and each query's
    log-sum-exp (f32). Online softmax over blocks of keys, fp32 statistics
    and accumulation (runtime/device/attention.cuh).

    ```mlir
    mpk.attention @k5 %q, %k, %v -> %y, %lse batch 8 queries 32 keys 32 head 16
        scale 2.500000e-01 causal
        : memref<2x4x32x16xf16>, memref<2x4x32x16xf16>, memref<2x4x32x16xf16>,
          memref<2x4x32x16xf16>, memref<2x4x32xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$query, Mpk_Buffer:$key,
                       Mpk_Buffer:$value, Optional<Mpk_Buffer>:$mask, Mpk_Buffer:$output,
                       Mpk_Buffer:$lse, I64Attr:$batch, I64Attr:$queries, I64Attr:$keys,
                       I64Attr:$head, F64Attr:$scale, UnitAttr:$causal);
  let assemblyFormat = [{
    $sym_name $query `,` $key `,` $value (`mask` `(` $mask^ `:` type($mask) `)`)?
    `->` $output `,` $lse `batch` $batch `queries` $queries `keys` $keys `head` $head
    `scale` $scale (`causal` $causal^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,` type($lse)
  }];
  let hasVerifier = 1;
}

class Mpk_AttentionGradOp<string mnemonic, string summ, string writtenFormat, dag written>
    : Mpk_Op<mnemonic> {
  let summary = summ;
  let description = [{
    Recomputes each block of probabilities from the forward pass's
    log-sum-exp (`p = exp(s - lse)`), with `delta = rowsum(dy * y)` per
    query; the operands and attributes are the forward kernel's, with the
    forward output `y` and its gradient `dy`. The gradient of the queries
    and that of the keys and values are two kernels, each of which owns the
    rows it writes (no atomics).

    ```mlir
    mpk.attention_grad_query @k6 %q, %k, %v, %y, %lse, %dy -> %dq batch 8 queries 32
        keys 32 head 16 scale 2.500000e-01 causal
        : memref<8x32x16xf32>, memref<8x32x16xf32>, memref<8x32x16xf32>,
          memref<8x32x16xf32>, memref<8x32xf32>, memref<8x32x16xf32>, memref<8x32x16xf32>
    ```
  }];
  let arguments = !con((ins SymbolNameAttr:$sym_name, Mpk_Buffer:$query, Mpk_Buffer:$key,
                            Mpk_Buffer:$value, Mpk_Buffer:$output, Mpk_Buffer:$lse,
                            Mpk_Buffer:$grad_output, Optional<Mpk_Buffer>:$mask), written,
                       (ins I64Attr:$batch, I64Attr:$queries, I64Attr:$keys, I64Attr:$head,
                            F64Attr:$scale, UnitAttr:$causal));
  let assemblyFormat = !strconcat([{
    $sym_name $query `,` $key `,` $value `,` $output `,` $lse `,` $grad_output
    (`mask` `(` $mask^ `:` type($mask) `)`)? `->` }], writtenFormat, [{
    `batch` $batch `queries` $queries `keys` $keys `head` $head `scale` $scale
    (`causal` $causal^)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($output) `,` type($lse) `,`
    type($grad_output) }]);
  let hasVerifier = 1;
}

def Mpk_AttentionGradQueryOp : Mpk_AttentionGradOp<"attention_grad_query",
    "A generated kernel: the gradient of fused attention's queries.",
    " $grad_query `:` type($grad_query) ", (ins Mpk_Buffer:$grad_query)>;

def Mpk_AttentionGradKeyValueOp : Mpk_AttentionGradOp<"attention_grad_key_value",
    "A generated kernel: the gradients of fused attention's keys and values.",
    " $grad_key `,` $grad_value `:` type($grad_key) `,` type($grad_value) ",
    (ins Mpk_Buffer:$grad_key, Mpk_Buffer:$grad_value)>;

def Mpk_LayerNormOp : Mpk_Op<"layer_norm"> {
  let summary = "A generated row kernel: layer normalisation of each contiguous row.";
  let description = [{
    ```mlir
    mpk.layer_norm @k3 %x, %g, %b -> %y rows 128 cols 64 eps 1.0e-05
        : memref<8x16x64xf32>, memref<64xf32>, memref<64xf32>, memref<8x16x64xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$input, Mpk_Buffer:$gamma,
                       Mpk_Buffer:$beta, Mpk_Buffer:$output, I64Attr:$rows, I64Attr:$cols,
                       F64Attr:$eps);
  let assemblyFormat = [{
    $sym_name $input `,` $gamma `,` $beta `->` $output `rows` $rows `cols` $cols `eps` $eps
    attr-dict `:` type($input) `,` type($gamma) `,` type($beta) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Mpk_CrossEntropyOp : Mpk_Op<"cross_entropy"> {
  let summary = "A generated row kernel: per-row softmax cross-entropy against a label.";
  let description = [{
    `losses[r] = logsumexp(logits[r, :]) - logits[r, labels[r]]`; a label
    outside [0, cols) gives NaN.

    ```mlir
    mpk.cross_entropy @k4 %logits, %labels -> %losses rows 64 cols 10
        : memref<64x10xf32>, memref<64xi32>, memref<64xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$logits, Mpk_Buffer:$labels,
                       Mpk_Buffer:$losses, I64Attr:$rows, I64Attr:$cols);
  let assemblyFormat = [{
    $sym_name $logits `,` $labels `->` $losses `rows` $rows `cols` $cols
    attr-dict `:` type($logits) `,` type($labels) `,` type($losses)
  }];
  let hasVerifier = 1;
}

def Mpk_CrossEntropyGradOp : Mpk_Op<"cross_entropy_grad"> {
  let summary = "A generated row kernel: the gradient of the mean softmax cross-entropy.";
  let description = [{
    `grad[r, c] = (softmax(logits[r, :])[c] - (c == labels[r])) * dloss / rows`
    where `dloss` is the rank-0 gradient of the mean loss.

    ```mlir
    mpk.cross_entropy_grad @k5 %logits, %labels, %dloss -> %dlogits rows 64 cols 10
        : memref<64x10xf32>, memref<64xi32>, memref<f32>, memref<64x10xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$logits, Mpk_Buffer:$labels,
                       Mpk_Buffer:$grad_loss, Mpk_Buffer:$grad_logits, I64Attr:$rows,
                       I64Attr:$cols);
  let assemblyFormat = [{
    $sym_name $logits `,` $labels `,` $grad_loss `->` $grad_logits `rows` $rows `cols` $cols
    attr-dict `:` type($logits) `,` type($labels) `,` type($grad_loss) `,` type($grad_logits)
  }];
  let hasVerifier = 1;
}

def Mpk_Pool2DOp : Mpk_Op<"pool2d"> {
  let summary = "A generated kernel: 2-D max or average pooling in NCHW.";
  let description = [{
    ```mlir
    mpk.pool2d @k5 max %x -> %y kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
        : memref<8x16x28x28xf32>, memref<8x16x14x14xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_PoolKind:$kind, Mpk_Buffer:$input,
                       Mpk_Buffer:$output, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       UnitAttr:$count_include_pad);
  let assemblyFormat = [{
    $sym_name $kind $input `->` $output `kernel` $kernel `stride` $stride `padding` $padding
    (`count_include_pad` $count_include_pad^)? attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Mpk_Pool2DGradOp : Mpk_Op<"pool2d_grad"> {
  let summary = "A generated kernel: the input gradient of 2-D max or average pooling.";
  let description = [{
    One input element per thread: it gathers the gradients of the windows
    that cover it (deterministic, no atomics). For max pooling `input` is the
    forward input and each window's gradient goes to its first maximum in
    row-major order; average pooling divides by the forward divisor and has
    no `input`.

    ```mlir
    mpk.pool2d_grad @k9 max %dy, %x -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
        : memref<8x16x14x14xf32>, memref<8x16x28x28xf32>, memref<8x16x28x28xf32>
    mpk.pool2d_grad @k10 avg %dy -> %dx kernel [2, 2] stride [2, 2] padding [0, 0, 0, 0]
        : memref<8x16x14x14xf32>, memref<8x16x28x28xf32>
    ```

    The types are those of `grad_output`, `grad_input`, then `input`'s
    when there is one.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_PoolKind:$kind, Mpk_Buffer:$grad_output,
                       Optional<Mpk_Buffer>:$input, Mpk_Buffer:$grad_input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding, UnitAttr:$count_include_pad);
  let assemblyFormat = [{
    $sym_name $kind $grad_output (`,` $input^)? `->` $grad_input `kernel` $kernel `stride` $stride
    `padding` $padding (`count_include_pad` $count_include_pad^)? attr-dict
    `:` type($grad_output) `,` type($grad_input) (`,` type($input)^)?
  }];
  let hasVerifier = 1;
}

def Mpk_Im2ColOp : Mpk_Op<"im2col"> {
  let summary = "A generated kernel: unfolds convolution windows into GEMM columns.";
  let description = [{
    From `input` [N, C, H, W] writes `columns` [N, C * kH * kW, Ho * Wo]
    (zero where a window reads padding), so that the convolution is a GEMM
    of the filter [O, C * kH * kW] by each image's columns. `padding` is
    [top, left, bottom, right]; Ho = (H + top + bottom - dilation (kH - 1)
    - 1) / stride + 1, and likewise Wo.

    ```mlir
    mpk.im2col @k6 %x -> %cols kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1]
        dilation [1, 1] : memref<8x3x28x28xf32>, memref<8x27x784xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$input, Mpk_Buffer:$columns,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation);
  let assemblyFormat = [{
    $sym_name $input `->` $columns `kernel` $kernel `stride` $stride `padding` $padding
    `dilation` $dilation attr-dict `:` type($input) `,` type($columns)
  }];
  let hasVerifier = 1;
}

def Mpk_Col2ImOp : Mpk_Op<"col2im"> {
  let summary = "A generated kernel: folds GEMM columns back onto images, summing overlaps.";
  let description = [{
    The adjoint of `mpk.im2col`: from `columns` [N, C * kH * kW, Ho * Wo]
    writes `output` [N, C, H, W], each element the sum, in fp32 and in a
    fixed order (kernel rows, then columns), of the column entries that
    im2col would have read from it; entries that read padding are dropped.
    A convolution's input gradient is this fold of the GEMM of the
    transposed filter by the output gradient. The attributes are the
    forward convolution's, as for im2col.

    ```mlir
    mpk.col2im @k9 %dcols -> %dx kernel [3, 3] stride [1, 1] padding [1, 1, 1, 1]
        dilation [1, 1] : memref<8x27x784xf32>, memref<8x3x28x28xf16>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$columns, Mpk_Buffer:$output,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation);
  let assemblyFormat = [{
    $sym_name $columns `->` $output `kernel` $kernel `stride` $stride `padding` $padding
    `dilation` $dilation attr-dict `:` type($columns) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Mpk_GatherOp : Mpk_Op<"gather"> {
  let summary = "A generated kernel: gathers rows of a [V, D] table by index (embedding).";
  let description = [{
    An index outside [0, V) gives NaN rows.

    ```mlir
    mpk.gather @k7 %table, %ids -> %out : memref<96x32xf32>, memref<8x16xi32>, memref<8x16x32xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$table, Mpk_Buffer:$indices,
                       Mpk_Buffer:$output);
  let assemblyFormat = [{
    $sym_name $table `,` $indices `->` $output attr-dict
    `:` type($table) `,` type($indices) `,` type($output)
  }];
  let hasVerifier = 1;
}

def Mpk_DropoutOp : Mpk_Op<"dropout"> {
  let summary = "A generated kernel: inverted dropout with a counter-based mask (mpg.dropout).";
  let description = [{
    Element e of `output` is `input[e] * (1 / (1 - rate))` (in f32, f64 for
    f64 buffers) where the 32 Philox bits of element e under key `seed[]`,
    stream `stream` and run `run[]` (runtime/device/random.cuh) are at least
    `rate * 2^32` rounded, and zero elsewhere. The same bits on every target.

    ```mlir
    mpk.dropout @k3 %x, %seed, %run -> %y rate 1.000000e-01 stream 0
        : memref<8x64xf16>, memref<i64>, memref<i64>, memref<8x64xf16>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Mpk_Buffer:$input, Mpk_Buffer:$seed,
                       Mpk_Buffer:$run, Mpk_Buffer:$output, F64Attr:$rate, I64Attr:$stream);
  let assemblyFormat = [{
    $sym_name $input `,` $seed `,` $run `->` $output `rate` $rate `stream` $stream attr-dict
    `:` type($input) `,` type($seed) `,` type($run) `,` type($output)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

def Mpk_GemmOp : Mpk_Op<"gemm"> {
  let summary = "A (strided-batched) GEMM library call with an optional epilogue.";
  let description = [{
    For each `b < batch`: `C_b = epilogue(op(A_b) x op(B_b) [+ bias])` where
    `A_b` is the `m x k` matrix (`k x m` stored when `transpose_a`) at
    element offset `offset_a + b * stride_a` of `a`, likewise `B_b` (`k x n`)
    and `C_b` (`m x n`, row-major). A stride of 0 shares the operand across
    the batch. cuBLASLt on the GPU (fp32 accumulation); OpenBLAS on the CPU
    with operands widened to fp32.

    A non-zero `beta` accumulates into C (BLAS's beta): `C = op(A) x op(B) +
    beta * C`, C's old values read before they are overwritten. Only for a
    single product (batch 1) without an epilogue, into an f32 C (or with A,
    B and C in f64), beta finite and within an f32's range: a momentum
    buffer updated by its weight gradient's GEMM (`mpg-fuse` forms it for
    fp32 operands; bf16 ones, as below, are valid too).

    ```mlir
    mpk.gemm %x, %w -> %y bias %b m 64 n 128 k 64 epilogue bias_relu
        : memref<64x64xf32>, memref<64x128xf32>, memref<64x128xf32>, memref<128xf32>
    mpk.gemm %x, %dy -> %momentum m 64 n 128 k 32 beta 0.9 {transpose_a}
        : memref<32x64xbf16>, memref<32x128xbf16>, memref<64x128xf32>
    ```
  }];
  let arguments = (ins Mpk_Buffer:$a, Mpk_Buffer:$b, Mpk_Buffer:$c,
                       Optional<Mpk_Buffer>:$bias,
                       I64Attr:$m, I64Attr:$n, I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "1">:$batch,
                       DefaultValuedAttr<I64Attr, "0">:$offset_a,
                       DefaultValuedAttr<I64Attr, "0">:$offset_b,
                       DefaultValuedAttr<I64Attr, "0">:$offset_c,
                       DefaultValuedAttr<I64Attr, "0">:$stride_a,
                       DefaultValuedAttr<I64Attr, "0">:$stride_b,
                       DefaultValuedAttr<I64Attr, "0">:$stride_c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       DefaultValuedAttr<Mpk_GemmEpilogue, "GemmEpilogue::None">:$epilogue,
                       DefaultValuedAttr<F64Attr, "::llvm::APFloat(0.0)">:$beta);
  let assemblyFormat = [{
    $a `,` $b `->` $c (`bias` $bias^)? `m` $m `n` $n `k` $k (`epilogue` $epilogue^)?
    (`beta` $beta^)? attr-dict
    `:` type($a) `,` type($b) `,` type($c) (`,` type($bias)^)?
  }];
  let builders = [
    // A single product without transposes, an epilogue or beta; setters
    // give the rest.
    OpBuilder<(ins "::mlir::Value":$a, "::mlir::Value":$b, "::mlir::Value":$c,
                   "::mlir::Value":$bias, "int64_t":$m, "int64_t":$n, "int64_t":$k), [{
      build($_builder, $_state, a, b, c, bias, m, n, k, /*batch=*/1, /*offset_a=*/0,
            /*offset_b=*/0, /*offset_c=*/0, /*stride_a=*/0, /*stride_b=*/0, /*stride_c=*/0,
            /*transpose_a=*/false, /*transpose_b=*/false, GemmEpilogue::None,
            ::llvm::APFloat(0.0));
    }]>
  ];
  let hasVerifier = 1;
}

#endif // MPC_DIALECT_MPK_OPS
