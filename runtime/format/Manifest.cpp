//===- Manifest.cpp - the program description inside a bundle -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The names of the manifest's enums and the helpers of its types. A
// manifest is read in two layers: the JSON structure (keys, types,
// spellings) with the JSON path of every field at hand (ManifestParse.cpp),
// then verifyManifest checks the meaning (ranges, references, overlaps) on
// the parsed manifest (ManifestVerify.cpp), which the compiler can also call
// on a manifest it built; ManifestWrite.cpp writes one.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Manifest.h"

#include "ManifestInternal.h"

namespace mpc::rt {

using namespace manifest_detail;

const char *bufferSpaceName(BufferSpace space) {
  return space == BufferSpace::Arena ? "arena" : "persistent";
}

uint64_t tensorBytes(DType dtype, const std::vector<int64_t> &shape) {
  return static_cast<uint64_t>(elementCount(shape).value_or(0)) *
         dtypeSize(dtype);
}

const char *initKindName(InitKind kind) {
  switch (kind) {
  case InitKind::Zeros:
    return "zeros";
  case InitKind::Ones:
    return "ones";
  case InitKind::Constant:
    return "constant";
  case InitKind::Normal:
    return "normal";
  case InitKind::Uniform:
    return "uniform";
  case InitKind::GlorotUniform:
    return "glorot_uniform";
  case InitKind::HeNormal:
    return "he_normal";
  case InitKind::Seed:
    return "seed";
  }
  return "?";
}

double Initializer::arg(const std::string &name) const {
  auto found = args.find(name);
  if (found != args.end())
    return found->second;
  for (const InitArg &candidate : initArgs(kind))
    if (name == candidate.name)
      return candidate.defaultValue;
  return 0.0;
}

const char *allReduceOpName(AllReduceOp op) {
  switch (op) {
  case AllReduceOp::Sum:
    return "sum";
  case AllReduceOp::Max:
    return "max";
  case AllReduceOp::Mean:
    return "mean";
  }
  return "?";
}

std::string describeGemm(const GemmStep &gemm) {
  std::string text = "gemm " + std::to_string(gemm.m) + "x" + std::to_string(gemm.n) + "x" +
                     std::to_string(gemm.k);
  if (gemm.batch > 1)
    text += " batch " + std::to_string(gemm.batch);
  text += std::string(" ") + dtypeName(gemm.aDtype) + (gemm.transposeA ? "^T" : "") + "*" +
          dtypeName(gemm.bDtype) + (gemm.transposeB ? "^T" : "") + "->" + dtypeName(gemm.cDtype);
  if (gemm.epilogue != Epilogue::None)
    text += std::string(" ") + epilogueName(gemm.epilogue);
  if (gemm.reluGrad)
    text += " relu_grad";
  return text;
}

const char *epilogueName(Epilogue epilogue) {
  switch (epilogue) {
  case Epilogue::None:
    return "none";
  case Epilogue::Bias:
    return "bias";
  case Epilogue::Relu:
    return "relu";
  case Epilogue::BiasRelu:
    return "bias_relu";
  case Epilogue::Gelu:
    return "gelu";
  case Epilogue::BiasGelu:
    return "bias_gelu";
  }
  return "?";
}

bool epilogueHasBias(Epilogue epilogue) {
  return epilogue == Epilogue::Bias || epilogue == Epilogue::BiasRelu ||
         epilogue == Epilogue::BiasGelu;
}

} // namespace mpc::rt
