//===- CudaApi.h - the CUDA libraries the GPU backend calls ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The CUDA backend reaches the driver, cuBLASLt, NVRTC and NCCL only through the
// tables of entry points below, which are filled with dlopen/dlsym: a
// runtime built with CUDA starts, and runs on the CPU, on a machine without
// an NVIDIA driver or CUDA libraries, and asking for device "cuda" there
// gets an error that names the missing library.
//
// Each table member is declared with the type of the function that cuda.h,
// cublasLt.h or nvrtc.h declares, under the name those headers use. Some of
// cuda.h's names are macros for versioned symbols (cuMemAlloc is
// cuMemAlloc_v2); the member takes the versioned name too, and the symbol
// looked up is the one the header maps to, so the ABI is the one the
// runtime was compiled against.
//
// Tests fill the tables with an emulated device instead
// (tests/support/CudaEmulator.h).
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TOOLCHAIN_CUDAAPI_H
#define MPC_TOOLCHAIN_CUDAAPI_H

#include "mpc/format/Status.h"

#include <cublasLt.h>
#include <cuda.h>
#include <nccl.h>
#include <nvrtc.h>

#include <string>

namespace mpc::rt {

// X(name) for every driver entry point the backend uses.
#define MPC_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceGetName)                                                           \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemHostAlloc)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)                                                            \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)

// X(name) for every cuBLASLt entry point the backend uses.
#define MPC_CUBLASLT_FUNCTIONS(X)                                              \
  X(cublasLtCreate)                                                            \
  X(cublasLtDestroy)                                                           \
  X(cublasLtGetVersion)                                                        \
  X(cublasLtGetStatusString)                                                   \
  X(cublasLtMatmulDescCreate)                                                  \
  X(cublasLtMatmulDescDestroy)                                                 \
  X(cublasLtMatmulDescSetAttribute)                                            \
  X(cublasLtMatmulDescGetAttribute)                                            \
  X(cublasLtMatrixLayoutCreate)                                                \
  X(cublasLtMatrixLayoutDestroy)                                               \
  X(cublasLtMatrixLayoutSetAttribute)                                          \
  X(cublasLtMatrixLayoutGetAttribute)                                          \
  X(cublasLtMatmulPreferenceCreate)                                            \
  X(cublasLtMatmulPreferenceDestroy)                                           \
  X(cublasLtMatmulPreferenceSetAttribute)                                      \
  X(cublasLtMatmulAlgoGetHeuristic)                                            \
  X(cublasLtMatmul)

// X(name) for every NVRTC entry point the runtime and the compiler use.
#define MPC_NVRTC_FUNCTIONS(X)                                                 \
  X(nvrtcVersion)                                                              \
  X(nvrtcGetErrorString)                                                       \
  X(nvrtcCreateProgram)                                                        \
  X(nvrtcDestroyProgram)                                                       \
  X(nvrtcCompileProgram)                                                       \
  X(nvrtcGetProgramLogSize)                                                    \
  X(nvrtcGetProgramLog)                                                        \
  X(nvrtcGetCUBINSize)                                                         \
  X(nvrtcGetCUBIN)                                                             \
  X(nvrtcGetPTXSize)                                                           \
  X(nvrtcGetPTX)

// X(name) for every NCCL entry point the backend uses (data-parallel jobs:
// the all_reduce steps of a bundle).
#define MPC_NCCL_FUNCTIONS(X)                                                                      \
  X(ncclGetVersion)                                                                                \
  X(ncclGetErrorString)                                                                            \
  X(ncclGetUniqueId)                                                                               \
  X(ncclCommInitRank)                                                                              \
  X(ncclCommDestroy)                                                                               \
  X(ncclAllReduce)

#define MPC_CUDA_API_MEMBER(name) decltype(&::name) name = nullptr;

/// The driver API (libcuda.so.1).
struct CudaDriverApi {
  MPC_CUDA_DRIVER_FUNCTIONS(MPC_CUDA_API_MEMBER)
};

/// cuBLASLt (libcublasLt.so.<CUDA major>).
struct CublasLtApi {
  MPC_CUBLASLT_FUNCTIONS(MPC_CUDA_API_MEMBER)
};

/// NVRTC (libnvrtc.so.<CUDA major>).
struct NvrtcApi {
  MPC_NVRTC_FUNCTIONS(MPC_CUDA_API_MEMBER)
};

/// NCCL (libnccl.so.2).
struct NcclApi {
  MPC_NCCL_FUNCTIONS(MPC_CUDA_API_MEMBER)
};

#undef MPC_CUDA_API_MEMBER

/// What the CUDA backend runs on: the driver and cuBLASLt, and NVRTC for
/// kernels that the bundle has no binary of for the device.
struct CudaApi {
  const CudaDriverApi *driver = nullptr;
  const CublasLtApi *blas = nullptr;
  /// Returns NVRTC, loading it on first use.
  Status (*nvrtc)(const NvrtcApi *&out) = nullptr;
  /// Returns NCCL, loading it on first use (a program with all_reduce
  /// steps needs it).
  Status (*nccl)(const NcclApi *&out) = nullptr;
};

/// The process's CUDA libraries, loaded on the first call (later calls
/// return the same tables, or the same error). MPC_UNSUPPORTED when the
/// driver or cuBLASLt cannot be loaded; the message names the library, says
/// why and suggests device "cpu".
Status loadCudaApi(CudaApi &out);

/// Makes loadCudaApi return `api` instead of the real libraries until it is
/// called again (null restores them). For tests, which emulate a GPU
/// (tests/support/CudaEmulator.h); `api` must outlive its use.
void overrideCudaApi(const CudaApi *api);

/// The process's cuBLASLt alone (its descriptor functions need no GPU).
Status loadCublasLtApi(const CublasLtApi *&out);

/// The process's NVRTC, loaded on the first call.
Status loadNvrtcApi(const NvrtcApi *&out);

/// The process's NCCL, loaded on the first call.
Status loadNcclApi(const NcclApi *&out);

/// The runtime status of a failed NCCL call: `what`, NCCL's name of the
/// error, and the last error text NCCL has (its debug output tells more:
/// NCCL_DEBUG=WARN).
Status ncclFailure(const NcclApi &nccl, ncclResult_t result, const std::string &what);

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for `result`.
std::string describeCudaResult(const CudaDriverApi &driver, CUresult result);

/// The runtime status of a failed driver call: MPC_RESOURCE_EXHAUSTED for an
/// allocation failure, MPC_UNSUPPORTED for a missing or unsuitable device,
/// MPC_INTERNAL otherwise. The message is `what` followed by the result.
Status cudaFailure(const CudaDriverApi &driver, CUresult result,
                   const std::string &what);

/// The same for a cuBLASLt call.
Status cublasFailure(const CublasLtApi &blas, cublasStatus_t result,
                     const std::string &what);

} // namespace mpc::rt

#endif // MPC_TOOLCHAIN_CUDAAPI_H
