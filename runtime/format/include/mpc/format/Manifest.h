//===- Manifest.h - the program description inside a bundle ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The bundle section "manifest.json" describes one compiled program: the
// sizes of its two memory spaces, where each input, output, parameter and
// constant lives, the kernels of the host object, and the steps that one
// run() performs in order. An example, abridged:
//
//   {"format": "mpc-program", "version": 1, "program": "mlp",
//    "arena_bytes": 49408, "persistent_bytes": 38656,
//    "inputs": [{"name": "pixels", "dtype": "f32", "shape": [64, 64],
//                "buffer": {"space": "arena", "offset": 32768}}],
//    "outputs": [...same fields...],
//    "params": [{...same fields..., "init": {"kind": "glorot_uniform",
//                "args": {"gain": 1.0}}, "trainable": true, "state": false}],
//    "constants": [{"dtype": "f32", "shape": [3], "buffer": {...},
//                   "section": "const.0"}],
//    "kernels": [{"name": "k0", "grid": 32, "block": 256}],
//    "steps": [{"op": "launch", "kernel": "k0", "buffers": [{...}, ...]},
//              {"op": "gemm", ...}, {"op": "copy", ...}]}
//
// Memory: the arena is scratch for one run (inputs, outputs, intermediates);
// persistent memory keeps parameters, optimizer state and constants across
// runs. Both start zeroed. A buffer is a byte offset into one of them, and
// every tensor lies at an offset aligned to its element size.
//
// Steps:
//   - launch: calls a kernel of the host object with the table of `buffers`.
//   - gemm: for each b in [0, batch), C_b = epilogue(op(A_b) op(B_b) + bias)
//     with op(A_b) m x k, op(B_b) k x n and C_b m x n, all dense row-major;
//     op transposes when transpose_a/transpose_b is set (A_b is then stored
//     k x m, B_b n x k). Operand X_b starts offset_x + b * stride_x elements
//     of x_dtype after X's buffer; a stride of 0 shares the operand across
//     the batch. The bias holds n elements added to every row. Products
//     accumulate in fp32 (fp64 when A, B and C are all f64), and the result
//     is rounded once to c_dtype, to nearest even. C overlaps neither A, B
//     nor the bias, and the batch's outputs do not overlap each other.
//     Optional, for a CPU that widens fp16 operands to fp32 (it has no fp16
//     GEMM): keep_a (keep_b) asks to keep the widened copy of the f16
//     operand for later steps, keep_c the fp32 values of the f16 result as
//     stored (rounded); reuse_a (reuse_b) says that the operand is the same
//     elements (space, first byte, dtype and count) as an operand or result
//     an earlier GEMM step keeps, unchanged since then by every step, so
//     that its kept copy serves. All only when batch is 1. (They came after
//     version 1 was first written; a runtime from before them refuses them
//     as unknown keys.)
//     Optional: beta, a finite number, accumulates into C (BLAS's beta): C =
//     op(A) op(B) + beta * C, C's old values read before they are written,
//     the sum computed in the compute type. Only when batch is 1, the
//     epilogue none, C f32 (or A, B and C f64), beta within an f32's range
//     and no relu_grad hint is given (a momentum buffer updated by its
//     weight gradient's GEMM).
//     Absent or 0, C is written without being read.
//     Optional, for a backend that applies a ReLU's gradient as it rounds a
//     GEMM's result: relu_grad_aux, relu_grad_aux_dtype and relu_grad_out,
//     all three or none, say that the next step is a launch whose only
//     effect is out = aux > 0 ? C : +0 elementwise over C's m x n elements
//     (aux and out hold that many, out in c_dtype; NaN in aux gives +0; out
//     is C, or aux with elements of aux's size, or apart from both), and
//     that no later step reads C before writing it. Such a backend may then
//     run both steps as this GEMM writing out (and not C) and skip the
//     launch; the others run both. Only on a single product (batch 1) with
//     epilogue none and no keep_c.
//     Optional, for a backend that builds a convolution's columns as it
//     reads them: im2col_b, an object {"input": buffer, "shape": [N, C, H,
//     W], "kernel": [kH, kW], "stride": [sh, sw], "padding": [top, left,
//     bottom, right], "dilation": [dh, dw]}, says that the previous step is
//     a launch whose only effect is to write B's elements as the im2col
//     columns of `input` (N x C x H x W elements of b_dtype): B_b is image
//     b's columns, stored as C kH kW rows of Ho x Wo (k x n, or n x k with
//     transpose_b), row (c kH + i) kW + j and column oh Wo + ow holding
//     input[b, c, oh sh - top + i dh, ow sw - left + j dw], or +0 where that
//     lies outside the image; Ho = (H + top + bottom - dh (kH - 1) - 1) / sh
//     + 1, likewise Wo, batch is N, offset_b 0 and stride_b C kH kW Ho Wo.
//     It also says that no later step reads those bytes of B before writing
//     them. A backend may then skip the launch and read B from input; the
//     others run both. Not with keep_b or reuse_b, and input overlaps
//     neither B nor C (a backend may read an image after writing the
//     products of the images before it).
//   - copy: copies `bytes` bytes from `source` to `target` (no overlap).
//   - all_reduce: {"buffer": buffer, "dtype": f32|f64|f16|bf16|i32,
//     "count": n, "reduce": "sum"|"max"|"mean"}: reduces the n elements at
//     `buffer` over every rank of a data-parallel job, in place (f16 and
//     bf16 in f32, rounded once; a mean is the sum divided by the number of
//     ranks, of floats only), so that every rank holds the same result;
//     in a job of one rank it leaves them as they are. A program with such a
//     step joins the job of the process that loads it (runtime/collective/).
//     (It came after version 1 was first written; a runtime from before it
//     refuses it as an unknown op.)
//
// Initializers and their arguments (defaults in parentheses):
//   zeros, ones, constant(value = 0), normal(mean = 0, std = 1),
//   uniform(low = 0, high = 1), glorot_uniform(gain = 1): U(-a, a) with
//   a = gain * sqrt(6 / (fan_in + fan_out)), he_normal(gain = sqrt 2):
//   N(0, gain / sqrt(fan_in)). Fans: for a rank-2 shape [in, out], fan_in is
//   dim 0 and fan_out dim 1; for rank >= 3 [out, in, k...], fan_in is
//   dim 1 * prod(k) and fan_out dim 0 * prod(k). Random initializers need a
//   floating-point dtype, glorot_uniform and he_normal rank 2 or more.
//   seed: an i32 or i64 tensor whose elements are the next 64 random bits of
//   the tensor's stream each, truncated to the dtype (the key of mpg.dropout:
//   a program seed, kept in checkpoints with the rest of the state).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_FORMAT_MANIFEST_H
#define MPC_FORMAT_MANIFEST_H

#include "mpc/format/HostTensor.h"
#include "mpc/format/Status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace mpc::rt {

/// The manifest's "format" and "version".
constexpr char kManifestFormat[] = "mpc-program";
constexpr int64_t kManifestVersion = 1;
/// The bundle section that holds the manifest.
constexpr char kManifestSection[] = "manifest.json";

enum class BufferSpace { Arena, Persistent };

/// "arena" or "persistent".
const char *bufferSpaceName(BufferSpace space);

/// A byte offset into one of the two memory spaces.
struct BufferRef {
  BufferSpace space = BufferSpace::Arena;
  uint64_t offset = 0;
};

/// An input or output.
struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  BufferRef buffer;
};

/// The size in bytes of a tensor of `dtype` and `shape` (a verified shape).
uint64_t tensorBytes(DType dtype, const std::vector<int64_t> &shape);

enum class InitKind { Zeros, Ones, Constant, Normal, Uniform, GlorotUniform, HeNormal, Seed };

/// The manifest spelling: "zeros", ..., "glorot_uniform", "he_normal", "seed".
const char *initKindName(InitKind kind);

struct Initializer {
  InitKind kind = InitKind::Zeros;
  /// The kind's arguments by name; parseManifest fills in the defaults.
  std::map<std::string, double> args;

  /// The argument `name`, or its default when absent.
  double arg(const std::string &name) const;
};

/// A parameter or a piece of persistent state (optimizer moments, the loss
/// scale, a step counter): it lives in persistent memory, is initialised at
/// load and is part of a checkpoint.
struct ParamSpec : TensorSpec {
  Initializer init;
  bool trainable = true;
  /// True for state that the optimizer or the loss scaler keeps.
  bool state = false;
  /// For a low-precision working copy of a parameter: that parameter's
  /// name. The runtime keeps the copy equal to the parameter converted
  /// (after initialisation and after every parameter is set or loaded),
  /// the step rewrites it with each update, and checkpoints leave it out.
  std::string castOf;
};

/// Persistent data filled at load from a bundle section of exactly its size.
struct ConstantSpec {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  BufferRef buffer;
  std::string section;
};

/// A kernel of the host object (and of the CUDA module), with its launch
/// configuration on the GPU; the CPU backend ignores grid and block.
struct KernelSpec {
  std::string name;
  int64_t grid = 1;
  int64_t block = 1;
};

struct LaunchStep {
  std::string kernel;
  /// The kernel's buffer table, in order.
  std::vector<BufferRef> buffers;
};

enum class Epilogue { None, Bias, Relu, BiasRelu, Gelu, BiasGelu };

/// "none", "bias", "relu", "bias_relu", "gelu" or "bias_gelu".
const char *epilogueName(Epilogue epilogue);

/// Whether `epilogue` adds a bias.
bool epilogueHasBias(Epilogue epilogue);

/// A GEMM's ReLU-gradient hint (GemmStep::reluGrad). Outside GemmStep: a
/// nested class with default member initializers is not complete inside its
/// enclosing class, and clang then refuses std::optional<T>::emplace().
struct GemmReluGrad {
  BufferRef aux, out;
  DType auxDtype = DType::F32;
};

struct GemmStep {
  BufferRef a, b, c;
  std::optional<BufferRef> bias;
  DType aDtype = DType::F32, bDtype = DType::F32, cDtype = DType::F32;
  /// Meaningful only with a bias.
  DType biasDtype = DType::F32;
  int64_t m = 1, n = 1, k = 1, batch = 1;
  /// In elements of the operand's dtype.
  int64_t offsetA = 0, offsetB = 0, offsetC = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  bool transposeA = false, transposeB = false;
  Epilogue epilogue = Epilogue::None;
  /// beta (see the file comment): 0 leaves C unread.
  double beta = 0;
  /// keep_a/keep_b/keep_c and reuse_a/reuse_b (see the file comment).
  bool keepA = false, keepB = false, keepC = false, reuseA = false, reuseB = false;
  /// relu_grad_aux/relu_grad_aux_dtype/relu_grad_out (see the file comment).
  using ReluGrad = GemmReluGrad;
  std::optional<ReluGrad> reluGrad;
  /// im2col_b (see the file comment).
  struct Im2col {
    BufferRef input;
    /// [N, C, H, W].
    std::vector<int64_t> shape;
    /// [kH, kW], [sh, sw], [top, left, bottom, right] and [dh, dw].
    std::vector<int64_t> kernel, stride, padding, dilation;
    /// Ho and Wo (of a verified hint).
    int64_t outH() const {
      return (shape[2] + padding[0] + padding[2] - dilation[0] * (kernel[0] - 1) - 1) /
                 stride[0] + 1;
    }
    int64_t outW() const {
      return (shape[3] + padding[1] + padding[3] - dilation[1] * (kernel[1] - 1) - 1) /
                 stride[1] + 1;
    }
  };
  std::optional<Im2col> im2colB;
};

/// "gemm 64x128x64 batch 4 f16*f16^T->f16 bias_relu": m x n x k, the batch
/// when there is one, the operand types (a transposed operand marked ^T),
/// the epilogue when there is one and "relu_grad" for that hint; how the
/// benchmarks' per-step profiles name a GEMM step.
std::string describeGemm(const GemmStep &gemm);

struct CopyStep {
  BufferRef source, target;
  uint64_t bytes = 0;
};

/// Sum, maximum, or the sum divided by the number of ranks (floats only:
/// the mean of data-parallel gradients).
enum class AllReduceOp { Sum, Max, Mean };

/// "sum", "max" or "mean".
const char *allReduceOpName(AllReduceOp op);

/// Whether elements of `dtype` all-reduce: f32, f64, f16, bf16 and i32.
inline bool allReduces(DType dtype) { return dtype != DType::I64 && dtype != DType::Bool; }

/// Whether elements of `dtype` all-reduce with `op` (a mean of floats only).
inline bool allReduces(DType dtype, AllReduceOp op) {
  return allReduces(dtype) && (op != AllReduceOp::Mean || dtype != DType::I32);
}

struct AllReduceStep {
  BufferRef buffer;
  DType dtype = DType::F32;
  uint64_t count = 0;
  AllReduceOp reduce = AllReduceOp::Sum;
};

using Step = std::variant<LaunchStep, GemmStep, CopyStep, AllReduceStep>;

/// A byte range [begin, end) of one memory space.
struct ByteRange {
  BufferSpace space = BufferSpace::Arena;
  uint64_t begin = 0, end = 0;

  /// Whether both are non-empty and share a byte.
  bool overlaps(const ByteRange &other) const {
    return space == other.space && begin < other.end && other.begin < end &&
           begin < end && other.begin < other.end;
  }
  bool operator==(const ByteRange &other) const {
    return space == other.space && begin == other.begin && end == other.end;
  }
  bool operator<(const ByteRange &other) const {
    return std::tie(space, begin, end) <
           std::tie(other.space, other.begin, other.end);
  }
};

enum class GemmOperand { A, B, C };

/// The bytes of `operand` of a single product (batch 1): its m x k, k x n
/// or m x n elements from offset_x on. The elements keep_x and reuse_x
/// name.
ByteRange gemmOperandBytes(const GemmStep &step, GemmOperand operand);

struct Manifest {
  std::string program;
  uint64_t arenaBytes = 0;
  uint64_t persistentBytes = 0;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<ParamSpec> params;
  std::vector<ConstantSpec> constants;
  std::vector<KernelSpec> kernels;
  std::vector<Step> steps;
};

/// Parses and verifies (see verifyManifest) the manifest `json`. On failure
/// `out` is unchanged and the MPC_FORMAT_ERROR message starts with the JSON
/// path of the problem, e.g. "steps[3].a.offset: ...".
Status parseManifest(const std::string &json, Manifest &out);

/// Checks what the JSON structure cannot: unique names, initializer
/// arguments, tensors and GEMM operands inside their memory space and
/// aligned, kernels that steps launch declared, copies without overlap.
/// Messages start with the JSON path of the problem.
Status verifyManifest(const Manifest &manifest);

/// Whether `value` is a value of `dtype` that a constant initializer may
/// give it: finite in a floating-point dtype (at most 65504 in magnitude in
/// f16), a whole number in range for an integer one, 0 or 1 for bool.
bool isInitialValueOf(DType dtype, double value);

/// Whether `name` holds a control character (below 0x20, or 0x7f), which
/// the names of a manifest's tensors may not.
bool holdsControlCharacter(const std::string &name);

/// `manifest` as JSON that parseManifest reads back to the same manifest.
/// The manifest should pass verifyManifest; the writer does not check.
std::string writeManifest(const Manifest &manifest);

} // namespace mpc::rt

#endif // MPC_FORMAT_MANIFEST_H
