//===- ManifestVerify.cpp - what a manifest must satisfy ------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The checks of a parsed manifest: names, shapes and sizes, buffers inside
// their spaces, kernels and steps that refer to what exists, GEMM operands
// within their buffers and the limits of BLAS, cuBLAS and CUDA launches.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Manifest.h"

#include "ManifestInternal.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <tuple>

namespace mpc::rt {

using namespace manifest_detail;

namespace {

/// a * b + c, or nullopt when it does not fit uint64_t.
std::optional<uint64_t> mulAdd(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t product, sum;
  if (__builtin_mul_overflow(a, b, &product) ||
      __builtin_add_overflow(product, c, &sum))
    return std::nullopt;
  return sum;
}

} // namespace

ByteRange gemmOperandBytes(const GemmStep &step, GemmOperand operand) {
  auto bytes = [](const BufferRef &buffer, DType dtype, int64_t offset,
                  int64_t count) {
    uint64_t size = dtypeSize(dtype);
    uint64_t begin = buffer.offset + static_cast<uint64_t>(offset) * size;
    return ByteRange{buffer.space, begin,
                     begin + static_cast<uint64_t>(count) * size};
  };
  switch (operand) {
  case GemmOperand::A:
    return bytes(step.a, step.aDtype, step.offsetA, step.m * step.k);
  case GemmOperand::B:
    return bytes(step.b, step.bDtype, step.offsetB, step.k * step.n);
  case GemmOperand::C:
    return bytes(step.c, step.cDtype, step.offsetC, step.m * step.n);
  }
  return {};
}

namespace {

bool isIdentifier(const std::string &name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

class Verifier {
public:
  explicit Verifier(const Manifest &manifest) : manifest_(manifest) {}

  Status run() {
    std::set<std::string> names;
    for (size_t i = 0; i < manifest_.inputs.size(); ++i)
      if (Status status =
              tensor(element("inputs", i), manifest_.inputs[i], "input", names);
          !status.isOk())
        return status;
    names.clear();
    for (size_t i = 0; i < manifest_.outputs.size(); ++i)
      if (Status status = tensor(element("outputs", i), manifest_.outputs[i],
                                 "output", names);
          !status.isOk())
        return status;
    names.clear();
    for (size_t i = 0; i < manifest_.params.size(); ++i)
      if (Status status =
              param(element("params", i), manifest_.params[i], names);
          !status.isOk())
        return status;
    for (size_t i = 0; i < manifest_.params.size(); ++i)
      if (Status status = workingCopy(element("params", i), manifest_.params[i]);
          !status.isOk())
        return status;
    for (size_t i = 0; i < manifest_.constants.size(); ++i)
      if (Status status =
              constant(element("constants", i), manifest_.constants[i]);
          !status.isOk())
        return status;
    if (Status status = disjointTensors(); !status.isOk())
      return status;
    names.clear();
    for (size_t i = 0; i < manifest_.kernels.size(); ++i)
      if (Status status =
              kernel(element("kernels", i), manifest_.kernels[i], names);
          !status.isOk())
        return status;
    for (size_t i = 0; i < manifest_.steps.size(); ++i) {
      std::string path = element("steps", i);
      const Step &step = manifest_.steps[i];
      Status status;
      if (const auto *launchStep = std::get_if<LaunchStep>(&step))
        status = launch(path, *launchStep, names);
      else if (const auto *gemmStep = std::get_if<GemmStep>(&step))
        status = gemm(path, *gemmStep,
                      i > 0 && std::holds_alternative<LaunchStep>(
                                   manifest_.steps[i - 1]),
                      i + 1 < manifest_.steps.size() &&
                          std::holds_alternative<LaunchStep>(
                              manifest_.steps[i + 1]));
      else if (const auto *reduceStep = std::get_if<AllReduceStep>(&step))
        status = allReduce(path, *reduceStep);
      else
        status = copy(path, std::get<CopyStep>(step));
      if (!status.isOk())
        return status;
    }
    return widenedCopies();
  }

private:
  /// keep_x and reuse_x of GEMM steps: on a single f16 product; a reuse
  /// names elements that an earlier step keeps (an operand, or its result
  /// with keep_c) and that no GEMM result or copy has overwritten since
  /// (what kernels write the manifest does not say; the compiler answers
  /// for those).
  Status widenedCopies() const {
    std::vector<ByteRange> kept; // kept elements not written since
    auto forget = [&](const ByteRange &written) {
      kept.erase(std::remove_if(
                     kept.begin(), kept.end(),
                     [&](const ByteRange &k) { return k.overlaps(written); }),
                 kept.end());
    };
    for (size_t i = 0; i < manifest_.steps.size(); ++i) {
      std::string path = element("steps", i);
      if (const auto *copyStep = std::get_if<CopyStep>(&manifest_.steps[i])) {
        forget({copyStep->target.space, copyStep->target.offset,
                copyStep->target.offset + copyStep->bytes});
        continue;
      }
      if (const auto *reduceStep = std::get_if<AllReduceStep>(&manifest_.steps[i])) {
        forget({reduceStep->buffer.space, reduceStep->buffer.offset,
                reduceStep->buffer.offset + reduceStep->count * dtypeSize(reduceStep->dtype)});
        continue;
      }
      const auto *gemmStep = std::get_if<GemmStep>(&manifest_.steps[i]);
      if (!gemmStep)
        continue;
      const GemmStep &g = *gemmStep;
      struct Operand {
        const char *name;
        bool keep, reuse;
        DType dtype;
        GemmOperand which;
      };
      Operand operands[] = {{"a", g.keepA, g.reuseA, g.aDtype, GemmOperand::A},
                            {"b", g.keepB, g.reuseB, g.bDtype, GemmOperand::B}};
      std::vector<ByteRange> keptHere;
      for (const Operand &x : operands) {
        if (!x.keep && !x.reuse)
          continue;
        std::string flag = std::string(x.reuse ? "reuse_" : "keep_") + x.name;
        if (x.keep && x.reuse)
          return fail(member(path, flag),
                      std::string("given with keep_") + x.name +
                          ": a reused operand's copy is already kept");
        if (x.dtype != DType::F16 || g.batch != 1)
          return fail(
              member(path, flag),
              "only an f16 operand of a GEMM with batch 1 has a widened copy");
        ByteRange range = gemmOperandBytes(g, x.which);
        if (x.keep) {
          keptHere.push_back(range);
          continue;
        }
        if (std::find(kept.begin(), kept.end(), range) == kept.end())
          return fail(
              member(path, flag),
              std::string(
                  "no earlier GEMM step keeps these elements of operand ") +
                  x.name + " (or a GEMM result or a copy wrote them since)");
      }
      kept.insert(kept.end(), keptHere.begin(), keptHere.end());
      ByteRange c{
          g.c.space,
          g.c.offset + static_cast<uint64_t>(g.offsetC) * dtypeSize(g.cDtype),
          g.c.offset + static_cast<uint64_t>(
                           g.offsetC + (g.batch - 1) * g.strideC + g.m * g.n) *
                           dtypeSize(g.cDtype)};
      forget(c);
      if (g.keepC) {
        if (g.cDtype != DType::F16 || g.batch != 1)
          return fail(
              member(path, "keep_c"),
              "only an f16 result of a GEMM with batch 1 has a widened copy");
        kept.push_back(gemmOperandBytes(g, GemmOperand::C));
      }
    }
    return Status();
  }

  uint64_t spaceSize(BufferSpace space) const {
    return space == BufferSpace::Arena ? manifest_.arenaBytes
                                       : manifest_.persistentBytes;
  }

  static const char *spaceTitle(BufferSpace space) {
    return space == BufferSpace::Arena ? "the arena" : "persistent memory";
  }

  std::string spaceSizeName(BufferSpace space) const {
    return space == BufferSpace::Arena ? "arena_bytes" : "persistent_bytes";
  }

  /// Checks that `bytes` bytes from `at` + `skip` lie inside the space of
  /// `at`, whose JSON path is `path`, and returns them in `range`; `bytes`
  /// is nullopt when the size overflowed.
  Status inside(const std::string &path, const BufferRef &at,
                std::optional<uint64_t> bytes, uint64_t skip,
                const std::string &what, ByteRange *range = nullptr) const {
    uint64_t size = spaceSize(at.space);
    std::optional<uint64_t> begin = mulAdd(1, at.offset, skip);
    std::optional<uint64_t> end =
        begin && bytes ? mulAdd(1, *begin, *bytes) : std::nullopt;
    if (!end)
      return fail(member(path, "offset"),
                  what + " does not fit in 64-bit byte offsets");
    if (*end > size)
      return fail(member(path, "offset"),
                  what + " needs bytes [" + std::to_string(*begin) + ", " +
                      std::to_string(*end) + ") of " + spaceTitle(at.space) +
                      ", which has " + std::to_string(size) + " (" +
                      spaceSizeName(at.space) + ")");
    if (range)
      *range = {at.space, *begin, *end};
    return Status();
  }

  Status aligned(const std::string &path, const BufferRef &at,
                 DType dtype) const {
    if (at.offset % dtypeSize(dtype) != 0)
      return fail(member(path, "offset"),
                  std::to_string(at.offset) + " is not a multiple of " +
                      std::to_string(dtypeSize(dtype)) + ", the size of " +
                      dtypeName(dtype));
    return Status();
  }

  /// Checks a shape and a buffer that holds a tensor of that shape.
  Status placed(const std::string &path, DType dtype,
                const std::vector<int64_t> &shape, const BufferRef &buffer,
                const std::string &what, ByteRange *range = nullptr) const {
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] < 0)
        return fail(element(member(path, "shape"), i),
                    std::to_string(shape[i]) + " is negative");
    std::optional<int64_t> count = elementCount(shape);
    std::optional<uint64_t> bytes =
        count ? mulAdd(static_cast<uint64_t>(*count), dtypeSize(dtype), 0)
              : std::nullopt;
    if (Status status = aligned(member(path, "buffer"), buffer, dtype);
        !status.isOk())
      return status;
    return inside(member(path, "buffer"), buffer, bytes, 0,
                  "the " + what + "'s " + dtypeName(dtype) + " " +
                      formatShape(shape),
                  range);
  }

  /// The bytes of a tensor already checked by `placed`.
  static ByteRange bytesOf(DType dtype, const std::vector<int64_t> &shape,
                           const BufferRef &buffer) {
    uint64_t count = 1;
    for (int64_t dim : shape)
      count *= static_cast<uint64_t>(dim);
    return ByteRange{buffer.space, buffer.offset,
                     buffer.offset + count * dtypeSize(dtype)};
  }

  /// Inputs (all written before a step) and the persistent tensors
  /// (parameters, state and constants, all kept between steps) each need
  /// bytes of their own: two that share one would corrupt each other.
  Status disjointTensors() const {
    struct Placed {
      ByteRange bytes;
      std::string path;
    };
    std::vector<Placed> placed;
    for (size_t i = 0; i < manifest_.inputs.size(); ++i) {
      const TensorSpec &spec = manifest_.inputs[i];
      placed.push_back({bytesOf(spec.dtype, spec.shape, spec.buffer), element("inputs", i)});
    }
    for (size_t i = 0; i < manifest_.params.size(); ++i) {
      const ParamSpec &spec = manifest_.params[i];
      placed.push_back({bytesOf(spec.dtype, spec.shape, spec.buffer), element("params", i)});
    }
    for (size_t i = 0; i < manifest_.constants.size(); ++i) {
      const ConstantSpec &spec = manifest_.constants[i];
      placed.push_back({bytesOf(spec.dtype, spec.shape, spec.buffer), element("constants", i)});
    }
    // By space and first byte: a range overlaps an earlier one exactly when
    // it begins before the furthest end of those (empty ranges hold nothing).
    placed.erase(std::remove_if(placed.begin(), placed.end(),
                                [](const Placed &p) { return p.bytes.begin == p.bytes.end; }),
                 placed.end());
    std::stable_sort(placed.begin(), placed.end(), [](const Placed &a, const Placed &b) {
      return a.bytes.space != b.bytes.space ? a.bytes.space < b.bytes.space
                                            : a.bytes.begin < b.bytes.begin;
    });
    for (size_t i = 1, furthest = 0; i < placed.size(); ++i) {
      if (placed[i].bytes.space != placed[furthest].bytes.space) {
        furthest = i;
        continue;
      }
      const Placed &other = placed[furthest];
      if (placed[i].bytes.begin < other.bytes.end)
        return fail(member(placed[i].path, "buffer"),
                    "bytes [" + std::to_string(placed[i].bytes.begin) + ", " +
                        std::to_string(placed[i].bytes.end) + ") of " +
                        spaceTitle(placed[i].bytes.space) + " overlap those of " + other.path +
                        ", [" + std::to_string(other.bytes.begin) + ", " +
                        std::to_string(other.bytes.end) + ")");
      if (placed[i].bytes.end > other.bytes.end)
        furthest = i;
    }
    return Status();
  }

  Status tensor(const std::string &path, const TensorSpec &spec,
                const std::string &what, std::set<std::string> &names) const {
    if (spec.name.empty())
      return fail(member(path, "name"), "empty");
    if (holdsControlCharacter(spec.name))
      return fail(member(path, "name"),
                  quoteJson(spec.name) + " holds a control character");
    if (!names.insert(spec.name).second)
      return fail(member(path, "name"),
                  "another " + what + " is named " + quoteJson(spec.name));
    return placed(path, spec.dtype, spec.shape, spec.buffer, what);
  }

  Status param(const std::string &path, const ParamSpec &spec,
               std::set<std::string> &names) const {
    if (Status status = tensor(path, spec, "parameter", names); !status.isOk())
      return status;
    if (spec.buffer.space != BufferSpace::Persistent)
      return fail(member(path, "buffer.space"),
                  "a parameter must live in persistent memory");
    return initializer(member(path, "init"), spec);
  }

  /// A working copy names an f32 parameter of its shape that is not itself
  /// a copy, and is f16 or bf16.
  Status workingCopy(const std::string &path, const ParamSpec &spec) const {
    if (spec.castOf.empty())
      return Status();
    std::string at = member(path, "cast_of");
    auto master = std::find_if(
        manifest_.params.begin(), manifest_.params.end(),
        [&](const ParamSpec &other) { return other.name == spec.castOf; });
    if (master == manifest_.params.end())
      return fail(at, "names no parameter: " + quoteJson(spec.castOf));
    if (!master->castOf.empty() || master->dtype != DType::F32 ||
        master->shape != spec.shape ||
        (spec.dtype != DType::F16 && spec.dtype != DType::BF16))
      return fail(at, "a working copy is f16 or bf16 and copies an f32 parameter of "
                      "its shape that is not a copy itself");
    return Status();
  }

  Status initializer(const std::string &path, const ParamSpec &spec) const {
    const Initializer &init = spec.init;
    const char *kind = initKindName(init.kind);
    std::vector<InitArg> allowed = initArgs(init.kind);
    for (const auto &[name, value] : init.args) {
      std::string argPath = member(member(path, "args"), name);
      if (std::none_of(allowed.begin(), allowed.end(),
                       [&](const InitArg &arg) { return name == arg.name; }))
        return fail(argPath, std::string(kind) + " takes no argument " +
                                 quoteJson(name));
      if (!std::isfinite(value))
        return fail(argPath, "must be finite");
    }
    std::string argsPath = member(path, "args");
    switch (init.kind) {
    case InitKind::Zeros:
    case InitKind::Ones:
      return Status();
    case InitKind::Seed:
      if (spec.dtype != DType::I32 && spec.dtype != DType::I64)
        return fail(member(path, "kind"), std::string("seed needs an i32 or i64 dtype, the ") +
                                              "parameter is " + dtypeName(spec.dtype));
      return Status();
    case InitKind::Constant:
      return constantValue(member(argsPath, "value"), spec.dtype,
                           init.arg("value"));
    case InitKind::Normal:
      if (init.arg("std") < 0)
        return fail(member(argsPath, "std"), "must not be negative");
      break;
    case InitKind::Uniform:
      if (init.arg("low") > init.arg("high"))
        return fail(argsPath, "low " + std::to_string(init.arg("low")) +
                                  " is above high " +
                                  std::to_string(init.arg("high")));
      break;
    case InitKind::GlorotUniform:
    case InitKind::HeNormal:
      if (init.arg("gain") < 0)
        return fail(member(argsPath, "gain"), "must not be negative");
      if (spec.shape.size() < 2)
        return fail(member(path, "kind"),
                    std::string(kind) + " needs a shape of rank 2 or more, " +
                        "the parameter has " + formatShape(spec.shape));
      break;
    }
    if (!isFloating(spec.dtype))
      return fail(member(path, "kind"),
                  std::string(kind) + " needs a floating-point dtype, the " +
                      "parameter is " + dtypeName(spec.dtype));
    return Status();
  }

  /// Whether a constant initializer's value is one of its parameter's
  /// dtype (1e300 would start an f32 parameter at infinity).
  static Status constantValue(const std::string &path, DType dtype,
                              double value) {
    if (isInitialValueOf(dtype, value))
      return Status();
    if (isFloating(dtype)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", value);
      return fail(path, std::string(text) + " is out of the range of " + dtypeName(dtype));
    }
    return fail(path, std::to_string(value) + " is not a value of " + dtypeName(dtype));
  }

  Status constant(const std::string &path, const ConstantSpec &spec) const {
    if (spec.section.empty())
      return fail(member(path, "section"), "empty");
    if (spec.buffer.space != BufferSpace::Persistent)
      return fail(member(path, "buffer.space"),
                  "a constant must live in persistent memory");
    return placed(path, spec.dtype, spec.shape, spec.buffer, "constant");
  }

  Status kernel(const std::string &path, const KernelSpec &spec,
                std::set<std::string> &names) const {
    if (!isIdentifier(spec.name))
      return fail(member(path, "name"),
                  quoteJson(spec.name) + " is not a C identifier");
    if (!names.insert(spec.name).second)
      return fail(member(path, "name"),
                  "another kernel is named " + quoteJson(spec.name));
    if (Status status = range(member(path, "grid"), spec.grid, 1, kMaxGrid);
        !status.isOk())
      return status;
    return range(member(path, "block"), spec.block, 1, kMaxBlock);
  }

  static Status range(const std::string &path, int64_t value, int64_t min,
                      int64_t max) {
    if (value < min || value > max)
      return fail(path, std::to_string(value) + " is outside [" +
                            std::to_string(min) + ", " + std::to_string(max) +
                            "]");
    return Status();
  }

  Status launch(const std::string &path, const LaunchStep &step,
                const std::set<std::string> &kernels) const {
    if (!kernels.count(step.kernel))
      return fail(member(path, "kernel"), "no kernel named " +
                                              quoteJson(step.kernel) +
                                              " in \"kernels\"");
    for (size_t i = 0; i < step.buffers.size(); ++i) {
      const BufferRef &buffer = step.buffers[i];
      uint64_t size = spaceSize(buffer.space);
      if (buffer.offset > size)
        return fail(member(element(member(path, "buffers"), i), "offset"),
                    std::to_string(buffer.offset) + " is past the end of " +
                        spaceTitle(buffer.space) + " (" +
                        spaceSizeName(buffer.space) + " " +
                        std::to_string(size) + ")");
    }
    return Status();
  }

  /// Checks one GEMM operand of `rows` x `cols` elements per batch entry and
  /// returns the bytes it covers.
  Status operand(const std::string &path, const char *name,
                 const BufferRef &buffer, DType dtype, int64_t offset,
                 int64_t stride, int64_t batch, int64_t rows, int64_t cols,
                 ByteRange &out) const {
    std::string key(name);
    if (!isFloating(dtype))
      return fail(member(path, key + "_dtype"),
                  std::string("a GEMM operand must be f16, bf16, f32 or f64, "
                              "not ") +
                      dtypeName(dtype));
    if (Status status = aligned(member(path, key), buffer, dtype);
        !status.isOk())
      return status;
    size_t size = dtypeSize(dtype);
    // Elements: offset + (batch - 1) * stride + rows * cols.
    std::optional<uint64_t> last = mulAdd(batch - 1, stride, offset);
    std::optional<uint64_t> elements =
        last ? mulAdd(rows, cols, *last) : std::nullopt;
    std::optional<uint64_t> skip = mulAdd(offset, size, 0);
    std::optional<uint64_t> bytes =
        elements && skip ? mulAdd(*elements - offset, size, 0) : std::nullopt;
    return inside(member(path, key), buffer, bytes, skip.value_or(0),
                  "operand " + key, &out);
  }

  /// `launchBefore`: whether the previous step is a launch (im2col_b);
  /// `launchNext`: whether the next one is (relu_grad_x).
  Status gemm(const std::string &path, const GemmStep &step,
              bool launchBefore, bool launchNext) const {
    for (auto [key, value] :
         {std::pair{"m", step.m}, std::pair{"n", step.n},
          std::pair{"k", step.k}, std::pair{"batch", step.batch}})
      if (Status status = range(member(path, key), value, 1, kMaxGemmDim);
          !status.isOk())
        return status;
    for (auto [key, value] : {std::pair{"offset_a", step.offsetA},
                              std::pair{"offset_b", step.offsetB},
                              std::pair{"offset_c", step.offsetC},
                              std::pair{"stride_a", step.strideA},
                              std::pair{"stride_b", step.strideB},
                              std::pair{"stride_c", step.strideC}})
      if (value < 0)
        return fail(member(path, key), std::to_string(value) + " is negative");
    bool wantsBias = epilogueHasBias(step.epilogue);
    if (wantsBias && !step.bias)
      return fail(member(path, "bias"), std::string("epilogue \"") +
                                            epilogueName(step.epilogue) +
                                            "\" needs a bias");
    if (!wantsBias && step.bias)
      return fail(member(path, "bias"), std::string("given, but epilogue \"") +
                                            epilogueName(step.epilogue) +
                                            "\" adds no bias");
    if (step.batch > 1 && step.strideC < step.m * step.n)
      return fail(member(path, "stride_c"),
                  "the batch's outputs overlap: stride " +
                      std::to_string(step.strideC) +
                      " is below m * n = " + std::to_string(step.m * step.n));
    ByteRange a, b, c, bias;
    if (Status status = operand(path, "a", step.a, step.aDtype, step.offsetA,
                                step.strideA, step.batch, step.m, step.k, a);
        !status.isOk())
      return status;
    if (Status status = operand(path, "b", step.b, step.bDtype, step.offsetB,
                                step.strideB, step.batch, step.k, step.n, b);
        !status.isOk())
      return status;
    if (Status status = operand(path, "c", step.c, step.cDtype, step.offsetC,
                                step.strideC, step.batch, step.m, step.n, c);
        !status.isOk())
      return status;
    if (step.bias) {
      if (Status status = operand(path, "bias", *step.bias, step.biasDtype, 0,
                                  0, 1, 1, step.n, bias);
          !status.isOk())
        return status;
      if (c.overlaps(bias))
        return fail(member(path, "c"), "the output overlaps the bias");
    }
    if (c.overlaps(a))
      return fail(member(path, "c"), "the output overlaps operand a");
    if (c.overlaps(b))
      return fail(member(path, "c"), "the output overlaps operand b");
    // (a float's range: the CPU and cuBLASLt take an f32 beta for an f32 C)
    if (!std::isfinite(step.beta) || std::abs(step.beta) > std::numeric_limits<float>::max())
      return fail(member(path, "beta"), "must be a finite number of an f32's range");
    bool allF64 =
        step.aDtype == DType::F64 && step.bDtype == DType::F64 && step.cDtype == DType::F64;
    if (step.beta != 0 && (step.batch != 1 || step.epilogue != Epilogue::None ||
                           !(step.cDtype == DType::F32 || allF64) || step.reluGrad))
      return fail(member(path, "beta"),
                  "accumulates into C only with batch 1, epilogue none, C in f32 "
                  "(or A, B and C in f64), and no relu_grad hint");
    if (step.reluGrad)
      if (Status status = reluGrad(path, step, launchNext, c); !status.isOk())
        return status;
    if (step.im2colB)
      return im2col(member(path, "im2col_b"), step, launchBefore, b, c);
    return Status();
  }

  /// im2col_b: after a launch (which a backend may skip), on B laid out as
  /// the columns of an input in B's dtype that overlaps neither them (bytes
  /// `b`) nor C (bytes `c`), and not kept or reused widened.
  Status im2col(const std::string &path, const GemmStep &step,
                bool launchBefore, const ByteRange &b, const ByteRange &c) const {
    const GemmStep::Im2col &hint = *step.im2colB;
    if (!launchBefore)
      return fail(path, "the previous step must be the launch that writes "
                        "the columns");
    if (step.keepB || step.reuseB)
      return fail(path, "not with keep_b or reuse_b");
    for (auto [key, dims, count, min] :
         {std::tuple{"shape", &hint.shape, size_t(4), int64_t(1)},
          std::tuple{"kernel", &hint.kernel, size_t(2), int64_t(1)},
          std::tuple{"stride", &hint.stride, size_t(2), int64_t(1)},
          std::tuple{"padding", &hint.padding, size_t(4), int64_t(0)},
          std::tuple{"dilation", &hint.dilation, size_t(2), int64_t(1)}}) {
      if (dims->size() != count)
        return fail(member(path, key), "expected " + std::to_string(count) +
                                           " numbers, got " +
                                           std::to_string(dims->size()));
      for (size_t i = 0; i < count; ++i)
        if (Status status = range(element(member(path, key), i), (*dims)[i],
                                  min, kMaxGemmDim);
            !status.isOk())
          return status;
    }
    // Ho and Wo: the windows must fit the padded image.
    for (int axis = 0; axis < 2; ++axis) {
      int64_t padded = hint.shape[2 + axis] + hint.padding[axis] +
                       hint.padding[2 + axis];
      int64_t window = hint.dilation[axis] * (hint.kernel[axis] - 1) + 1;
      if (window > padded)
        return fail(member(path, "kernel"),
                    "a window of " + std::to_string(window) +
                        " does not fit the padded " +
                        (axis == 0 ? "height " : "width ") +
                        std::to_string(padded));
    }
    const std::vector<int64_t> &shape = hint.shape;
    // C kH kW rows of Ho Wo columns (each at most kMaxGemmDim: k and n).
    std::optional<uint64_t> rows =
        mulAdd(shape[1], hint.kernel[0] * hint.kernel[1], 0);
    std::optional<uint64_t> cols = mulAdd(hint.outH(), hint.outW(), 0);
    uint64_t storedRows = step.transposeB ? step.n : step.k;
    uint64_t storedCols = step.transposeB ? step.k : step.n;
    if (!rows || !cols || *rows != storedRows || *cols != storedCols)
      return fail(path, "B stores " + std::to_string(storedRows) + " x " +
                            std::to_string(storedCols) +
                            " elements per image, not the columns' " +
                            (rows ? std::to_string(*rows) : "?") + " x " +
                            (cols ? std::to_string(*cols) : "?") +
                            " (C kH kW x Ho Wo)");
    if (step.batch != shape[0])
      return fail(path, "batch " + std::to_string(step.batch) +
                            " is not the images' " + std::to_string(shape[0]));
    if (step.offsetB != 0 ||
        static_cast<uint64_t>(step.strideB) != *rows * *cols)
      return fail(path, "needs offset_b 0 and stride_b " +
                            std::to_string(*rows * *cols) +
                            " (the columns of one image)");
    if (Status status = aligned(member(path, "input"), hint.input, step.bDtype);
        !status.isOk())
      return status;
    std::optional<uint64_t> planes = mulAdd(shape[0], shape[1], 0);
    std::optional<uint64_t> area = mulAdd(shape[2], shape[3], 0);
    std::optional<uint64_t> elements =
        planes && area ? mulAdd(*planes, *area, 0) : std::nullopt;
    std::optional<uint64_t> bytes =
        elements ? mulAdd(*elements, dtypeSize(step.bDtype), 0) : std::nullopt;
    ByteRange input;
    if (Status status = inside(member(path, "input"), hint.input, bytes, 0,
                               "the im2col input", &input);
        !status.isOk())
      return status;
    if (input.overlaps(b))
      return fail(member(path, "input"), "overlaps operand b");
    if (input.overlaps(c))
      return fail(member(path, "input"), "overlaps the output c");
    return Status();
  }

  /// relu_grad_aux/relu_grad_out: elementwise over C's elements (bytes
  /// `c`), before a launch (which a backend may skip), on a single product
  /// whose rounded result is all they need; aux is not C (a backend that
  /// skips the launch does not write C), out is C or apart from it, and aux
  /// or apart from it.
  Status reluGrad(const std::string &path, const GemmStep &step,
                  bool launchNext, const ByteRange &c) const {
    const GemmStep::ReluGrad &hint = *step.reluGrad;
    if (!launchNext)
      return fail(member(path, "relu_grad_out"),
                  "the next step must be the launch that computes it");
    if (step.batch != 1 || step.epilogue != Epilogue::None || step.keepC)
      return fail(member(path, "relu_grad_out"),
                  "only on a GEMM with batch 1, epilogue none and no keep_c");
    auto maskable = [](DType dtype) {
      return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
    };
    if (!maskable(hint.auxDtype))
      return fail(member(path, "relu_grad_aux_dtype"),
                  std::string("must be f32, f16 or bf16, not ") +
                      dtypeName(hint.auxDtype));
    if (!maskable(step.cDtype))
      return fail(member(path, "relu_grad_out"),
                  std::string("needs C in f32, f16 or bf16, not ") +
                      dtypeName(step.cDtype));
    ByteRange aux, out;
    if (Status status = operand(path, "relu_grad_aux", hint.aux, hint.auxDtype,
                                0, 0, 1, step.m, step.n, aux);
        !status.isOk())
      return status;
    if (Status status = operand(path, "relu_grad_out", hint.out, step.cDtype,
                                0, 0, 1, step.m, step.n, out);
        !status.isOk())
      return status;
    if (aux.overlaps(c))
      return fail(member(path, "relu_grad_aux"), "overlaps the output c");
    if (out.overlaps(c) && !(out == c))
      return fail(member(path, "relu_grad_out"),
                  "overlaps the output c without being it");
    // Elementwise: out may replace aux element for element, or be apart.
    if (out.overlaps(aux) &&
        !(out == aux && dtypeSize(hint.auxDtype) == dtypeSize(step.cDtype)))
      return fail(member(path, "relu_grad_out"),
                  "overlaps relu_grad_aux without being it, element for "
                  "element");
    return Status();
  }

  Status allReduce(const std::string &path, const AllReduceStep &step) const {
    if (!allReduces(step.dtype))
      return fail(member(path, "dtype"), std::string(dtypeName(step.dtype)) +
                                             " elements do not all-reduce (f32, f64, f16, "
                                             "bf16 and i32 do)");
    if (!allReduces(step.dtype, step.reduce))
      return fail(member(path, "reduce"), std::string("a mean of ") + dtypeName(step.dtype) +
                                              " elements (a mean is of floats)");
    std::optional<uint64_t> bytes = mulAdd(step.count, dtypeSize(step.dtype), 0);
    if (!bytes)
      return fail(member(path, "count"), "the all-reduce's bytes do not fit in 64 bits");
    if (step.buffer.offset % dtypeSize(step.dtype) != 0)
      return fail(member(member(path, "buffer"), "offset"),
                  std::to_string(step.buffer.offset) + " is not a multiple of " +
                      std::to_string(dtypeSize(step.dtype)) + ", the size of " +
                      dtypeName(step.dtype));
    return inside(member(path, "buffer"), step.buffer, *bytes, 0, "the all-reduce");
  }

  Status copy(const std::string &path, const CopyStep &step) const {
    ByteRange source, target;
    if (Status status = inside(member(path, "source"), step.source, step.bytes,
                               0, "the copy", &source);
        !status.isOk())
      return status;
    if (Status status = inside(member(path, "target"), step.target, step.bytes,
                               0, "the copy", &target);
        !status.isOk())
      return status;
    if (source.overlaps(target))
      return fail(path, "source and target overlap");
    return Status();
  }

  const Manifest &manifest_;
};

} // namespace

bool isInitialValueOf(DType dtype, double value) {
  if (isFloating(dtype)) {
    double largest = dtype == DType::F16   ? 65504.0
                     : dtype == DType::F64 ? std::numeric_limits<double>::max()
                                           : std::numeric_limits<float>::max();
    return std::fabs(value) <= largest;
  }
  double low = dtype == DType::Bool ? 0.0 : dtype == DType::I32 ? -0x1p31 : -0x1p63;
  double high = dtype == DType::Bool ? 1.0 : dtype == DType::I32 ? 0x1p31 - 1 : 0x1p63 - 1024;
  return value == std::floor(value) && value >= low && value <= high;
}

bool holdsControlCharacter(const std::string &name) {
  return std::any_of(name.begin(), name.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

Status verifyManifest(const Manifest &manifest) {
  return Verifier(manifest).run();
}

} // namespace mpc::rt
