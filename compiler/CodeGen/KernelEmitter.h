//===- KernelEmitter.h - the emitter of mpk programs as CUDA C++ -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Private to compiler/CodeGen: the class that prints a program's kernels
// (CudaEmitter.h is the public entry) and the helpers its parts share. Its
// methods are defined by family: the program, functors and scalar bodies
// (CudaEmitter.cpp), pointwise kernels and the multi-tensor launches of
// updates and finite checks (EmitPointwise.cpp), reductions and row kernels
// (EmitRows.cpp; the host form of a reduction in EmitReduceHostForm.cpp),
// pooling, im2col, col2im and gathers (EmitWindows.cpp), fused attention
// (EmitAttention.cpp).
// Every kernel has a GPU form and a host form in the same method.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_CODEGEN_KERNELEMITTER_H
#define MPC_COMPILER_CODEGEN_KERNELEMITTER_H

#include "compiler/CodeGen/CudaEmitter.h"
#include "compiler/CodeGen/HostRowLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

namespace mpc::codegen {

using namespace mlir;
namespace mpk = mlir::mpk;

/// The C++ type of a stored element.
std::string storageType(Type type);

/// The C++ type of a value in registers (f16/bf16 scalars only appear
/// between a rounding truncf and its extf).
std::string scalarType(Type type);

Type elementOf(Value buffer);

/// fp16 and bf16: stored as 16 bits, computed in f32.
bool is16Bit(Type type);
llvm::ArrayRef<int64_t> shapeOf(Value buffer);

int64_t product(llvm::ArrayRef<int64_t> dims);

/// A float literal that reads back exactly.
std::string floatLiteral(double value, bool isDouble);

/// The conversions of generated code: mpc::to_f32 and mpc::from_f32, or in
/// the host loops of pointwise kernels their forms that a host compiler
/// vectorises (to_f32_loop, from_f32_loop; the same values).
struct Conversions {
  llvm::StringRef widen = "mpc::to_f32", narrow = "mpc::from_f32";
};
inline constexpr Conversions kScalarConversions{};
inline constexpr Conversions kLoopConversions{"mpc::to_f32_loop", "mpc::from_f32_loop"};

/// Reads `buffer` element at `index` into the compute type.
std::string loadExpr(Value buffer, llvm::StringRef pointer, llvm::StringRef index,
                     const Conversions &convert = kScalarConversions);

/// Converts `value` (compute type) for storing into `buffer`.
std::string storeExpr(Value buffer, llvm::StringRef value,
                      const Conversions &convert = kScalarConversions);

/// The statement storing `value` (compute type) into `buffer` element at
/// `index` in a host loop. A bf16 element is written through its bits, which
/// a host compiler vectorises (a loop of whole-struct stores it does not).
std::string loopStoreStatement(Value buffer, llvm::StringRef pointer, llvm::StringRef index,
                               llvm::StringRef value);

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// C++ text of an affine expression over named dimensions.
std::string affineText(AffineExpr expr, llvm::ArrayRef<std::string> dims);

/// The linear index into a buffer of `shape` at `map(dims)`.
/// With `fromDim`, the terms of iteration dimensions >= fromDim are left out
/// (the start of a host run), but for a constant added to one (a slice's
/// offset).
std::string linearIndex(AffineMap map, llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<std::string> dims,
                        unsigned fromDim = std::numeric_limits<unsigned>::max());

/// Declares `names` as the row-major decomposition of `linear` over `shape`.
void emitDecompose(llvm::raw_ostream &os, llvm::StringRef indent, llvm::StringRef linear,
                   llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<std::string> names);

llvm::SmallVector<std::string> dimNames(llvm::StringRef prefix, size_t count);

class Emitter {
public:
  explicit Emitter(mpk::ProgramOp program) : program(program) {}

  FailureOr<mpc::GeneratedKernels> run();

private:
  /// Appends kernel `name`'s printed `text` (its functor in an anonymous
  /// namespace, then its MPC_KERNEL entry) to `os`, or only its entry, using
  /// the functor of an earlier kernel whose functor reads the same, or
  /// nothing when an earlier kernel's entry reads the same too (the op then
  /// launches that kernel: result.kernels.back().name).
  void appendSharingFunctor(llvm::raw_ostream &os, const std::string &text, llvm::StringRef name);

  /// `text` with every occurrence of identifier `name` (not part of a longer
  /// identifier) replaced by `by`.
  static std::string replaceName(const std::string &text, const std::string &name,
                                 const std::string &by);

  /// Starts a kernel: records its launch and prints the functor's pointer
  /// members. Returns the member names.
  llvm::SmallVector<std::string> beginFunctor(llvm::raw_ostream &os, llvm::StringRef name,
                                              llvm::ArrayRef<Value> buffers,
                                              llvm::ArrayRef<bool> written);

  /// The kernel's definition up to its body's brace: with launch bounds
  /// where its blocks are larger than kDefaultRowBlock threads.
  static void emitKernelHead(llvm::raw_ostream &os, llvm::StringRef name, int64_t block);

  void endFunctor(llvm::raw_ostream &os, llvm::StringRef name, llvm::ArrayRef<Value> buffers,
                  llvm::ArrayRef<bool> written, llvm::StringRef skeletonCall, int64_t grid,
                  int64_t block);

  static int64_t pointwiseGrid(int64_t n);
  /// Threads of a row kernel's block: enough for the row's columns, at
  /// most kDefaultRowBlock; up to 1024 for rows of at least kLongRow columns
  /// in a launch of under kFewRows rows (a finite check or a loss over a
  /// whole tensor), where each row's block streams it alone. kFewRows is a
  /// heuristic near a GPU's multiprocessor count (132 on an H200, 108 on an
  /// A100). A multi-tensor launch takes the largest of its members'.
  static constexpr int64_t kDefaultRowBlock = 256;
  static constexpr int64_t kFewRows = 128;
  static constexpr int64_t kLongRow = 32768;
  static int64_t rowBlock(int64_t cols, int64_t rows);
  static int64_t rowGrid(int64_t rows) {
    return std::max<int64_t>(1, std::min<int64_t>(rows, 65535));
  }

  /// Prints the scalar ops of `block` (its arguments already named in
  /// `names`); returns failure on an op without a C++ form.
  LogicalResult emitScalarBody(llvm::raw_ostream &os, llvm::StringRef indent, Block &block,
                               llvm::DenseMap<Value, std::string> &names,
                               const Conversions &convert = kScalarConversions);

  /// Prints `row(r)`, the host's form of pointwise kernel `k` (see
  /// pointwise.cuh), and returns its number of rows; -1 on failure. Each row
  /// is a tile of a run (HostRowLayout.h), walked in chunks; fp16 and bf16
  /// operands go through float arrays a chunk at a time.
  int64_t emitHostRowForm(llvm::raw_ostream &os, mpk::PointwiseOp k, llvm::ArrayRef<Value> buffers,
                          llvm::ArrayRef<std::string> members, llvm::ArrayRef<AffineMap> maps);

  /// What a store of `value` into `buffer` may round instead: x when value
  /// is extf(truncf(x)) through the buffer's own element type (a cast to
  /// it), since rounding x once to that type gives the same bits as
  /// rounding, widening exactly and rounding again.
  static Value unroundedStore(Value value, Value buffer);

  LogicalResult emitPointwise(llvm::raw_ostream &os, mpk::PointwiseOp k, bool functorOnly = false);

  /// The bytes of a buffer (a byte per boolean).
  static int64_t bufferBytes(Value buffer);

  /// The byte range [begin, end) a buffer covers in its memory space.
  static std::tuple<int, int64_t, int64_t> extentOf(Value buffer);
  /// A finite check of the loss scaler that can share a launch: an fp32 sum
  /// (the row skeleton) of one buffer into one element.
  static bool isMergeableCheck(mpk::ReduceOp k);

  /// The memory a run of kernels launched together (updates, finite checks)
  /// reads and writes, as extents (space, first byte, end), so that checking
  /// one more kernel against the run costs integer comparisons: a step of a
  /// deep model has runs of a thousand.
  struct RunExtents {
    using Extent = std::tuple<int, int64_t, int64_t>;
    std::vector<Extent> reads, writes;

    static bool overlap(const Extent &a, const Extent &b) {
      auto [spaceA, beginA, endA] = a;
      auto [spaceB, beginB, endB] = b;
      if (spaceA < 0 || spaceB < 0)
        return true; // unknown: assume the worst
      return spaceA == spaceB && beginA < endB && beginB < endA;
    }
    static std::vector<Extent> extentsOf(llvm::ArrayRef<Value> buffers) {
      std::vector<Extent> extents;
      for (Value v : buffers)
        extents.push_back(extentOf(v));
      return extents;
    }
    /// Whether a kernel reading `in` and writing `out` can join the run: it
    /// writes nothing the run reads or writes and reads nothing it writes
    /// (elements of different kernels run in any order).
    bool independent(llvm::ArrayRef<Value> in, llvm::ArrayRef<Value> out) const {
      std::vector<Extent> kernelReads = extentsOf(in), kernelWrites = extentsOf(out);
      for (const Extent &written : kernelWrites) {
        for (const Extent &other : reads)
          if (overlap(written, other))
            return false;
        for (const Extent &other : writes)
          if (overlap(written, other))
            return false;
      }
      for (const Extent &read : kernelReads)
        for (const Extent &other : writes)
          if (overlap(read, other))
            return false;
      return true;
    }
    void add(llvm::ArrayRef<Value> in, llvm::ArrayRef<Value> out) {
      for (const Extent &e : extentsOf(in))
        reads.push_back(e);
      for (const Extent &e : extentsOf(out))
        writes.push_back(e);
    }
  };

  /// What kernel `k` reads: its inputs (and a reduction's epilogue inputs).
  static llvm::SmallVector<Value> readsOf(mpk::PointwiseOp k);
  static llvm::SmallVector<Value> readsOf(mpk::ReduceOp k);

  /// The run of kernels that starts at `ops[index]` and shares one launch:
  /// the kernels of type OpT that follow it (buffer declarations between
  /// them emit nothing), as long as `isMember` accepts them and they are
  /// independent of the run. Leaves `index` at the run's last kernel.
  template <typename OpT, typename IsMember>
  static llvm::SmallVector<OpT> collectRun(llvm::ArrayRef<Operation *> ops, size_t &index,
                                           IsMember isMember) {
    auto first = llvm::cast<OpT>(ops[index]);
    llvm::SmallVector<OpT> run = {first};
    RunExtents extents;
    extents.add(readsOf(first), llvm::SmallVector<Value>(first.getOutputs()));
    auto skipBuffers = [&](size_t at) {
      while (at < ops.size() && llvm::isa<mpk::BufferOp>(ops[at]))
        ++at;
      return at;
    };
    for (size_t next = skipBuffers(index + 1); next < ops.size(); next = skipBuffers(next + 1)) {
      auto candidate = llvm::dyn_cast<OpT>(ops[next]);
      if (!candidate || !isMember(candidate))
        break;
      llvm::SmallVector<Value> in = readsOf(candidate), out(candidate.getOutputs());
      if (!extents.independent(in, out))
        break;
      run.push_back(candidate);
      extents.add(in, out);
      index = next;
    }
    return run;
  }

  /// The type of a merged launch's member whose functor definition is
  /// `text` (printed with its own name `name`_fn): an earlier identical
  /// functor's (the same kernel of a repeated layer), else its own, printed
  /// now.
  std::string memberFunctorType(llvm::raw_ostream &os, const std::string &text,
                                llvm::StringRef name);

  /// The host's rows of a merged launch: each member's rows, end to end,
  /// called through mpc::run_host_row when `outOfLine`.
  static void emitMemberHostRows(llvm::raw_ostream &os, size_t members, bool outOfLine);

  /// The initializer of a merged launch's member `member`, whose pointers
  /// are entries [first, first + count) of the buffer table `table`.
  static void emitMemberInitializer(llvm::raw_ostream &os, llvm::StringRef table, size_t first,
                                    size_t count, llvm::ArrayRef<Value> buffers,
                                    llvm::ArrayRef<bool> written);

  /// The host's `fn` of a merged launch, of type `functor`, whose members
  /// are the buffer table's pointers in order and nothing else (the size
  /// assertion checks): one copy of the table (mpc::fill_from_table). An
  /// initializer of a deep model's thousands of pointers is one basic block
  /// that costs the host compiler a minute.
  static void emitHostFunctorFill(llvm::raw_ostream &os, llvm::StringRef functor, size_t pointers);

  /// The functor `fn` of a merged reduction launch, of type `functor`: member
  /// i takes the next `counts[i]` entries of the launch's buffer table. On
  /// the GPU an initializer, on the host a copy of the table.
  void emitMergedFunctor(llvm::raw_ostream &os, llvm::StringRef functor,
                         llvm::ArrayRef<size_t> counts, llvm::ArrayRef<Value> buffers,
                         llvm::ArrayRef<bool> written);

  /// Independent finite checks as one multi-tensor reduction: each keeps its
  /// functor, and the launch's rows are theirs end to end (one per check on
  /// the GPU, a block each; their host rows on the host). A check's sum is
  /// 0 or NaN whatever the order of its terms, so the block size of the
  /// merged launch (the largest of theirs) changes no result.
  LogicalResult emitFiniteChecks(llvm::raw_ostream &os, llvm::ArrayRef<mpk::ReduceOp> run);

  /// Independent parameter updates as one multi-tensor kernel: each keeps
  /// its functor; the launch's index space is theirs end to end, and each
  /// index runs the functor whose segment holds it. The buffer table is the
  /// members' tables in order.
  LogicalResult emitUpdates(llvm::raw_ostream &os, llvm::ArrayRef<mpk::PointwiseOp> run);

  /// A reduction: one row per output element. An fp32 accumulator uses the
  /// row skeleton (a block per row, tree reductions on the GPU); f64 and
  /// integer accumulators, which the skeleton does not provide, run a serial
  /// loop per output element on the pointwise skeleton, exact in their type.
  /// Prints `row(r)`, the host's form of f32 reduction `k` (rows.cuh's
  /// reduce_rows), and returns its number of rows:
  ///   - when the reduced dimensions end in a run that is contiguous in every
  ///     input (a row's sum over trailing axes, batch-norm statistics over
  ///     [N, ., H, W], a whole tensor), a row is one output: blocks of
  ///     kReduceBlock elements of the run are summed in kReduceLanes lanes
  ///     (8 for runs shorter than 64 and rows under kReduceBlock), which
  ///     vectorises into independent chains of additions; the lanes are
  ///     added into the row's totals every kReduceBlock elements or more,
  ///     and those pairwise at the end;
  ///   - when kept dimensions end the iteration space in such a run (a bias
  ///     gradient, a column sum), a row is a tile of up to 256 outputs
  ///     accumulated together as the reduced index advances, in order;
  ///   - otherwise the generic form (one output per row, pairwise sums).
  FailureOr<int64_t> emitReduceHostForm(llvm::raw_ostream &os, mpk::ReduceOp k,
                                        llvm::ArrayRef<Value> buffers,
                                        llvm::ArrayRef<std::string> members,
                                        llvm::ArrayRef<AffineMap> maps);
  /// Its three forms (EmitReduceHostForm.cpp).
  class ReduceHostForm;

  LogicalResult emitReduce(llvm::raw_ostream &os, mpk::ReduceOp k, bool functorOnly = false);

  LogicalResult emitSoftmax(llvm::raw_ostream &os, mpk::SoftmaxOp k);

  LogicalResult emitLayerNorm(llvm::raw_ostream &os, mpk::LayerNormOp k);

public:
  /// An attention kernel's entry: `function` of runtime/device/attention.cuh
  /// for op `op`, over `tiles` blocks of kAttentionThreads threads on the GPU.
  struct AttentionLaunch {
    Operation *op;
    llvm::StringRef name, function;
    int64_t batch, queries, keys, head;
    double scale;
    bool causal;
    int64_t tiles;
  };

private:
  /// Fused attention (EmitAttention.cpp): an entry calling the launch's
  /// function with the `reads`, the mask (a null pointer without one) and
  /// the `writes`.
  LogicalResult emitAttentionKernel(llvm::raw_ostream &os, const AttentionLaunch &launch,
                                    llvm::ArrayRef<Value> reads, llvm::ArrayRef<Value> writes,
                                    Value mask);
  LogicalResult emitAttention(llvm::raw_ostream &os, mpk::AttentionOp k);
  LogicalResult emitAttentionGradQuery(llvm::raw_ostream &os, mpk::AttentionGradQueryOp k);
  LogicalResult emitAttentionGradKeyValue(llvm::raw_ostream &os, mpk::AttentionGradKeyValueOp k);
  /// attention.cuh's launch geometry and largest head size.
  static constexpr int64_t kAttentionThreads = 128;
  static constexpr int64_t kAttentionQueryTile = 16;
  static constexpr int64_t kAttentionKeyTile = 16;
  static constexpr int64_t kAttentionMaxHead = mpk::kAttentionMaxHead;

  LogicalResult emitCrossEntropy(llvm::raw_ostream &os, mpk::CrossEntropyOp k);

  LogicalResult emitCrossEntropyGrad(llvm::raw_ostream &os, mpk::CrossEntropyGradOp k);

  LogicalResult emitPool(llvm::raw_ostream &os, mpk::Pool2DOp k);

  /// Emits the host's plane form of pooling when the windows tile the plane
  /// from its corner (stride = kernel, no padding, at most kMaxTiledWindow
  /// elements), and ends the functor: row r is image plane r, and along each
  /// row of windows (openWindowRowLoop) every window combines its elements
  /// in the order of the element form above, unrolled, so the values are
  /// the same bits. Small fp16/bf16 planes are widened into a float array
  /// first and the outputs narrowed from one. `m` names the input and output.
  void emitTiledPool(llvm::raw_ostream &os, mpk::Pool2DOp k, llvm::ArrayRef<std::string> m);

  /// Emits `count = ...`: the elements of the window at (h0, w0) inside the
  /// padded h x w plane (average pooling with count_include_pad).
  static void emitCountWithPadding(llvm::raw_ostream &os, llvm::StringRef indent,
                                   llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> pad,
                                   int64_t h, int64_t w);

  /// Emits, in a loop over windows with h0 and w0 (its top left corner) set,
  /// `bh` and `bw`: the position of the window's first maximum in row-major
  /// order, padding excluded (-1 when the window covers only padding);
  /// `input` reads the h x w input plane at (y, z).
  static void emitWindowFirstMax(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w,
                                 const std::string &input);

  /// The largest window (elements) of the tiled pooling forms' unrolled
  /// bodies (emitTiledPool, emitTiledMaxPoolGrad).
  static constexpr int64_t kMaxTiledWindow = 16;
  /// The lanes the host's reductions along a run sum a block in (a power
  /// of two).
  static constexpr int kReduceLanes = 32;
  /// The elements of a run the host's reductions along a run sum in lanes
  /// before adding them into the row's (and widen at a time, for fp16 and
  /// boolean inputs).
  static constexpr int64_t kReduceBlock = 1024;
  /// The windows the tiled pooling forms' vectorised loops take at once: an
  /// AVX2 vector of floats (half of it for rows of fewer windows).
  static constexpr int64_t kTiledPoolBlock = 8;
  /// The most image elements col2im's host form sums at once (16 KiB of
  /// floats on the stack): a whole plane of a small image, else bands of
  /// rows.
  static constexpr int64_t kCol2ImBandElements = 4096;
  /// The most kernel elements im2col's host form writes as straight-line
  /// code of their own (a 7x7 kernel); larger kernels loop over rows of
  /// columns.
  static constexpr int64_t kMaxUnrolledIm2ColTaps = 49;

  /// The largest image plane (elements) the host's pooling forms widen from
  /// fp16/bf16 into a float array on the stack; larger ones are read and
  /// written in place.
  static constexpr int64_t kMaxStagedPoolPlane = 4096;

  /// The offset in an image plane `w` wide of element (a, c) of the window
  /// (oh, ow) of the tiled pooling forms (kh x kw windows at stride kh, kw).
  static std::string tiledWindowElement(int64_t kh, int64_t kw, int64_t w, int64_t a, int64_t c);

  /// The windows of a row of `wo` that openWindowRowLoop's loop takes at
  /// once; 0: one loop over the row.
  static int64_t windowRowBlock(int64_t wo);

  /// Opens, inside a loop over rows of windows (indented by 4), the loop
  /// over the `wo` windows of a row with `ow` set, and returns the extra
  /// indentation of its body (which starts at 8); closeWindowRowLoop closes
  /// it. A row runs in blocks of a whole vector's windows when it does not
  /// divide into them, the last block starting `block` windows before the
  /// row's end and so computing again (the same values) some of the block
  /// before it: a loop of a constant `block` iterations vectorises with no
  /// scalar remainder, which for rows of 7 or 14 windows took as long as
  /// the vector part. The body must read nothing it writes.
  static std::string openWindowRowLoop(llvm::raw_ostream &os, int64_t wo);
  static void closeWindowRowLoop(llvm::raw_ostream &os, int64_t wo);

  /// Emits the host's plane form of max pooling's gradient when the windows
  /// tile the h x w plane from its corner (stride = kernel, no padding, at
  /// most kMaxTiledWindow elements): a loop along each row of windows whose
  /// body, unrolled over the window, finds the first maximum in row-major
  /// order by comparing mpc::first_max_key's integers (the same choice as
  /// emitWindowFirstMax's, ties and NaNs included, without its branches,
  /// which mispredict on real data and keep the loop from vectorising) and
  /// writes every element of the window once: 0 + the window's gradient at
  /// that maximum, 0 elsewhere. Rows and columns no window covers get 0.
  /// Windows computed twice (openWindowRowLoop's blocks) write the same
  /// values again, reading only the input and the gradient, which the plane
  /// never shares memory with (the memory plan writes in place only the
  /// results of pointwise groups).
  /// `gradient` reads the gradient of window (oh, ow), `input` the plane at
  /// an offset; `write` makes a stored value of a float.
  static void emitTiledMaxPoolGrad(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w,
                                   int64_t ho, int64_t wo, const std::string &gradient,
                                   llvm::function_ref<std::string(const std::string &)> input,
                                   llvm::function_ref<std::string(const std::string &)> write);

  /// Emits, likewise, `count`: the elements average pooling divides the
  /// window's sum by (with or without the padding, as the op says).
  static void emitWindowCount(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w);

  /// Each input element gathers the gradients of the windows covering it:
  /// window (oh, ow) covers row ih when oh * stride - pad + ki == ih for a
  /// kernel row ki.
  LogicalResult emitPoolGrad(llvm::raw_ostream &os, mpk::Pool2DGradOp k);

  /// The windows of an im2col or col2im: image [N, C, H, W], output rows
  /// Ho and columns Wo, and the attributes.
  struct Windows {
    llvm::ArrayRef<int64_t> image;
    llvm::ArrayRef<int64_t> kernel, stride, pad, dilation;
    int64_t outH, outW;
  };
  template <typename Op> static Windows windowsOf(Op k, Value image) {
    Windows w{shapeOf(image), k.getKernel(), k.getStride(), k.getPadding(), k.getDilation(), 0, 0};
    w.outH =
        (w.image[2] + w.pad[0] + w.pad[2] - (w.dilation[0] * (w.kernel[0] - 1) + 1)) / w.stride[0] +
        1;
    w.outW =
        (w.image[3] + w.pad[1] + w.pad[3] - (w.dilation[1] * (w.kernel[1] - 1) + 1)) / w.stride[1] +
        1;
    return w;
  }

  /// The host's form of an im2col whose kernel has at most
  /// kMaxUnrolledIm2ColTaps elements: row (n, ch) is one image plane, and
  /// each kernel element (ki, kj) writes its Ho x Wo columns in code of its
  /// own whose bounds are numbers: the output rows that read padding zeroed
  /// whole, the others zeros, then the input row (with stride), then zeros.
  /// With the bounds known the host compiler turns each row's loops into a
  /// few vector moves: the CNN example's im2col kernels (14x14 planes, 3x3
  /// kernels) take 0.86x (f32) and 0.68x (bf16) the time of the row per
  /// kernel element with bounds computed at run time.
  static void emitUnrolledIm2ColRow(llvm::raw_ostream &os, const Windows &w,
                                    const std::string &type, const std::string &bits,
                                    const std::string &image, const std::string &columns);

  LogicalResult emitIm2Col(llvm::raw_ostream &os, mpk::Im2ColOp k);

  LogicalResult emitCol2Im(llvm::raw_ostream &os, mpk::Col2ImOp k);

  LogicalResult emitGather(llvm::raw_ostream &os, mpk::GatherOp k);

  /// Inverted dropout, element by element (each element draws its Philox
  /// block again: the four elements of a block are cheaper to recompute
  /// than to share across threads).
  LogicalResult emitDropout(llvm::raw_ostream &os, mpk::DropoutOp k);

  mpk::ProgramOp program;
  mpc::GeneratedKernels result;
  unsigned valueCount = 0;
  /// Functor definitions printed so far (their own name replaced by
  /// @functor@) and the functor's name.
  std::map<std::string, std::string> functors;
  /// Kernel entries printed so far (their name replaced by @kernel@, with
  /// their launch and buffer sizes) and the kernel's name.
  std::map<std::string, std::string> entries;
};

} // namespace mpc::codegen

#endif // MPC_COMPILER_CODEGEN_KERNELEMITTER_H
