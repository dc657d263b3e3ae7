//===- GemmPlanTest.cpp - manifest GEMM steps as cuBLASLt calls -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// planGemm's choices for each form of step: cuBLASLt's A and B are the
// step's B and A, sizes (n, m, k), column-major layouts of the row-major
// operands, transposes, batch strides, byte offsets, compute and scale
// types, epilogues; the combinations cuBLASLt does not run are refused with
// the step named. (That the choices compute the right product is checked on
// the emulated GPU, ProgramGemmTest.TheCudaBackendAgreesBitwise.)
//
//===----------------------------------------------------------------------===//

#include "GemmPlan.h"

#include <gtest/gtest.h>

using mpc::rt::DType;
using mpc::rt::Epilogue;
using mpc::rt::GemmStep;
using mpc::rt::LtGemmPlan;
using mpc::rt::LtMatrix;
using mpc::rt::operandAlignment;
using mpc::rt::planGemm;

namespace {

GemmStep step(DType in, DType out, int64_t m, int64_t n, int64_t k) {
  GemmStep s;
  s.aDtype = s.bDtype = in;
  s.cDtype = out;
  s.m = m;
  s.n = n;
  s.k = k;
  return s;
}

void expectMatrix(const LtMatrix &x, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld,
                  int32_t batch = 1, int64_t stride = 0) {
  EXPECT_EQ(x.type, type);
  EXPECT_EQ(x.rows, rows);
  EXPECT_EQ(x.cols, cols);
  EXPECT_EQ(x.ld, ld);
  EXPECT_EQ(x.batch, batch);
  EXPECT_EQ(x.batchStride, stride);
}

TEST(GemmPlan, RowMajorBecomesTheTransposedColumnMajorProduct) {
  // C (5 x 7) = A (5 x 3) B (3 x 7), f16 in, f32 out.
  LtGemmPlan plan;
  ASSERT_TRUE(planGemm(step(DType::F16, DType::F32, 5, 7, 3), 0, plan).isOk());
  EXPECT_EQ(plan.compute, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(plan.scaleType, CUDA_R_32F);
  EXPECT_EQ(plan.transA, CUBLAS_OP_N);
  EXPECT_EQ(plan.transB, CUBLAS_OP_N);
  expectMatrix(plan.a, CUDA_R_16F, 7, 3, 7); // B^T: n x k
  expectMatrix(plan.b, CUDA_R_16F, 3, 5, 3); // A^T: k x m
  expectMatrix(plan.d, CUDA_R_32F, 7, 5, 7); // C^T: n x m
  EXPECT_EQ(plan.epilogue, CUBLASLT_EPILOGUE_DEFAULT);
  EXPECT_FALSE(plan.hasBias);
}

// A step's beta becomes the call's (D read as C, in place), and a plan
// that accumulates is another algorithm choice than one that does not.
TEST(GemmPlan, BetaAccumulatesIntoD) {
  GemmStep s = step(DType::F32, DType::F32, 5, 7, 3);
  LtGemmPlan plain, accumulating;
  ASSERT_TRUE(planGemm(s, 0, plain).isOk());
  EXPECT_EQ(plain.beta, 0.0);
  s.beta = 0.9;
  ASSERT_TRUE(planGemm(s, 0, accumulating).isOk());
  EXPECT_EQ(accumulating.beta, 0.9);
  EXPECT_NE(accumulating.key(), plain.key());
}

TEST(GemmPlan, TransposedOperandsSwapTheirOperations) {
  GemmStep s = step(DType::BF16, DType::BF16, 5, 7, 3);
  s.transposeA = true; // A stored 3 x 5
  s.transposeB = true; // B stored 7 x 3
  LtGemmPlan plan;
  ASSERT_TRUE(planGemm(s, 0, plan).isOk());
  EXPECT_EQ(plan.transA, CUBLAS_OP_T); // cuBLASLt's A is the step's B
  EXPECT_EQ(plan.transB, CUBLAS_OP_T);
  expectMatrix(plan.a, CUDA_R_16BF, 3, 7, 3);
  expectMatrix(plan.b, CUDA_R_16BF, 5, 3, 5);
  expectMatrix(plan.d, CUDA_R_16BF, 7, 5, 7);

  s.transposeA = false;
  ASSERT_TRUE(planGemm(s, 0, plan).isOk());
  EXPECT_EQ(plan.transA, CUBLAS_OP_T);
  EXPECT_EQ(plan.transB, CUBLAS_OP_N);
  expectMatrix(plan.b, CUDA_R_16BF, 3, 5, 3);
}

TEST(GemmPlan, BatchesOffsetsAndStridesFollowTheirOperands) {
  GemmStep s = step(DType::F16, DType::F16, 4, 6, 8);
  s.batch = 3;
  s.strideA = 32;
  s.strideB = 0; // shared
  s.strideC = 24;
  s.offsetA = 5;
  s.offsetB = 7;
  s.offsetC = 9;
  LtGemmPlan plan;
  ASSERT_TRUE(planGemm(s, 0, plan).isOk());
  expectMatrix(plan.a, CUDA_R_16F, 6, 8, 6, 3, 0);
  expectMatrix(plan.b, CUDA_R_16F, 8, 4, 8, 3, 32);
  expectMatrix(plan.d, CUDA_R_16F, 6, 4, 6, 3, 24);
  EXPECT_EQ(plan.aOffsetBytes, 7u * 2); // the step's B
  EXPECT_EQ(plan.bOffsetBytes, 5u * 2); // the step's A
  EXPECT_EQ(plan.dOffsetBytes, 9u * 2);
}

TEST(GemmPlan, EveryEpilogueHasItsCublasLtForm) {
  const std::pair<Epilogue, cublasLtEpilogue_t> forms[] = {
      {Epilogue::None, CUBLASLT_EPILOGUE_DEFAULT},
      {Epilogue::Bias, CUBLASLT_EPILOGUE_BIAS},
      {Epilogue::Relu, CUBLASLT_EPILOGUE_RELU},
      {Epilogue::BiasRelu, CUBLASLT_EPILOGUE_RELU_BIAS},
      {Epilogue::Gelu, CUBLASLT_EPILOGUE_GELU},
      {Epilogue::BiasGelu, CUBLASLT_EPILOGUE_GELU_BIAS}};
  for (auto [epilogue, lt] : forms) {
    GemmStep s = step(DType::F16, DType::F16, 2, 2, 2);
    s.epilogue = epilogue;
    if (mpc::rt::epilogueHasBias(epilogue)) {
      s.bias = mpc::rt::BufferRef{};
      s.biasDtype = DType::F16;
    }
    LtGemmPlan plan;
    ASSERT_TRUE(planGemm(s, 0, plan).isOk()) << mpc::rt::epilogueName(epilogue);
    EXPECT_EQ(plan.epilogue, lt) << mpc::rt::epilogueName(epilogue);
    EXPECT_EQ(plan.hasBias, mpc::rt::epilogueHasBias(epilogue));
    if (plan.hasBias)
      EXPECT_EQ(plan.biasType, CUDA_R_16F);
  }
}

TEST(GemmPlan, TypesPickTheComputeType) {
  LtGemmPlan plan;
  ASSERT_TRUE(planGemm(step(DType::F32, DType::F32, 2, 2, 2), 0, plan).isOk());
  EXPECT_EQ(plan.compute, CUBLAS_COMPUTE_32F); // plain fp32, not TF32
  ASSERT_TRUE(planGemm(step(DType::F64, DType::F64, 2, 2, 2), 0, plan).isOk());
  EXPECT_EQ(plan.compute, CUBLAS_COMPUTE_64F);
  EXPECT_EQ(plan.scaleType, CUDA_R_64F);
  ASSERT_TRUE(planGemm(step(DType::BF16, DType::F32, 2, 2, 2), 0, plan).isOk());
  EXPECT_EQ(plan.compute, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(plan.d.type, CUDA_R_32F);
}

TEST(GemmPlan, RefusesWhatCublasLtDoesNotRun) {
  struct Refused {
    DType a, b, c;
    std::optional<DType> bias;
    const char *message;
  };
  const Refused cases[] = {
      {DType::F16, DType::BF16, DType::F16, std::nullopt, "steps[3]: cuBLASLt runs no GEMM of f16 x bf16 -> f16"},
      {DType::F32, DType::F32, DType::F16, std::nullopt, "steps[3]: cuBLASLt runs no GEMM of f32 x f32 -> f16"},
      {DType::F16, DType::F16, DType::F64, std::nullopt, "steps[3]: cuBLASLt runs no GEMM of f16 x f16 -> f64"},
      {DType::I32, DType::I32, DType::I32, std::nullopt, "steps[3]: cuBLASLt has no GEMM of i32 x i32 -> i32"},
      {DType::F16, DType::F16, DType::F32, DType::F16,
       "steps[3]: the GEMM's bias is f16 and its result f32; cuBLASLt takes a bias of the "
       "result's type"},
  };
  for (const Refused &refused : cases) {
    GemmStep s = step(refused.a, refused.c, 2, 2, 2);
    s.bDtype = refused.b;
    if (refused.bias) {
      s.bias = mpc::rt::BufferRef{};
      s.biasDtype = *refused.bias;
      s.epilogue = Epilogue::Bias;
    }
    LtGemmPlan plan;
    mpc::rt::Status status = planGemm(s, 3, plan);
    EXPECT_EQ(status.code(), MPC_UNSUPPORTED);
    EXPECT_EQ(status.message().rfind(refused.message, 0), 0u) << status.message();
  }
}

TEST(GemmPlan, AlignmentIsThatOfEveryMatrixOfTheBatch) {
  EXPECT_EQ(operandAlignment(0x10000, 0, 1), 256u);
  EXPECT_EQ(operandAlignment(0x10008, 0, 1), 8u);
  EXPECT_EQ(operandAlignment(0x10002, 0, 1), 2u);
  EXPECT_EQ(operandAlignment(0x10000, 6, 3), 2u);   // the second matrix is 6 bytes on
  EXPECT_EQ(operandAlignment(0x10000, 0, 3), 256u); // shared: every matrix is the first
  EXPECT_EQ(operandAlignment(0x10010, 4096, 2), 16u);
}

TEST(GemmPlan, KeysTellPlansApart) {
  LtGemmPlan x, y;
  ASSERT_TRUE(planGemm(step(DType::F16, DType::F16, 4, 8, 16), 0, x).isOk());
  ASSERT_TRUE(planGemm(step(DType::F16, DType::F16, 4, 8, 16), 1, y).isOk());
  EXPECT_EQ(x.key(), y.key());
  ASSERT_TRUE(planGemm(step(DType::F16, DType::F16, 8, 4, 16), 0, y).isOk());
  EXPECT_NE(x.key(), y.key());
  GemmStep s = step(DType::F16, DType::F16, 4, 8, 16);
  s.transposeB = true;
  ASSERT_TRUE(planGemm(s, 0, y).isOk());
  EXPECT_NE(x.key(), y.key());
}

} // namespace
