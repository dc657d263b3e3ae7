//===- CudaEmulator.h - a GPU emulated on the host, for tests -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Tests of the CUDA backend on machines without a GPU. The emulator fills
// the backend's tables of driver and cuBLASLt entry points (CudaApi.h) with
// functions that do on the host what the GPU would do, and makes
// loadCudaApi return them while it lives:
//   - device memory is host memory (a CUdeviceptr is a host address), and
//     pinned host memory is ordinary memory;
//   - work enqueued on a stream waits in a queue and runs only when the
//     host synchronises (a stream or event synchronisation) or the test
//     calls drain(), so a test sees what is in flight and what has completed
//     as on a real GPU;
//   - stream capture records the enqueued work into a graph; launching the
//     graph enqueues it;
//   - modules take their kernels from the bundle's host object (the same
//     kernel ABI on both targets), whatever image the backend hands the
//     driver; the image's kind (cubin, PTX) is recorded, and chosen kinds
//     can be refused to exercise the backend's fallbacks;
//   - NCCL is a job of one rank: a communicator of rank 0 of 1, whose
//     all-reduces are enqueued (or captured) like kernels and leave the
//     data as it is;
//   - cublasLtMatmul reads the descriptors it is given back with cuBLASLt's
//     own (host-side) attribute getters and computes the column-major
//     product cuBLASLt defines with the CPU backend's GEMM (rt::HostGemm),
//     mapped back to row-major order, so results agree bitwise with the
//     CPU's exactly when the backend's row-major-to-column-major mapping
//     (GemmPlan.h) is right.
// It counts what happened, for tests of launches and synchronisations.
// One emulator may exist at a time.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TESTS_SUPPORT_CUDAEMULATOR_H
#define MPC_TESTS_SUPPORT_CUDAEMULATOR_H

#include "mpc/toolchain/CudaApi.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace mpc::test {

struct CudaEmulatorOptions {
  /// Compute capability major * 10 + minor.
  int arch = 90;
  int deviceCount = 1;
  /// What cuDriverGetVersion reports (1000 * major + 10 * minor).
  int driverVersion = CUDA_VERSION;
  /// Image kinds cuModuleLoadData refuses: "cubin", "ptx".
  std::set<std::string> refusedImages;
  /// What a GEMM takes with each algorithm cuBLASLt's heuristic offers, in
  /// its order (ms): the heuristic offers as many as there are (one when
  /// empty), each GEMM advances the emulated GPU's clock by its algorithm's
  /// time, and events read that clock; a negative time is an algorithm
  /// cublasLtMatmul refuses (CUBLAS_STATUS_NOT_SUPPORTED). Empty: one
  /// algorithm and a clock that stands still.
  std::vector<float> algorithmMilliseconds;
  /// cuGraphInstantiate fails (out of memory) this many times first.
  int failingGraphInstantiations = 0;
  /// What ncclGetVersion reports (NCCL_VERSION_CODE).
  int ncclVersion = NCCL_VERSION_CODE;
};

/// What the emulated driver has been asked to do.
struct CudaEmulatorCounters {
  int graphsInstantiated = 0;
  int graphLaunches = 0;
  /// Kernel launches and GEMMs performed (inside graphs or not).
  int kernelsRun = 0;
  int gemmsRun = 0;
  /// NCCL all-reduces performed, and communicators alive.
  int allReducesRun = 0;
  int ncclCommunicators = 0;
  /// Each ncclAllReduce call as it was made: "COUNT TYPE OP in-place" or
  /// "... apart" (NCCL's enum values: type 7 float32, op 4 avg).
  std::vector<std::string> allReduceCalls;
  /// Kernel launches and GEMMs enqueued outside a capture.
  int uncapturedWork = 0;
  int streamSynchronizations = 0;
  int eventSynchronizations = 0;
  int heuristicQueries = 0;
  /// Heuristic queries whose preference set all four operand alignments
  /// (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_{A,B,C,D}_BYTES).
  int alignedHeuristicQueries = 0;
  int nvrtcCompilations = 0;
  /// The heuristic's rank of the algorithm of each GEMM performed, and the
  /// address of its result, in order.
  std::vector<int> gemmAlgorithms;
  std::vector<uintptr_t> gemmResults;
  /// Each image loaded: its kind ("cubin" or "ptx"), a colon, and its
  /// first bytes up to a NUL (at most 24).
  std::vector<std::string> loadedImages;
};

class CudaEmulator {
public:
  /// Emulates a GPU whose kernels are those of the host object at
  /// `hostObjectPath` (a bundle's "host.so" written to a file).
  explicit CudaEmulator(const std::string &hostObjectPath, CudaEmulatorOptions options = {});
  ~CudaEmulator();
  CudaEmulator(const CudaEmulator &) = delete;
  CudaEmulator &operator=(const CudaEmulator &) = delete;

  /// Modules loaded from exactly `image` (a bundle's cubin) take their
  /// kernels from the host object at `hostObjectPath` (the same bundle's
  /// host.so) instead of the constructor's: several bundles at once.
  void addKernelImage(const std::string &image, const std::string &hostObjectPath);

  /// Performs every piece of work enqueued so far, as a GPU catching up.
  void drain();

  /// Work enqueued and not yet performed.
  size_t pending() const;

  const CudaEmulatorCounters &counters() const;
  /// Bytes of emulated device memory allocated and not freed.
  uint64_t deviceBytesInUse() const;
};

} // namespace mpc::test

#endif // MPC_TESTS_SUPPORT_CUDAEMULATOR_H
