//===- ModelWeights.h - an imported model's parameter values ----*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The values an imported model's parameters start from, by parameter name:
// each a view of bytes that the weights keep alive, mostly of the mapped
// model file itself (OnnxModel.h), so that importing GPT-2 small does not
// copy its 500 MB (copying into fresh memory took seconds where page faults
// are slow). The driver writes them beside a bundle or sets them in a
// program. A view starts at any byte of the file (readers load its elements
// unaligned), and the model file must not be truncated or rewritten while
// mpc runs, as with any mapped input.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_FRONTEND_MODELWEIGHTS_H
#define MPC_COMPILER_FRONTEND_MODELWEIGHTS_H

#include "mpc/format/HostTensor.h"
#include "mpc/format/Safetensors.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mpc {

struct WeightTensor {
  rt::DType dtype = rt::DType::F32;
  std::vector<int64_t> shape;
  llvm::ArrayRef<uint8_t> bytes;
};

struct ModelWeights {
  std::map<std::string, WeightTensor> tensors;
  /// What the views point into (the mapped model file, converted values).
  std::vector<std::shared_ptr<const void>> storage;

  bool empty() const { return tensors.empty(); }
  size_t size() const { return tensors.size(); }

  /// A tensor that owns its bytes (a conversion, a file's tensor).
  void add(const std::string &name, rt::HostTensor tensor) {
    auto held = std::make_shared<rt::HostTensor>(std::move(tensor));
    tensors[name] = {held->dtype, held->shape, held->bytes};
    storage.push_back(std::move(held));
  }

  /// The tensors as the safetensors writer takes them.
  std::map<std::string, rt::TensorView> views() const {
    std::map<std::string, rt::TensorView> out;
    for (const auto &[name, t] : tensors)
      out[name] = {t.dtype, t.shape, t.bytes.data(), t.bytes.size()};
    return out;
  }
};

} // namespace mpc

#endif // MPC_COMPILER_FRONTEND_MODELWEIGHTS_H
