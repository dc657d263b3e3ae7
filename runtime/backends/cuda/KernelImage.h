//===- KernelImage.h - which of a bundle's kernel binaries fits a GPU -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// `mpc compile --target sm_XX` puts a cubin ("cubin.sm_XX") and PTX
// ("ptx.sm_XX") of the generated kernels into a bundle, next to their
// source ("kernels.cu"). For a GPU of compute capability M.N the CUDA
// backend tries, in order:
//   1. the cubin for sm_MN;
//   2. a cubin for sm_MK with K < N (same major: binary compatible), newest
//      first;
//   3. PTX for compute capability at most M.N, newest first (the driver
//      compiles it; an older driver may refuse PTX from a newer NVRTC);
//   4. the source, compiled by NVRTC for sm_MN (cached on disk).
// The first that loads is used; the error of a bundle where none does lists
// each attempt.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CUDA_KERNELIMAGE_H
#define MPC_RUNTIME_BACKENDS_CUDA_KERNELIMAGE_H

#include "mpc/format/Bundle.h"

#include <string>
#include <vector>

namespace mpc::rt {

/// The bundle section of the generated kernels' CUDA C++ source.
constexpr char kKernelSourceSection[] = "kernels.cu";

struct KernelImage {
  enum class Kind { Cubin, Ptx, Source };
  Kind kind = Kind::Cubin;
  /// The bundle section that holds it.
  std::string section;
  /// For Source: the NVRTC target to compile it for ("sm_90").
  std::string target;
};

/// The kernel images of `sections` that can run on a GPU of compute
/// capability `arch` (major * 10 + minor, e.g. 90), best first.
std::vector<KernelImage> kernelImagesFor(const std::vector<BundleSection> &sections, int arch);

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CUDA_KERNELIMAGE_H
