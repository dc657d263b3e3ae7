//===- ProgramGemmTest.cpp - GEMM steps on the CPU backend ----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Programs of one gemm step, loaded and run through the C API, against a
// naive GEMM in double on the same (rounded) operands: f32, f16, bf16 and
// f64 operands and results, transposes, batches with offsets and strides
// (a stride of 0 shares an operand), every epilogue. Bytes of C outside the
// batch's outputs must stay untouched. With CUDA, the same programs on the
// CUDA backend over the emulated GPU agree with the CPU bitwise. Also the
// CPU's widened copies of f16 operands and its relu_grad hints, against
// the same programs without them.
//
//===----------------------------------------------------------------------===//

#include "Elements.h"
#include "ProgramTestUtil.h"
#ifdef MPC_HAVE_CUDA_EMULATOR
#include "CudaEmulator.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <ostream>
#include <tuple>

using mpc::rt::DType;
using mpc::rt::Epilogue;
using mpc::rt::GemmStep;
using mpc::rt::Manifest;
using mpc::test::arena;
using mpc::test::compileHostObject;
using mpc::test::LoadedProgram;
using mpc::test::randomValues;
using mpc::test::TempDir;
using mpc::test::tensorSpec;
using mpc::test::writeProgramBundle;

namespace {

struct GemmCase {
  const char *name;
  DType a, b, c;
  std::optional<DType> bias;
  int64_t m, n, k, batch;
  int64_t offsetA, offsetB, offsetC;
  int64_t strideA, strideB, strideC;
  bool transposeA, transposeB;
  Epilogue epilogue;
  /// C = product + beta * C's values before the step (an input "c0" in
  /// C's memory), when not 0.
  double beta = 0;
};

/// Failure messages show a case by its name.
void PrintTo(const GemmCase &gemm, std::ostream *out) { *out << gemm.name; }

/// Elements an operand spans: offset + (batch - 1) * stride + rows * cols.
int64_t span(int64_t offset, int64_t stride, int64_t batch, int64_t count) {
  return offset + (batch - 1) * stride + count;
}

uint64_t alignUp(uint64_t value) { return (value + 255) / 256 * 256; }

/// `count` random values stored as `dtype`, and the stored values widened
/// back to double.
std::vector<uint8_t> randomOperand(DType dtype, int64_t count, unsigned seed,
                                   std::vector<double> &exact) {
  std::vector<double> values = randomValues<double>(count, -1.0, 1.0, seed);
  std::vector<uint8_t> bytes(count * mpc::rt::dtypeSize(dtype));
  mpc::rt::narrowElements(values.data(), dtype, bytes.data(), count);
  exact.resize(count);
  mpc::rt::widenElements(dtype, bytes.data(), exact.data(), count);
  return bytes;
}

double gelu(double x) {
  return 0.5 * x *
         (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

/// The relative rounding of one store to `dtype`.
double storeTolerance(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return 0x1p-11;
  case DType::BF16:
    return 0x1p-8;
  case DType::F32:
    return 0x1p-24;
  default:
    return 0.0;
  }
}

class ProgramGemm : public ::testing::TestWithParam<GemmCase> {};

/// The one-step bundle of a case and random operands for it.
struct GemmProgram {
  std::string path;
  std::vector<uint8_t> aData, bData, biasData, c0Data;
  /// The operands as stored, widened to double.
  std::vector<double> a, b, bias, c0;
  int64_t cCount = 0;
  size_t cBytes = 0;
};

void makeGemmProgram(const GemmCase &g, const TempDir &dir, GemmProgram &out) {
  const int64_t aCount = span(g.offsetA, g.strideA, g.batch, g.m * g.k);
  const int64_t bCount = span(g.offsetB, g.strideB, g.batch, g.k * g.n);
  out.cCount = span(g.offsetC, g.strideC, g.batch, g.m * g.n);
  const size_t aBytes = aCount * mpc::rt::dtypeSize(g.a);
  const size_t bBytes = bCount * mpc::rt::dtypeSize(g.b);
  out.cBytes = out.cCount * mpc::rt::dtypeSize(g.c);
  const size_t biasBytes = g.bias ? g.n * mpc::rt::dtypeSize(*g.bias) : 0;
  const uint64_t aAt = 0, bAt = alignUp(aAt + aBytes);
  const uint64_t biasAt = alignUp(bAt + bBytes);
  const uint64_t cAt = alignUp(biasAt + biasBytes);

  Manifest m;
  m.program = g.name;
  m.arenaBytes = cAt + out.cBytes;
  m.inputs = {tensorSpec("a", g.a, {aCount}, arena(aAt)),
              tensorSpec("b", g.b, {bCount}, arena(bAt))};
  if (g.bias)
    m.inputs.push_back(tensorSpec("bias", *g.bias, {g.n}, arena(biasAt)));
  m.outputs = {tensorSpec("c", g.c, {out.cCount}, arena(cAt))};
  if (g.beta != 0) // C's values before the step
    m.inputs.push_back(tensorSpec("c0", g.c, {out.cCount}, arena(cAt)));
  GemmStep step;
  step.a = arena(aAt);
  step.b = arena(bAt);
  step.c = arena(cAt);
  if (g.bias) {
    step.bias = arena(biasAt);
    step.biasDtype = *g.bias;
  }
  step.aDtype = g.a;
  step.bDtype = g.b;
  step.cDtype = g.c;
  step.m = g.m;
  step.n = g.n;
  step.k = g.k;
  step.batch = g.batch;
  step.offsetA = g.offsetA;
  step.offsetB = g.offsetB;
  step.offsetC = g.offsetC;
  step.strideA = g.strideA;
  step.strideB = g.strideB;
  step.strideC = g.strideC;
  step.transposeA = g.transposeA;
  step.transposeB = g.transposeB;
  step.epilogue = g.epilogue;
  step.beta = g.beta;
  m.steps = {step};

  out.path = dir.file("gemm.mpcb");
  writeProgramBundle(out.path, m);
  out.aData = randomOperand(g.a, aCount, 1, out.a);
  out.bData = randomOperand(g.b, bCount, 2, out.b);
  if (g.bias)
    out.biasData = randomOperand(*g.bias, g.n, 3, out.bias);
  if (g.beta != 0)
    out.c0Data = randomOperand(g.c, out.cCount, 4, out.c0);
}

/// Runs the program once on `device` and returns C's bytes; the load's
/// status goes to `loaded` (the run is skipped when it fails).
std::vector<uint8_t> runGemmProgram(const GemmProgram &gemm, const char *device,
                                    mpc_status_code &loaded) {
  LoadedProgram program;
  loaded = program.load(gemm.path, 0, device);
  if (loaded != MPC_OK)
    return {};
  auto set = [&](const char *name, const std::vector<uint8_t> &data) {
    EXPECT_EQ(mpc_program_set_input(program.get(), name, data.data(), data.size()), MPC_OK)
        << mpc_last_error();
  };
  set("a", gemm.aData);
  set("b", gemm.bData);
  if (!gemm.biasData.empty())
    set("bias", gemm.biasData);
  if (!gemm.c0Data.empty())
    set("c0", gemm.c0Data);
  EXPECT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
  std::vector<uint8_t> c(gemm.cBytes);
  EXPECT_EQ(mpc_program_get_output(program.get(), "c", c.data(), c.size()), MPC_OK)
      << mpc_last_error();
  return c;
}

/// Whether cuBLASLt runs the case: equal f16/bf16 operands written in their
/// type or f32, f32 -> f32, f64 -> f64, and a bias of the result's type.
bool cublasLtRuns(const GemmCase &g) {
  bool low = g.a == DType::F16 || g.a == DType::BF16;
  bool types = g.a == g.b && (g.c == g.a || (low && g.c == DType::F32));
  return types && (!g.bias || *g.bias == g.c);
}

/// Expects a load of the case on the CUDA backend to be refused, naming the
/// step and cuBLASLt.
void expectRefusedByCublasLt(mpc_status_code loaded) {
  EXPECT_EQ(loaded, MPC_UNSUPPORTED);
  std::string error = mpc_last_error();
  EXPECT_NE(error.find(": steps[0]: "), std::string::npos) << error;
  EXPECT_NE(error.find("cuBLASLt"), std::string::npos) << error;
}

/// Runs case `g` on `device` and checks C against a naive double GEMM.
void expectNaiveGemm(const GemmCase &g, const char *device) {
  TempDir dir;
  GemmProgram gemm;
  makeGemmProgram(g, dir, gemm);
  mpc_status_code loaded;
  std::vector<uint8_t> cData = runGemmProgram(gemm, device, loaded);
  if (std::string(device) != "cpu" && !cublasLtRuns(g))
    return expectRefusedByCublasLt(loaded);
  ASSERT_EQ(loaded, MPC_OK) << mpc_last_error();
  // cuBLASLt's GELU epilogue may use a faster tanh than <cmath>.
  const double geluSlack = std::string(device) != "cpu" &&
                                   (g.epilogue == Epilogue::Gelu || g.epilogue == Epilogue::BiasGelu)
                               ? 2e-3
                               : 0.0;
  const std::vector<double> &a = gemm.a, &b = gemm.b, &bias = gemm.bias;
  const int64_t cCount = gemm.cCount;
  std::vector<double> c(cCount);
  mpc::rt::widenElements(g.c, cData.data(), c.data(), cCount);

  // f32 accumulation of k products; f64 when everything is f64.
  const bool inDouble =
      g.a == DType::F64 && g.b == DType::F64 && g.c == DType::F64;
  const double accumulate = inDouble ? 1e-14 : 4e-7 * std::sqrt(g.k + 1.0);
  std::vector<bool> written(cCount, false);
  for (int64_t batch = 0; batch < g.batch; ++batch)
    for (int64_t row = 0; row < g.m; ++row)
      for (int64_t col = 0; col < g.n; ++col) {
        double sum = 0.0, magnitude = 0.0;
        for (int64_t i = 0; i < g.k; ++i) {
          double x = a[g.offsetA + batch * g.strideA +
                       (g.transposeA ? i * g.m + row : row * g.k + i)];
          double y = b[g.offsetB + batch * g.strideB +
                       (g.transposeB ? col * g.k + i : i * g.n + col)];
          sum += x * y;
          magnitude += std::abs(x * y);
        }
        if (g.bias) {
          sum += bias[col];
          magnitude += std::abs(bias[col]);
        }
        if (g.beta != 0) {
          double old = gemm.c0[g.offsetC + batch * g.strideC + row * g.n + col];
          sum += g.beta * old;
          magnitude += std::abs(g.beta * old);
        }
        double want = sum;
        if (g.epilogue == Epilogue::Relu || g.epilogue == Epilogue::BiasRelu)
          want = std::max(sum, 0.0);
        if (g.epilogue == Epilogue::Gelu || g.epilogue == Epilogue::BiasGelu)
          want = gelu(sum);
        int64_t at = g.offsetC + batch * g.strideC + row * g.n + col;
        written[at] = true;
        // gelu's slope is below 1.13, so it grows an input error at most
        // that much.
        double tolerance = 1.13 * accumulate * magnitude +
                           (storeTolerance(g.c) + geluSlack) * std::abs(want) + 0x1p-24;
        ASSERT_NEAR(c[at], want, tolerance)
            << "batch " << batch << ", C[" << row << ", " << col << "]";
      }
  for (int64_t i = 0; i < cCount; ++i)
    if (!written[i])
      ASSERT_EQ(c[i], 0.0) << "element " << i << " of C is not an output";
}

// On the CPU both ways of multiplying a strided batch of fp32 (or widened
// fp16) matrices too small for oneDNN alone, whichever this CPU takes
// (MPC_CPU_BATCH_SMALL_F32): one oneDNN call, or OpenBLAS matrix by matrix.
TEST_P(ProgramGemm, MatchesANaiveDoubleGemm) {
  for (const char *batching : {"1", "0"}) {
    SCOPED_TRACE(std::string("MPC_CPU_BATCH_SMALL_F32=") + batching);
    mpc::test::ScopedEnv setting("MPC_CPU_BATCH_SMALL_F32", batching);
    expectNaiveGemm(GetParam(), "cpu");
  }
}

// On a real GPU (skipped without one): cuBLASLt's results against the same
// reference, and the cases it cannot run refused at load.
TEST_P(ProgramGemm, MatchesANaiveDoubleGemmOnTheGpu) {
  MPC_SKIP_WITHOUT_GPU();
  expectNaiveGemm(GetParam(), "cuda");
}

#ifdef MPC_HAVE_CUDA_EMULATOR

// The CUDA backend, on the emulated GPU (tests/support/CudaEmulator.h),
// gives C bitwise equal to the CPU backend's: the emulated cuBLASLt reads
// the descriptors back and computes in column-major order what the CPU
// computes in row-major order, so any mistake in the layouts, transposes,
// strides, offsets or epilogue shows. Cases cuBLASLt cannot run are refused
// at load, naming the step.
TEST_P(ProgramGemm, TheCudaBackendAgreesBitwise) {
  const GemmCase &g = GetParam();
  TempDir dir;
  GemmProgram gemm;
  makeGemmProgram(g, dir, gemm);
  mpc_status_code loaded;
  std::vector<uint8_t> cpu = runGemmProgram(gemm, "cpu", loaded);
  ASSERT_EQ(loaded, MPC_OK) << mpc_last_error();
  mpc::test::CudaEmulator emulator("");
  std::vector<uint8_t> cuda = runGemmProgram(gemm, "cuda", loaded);
  if (!cublasLtRuns(g))
    return expectRefusedByCublasLt(loaded);
  ASSERT_EQ(loaded, MPC_OK) << mpc_last_error();
  EXPECT_EQ(emulator.counters().gemmsRun, 1);
  EXPECT_EQ(emulator.counters().uncapturedWork, 0);
  ASSERT_EQ(cuda.size(), cpu.size());
  for (size_t i = 0; i < cpu.size(); ++i)
    ASSERT_EQ(cuda[i], cpu[i]) << "byte " << i << " of C";
}
#endif

/// Runs a bias+ReLU GEMM of `a` operands into `c` (bias of `c`'s type) on
/// `device` with A[0, 0] NaN and expects the NaN in every element of C's
/// first row and in none of the second's.
void expectReluKeepsNaN(DType a, DType c, const char *device) {
  GemmCase g{"NaN", a, a, c, c, 256, 256, 256, 1, 0, 0, 0, 0, 0, 0, false, false,
             Epilogue::BiasRelu};
  TempDir dir;
  GemmProgram gemm;
  makeGemmProgram(g, dir, gemm);
  const double nan = std::nan("");
  mpc::rt::narrowElements(&nan, a, gemm.aData.data(), 1); // A[0, 0]
  mpc_status_code loaded;
  std::vector<uint8_t> cData = runGemmProgram(gemm, device, loaded);
  ASSERT_EQ(loaded, MPC_OK) << mpc_last_error();
  std::vector<double> values(gemm.cCount);
  mpc::rt::widenElements(c, cData.data(), values.data(), gemm.cCount);
  const std::string what = std::string(device) + " " + mpc::rt::dtypeName(a) + " -> " +
                           mpc::rt::dtypeName(c);
  for (int64_t col = 0; col < g.n; ++col)
    ASSERT_TRUE(std::isnan(values[col])) << what << ": C[0, " << col << "]";
  for (int64_t col = 0; col < g.n; ++col)
    ASSERT_FALSE(std::isnan(values[g.n + col])) << what << ": C[1, " << col << "]";
}

// A NaN in A reaches every element of its row of C through a bias and a
// ReLU: the loss scaler must see it (oneDNN's own ReLU would make it 0, so
// the CPU applies the ReLU itself), on GEMMs large enough for oneDNN.
TEST(ProgramGemmNan, ReluKeepsNaN) {
  expectReluKeepsNaN(DType::BF16, DType::BF16, "cpu");
  expectReluKeepsNaN(DType::F32, DType::F32, "cpu");
  expectReluKeepsNaN(DType::F16, DType::F16, "cpu");
}

// The same of cuBLASLt's RELU_BIAS epilogue, on a real GPU (skipped
// without one).
TEST(ProgramGemmNan, ReluKeepsNaNOnTheGpu) {
  MPC_SKIP_WITHOUT_GPU();
  expectReluKeepsNaN(DType::F16, DType::F16, "cuda");
  expectReluKeepsNaN(DType::BF16, DType::BF16, "cuda");
  expectReluKeepsNaN(DType::F16, DType::F32, "cuda");
}

/// y = x w (an f16 result with a bias and `epilogue`), dw = x^T dy,
/// dx = dy w^T and z = y v on f16 operands, the later three reusing (with
/// `copies`) the widened x and w that the first keeps and the fp32 values
/// of y it keeps as it rounds them; C of the others is f32. Runs it on two
/// batches and returns the outputs of both. The first three are large
/// enough for oneDNN (OnednnMatmul::kF32MinMacs), the last goes to OpenBLAS.
std::vector<std::vector<uint8_t>> runWidenedCopies(bool copies, Epilogue epilogue,
                                                   const TempDir &dir) {
  const int64_t rows = 64, in = 128, out = 128, next = 32;
  const uint64_t xAt = 0, wAt = xAt + rows * in * 2, dyAt = wAt + in * out * 2,
                 biasAt = dyAt + rows * out * 2, vAt = biasAt + out * 2,
                 yAt = vAt + out * next * 2, dwAt = yAt + rows * out * 2,
                 dxAt = dwAt + in * out * 4, zAt = dxAt + rows * in * 4;
  Manifest m;
  m.program = "copies";
  m.arenaBytes = zAt + rows * next * 4;
  m.inputs = {tensorSpec("x", DType::F16, {rows, in}, arena(xAt)),
              tensorSpec("w", DType::F16, {in, out}, arena(wAt)),
              tensorSpec("dy", DType::F16, {rows, out}, arena(dyAt)),
              tensorSpec("bias", DType::F16, {out}, arena(biasAt)),
              tensorSpec("v", DType::F16, {out, next}, arena(vAt))};
  m.outputs = {tensorSpec("y", DType::F16, {rows, out}, arena(yAt)),
               tensorSpec("dw", DType::F32, {in, out}, arena(dwAt)),
               tensorSpec("dx", DType::F32, {rows, in}, arena(dxAt)),
               tensorSpec("z", DType::F32, {rows, next}, arena(zAt))};
  auto gemm = [](uint64_t a, uint64_t b, uint64_t c, int64_t m, int64_t n, int64_t k) {
    GemmStep step;
    step.a = arena(a);
    step.b = arena(b);
    step.c = arena(c);
    step.aDtype = step.bDtype = DType::F16;
    step.m = m;
    step.n = n;
    step.k = k;
    return step;
  };
  GemmStep y = gemm(xAt, wAt, yAt, rows, out, in);
  y.cDtype = DType::F16;
  y.bias = arena(biasAt);
  y.biasDtype = DType::F16;
  y.epilogue = epilogue;
  GemmStep dw = gemm(xAt, dyAt, dwAt, in, out, rows);
  dw.transposeA = true;
  GemmStep dx = gemm(dyAt, wAt, dxAt, rows, in, out);
  dx.transposeB = true;
  GemmStep z = gemm(yAt, vAt, zAt, rows, next, out);
  y.keepA = y.keepB = y.keepC = dw.reuseA = dx.reuseB = z.reuseA = copies;
  m.steps = {y, dw, dx, z};
  std::string path = dir.file(std::string(copies ? "copies-" : "plain-") +
                              mpc::rt::epilogueName(epilogue) + ".mpcb");
  writeProgramBundle(path, m);

  LoadedProgram program;
  EXPECT_EQ(program.load(path, 0, "cpu"), MPC_OK) << mpc_last_error();
  std::vector<std::vector<uint8_t>> results;
  for (unsigned batch = 0; batch < 2; ++batch) {
    std::vector<double> exact;
    for (auto [name, count, seed] : {std::tuple{"x", rows * in, 10 + batch},
                                     std::tuple{"w", in * out, 20 + batch},
                                     std::tuple{"dy", rows * out, 30 + batch},
                                     std::tuple{"bias", out, 40 + batch},
                                     std::tuple{"v", out * next, 50 + batch}}) {
      std::vector<uint8_t> bytes = randomOperand(DType::F16, count, seed, exact);
      EXPECT_EQ(mpc_program_set_input(program.get(), name, bytes.data(), bytes.size()), MPC_OK)
          << mpc_last_error();
    }
    EXPECT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
    for (auto [name, bytesOut] : {std::pair{"y", rows * out * 2}, std::pair{"dw", in * out * 4},
                                  std::pair{"dx", rows * in * 4}, std::pair{"z", rows * next * 4}}) {
      std::vector<uint8_t> bytes(bytesOut);
      EXPECT_EQ(mpc_program_get_output(program.get(), name, bytes.data(), bytes.size()), MPC_OK)
          << mpc_last_error();
      results.push_back(std::move(bytes));
    }
  }
  return results;
}

// GEMMs reading the widened copies of f16 operands (and of an f16 result)
// that an earlier GEMM of the run kept give the bits of GEMMs widening
// their own; a second run with other inputs widens them anew. The result's
// copy is written in the fused bias/ReLU pass, or after a GELU's rounding.
TEST(ProgramGemmCopies, ReusedCopiesGiveTheSameBits) {
  TempDir dir;
  for (Epilogue epilogue : {Epilogue::BiasRelu, Epilogue::BiasGelu}) {
    SCOPED_TRACE(mpc::rt::epilogueName(epilogue));
    std::vector<std::vector<uint8_t>> plain = runWidenedCopies(false, epilogue, dir);
    std::vector<std::vector<uint8_t>> copies = runWidenedCopies(true, epilogue, dir);
    ASSERT_EQ(plain.size(), 8u);
    ASSERT_EQ(copies.size(), 8u);
    for (size_t i = 0; i < plain.size(); ++i)
      EXPECT_EQ(plain[i], copies[i]) << "run " << i / 4 << ", output " << i % 4;
    EXPECT_NE(plain[1], plain[5]) << "the two runs' inputs differ";
  }
}

/// A relu_grad hint's GEMM and the launch it stands for: C = A B (A and
/// B of C's dtype, f32 for an f32 C), then out = aux > 0 ? C : +0.
enum class ReluGradOut { Apart, AtC, AtAux };

struct ReluGradCase {
  DType c, aux;
  int64_t m, n, k;
  ReluGradOut out; // where out is
};

const char *storageType(DType dtype) {
  return dtype == DType::F16 ? "mpc::half_t" : dtype == DType::BF16 ? "mpc::bf16_t" : "float";
}

/// The launch's kernel k0 as the emitter would write it for `g`; with
/// `poisoned`, one that writes 3 everywhere instead (for a program whose
/// launch must not run).
std::string reluGradKernel(const ReluGradCase &g, bool poisoned = false) {
  std::string c = storageType(g.c), aux = storageType(g.aux);
  if (poisoned)
    return std::string(R"(
#include "mpc/device/types.cuh"
#include "mpc/device/pointwise.cuh"
MPC_KERNEL(k0) {
  )") + c + " *out = static_cast<" + c + " *>(mpc_buffers[2]);\n  for (int64_t i = 0; i < " +
           std::to_string(g.m * g.n) + "; ++i)\n    out[i] = mpc::from_f32<" + c +
           ">(3.0f);\n}\n";
  return std::string(R"(
#include "mpc/device/types.cuh"
#include "mpc/device/math.cuh"
#include "mpc/device/pointwise.cuh"
struct ReluGrad {
  const )") + aux + " *aux; const " + c + " *c; " + c + R"( *out;
  MPC_HD void operator()(int64_t i) const {
    out[i] = mpc::from_f32<)" + c + R"(>(mpc::to_f32(aux[i]) > 0.0f ? mpc::to_f32(c[i]) : 0.0f);
  }
};
MPC_KERNEL(k0) {
  mpc::pointwise()" + std::to_string(g.m * g.n) + ", ReluGrad{static_cast<const " + aux +
         " *>(mpc_buffers[0]), static_cast<const " + c + " *>(mpc_buffers[1]), static_cast<" +
         c + " *>(mpc_buffers[2])});\n}\n";
}

/// aux: values in [-1, 1) with every 8th of them +0, -0, NaN, +inf or
/// -inf, and some the smallest positive or negative subnormal, the largest
/// finite value or the NaN just above +inf, stored as `dtype`.
std::vector<uint8_t> reluGradAux(DType dtype, int64_t count) {
  std::vector<double> values = randomValues<double>(count, -1.0, 1.0, 7);
  const double special[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 0, 0, 0};
  for (int64_t i = 0; i < count; i += 8)
    values[i] = special[(i / 8) % 8];
  std::vector<uint8_t> bytes(count * mpc::rt::dtypeSize(dtype));
  mpc::rt::narrowElements(values.data(), dtype, bytes.data(), count);
  // By their bits: subnormals, the largest finite value, the lowest NaN.
  for (int64_t i = 40; i < count; i += 64) {
    if (dtype == DType::F32) {
      const uint32_t bits[] = {0x00000001u, 0x80000001u, 0x7f7fffffu, 0x7f800001u};
      std::memcpy(bytes.data() + i * 4, &bits[(i / 64) % 4], 4);
    } else {
      const bool half = dtype == DType::F16;
      const uint16_t bits[] = {0x0001u, 0x8001u, uint16_t(half ? 0x7bffu : 0x7f7fu),
                               uint16_t(half ? 0x7c01u : 0x7f81u)};
      std::memcpy(bytes.data() + i * 2, &bits[(i / 64) % 4], 2);
    }
  }
  return bytes;
}

/// Writes `m` with the host object `object` to `path`, loads it on the CPU,
/// sets `inputs` by name, runs it once and returns the `bytes` bytes of
/// output `output`.
std::vector<uint8_t>
runHostProgram(const std::string &path, const Manifest &m, const std::string &object,
               const std::vector<std::pair<const char *, std::vector<uint8_t>>> &inputs,
               const char *output, size_t bytes) {
  writeProgramBundle(path, m, {{"host.so", object}});
  LoadedProgram program;
  EXPECT_EQ(program.load(path, 0, "cpu"), MPC_OK) << mpc_last_error();
  for (const auto &[name, data] : inputs)
    EXPECT_EQ(mpc_program_set_input(program.get(), name, data.data(), data.size()), MPC_OK)
        << mpc_last_error();
  EXPECT_EQ(mpc_program_run(program.get()), MPC_OK) << mpc_last_error();
  std::vector<uint8_t> out(bytes);
  EXPECT_EQ(mpc_program_get_output(program.get(), output, out.data(), out.size()), MPC_OK)
      << mpc_last_error();
  return out;
}

/// Runs `g` with or without the hint on the CPU and returns out's bytes.
std::vector<uint8_t> runReluGrad(const ReluGradCase &g, bool hint, const std::string &object,
                                 const TempDir &dir) {
  DType operands = g.c == DType::F32 ? DType::F32 : g.c;
  const uint64_t size = mpc::rt::dtypeSize(g.c), auxSize = mpc::rt::dtypeSize(g.aux);
  const uint64_t aAt = 0, bAt = alignUp(aAt + g.m * g.k * mpc::rt::dtypeSize(operands));
  const uint64_t auxAt = alignUp(bAt + g.k * g.n * mpc::rt::dtypeSize(operands));
  const uint64_t cAt = alignUp(auxAt + g.m * g.n * auxSize);
  const uint64_t outAt = g.out == ReluGradOut::AtC     ? cAt
                         : g.out == ReluGradOut::AtAux ? auxAt
                                                       : alignUp(cAt + g.m * g.n * size);
  Manifest m;
  m.program = "relu_grad";
  m.arenaBytes = alignUp(std::max(outAt, cAt) + g.m * g.n * size);
  m.inputs = {tensorSpec("a", operands, {g.m, g.k}, arena(aAt)),
              tensorSpec("b", operands, {g.k, g.n}, arena(bAt)),
              tensorSpec("aux", g.aux, {g.m, g.n}, arena(auxAt))};
  m.outputs = {tensorSpec("out", g.c, {g.m, g.n}, arena(outAt))};
  m.kernels = {mpc::rt::KernelSpec{"k0", 1, 256}};
  GemmStep gemm;
  gemm.a = arena(aAt);
  gemm.b = arena(bAt);
  gemm.c = arena(cAt);
  gemm.aDtype = gemm.bDtype = operands;
  gemm.cDtype = g.c;
  gemm.m = g.m;
  gemm.n = g.n;
  gemm.k = g.k;
  if (hint)
    gemm.reluGrad = GemmStep::ReluGrad{arena(auxAt), arena(outAt), g.aux};
  m.steps = {gemm, mpc::rt::LaunchStep{"k0", {arena(auxAt), arena(cAt), arena(outAt)}}};
  std::vector<double> exact;
  return runHostProgram(dir.file(hint ? "hint.mpcb" : "plain.mpcb"), m, object,
                        {{"a", randomOperand(operands, g.m * g.k, 11, exact)},
                         {"b", randomOperand(operands, g.k * g.n, 12, exact)},
                         {"aux", reluGradAux(g.aux, g.m * g.n)}},
                        "out", g.m * g.n * size);
}

// The CPU backend takes a relu_grad hint (it runs the GEMM masking its
// result and skips the launch, here one that would write 3s) and gives the
// bits of the launch after the plain GEMM. For every dtype of C and aux;
// sizes OpenBLAS and oneDNN take (oneDNN writes a bf16 or f32 C itself,
// which is then masked) and a tail after the vectors; out apart, in place
// of C, or in place of aux (as the compiler plans a ReLU's gradient, over
// the activation), which the mask must read before out is written; aux
// values that are zeros of either sign, NaNs, infinities, subnormals and
// the largest finite value.
TEST(ProgramGemmReluGrad, TheHintGivesTheLaunchsBits) {
  using Out = ReluGradOut;
  const ReluGradCase cases[] = {
      {DType::F16, DType::F16, 64, 128, 128, Out::Apart},
      {DType::F16, DType::F16, 5, 21, 7, Out::Apart},
      {DType::F16, DType::F16, 64, 128, 128, Out::AtAux},
      {DType::F16, DType::F32, 64, 128, 128, Out::Apart},
      {DType::F16, DType::BF16, 5, 21, 7, Out::AtC},
      {DType::F16, DType::BF16, 5, 21, 7, Out::AtAux},
      {DType::BF16, DType::BF16, 64, 128, 128, Out::Apart},
      {DType::BF16, DType::BF16, 64, 128, 128, Out::AtC},
      {DType::BF16, DType::BF16, 64, 128, 128, Out::AtAux},
      {DType::BF16, DType::BF16, 5, 21, 7, Out::AtAux},
      {DType::BF16, DType::F16, 5, 21, 7, Out::Apart},
      {DType::F32, DType::F32, 64, 128, 128, Out::Apart},
      {DType::F32, DType::F32, 5, 21, 7, Out::AtAux},
      {DType::F32, DType::BF16, 5, 21, 7, Out::AtC},
      {DType::F32, DType::F16, 64, 128, 128, Out::AtC},
  };
  for (const ReluGradCase &g : cases) {
    SCOPED_TRACE(std::string("C ") + mpc::rt::dtypeName(g.c) + ", aux " +
                 mpc::rt::dtypeName(g.aux) + ", " + std::to_string(g.m) + "x" +
                 std::to_string(g.n) + "x" + std::to_string(g.k) +
                 (g.out == Out::AtC     ? ", out in place of C"
                  : g.out == Out::AtAux ? ", out in place of aux"
                                        : ""));
    TempDir dir;
    std::string object = compileHostObject(reluGradKernel(g));
    // The hinted program's launch writes 3s: the CPU must not run it.
    std::string poisoned = compileHostObject(reluGradKernel(g, true));
    ASSERT_FALSE(object.empty());
    ASSERT_FALSE(poisoned.empty());
    std::vector<uint8_t> plain = runReluGrad(g, false, object, dir);
    std::vector<uint8_t> hinted = runReluGrad(g, true, poisoned, dir);
    ASSERT_EQ(plain.size(), hinted.size());
    EXPECT_TRUE(plain == hinted) << "the hinted GEMM's out differs from the launch's";
    // The mask did something: zeros where aux <= 0 or NaN, values elsewhere.
    std::vector<double> values(g.m * g.n);
    mpc::rt::widenElements(g.c, hinted.data(), values.data(), values.size());
    size_t zeros = std::count(values.begin(), values.end(), 0.0);
    EXPECT_GT(zeros, values.size() / 4);
    EXPECT_LT(zeros, values.size() * 3 / 4);
  }
}

/// A convolution's GEMM on im2col columns that the launch k0 writes: the
/// forward product filter (o x C kH kW, shared) by each image's columns
/// into C_b (o x Ho Wo), or the filter gradient's dY_b (o x Ho Wo) by the
/// columns transposed into C_b (o x C kH kW).
struct Im2colCase {
  const char *name;
  DType dtype, c;
  int64_t images, channels, height, width, o;
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool filterGradient;
  /// Elements before A's and C's first (offset_a and offset_c).
  int64_t offset = 0;
};

/// k0 for `g`: the im2col columns of the image in plain loops; with
/// `poisoned`, 3 in every column instead (for a program whose launch must
/// not run).
std::string im2colKernel(const Im2colCase &g, const GemmStep::Im2col &hint, bool poisoned) {
  auto number = [](int64_t value) { return std::to_string(value); };
  std::string type = storageType(g.dtype);
  std::string source = R"(
#include "mpc/device/types.cuh"
#include "mpc/device/pointwise.cuh"
MPC_KERNEL(k0) {
  using T = )" + type + R"(;
  const T *in = static_cast<const T *>(mpc_buffers[0]);
  T *cols = static_cast<T *>(mpc_buffers[1]);
  int64_t at = 0;
  for (int64_t n = 0; n < )" + number(g.images) + R"(; ++n)
    for (int64_t ch = 0; ch < )" + number(g.channels) + R"(; ++ch)
      for (int64_t ki = 0; ki < )" + number(g.kernel[0]) + R"(; ++ki)
        for (int64_t kj = 0; kj < )" + number(g.kernel[1]) + R"(; ++kj)
          for (int64_t oh = 0; oh < )" + number(hint.outH()) + R"(; ++oh)
            for (int64_t ow = 0; ow < )" + number(hint.outW()) + R"(; ++ow, ++at) {
              const int64_t ih = oh * )" + number(g.stride[0]) + " - " + number(g.padding[0]) +
                       " + ki * " + number(g.dilation[0]) + R"(;
              const int64_t iw = ow * )" + number(g.stride[1]) + " - " + number(g.padding[1]) +
                       " + kj * " + number(g.dilation[1]) + R"(;
              const bool inside = ih >= 0 && ih < )" + number(g.height) +
                       " && iw >= 0 && iw < " + number(g.width) + R"(;
              cols[at] = )" +
                       (poisoned ? std::string("mpc::from_f32<T>(3.0f)")
                                 : "inside ? in[((n * " + number(g.channels) + " + ch) * " +
                                       number(g.height) + " + ih) * " + number(g.width) +
                                       " + iw] : mpc::from_f32<T>(0.0f)") +
                       ";\n            }\n}\n";
  return source;
}

/// Runs `g` on the CPU, with or without the hint, k0 from `object`, and
/// returns C's bytes.
std::vector<uint8_t> runIm2col(const Im2colCase &g, bool hint, const std::string &object,
                               const TempDir &dir) {
  GemmStep::Im2col columns{mpc::test::arena(0), {g.images, g.channels, g.height, g.width},
                           g.kernel, g.stride, g.padding, g.dilation};
  const int64_t rows = g.channels * g.kernel[0] * g.kernel[1];
  const int64_t cols = columns.outH() * columns.outW();
  const uint64_t size = mpc::rt::dtypeSize(g.dtype), cSize = mpc::rt::dtypeSize(g.c);
  const int64_t inCount = g.images * g.channels * g.height * g.width;
  const int64_t aCount = g.offset + (g.filterGradient ? g.images * g.o * cols : g.o * rows);
  const int64_t cCount = g.offset + g.images * g.o * (g.filterGradient ? rows : cols);
  const uint64_t colsAt = alignUp(inCount * size);
  const uint64_t aAt = alignUp(colsAt + g.images * rows * cols * size);
  const uint64_t cAt = alignUp(aAt + aCount * size);
  Manifest m;
  m.program = "im2col";
  m.arenaBytes = alignUp(cAt + cCount * cSize);
  m.inputs = {tensorSpec("x", g.dtype, {inCount}, arena(0)),
              tensorSpec("a", g.dtype, {aCount}, arena(aAt))};
  m.outputs = {tensorSpec("c", g.c, {cCount}, arena(cAt))};
  m.kernels = {mpc::rt::KernelSpec{"k0", 1, 256}};
  GemmStep gemm;
  gemm.a = arena(aAt);
  gemm.b = arena(colsAt);
  gemm.c = arena(cAt);
  gemm.aDtype = gemm.bDtype = g.dtype;
  gemm.cDtype = g.c;
  gemm.batch = g.images;
  gemm.offsetA = gemm.offsetC = g.offset;
  gemm.strideB = rows * cols;
  gemm.m = g.o;
  if (g.filterGradient) {
    gemm.n = rows;
    gemm.k = cols;
    gemm.transposeB = true;
    gemm.strideA = g.o * cols;
  } else {
    gemm.n = cols;
    gemm.k = rows;
  }
  gemm.strideC = gemm.m * gemm.n;
  if (hint)
    gemm.im2colB = columns;
  m.steps = {mpc::rt::LaunchStep{"k0", {arena(0), arena(colsAt)}}, gemm};
  std::vector<double> exact;
  return runHostProgram(dir.file(hint ? "hint.mpcb" : "plain.mpcb"), m, object,
                        {{"x", randomOperand(g.dtype, inCount, 21, exact)},
                         {"a", randomOperand(g.dtype, aCount, 22, exact)}},
                        "c", cCount * cSize);
}

/// Runs `g` with and without its hint (the launch, from `poisoned`, then
/// writes 3s) and expects the launch's bits (an f32 B: the launch runs).
void expectTheLaunchsBits(const Im2colCase &g, const std::string &object,
                          const std::string &poisoned) {
  TempDir dir;
  std::vector<uint8_t> plain = runIm2col(g, false, object, dir);
  std::vector<uint8_t> hinted = runIm2col(g, true, poisoned, dir);
  ASSERT_EQ(plain.size(), hinted.size());
  if (g.dtype == DType::F32) {
    EXPECT_FALSE(plain == hinted) << "the CPU skipped the launch of an f32 B";
    EXPECT_TRUE(plain == runIm2col(g, true, object, dir));
    return;
  }
  EXPECT_TRUE(plain == hinted) << "the gathered columns' product differs from the launch's";
  // The product is not trivial: a good part of it is not zero (far padding
  // gives whole windows of zeros).
  std::vector<double> values(plain.size() / mpc::rt::dtypeSize(g.c));
  mpc::rt::widenElements(g.c, hinted.data(), values.data(), values.size());
  size_t zeros = std::count(values.begin(), values.end(), 0.0);
  EXPECT_GT(values.size() - zeros, values.size() / 4);
}

// The CPU backend takes an im2col_b hint on an f16 B (it gathers the fp32
// columns from the image and skips the launch, here one that would write
// 3s) and gives the bits of the launch and the plain GEMM: the forward
// product and the filter gradient's, strides, dilations, padding on one
// side only, a single image, a channel's window running off the image, a C
// in f16, small products gathered and multiplied a few images at a time
// (256 KiB of columns, with a shorter last pass) where they run matrix by
// matrix (HostGemm::multipliesMatrixByMatrix), and large ones a batch in
// one oneDNN call; with each setting of MPC_CPU_BATCH_SMALL_F32. For an f32
// B it runs the launch (the poisoned one then changes the result).
TEST(ProgramGemmIm2col, TheHintGivesTheLaunchsBits) {
  const Im2colCase cases[] = {
      {"3x3 same", DType::F16, DType::F32, 3, 2, 7, 6, 5, {3, 3}, {1, 1}, {1, 1, 1, 1},
       {1, 1}, false},
      {"strided dilated", DType::F16, DType::F16, 2, 3, 9, 8, 4, {2, 3}, {2, 1}, {0, 1, 1, 0},
       {2, 1}, false},
      {"filter gradient", DType::F16, DType::F32, 3, 2, 7, 6, 5, {3, 3}, {2, 2}, {1, 1, 1, 1},
       {1, 1}, true},
      {"one image, far padding", DType::F16, DType::F32, 1, 1, 4, 5, 3, {2, 2}, {3, 1},
       {3, 0, 2, 4}, {1, 3}, false},
      // 28 KiB of columns an image, small products: 2^20 multiply-adds in
      // all, one oneDNN call or passes of 8 images; fewer in all, passes of 7
      // and 6 images (where the products run matrix by matrix).
      {"small products", DType::F16, DType::F32, 32, 4, 14, 14, 8, {3, 3}, {1, 1},
       {1, 1, 1, 1}, {1, 1}, false},
      {"small filter gradients", DType::F16, DType::F32, 32, 4, 14, 14, 8, {3, 3}, {1, 1},
       {1, 1, 1, 1}, {1, 1}, true},
      {"passes", DType::F16, DType::F32, 13, 4, 14, 14, 8, {3, 3}, {1, 1}, {1, 1, 1, 1},
       {1, 1}, false},
      {"filter gradient passes", DType::F16, DType::F32, 13, 4, 14, 14, 8, {3, 3}, {1, 1},
       {1, 1, 1, 1}, {1, 1}, true},
      // The same with A and C after 5 other elements (offset_a, offset_c).
      {"passes at offsets", DType::F16, DType::F32, 13, 4, 14, 14, 8, {3, 3}, {1, 1},
       {1, 1, 1, 1}, {1, 1}, false, 5},
      {"filter gradient passes at offsets", DType::F16, DType::F16, 13, 4, 14, 14, 8, {3, 3},
       {1, 1}, {1, 1, 1, 1}, {1, 1}, true, 5},
      // 2^20 multiply-adds a product and more: the batch in one oneDNN
      // call, gathered whole.
      {"oneDNN batch", DType::F16, DType::F32, 5, 16, 14, 14, 64, {3, 3}, {1, 1}, {1, 1, 1, 1},
       {1, 1}, false},
      {"oneDNN filter gradient", DType::F16, DType::F32, 5, 16, 14, 14, 64, {3, 3}, {1, 1},
       {1, 1, 1, 1}, {1, 1}, true},
      {"f32 runs the launch", DType::F32, DType::F32, 2, 3, 9, 8, 4, {2, 3}, {2, 1},
       {0, 1, 1, 0}, {2, 1}, false},
  };
  for (const Im2colCase &g : cases) {
    GemmStep::Im2col hint{arena(0), {g.images, g.channels, g.height, g.width}, g.kernel,
                          g.stride, g.padding, g.dilation};
    std::string object = compileHostObject(im2colKernel(g, hint, false));
    std::string poisoned = compileHostObject(im2colKernel(g, hint, true));
    ASSERT_FALSE(object.empty());
    ASSERT_FALSE(poisoned.empty());
    for (const char *batching : {"1", "0"}) {
      SCOPED_TRACE(std::string(g.name) + ", MPC_CPU_BATCH_SMALL_F32=" + batching);
      mpc::test::ScopedEnv setting("MPC_CPU_BATCH_SMALL_F32", batching);
      expectTheLaunchsBits(g, object, poisoned);
    }
  }
}

std::string caseName(const ::testing::TestParamInfo<GemmCase> &info) {
  return info.param.name;
}

const GemmCase kCases[] = {
    {"F32Plain", DType::F32, DType::F32, DType::F32, std::nullopt, 5, 7, 3, 1,
     0, 0, 0, 0, 0, 0, false, false, Epilogue::None},
    {"F16TransposedABiasRelu", DType::F16, DType::F16, DType::F32, DType::F32,
     6, 5, 9, 1, 0, 0, 0, 0, 0, 0, true, false, Epilogue::BiasRelu},
    {"F16ToF16TransposedBBatchedGelu", DType::F16, DType::F16, DType::F16,
     std::nullopt, 3, 4, 5, 3, 2, 1, 3, 17, 20, 13, false, true,
     Epilogue::Gelu},
    {"Bf16MixedSharedBBiasGelu", DType::BF16, DType::F32, DType::BF16,
     DType::F16, 4, 6, 7, 2, 0, 0, 5, 28, 0, 24, true, true,
     Epilogue::BiasGelu},
    {"F32Relu", DType::F32, DType::F16, DType::F32, std::nullopt, 8, 8, 16, 1,
     0, 0, 0, 0, 0, 0, false, false, Epilogue::Relu},
    {"F64InDouble", DType::F64, DType::F64, DType::F64, DType::F64, 5, 3, 4, 2,
     0, 0, 0, 20, 12, 15, false, false, Epilogue::Bias},
    {"F64NarrowedToF32", DType::F64, DType::F32, DType::F32, DType::BF16, 3, 3,
     3, 1, 0, 0, 0, 0, 0, 0, false, true, Epilogue::Bias},
    {"F16ToF64", DType::F16, DType::F16, DType::F64, std::nullopt, 4, 4, 4, 1,
     0, 0, 0, 0, 0, 0, false, false, Epilogue::None},
    {"F16LargeBiasRelu", DType::F16, DType::F16, DType::F32, DType::F16, 64,
     128, 64, 1, 0, 0, 0, 0, 0, 0, false, false, Epilogue::BiasRelu},
    {"F16LargeBatchedTransposed", DType::F16, DType::BF16, DType::F16,
     DType::F32, 48, 40, 72, 3, 0, 5, 0, 48 * 72, 40 * 72 + 5, 48 * 40, true,
     true, Epilogue::BiasGelu},
    // Combinations cuBLASLt runs, for the CUDA backend's test.
    {"Bf16ToF32SharedABiasGelu", DType::BF16, DType::BF16, DType::F32,
     DType::F32, 5, 6, 7, 3, 4, 0, 2, 0, 6 * 7, 5 * 6, true, true,
     Epilogue::BiasGelu},
    {"F16ToF16LargeBiasRelu", DType::F16, DType::F16, DType::F16, DType::F16,
     64, 128, 64, 1, 0, 0, 0, 0, 0, 0, false, false, Epilogue::BiasRelu},
    // fp16 C rounded in the epilogue's own pass: eight columns at a time
    // and a tail of five.
    {"F16ToF16BiasReluTail", DType::F16, DType::F16, DType::F16, DType::F32, 7, 21, 9, 1, 0,
     0, 0, 0, 0, 0, false, true, Epilogue::BiasRelu},
    {"F16LargeBatchedTransposedBias", DType::F16, DType::F16, DType::F16,
     DType::F16, 48, 40, 72, 3, 0, 5, 0, 48 * 72, 40 * 72 + 5, 48 * 40, true,
     true, Epilogue::Bias},
    {"Bf16ToBf16Relu", DType::BF16, DType::BF16, DType::BF16, std::nullopt, 9,
     17, 33, 1, 0, 0, 0, 0, 0, 0, false, true, Epilogue::Relu},
    // Large enough for oneDNN (OnednnMatmul.h), which writes C itself with
    // the bias added; the ReLU runs on C after it.
    {"Bf16ToBf16LargeBatchedBiasRelu", DType::BF16, DType::BF16, DType::BF16,
     DType::BF16, 64, 64, 32, 2, 3, 0, 1, 64 * 32 + 3, 32 * 64, 64 * 64 + 1, true,
     false, Epilogue::BiasRelu},
    // Strided batches of small bf16 products, one oneDNN call for the whole
    // batch (a convolution's per-image GEMMs): a shared filter, gaps between
    // the batches, transposes and a shared B.
    // (Each case has at least OnednnMatmul::kBf16MinMacs products in all.)
    {"Bf16SmallBatchedSharedARelu", DType::BF16, DType::BF16, DType::BF16, std::nullopt, 8,
     196, 9, 8, 0, 2, 1, 0, 9 * 196 + 2, 8 * 196 + 3, false, false, Epilogue::Relu},
    {"Bf16ToF32SmallBatchedTransposedSharedBBias", DType::BF16, DType::BF16, DType::F32,
     DType::F32, 16, 40, 36, 3, 1, 0, 0, 16 * 36 + 1, 0, 16 * 40, true, true, Epilogue::Bias},
    // Strided batches of fp32 and fp16 products of OnednnMatmul::kF32MinMacs
    // each, one fp32 oneDNN call for the whole batch: fp32 C written by
    // oneDNN with a shared filter and gaps between the batches; fp16
    // operands widened for the whole batch, with a shared B and transposes;
    // an fp16 C, and a bf16 one, rounded from the batch's fp32 products.
    {"F32BatchedSharedABiasRelu", DType::F32, DType::F32, DType::F32, DType::F32, 64, 128, 128,
     3, 0, 3, 1, 0, 128 * 128 + 5, 64 * 128 + 2, false, false, Epilogue::BiasRelu},
    {"F16ToF32BatchedTransposedASharedBBias", DType::F16, DType::F16, DType::F32, DType::F32,
     128, 128, 64, 3, 2, 0, 0, 64 * 128 + 1, 0, 128 * 128, true, false, Epilogue::Bias},
    {"F16ToF16BatchedTransposedBRelu", DType::F16, DType::F16, DType::F16, std::nullopt, 64,
     128, 128, 2, 0, 1, 3, 64 * 128, 128 * 128 + 7, 64 * 128 + 1, false, true, Epilogue::Relu},
    {"F16ToBf16BatchedBiasRelu", DType::F16, DType::F16, DType::BF16, DType::F32, 64, 128, 128,
     2, 0, 3, 1, 0, 128 * 128 + 5, 64 * 128 + 2, false, false, Epilogue::BiasRelu},
    // Strided batches of small fp32 and fp16 products (at least
    // OnednnMatmul::kF32MinMacs in all, less each): one fp32 oneDNN call
    // for the whole batch, or matrix by matrix in OpenBLAS
    // (MPC_CPU_BATCH_SMALL_F32), with the same shared operands, gaps and
    // transposes.
    {"F32SmallBatchedSharedABiasRelu", DType::F32, DType::F32, DType::F32, DType::F32, 16,
     196, 72, 32, 0, 3, 1, 0, 72 * 196 + 5, 16 * 196 + 2, false, false, Epilogue::BiasRelu},
    {"F16ToF32SmallBatchedTransposedASharedBBias", DType::F16, DType::F16, DType::F32,
     DType::F32, 72, 196, 16, 32, 2, 0, 0, 16 * 72 + 1, 0, 72 * 196, true, false,
     Epilogue::Bias},
    {"F16ToF16SmallBatchedTransposedBRelu", DType::F16, DType::F16, DType::F16, std::nullopt,
     16, 100, 36, 20, 0, 1, 3, 16 * 36, 100 * 36 + 7, 16 * 100 + 1, false, true,
     Epilogue::Relu},
    // The same for the other C types: bf16 rounded from the batch's fp32
    // products (with a bias and ReLU, and with GELU), fp32 with GELU
    // (matrix by matrix), bf16 operands into an fp16 C (one bf16 call into
    // fp32 products), and narrow products (matrix by matrix).
    {"F16ToBf16SmallBatchedBiasRelu", DType::F16, DType::F16, DType::BF16, DType::F32, 16, 196,
     72, 32, 0, 3, 1, 0, 72 * 196 + 5, 16 * 196 + 2, false, false, Epilogue::BiasRelu},
    {"F32ToBf16SmallBatchedTransposedAGelu", DType::F32, DType::F32, DType::BF16, std::nullopt,
     72, 196, 16, 32, 2, 0, 0, 16 * 72 + 1, 16 * 196, 72 * 196, true, false, Epilogue::Gelu},
    {"F32SmallBatchedBiasGelu", DType::F32, DType::F32, DType::F32, DType::F32, 16, 100, 36, 20,
     0, 1, 3, 16 * 36, 100 * 36 + 7, 16 * 100 + 1, false, true, Epilogue::BiasGelu},
    {"Bf16ToF16SmallBatchedSharedBRelu", DType::BF16, DType::BF16, DType::F16, std::nullopt, 8,
     196, 9, 32, 1, 0, 0, 9 * 8 + 3, 0, 8 * 196, false, false, Epilogue::Relu},
    {"F32NarrowSmallBatched", DType::F32, DType::F32, DType::F32, std::nullopt, 512, 10, 256, 2,
     0, 0, 0, 512 * 256, 256 * 10, 512 * 10, false, false, Epilogue::None},
    {"Bf16ToF32LargeBias", DType::BF16, DType::BF16, DType::F32, DType::F32, 64,
     96, 16, 1, 0, 0, 0, 0, 0, 0, false, true, Epilogue::Bias},
    {"Bf16ToBf16LargeGelu", DType::BF16, DType::BF16, DType::BF16, std::nullopt,
     32, 64, 48, 1, 0, 0, 0, 0, 0, 0, false, false, Epilogue::Gelu},
    {"F32LargeBiasRelu", DType::F32, DType::F32, DType::F32, DType::F32, 256,
     256, 256, 1, 0, 0, 0, 0, 0, 0, false, true, Epilogue::BiasRelu},
    // From OnednnMatmul::kF32MinMacs (2^20) products oneDNN takes f32 and
    // widened fp16 operands, transposed or not; a narrow C over a long sum
    // too, computed as its transpose.
    {"F32MidTransposedABBias", DType::F32, DType::F32, DType::F32, DType::F32, 128,
     128, 64, 1, 0, 0, 0, 0, 0, 0, true, true, Epilogue::Bias},
    {"F16MidTransposedBRelu", DType::F16, DType::F16, DType::F32, std::nullopt, 128,
     96, 96, 1, 0, 0, 0, 0, 0, 0, false, true, Epilogue::Relu},
    {"F32NarrowLongSum", DType::F32, DType::F32, DType::F32, std::nullopt, 64, 10,
     2048, 1, 0, 0, 0, 0, 0, 0, false, false, Epilogue::None},
    // Narrow products oneDNN computes as their transpose
    // (OnednnMatmul::transposesNarrow), the epilogue and rounding after: a
    // logits layer and its weight gradient (f32 and bf16, each transpose),
    // one column, twelve (the most), and thirteen and fifteen (computed as
    // they are).
    {"Bf16ToBf16NarrowBias", DType::BF16, DType::BF16, DType::BF16, DType::F32, 256, 10,
     1024, 1, 0, 0, 0, 0, 0, 0, false, false, Epilogue::Bias},
    {"Bf16ToF32NarrowTransposedA", DType::BF16, DType::BF16, DType::F32, std::nullopt, 1024,
     10, 256, 1, 0, 0, 0, 0, 0, 0, true, false, Epilogue::None},
    {"F32NarrowTransposedBBias", DType::F32, DType::F32, DType::F32, DType::F32, 256, 10, 512,
     1, 0, 0, 0, 0, 0, 0, false, true, Epilogue::Bias},
    {"F32NarrowTransposedA", DType::F32, DType::F32, DType::F32, std::nullopt, 1024, 10, 256,
     1, 0, 0, 0, 0, 0, 0, true, false, Epilogue::None},
    {"F32FifteenColumnsLongSum", DType::F32, DType::F32, DType::F32, std::nullopt, 128, 15,
     1024, 1, 0, 0, 0, 0, 0, 0, false, false, Epilogue::None},
    {"F32OneColumnTransposedBBiasRelu", DType::F32, DType::F32, DType::F32, DType::F32, 512,
     1, 2048, 1, 0, 0, 0, 0, 0, 0, false, true, Epilogue::BiasRelu},
    {"Bf16ToBf16TwelveColumnsTransposedABRelu", DType::BF16, DType::BF16, DType::BF16,
     std::nullopt, 48, 12, 128, 1, 0, 0, 0, 0, 0, 0, true, true, Epilogue::Relu},
    {"F16ToF32NarrowGelu", DType::F16, DType::F16, DType::F32, std::nullopt, 128, 8, 1024, 1,
     0, 0, 0, 0, 0, 0, false, false, Epilogue::Gelu},
    {"Bf16ToBf16ThirteenColumnsBias", DType::BF16, DType::BF16, DType::BF16, DType::F32, 64,
     13, 128, 1, 0, 0, 0, 0, 0, 0, false, false, Epilogue::Bias},
    // Accumulating into C (beta): OpenBLAS's beta (small fp32, f64, widened
    // fp16 operands), oneDNN's sum post-op (large fp32, bf16 operands), a
    // narrow product computed as its transpose (a logits layer's weight
    // gradient), and a beta of 1.
    {"F32SmallTransposedAAccumulate", DType::F32, DType::F32, DType::F32, std::nullopt, 8, 5, 7,
     1, 0, 0, 0, 0, 0, 0, true, false, Epilogue::None, 0.9},
    {"F64AccumulateOne", DType::F64, DType::F64, DType::F64, std::nullopt, 9, 6, 11, 1, 0, 0, 0,
     0, 0, 0, false, true, Epilogue::None, 1.0},
    {"F16ToF32Accumulate", DType::F16, DType::F16, DType::F32, std::nullopt, 32, 24, 16, 1, 0,
     0, 0, 0, 0, 0, true, false, Epilogue::None, -0.5},
    {"F32LargeTransposedAAccumulate", DType::F32, DType::F32, DType::F32, std::nullopt, 256, 192,
     128, 1, 0, 0, 0, 0, 0, 0, true, false, Epilogue::None, 0.9},
    {"Bf16ToF32TransposedAAccumulate", DType::BF16, DType::BF16, DType::F32, std::nullopt, 128,
     96, 64, 1, 0, 0, 0, 0, 0, 0, true, false, Epilogue::None, 0.9},
    {"F32NarrowTransposedAAccumulate", DType::F32, DType::F32, DType::F32, std::nullopt, 1024, 10,
     256, 1, 0, 0, 0, 0, 0, 0, true, false, Epilogue::None, 0.9},
};

INSTANTIATE_TEST_SUITE_P(Cases, ProgramGemm, ::testing::ValuesIn(kCases),
                         caseName);

} // namespace
