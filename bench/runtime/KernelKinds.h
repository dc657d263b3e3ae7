//===- KernelKinds.h - what each generated kernel of a bundle does --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// For the benchmarks' per-step profiles: a bundle's kernels are named k0,
// k1, ...; what one does is read from the CUDA C++ source the bundle holds
// (kernels.cu), where each kernel's body hands its work to one of the
// device library's loops (runtime/device): pointwise_rows, reduce_rows,
// attention_forward, ...
//
//===----------------------------------------------------------------------===//

#ifndef MPC_BENCH_RUNTIME_KERNELKINDS_H
#define MPC_BENCH_RUNTIME_KERNELKINDS_H

#include "mpc/format/Status.h"

#include <map>
#include <string>

namespace mpc::bench {

/// Each kernel of `source` (generated CUDA C++: MPC_KERNEL and
/// MPC_KERNEL_BOUNDED definitions) by the last device-library function its
/// body calls ("attention_forward"), or "other" where it calls none.
std::map<std::string, std::string> kernelKinds(const std::string &source);

/// kernelKinds of the kernels.cu section of `bundle`; empty when the bundle
/// has no CUDA source (compiled for the CPU alone).
rt::Status kernelKindsOfBundle(const std::string &bundle, std::map<std::string, std::string> &out);

} // namespace mpc::bench

#endif // MPC_BENCH_RUNTIME_KERNELKINDS_H
