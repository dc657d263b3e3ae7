//===- OnednnMatmul.cpp - GEMMs on the CPU with oneDNN's matmul -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "OnednnMatmul.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <unordered_map>

namespace mpc::rt {

struct OnednnMatmul::Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

struct OnednnMatmul::Primitive {
  dnnl::memory::desc a, b, c, bias;
  dnnl::matmul matmul;
};

OnednnMatmul::OnednnMatmul() = default;
OnednnMatmul::~OnednnMatmul() = default;

bool OnednnMatmul::handles(DType dtype, int64_t m, int64_t n, int64_t k) {
  if (dtype == DType::F32)
    return m * n * k >= kF32MinMacs;
  if (dtype != DType::BF16 || m * n * k < kBf16MinMacs)
    return false;
  if (bf16Support_ < 0)
    bf16Support_ = primitive({static_cast<int>(DType::BF16), static_cast<int>(DType::F32), false,
                              false, false, 16, 16, 16, 1, 0, 0, 0, 0.0f})
                       ? 1
                       : 0;
  return bf16Support_ == 1;
}

OnednnMatmul::Primitive *OnednnMatmul::primitive(const Key &key) {
  auto it = primitives_.find(key);
  if (it != primitives_.end())
    return it->second.get();
  auto [dtype, cDtype, transposeA, transposeB, hasBias, m, n, k, batch, strideA, strideB, strideC,
        beta] = key;
  using dnnl::memory;
  auto typeOf = [](int dtype) {
    return static_cast<DType>(dtype) == DType::BF16 ? memory::data_type::bf16
                                                    : memory::data_type::f32;
  };
  std::unique_ptr<Primitive> made;
  try {
    if (!engine_)
      engine_ = std::make_unique<Engine>();
    made = std::make_unique<Primitive>();
    if (batch == 1) {
      // A transposed operand is the row-major matrix read column-major.
      made->a = memory::desc({m, k}, typeOf(dtype),
                             transposeA ? memory::format_tag::ba : memory::format_tag::ab);
      made->b = memory::desc({k, n}, typeOf(dtype),
                             transposeB ? memory::format_tag::ba : memory::format_tag::ab);
      made->c = memory::desc({m, n}, typeOf(cDtype), memory::format_tag::ab);
      if (hasBias)
        made->bias = memory::desc({1, n}, memory::data_type::f32, memory::format_tag::ab);
    } else {
      // [batch, rows, columns] with the steps' strides; a shared operand (a
      // stride of 0) is a batch of one, which oneDNN broadcasts.
      made->a = memory::desc({strideA ? batch : 1, m, k}, typeOf(dtype),
                             {strideA ? strideA : m * k, transposeA ? 1 : k, transposeA ? m : 1});
      made->b = memory::desc({strideB ? batch : 1, k, n}, typeOf(dtype),
                             {strideB ? strideB : k * n, transposeB ? 1 : n, transposeB ? k : 1});
      made->c = memory::desc({batch, m, n}, typeOf(cDtype), {strideC, n, 1});
      if (hasBias)
        made->bias = memory::desc({1, 1, n}, memory::data_type::f32, {n, n, 1});
    }
    dnnl::matmul::desc operation = hasBias
                                       ? dnnl::matmul::desc(made->a, made->b, made->bias, made->c)
                                       : dnnl::matmul::desc(made->a, made->b, made->c);
    dnnl::primitive_attr attributes;
    if (beta != 0.0f) { // c = product + beta * c
      dnnl::post_ops sum;
      sum.append_sum(beta);
      attributes.set_post_ops(sum);
    }
    made->matmul =
        dnnl::matmul(dnnl::matmul::primitive_desc(operation, attributes, engine_->engine));
  } catch (const dnnl::error &) {
    made.reset(); // no kernel for it on this CPU
  }
  Primitive *result = made.get();
  primitives_.emplace(key, std::move(made));
  return result;
}

bool OnednnMatmul::run(DType dtype, DType cDtype, bool transposeA, bool transposeB, int64_t m,
                       int64_t n, int64_t k, const void *a, const void *b, const float *bias,
                       void *c, float beta) {
  if (beta == 0.0f)
    return runBatched(dtype, cDtype, transposeA, transposeB, m, n, k, 1, a, 0, b, 0, bias, c, 0);
  if (cDtype != DType::F32 || bias)
    return false;
  if (!transposesNarrow(m, n))
    return execute({static_cast<int>(dtype), static_cast<int>(cDtype), transposeA, transposeB,
                    false, m, n, k, 1, 0, 0, 0, beta},
                   a, b, nullptr, c);
  return narrowProduct(dtype, transposeA, transposeB, m, n, k, a, b, static_cast<float *>(c), beta);
}

bool OnednnMatmul::narrowProduct(DType dtype, bool transposeA, bool transposeB, int64_t m,
                                 int64_t n, int64_t k, const void *a, const void *b, float *c,
                                 float beta) {
  // C^T (n x m) = op(B)^T op(A)^T, B read as the first operand: op(B)^T
  // is B read transposed unless op transposes it already, and likewise A.
  if (transposed_.size() < static_cast<size_t>(m * n))
    transposed_.resize(static_cast<size_t>(m * n));
  if (!runBatched(dtype, DType::F32, !transposeB, !transposeA, n, m, k, 1, b, 0, a, 0, nullptr,
                  transposed_.data(), 0))
    return false;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * n + j] =
          beta == 0.0f ? transposed_[j * m + i] : transposed_[j * m + i] + beta * c[i * n + j];
  return true;
}

bool OnednnMatmul::runBatched(DType dtype, DType cDtype, bool transposeA, bool transposeB,
                              int64_t m, int64_t n, int64_t k, int64_t batch, const void *a,
                              int64_t strideA, const void *b, int64_t strideB,
                              const float *bias, void *c, int64_t strideC) {
  if (cDtype != DType::F32 && cDtype != DType::BF16)
    return false;
  // Batches whose products overlap in C are not GEMMs oneDNN computes.
  if (batch > 1 && strideC < m * n)
    return false;
  if (batch == 1 && transposesNarrow(m, n)) {
    return cDtype == DType::F32 && !bias &&
           narrowProduct(dtype, transposeA, transposeB, m, n, k, a, b, static_cast<float *>(c),
                         0.0f);
  }
  if (batch == 1)
    strideA = strideB = strideC = 0;
  return execute({static_cast<int>(dtype), static_cast<int>(cDtype), transposeA, transposeB,
                  bias != nullptr, m, n, k, batch, strideA, strideB, strideC, 0.0f},
                 a, b, bias, c);
}

bool OnednnMatmul::execute(const Key &key, const void *a, const void *b, const float *bias,
                           void *c) {
  Primitive *p = primitive(key);
  if (!p)
    return false;
  try {
    dnnl::memory aMemory(p->a, engine_->engine, const_cast<void *>(a));
    dnnl::memory bMemory(p->b, engine_->engine, const_cast<void *>(b));
    dnnl::memory cMemory(p->c, engine_->engine, c);
    std::unordered_map<int, dnnl::memory> arguments{
        {DNNL_ARG_SRC, aMemory}, {DNNL_ARG_WEIGHTS, bMemory}, {DNNL_ARG_DST, cMemory}};
    if (bias)
      arguments.emplace(DNNL_ARG_BIAS,
                        dnnl::memory(p->bias, engine_->engine, const_cast<float *>(bias)));
    p->matmul.execute(engine_->stream, arguments);
    engine_->stream.wait();
  } catch (const dnnl::error &) {
    return false;
  }
  return true;
}

} // namespace mpc::rt
