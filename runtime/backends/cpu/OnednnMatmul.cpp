//===- OnednnMatmul.cpp - GEMMs on the CPU with oneDNN's matmul -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "OnednnMatmul.h"

#include <oneapi/dnnl/dnnl.hpp>

namespace mpc::rt {

struct OnednnMatmul::Engine {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

struct OnednnMatmul::Primitive {
  dnnl::memory::desc a, b, c;
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
    bf16Support_ = primitive({static_cast<int>(DType::BF16), false, false, 16, 16, 16}) ? 1 : 0;
  return bf16Support_ == 1;
}

OnednnMatmul::Primitive *OnednnMatmul::primitive(const Key &key) {
  auto it = primitives_.find(key);
  if (it != primitives_.end())
    return it->second.get();
  auto [dtype, transposeA, transposeB, m, n, k] = key;
  using dnnl::memory;
  memory::data_type type =
      static_cast<DType>(dtype) == DType::BF16 ? memory::data_type::bf16 : memory::data_type::f32;
  std::unique_ptr<Primitive> made;
  try {
    if (!engine_)
      engine_ = std::make_unique<Engine>();
    made = std::make_unique<Primitive>();
    // A transposed operand is the row-major matrix read column-major.
    made->a = memory::desc({m, k}, type, transposeA ? memory::format_tag::ba : memory::format_tag::ab);
    made->b = memory::desc({k, n}, type, transposeB ? memory::format_tag::ba : memory::format_tag::ab);
    made->c = memory::desc({m, n}, memory::data_type::f32, memory::format_tag::ab);
    dnnl::matmul::primitive_desc description(dnnl::matmul::desc(made->a, made->b, made->c),
                                             engine_->engine);
    made->matmul = dnnl::matmul(description);
  } catch (const dnnl::error &) {
    made.reset(); // no kernel for it on this CPU
  }
  Primitive *result = made.get();
  primitives_.emplace(key, std::move(made));
  return result;
}

bool OnednnMatmul::run(DType dtype, bool transposeA, bool transposeB, int64_t m, int64_t n,
                       int64_t k, const void *a, const void *b, float *c) {
  Primitive *p = primitive({static_cast<int>(dtype), transposeA, transposeB, m, n, k});
  if (!p)
    return false;
  try {
    dnnl::memory aMemory(p->a, engine_->engine, const_cast<void *>(a));
    dnnl::memory bMemory(p->b, engine_->engine, const_cast<void *>(b));
    dnnl::memory cMemory(p->c, engine_->engine, c);
    p->matmul.execute(engine_->stream, {{DNNL_ARG_SRC, aMemory},
                                        {DNNL_ARG_WEIGHTS, bMemory},
                                        {DNNL_ARG_DST, cMemory}});
    engine_->stream.wait();
  } catch (const dnnl::error &) {
    return false;
  }
  return true;
}

} // namespace mpc::rt
