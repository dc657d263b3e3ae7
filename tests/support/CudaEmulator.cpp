//===- CudaEmulator.cpp - a GPU emulated on the host, for tests -----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "CudaEmulator.h"

#include "Elements.h"
#include "HostGemm.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

using Work = std::function<void()>;

// The driver's opaque handle types, defined here for the emulated driver.
struct CUctx_st {};
struct CUgraph_st {
  std::vector<Work> work;
};
struct CUgraphExec_st {
  std::vector<Work> work;
};
struct CUstream_st {
  std::deque<Work> queue;
  CUgraph_st *capture = nullptr;
};
struct CUevent_st {
  bool complete = true;
  CUstream_st *stream = nullptr;
  /// The emulated clock when the event completed (ms).
  double clock = 0;
};
struct CUfunc_st {
  void (*kernel)(void *const *) = nullptr;
};
struct CUmod_st {
  void *hostObject = nullptr;
  std::map<std::string, std::unique_ptr<CUfunc_st>> functions;
};
struct cublasLtContext {};
struct ncclComm {
  int ranks = 1, rank = 0;
};

namespace mpc::test {

namespace {

using rt::DType;

struct Emulation {
  CudaEmulatorOptions options;
  void *hostObject = nullptr;
  /// Host objects of chosen images (addKernelImage), and every one opened.
  std::vector<std::pair<std::string, void *>> imageObjects;
  CudaEmulatorCounters counters;
  std::map<uintptr_t, size_t> deviceAllocations, hostAllocations;
  uint64_t deviceBytes = 0;
  std::vector<std::unique_ptr<CUstream_st>> streams;
  CUctx_st context;
  cublasLtContext blasContext;
  const rt::CublasLtApi *realBlas = nullptr;
  const rt::NvrtcApi *realNvrtc = nullptr;
  /// The attributes set on each matmul preference.
  std::map<cublasLtMatmulPreference_t, std::set<int>> preferenceAttributes;
  rt::CudaDriverApi driver;
  rt::CublasLtApi blas;
  rt::NvrtcApi nvrtc;
  rt::NcclApi nccl;
  rt::CudaApi api;
  rt::HostGemm gemm;
  /// The emulated GPU's clock (ms): advanced by GEMMs only.
  double clock = 0;
};

Emulation *emulation = nullptr;

Emulation &current() {
  if (!emulation)
    throw std::logic_error("the emulated CUDA driver was called without a CudaEmulator");
  return *emulation;
}

/// Whether [address, address + bytes) lies in pinned (cuMemHostAlloc) memory.
bool isPinned(const void *address, size_t bytes) {
  auto at = reinterpret_cast<uintptr_t>(address);
  const auto &pinned = current().hostAllocations;
  auto found = pinned.upper_bound(at);
  if (found == pinned.begin())
    return false;
  --found;
  return at + bytes <= found->first + found->second;
}

void runQueued(CUstream_st *stream) {
  while (!stream->queue.empty()) {
    Work work = std::move(stream->queue.front());
    stream->queue.pop_front();
    work();
  }
}

/// Adds `work` to the stream's capture or queue.
void enqueue(CUstream stream, Work work, bool isComputation) {
  if (stream->capture) {
    stream->capture->work.push_back(std::move(work));
    return;
  }
  if (isComputation)
    ++current().counters.uncapturedWork;
  stream->queue.push_back(std::move(work));
}

// --- the driver -----------------------------------------------------------

CUresult emuInit(unsigned) {
  return current().options.deviceCount > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}
CUresult emuDriverGetVersion(int *version) {
  *version = current().options.driverVersion;
  return CUDA_SUCCESS;
}
CUresult emuDeviceGetCount(int *count) {
  *count = current().options.deviceCount;
  return CUDA_SUCCESS;
}
CUresult emuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= current().options.deviceCount)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult emuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice) {
  int arch = current().options.arch;
  *value = attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR   ? arch / 10
           : attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ? arch % 10
                                                                        : 0;
  return CUDA_SUCCESS;
}
CUresult emuDeviceGetName(char *name, int length, CUdevice) {
  std::snprintf(name, static_cast<size_t>(length), "%s", "mpc emulated GPU");
  return CUDA_SUCCESS;
}
CUresult emuPrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = &current().context;
  return CUDA_SUCCESS;
}
CUresult emuPrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult emuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

CUresult emuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  current().deviceAllocations[*pointer] = bytes;
  current().deviceBytes += bytes;
  return CUDA_SUCCESS;
}
CUresult emuMemFree(CUdeviceptr pointer) {
  auto &allocations = current().deviceAllocations;
  auto found = allocations.find(pointer);
  if (found == allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  current().deviceBytes -= found->second;
  allocations.erase(found);
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}
CUresult emuMemHostAlloc(void **pointer, size_t bytes, unsigned) {
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  *pointer = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!*pointer)
    return CUDA_ERROR_OUT_OF_MEMORY;
  current().hostAllocations[reinterpret_cast<uintptr_t>(*pointer)] = bytes;
  return CUDA_SUCCESS;
}
CUresult emuMemFreeHost(void *pointer) {
  if (current().hostAllocations.erase(reinterpret_cast<uintptr_t>(pointer)) == 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::free(pointer);
  return CUDA_SUCCESS;
}

// A copy from pageable host memory reads it at the call (the driver stages
// it); from pinned memory when the copy runs. Captured copies must use
// pinned memory.
CUresult emuMemcpyHtoDAsync(CUdeviceptr target, const void *source, size_t bytes,
                            CUstream stream) {
  void *to = reinterpret_cast<void *>(target);
  if (isPinned(source, bytes)) {
    enqueue(stream, [=] { std::memcpy(to, source, bytes); }, false);
  } else {
    if (stream->capture)
      return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    auto staged = std::make_shared<std::vector<uint8_t>>(
        static_cast<const uint8_t *>(source), static_cast<const uint8_t *>(source) + bytes);
    enqueue(stream, [=] { std::memcpy(to, staged->data(), bytes); }, false);
  }
  return CUDA_SUCCESS;
}
// A copy to pageable host memory returns once it is done.
CUresult emuMemcpyDtoHAsync(void *target, CUdeviceptr source, size_t bytes, CUstream stream) {
  const void *from = reinterpret_cast<const void *>(source);
  if (isPinned(target, bytes)) {
    enqueue(stream, [=] { std::memcpy(target, from, bytes); }, false);
    return CUDA_SUCCESS;
  }
  if (stream->capture)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  runQueued(stream);
  std::memcpy(target, from, bytes);
  return CUDA_SUCCESS;
}
CUresult emuMemcpyDtoDAsync(CUdeviceptr target, CUdeviceptr source, size_t bytes,
                            CUstream stream) {
  enqueue(stream,
          [=] {
            std::memcpy(reinterpret_cast<void *>(target), reinterpret_cast<const void *>(source),
                        bytes);
          },
          false);
  return CUDA_SUCCESS;
}
CUresult emuMemsetD8Async(CUdeviceptr target, unsigned char value, size_t bytes,
                          CUstream stream) {
  enqueue(stream, [=] { std::memset(reinterpret_cast<void *>(target), value, bytes); }, false);
  return CUDA_SUCCESS;
}

CUresult emuStreamCreate(CUstream *stream, unsigned) {
  current().streams.push_back(std::make_unique<CUstream_st>());
  *stream = current().streams.back().get();
  return CUDA_SUCCESS;
}
CUresult emuStreamDestroy(CUstream stream) {
  runQueued(stream);
  auto &streams = current().streams;
  for (auto it = streams.begin(); it != streams.end(); ++it)
    if (it->get() == stream) {
      streams.erase(it);
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_HANDLE;
}
CUresult emuStreamSynchronize(CUstream stream) {
  if (stream->capture)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  ++current().counters.streamSynchronizations;
  runQueued(stream);
  return CUDA_SUCCESS;
}
CUresult emuStreamBeginCapture(CUstream stream, CUstreamCaptureMode) {
  if (stream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  stream->capture = new CUgraph_st();
  return CUDA_SUCCESS;
}
CUresult emuStreamEndCapture(CUstream stream, CUgraph *graph) {
  if (!stream->capture)
    return CUDA_ERROR_ILLEGAL_STATE;
  *graph = stream->capture;
  stream->capture = nullptr;
  return CUDA_SUCCESS;
}
CUresult emuGraphInstantiate(CUgraphExec *exec, CUgraph graph, unsigned long long) {
  if (current().options.failingGraphInstantiations > 0) {
    --current().options.failingGraphInstantiations;
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *exec = new CUgraphExec_st{graph->work};
  ++current().counters.graphsInstantiated;
  return CUDA_SUCCESS;
}
CUresult emuGraphLaunch(CUgraphExec exec, CUstream stream) {
  if (stream->capture)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  ++current().counters.graphLaunches;
  stream->queue.push_back([exec] {
    for (const Work &work : exec->work)
      work();
  });
  return CUDA_SUCCESS;
}
CUresult emuGraphExecDestroy(CUgraphExec exec) {
  delete exec;
  return CUDA_SUCCESS;
}
CUresult emuGraphDestroy(CUgraph graph) {
  delete graph;
  return CUDA_SUCCESS;
}

CUresult emuEventCreate(CUevent *event, unsigned) {
  *event = new CUevent_st();
  return CUDA_SUCCESS;
}
CUresult emuEventDestroy(CUevent event) {
  delete event;
  return CUDA_SUCCESS;
}
CUresult emuEventRecord(CUevent event, CUstream stream) {
  if (stream->capture)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  event->complete = false;
  event->stream = stream;
  stream->queue.push_back([event] {
    event->complete = true;
    event->clock = current().clock;
  });
  return CUDA_SUCCESS;
}
CUresult emuEventQuery(CUevent event) {
  return event->complete ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
CUresult emuEventSynchronize(CUevent event) {
  ++current().counters.eventSynchronizations;
  while (!event->complete && event->stream && !event->stream->queue.empty()) {
    Work work = std::move(event->stream->queue.front());
    event->stream->queue.pop_front();
    work();
  }
  return event->complete ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_STATE;
}
CUresult emuEventElapsedTime(float *milliseconds, CUevent start, CUevent stop) {
  if (!start->complete || !stop->complete)
    return CUDA_ERROR_NOT_READY;
  *milliseconds = static_cast<float>(stop->clock - start->clock);
  return CUDA_SUCCESS;
}

/// The size of an ELF64 file: where its last header table or section ends.
size_t elfSize(const char *elf) {
  auto read = [&](size_t at, auto &value) { std::memcpy(&value, elf + at, sizeof value); };
  uint64_t programHeaders = 0, sectionHeaders = 0;
  uint16_t programEntry = 0, programCount = 0, sectionEntry = 0, sectionCount = 0;
  read(0x20, programHeaders);
  read(0x28, sectionHeaders);
  read(0x36, programEntry);
  read(0x38, programCount);
  read(0x3a, sectionEntry);
  read(0x3c, sectionCount);
  uint64_t end = std::max(programHeaders + uint64_t(programEntry) * programCount,
                          sectionHeaders + uint64_t(sectionEntry) * sectionCount);
  for (uint16_t i = 0; i < sectionCount; ++i) {
    size_t header = sectionHeaders + size_t(i) * sectionEntry;
    uint32_t type = 0;
    uint64_t offset = 0, size = 0;
    read(header + 4, type);
    read(header + 0x18, offset);
    read(header + 0x20, size);
    if (type != 8) // SHT_NOBITS occupies no bytes of the file
      end = std::max(end, offset + size);
  }
  return static_cast<size_t>(end);
}

CUresult emuModuleLoadData(CUmodule *module, const void *image) {
  const char *bytes = static_cast<const char *>(image);
  std::string kind = std::memcmp(bytes, "\x7f" "ELF", 4) == 0 ? "cubin" : "ptx";
  if (current().options.refusedImages.count(kind))
    return kind == "cubin" ? CUDA_ERROR_NO_BINARY_FOR_GPU : CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  current().counters.loadedImages.push_back(kind + ":" +
                                            std::string(bytes, strnlen(bytes, 24)));
  *module = new CUmod_st();
  (*module)->hostObject = current().hostObject;
  if (kind == "cubin" && !current().imageObjects.empty()) { // only real cubins then
    size_t size = elfSize(bytes);
    for (const auto &[known, object] : current().imageObjects)
      if (known.size() == size && std::memcmp(known.data(), bytes, size) == 0)
        (*module)->hostObject = object;
  }
  return CUDA_SUCCESS;
}
CUresult emuModuleUnload(CUmodule module) {
  delete module;
  return CUDA_SUCCESS;
}
CUresult emuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  void *symbol = module->hostObject ? dlsym(module->hostObject, name) : nullptr;
  if (!symbol)
    return CUDA_ERROR_NOT_FOUND;
  auto &slot = module->functions[name];
  if (!slot) {
    slot = std::make_unique<CUfunc_st>();
    slot->kernel = reinterpret_cast<void (*)(void *const *)>(symbol);
  }
  *function = slot.get();
  return CUDA_SUCCESS;
}
CUresult emuLaunchKernel(CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ,
                         unsigned blockX, unsigned blockY, unsigned blockZ, unsigned,
                         CUstream stream, void **parameters, void **) {
  if (gridX == 0 || gridY != 1 || gridZ != 1 || blockX == 0 || blockX > 1024 || blockY != 1 ||
      blockZ != 1 || !parameters)
    return CUDA_ERROR_INVALID_VALUE;
  CUdeviceptr table = *static_cast<CUdeviceptr *>(parameters[0]);
  auto kernel = function->kernel;
  enqueue(stream,
          [=] {
            kernel(reinterpret_cast<void *const *>(table));
            ++current().counters.kernelsRun;
          },
          true);
  return CUDA_SUCCESS;
}
CUresult emuGetErrorName(CUresult result, const char **name) {
  static std::map<int, std::string> names;
  std::string &text = names[result];
  text = "CUDA_ERROR_" + std::to_string(result);
  *name = text.c_str();
  return CUDA_SUCCESS;
}
CUresult emuGetErrorString(CUresult, const char **text) {
  *text = "emulated driver error";
  return CUDA_SUCCESS;
}

// --- cuBLASLt -------------------------------------------------------------

cublasStatus_t emuBlasCreate(cublasLtHandle_t *handle) {
  *handle = &current().blasContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t emuBlasDestroy(cublasLtHandle_t) { return CUBLAS_STATUS_SUCCESS; }

cublasStatus_t emuPreferenceSetAttribute(cublasLtMatmulPreference_t preference,
                                         cublasLtMatmulPreferenceAttributes_t attribute,
                                         const void *value, size_t size) {
  current().preferenceAttributes[preference].insert(attribute);
  return current().realBlas->cublasLtMatmulPreferenceSetAttribute(preference, attribute, value,
                                                                   size);
}

cublasStatus_t emuPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  current().preferenceAttributes.erase(preference);
  return current().realBlas->cublasLtMatmulPreferenceDestroy(preference);
}

cublasStatus_t emuHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
                            cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                            cublasLtMatrixLayout_t, cublasLtMatmulPreference_t preference,
                            int requested, cublasLtMatmulHeuristicResult_t *results,
                            int *returned) {
  ++current().counters.heuristicQueries;
  static const std::set<int> kNone;
  auto found = current().preferenceAttributes.find(preference);
  const std::set<int> &set = found == current().preferenceAttributes.end() ? kNone : found->second;
  if (set.count(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES) &&
      set.count(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES) &&
      set.count(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES) &&
      set.count(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES))
    ++current().counters.alignedHeuristicQueries;
  if (requested < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  int offered = std::max<int>(1, current().options.algorithmMilliseconds.size());
  *returned = std::min(requested, offered);
  for (int i = 0; i < *returned; ++i) {
    std::memset(&results[i], 0, sizeof results[i]);
    results[i].algo.data[0] = static_cast<uint64_t>(i); // its rank, read back by emuMatmul
    results[i].state = CUBLAS_STATUS_SUCCESS;
    results[i].wavesCount = 1;
  }
  return CUBLAS_STATUS_SUCCESS;
}

template <typename T> T descAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t a) {
  T value{};
  size_t written = 0;
  current().realBlas->cublasLtMatmulDescGetAttribute(desc, a, &value, sizeof value, &written);
  return value;
}

/// A decoded matrix layout.
struct Layout {
  cudaDataType type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t batch;
  int64_t stride;
  int32_t order;
};

bool sameLayout(const Layout &x, const Layout &y) {
  return x.type == y.type && x.rows == y.rows && x.cols == y.cols && x.ld == y.ld &&
         x.batch == y.batch && x.stride == y.stride && x.order == y.order;
}

Layout decode(cublasLtMatrixLayout_t layout) {
  const rt::CublasLtApi &blas = *current().realBlas;
  Layout out{};
  size_t written = 0;
  uint32_t type = 0;
  blas.cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_TYPE, &type, sizeof type,
                                        &written);
  out.type = static_cast<cudaDataType>(type);
  blas.cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_ROWS, &out.rows,
                                        sizeof out.rows, &written);
  blas.cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_COLS, &out.cols,
                                        sizeof out.cols, &written);
  blas.cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_LD, &out.ld,
                                        sizeof out.ld, &written);
  blas.cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &out.batch,
                                        sizeof out.batch, &written);
  blas.cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                        &out.stride, sizeof out.stride, &written);
  blas.cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_ORDER, &out.order,
                                        sizeof out.order, &written);
  return out;
}

bool dtypeOf(cudaDataType type, DType &out) {
  switch (type) {
  case CUDA_R_16F:
    out = DType::F16;
    return true;
  case CUDA_R_16BF:
    out = DType::BF16;
    return true;
  case CUDA_R_32F:
    out = DType::F32;
    return true;
  case CUDA_R_64F:
    out = DType::F64;
    return true;
  default:
    return false;
  }
}

rt::Epilogue epilogueOf(cublasLtEpilogue_t epilogue) {
  switch (epilogue) {
  case CUBLASLT_EPILOGUE_BIAS:
    return rt::Epilogue::Bias;
  case CUBLASLT_EPILOGUE_RELU:
    return rt::Epilogue::Relu;
  case CUBLASLT_EPILOGUE_RELU_BIAS:
    return rt::Epilogue::BiasRelu;
  case CUBLASLT_EPILOGUE_GELU:
    return rt::Epilogue::Gelu;
  case CUBLASLT_EPILOGUE_GELU_BIAS:
    return rt::Epilogue::BiasGelu;
  default:
    return rt::Epilogue::None;
  }
}

/// D = epilogue(op(A) op(B) + bias) + beta D, column-major as cuBLASLt defines it,
/// computed by the CPU backend's GEMM (rt::HostGemm) as the row-major
/// product D^T = op(B)^T op(A)^T: column-major B read row-major is B^T, so
/// the row-major A is cuBLASLt's B, transposed when B is, and likewise.
void emulatedGemm(bool transA, bool transB, const Layout &a, const Layout &b, const Layout &d,
                  const uint8_t *aBytes, const uint8_t *bBytes, uint8_t *dBytes,
                  cublasLtEpilogue_t epilogue, const uint8_t *bias, DType biasType, DType aType,
                  DType bType, DType dType, double beta) {
  rt::GemmStep step;
  step.beta = beta;
  step.aDtype = bType;
  step.bDtype = aType;
  step.cDtype = dType;
  step.biasDtype = biasType;
  step.m = static_cast<int64_t>(d.cols);
  step.n = static_cast<int64_t>(d.rows);
  step.k = static_cast<int64_t>(transA ? a.rows : a.cols);
  step.batch = d.batch;
  step.strideA = b.stride;
  step.strideB = a.stride;
  step.strideC = d.stride;
  step.transposeA = transB;
  step.transposeB = transA;
  step.epilogue = epilogueOf(epilogue);
  current().gemm.run(step, bBytes, aBytes, bias, dBytes);
}

cublasStatus_t emuMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t desc, const void *alpha,
                         const void *A, cublasLtMatrixLayout_t aDesc, const void *B,
                         cublasLtMatrixLayout_t bDesc, const void *beta, const void *C,
                         cublasLtMatrixLayout_t cDesc, void *D, cublasLtMatrixLayout_t dDesc,
                         const cublasLtMatmulAlgo_t *algo, void *, size_t, cudaStream_t stream) {
  Layout a = decode(aDesc), b = decode(bDesc), c = decode(cDesc), d = decode(dDesc);
  bool transA = descAttribute<int32_t>(desc, CUBLASLT_MATMUL_DESC_TRANSA) == CUBLAS_OP_T;
  bool transB = descAttribute<int32_t>(desc, CUBLASLT_MATMUL_DESC_TRANSB) == CUBLAS_OP_T;
  auto epilogue = static_cast<cublasLtEpilogue_t>(
      descAttribute<uint32_t>(desc, CUBLASLT_MATMUL_DESC_EPILOGUE));
  auto compute = static_cast<cublasComputeType_t>(
      descAttribute<int32_t>(desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE));
  auto scale = static_cast<cudaDataType>(
      descAttribute<int32_t>(desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE));
  const void *bias = descAttribute<const void *>(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER);
  int32_t biasTypeCode = descAttribute<int32_t>(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
  // The checks cuBLASLt makes of a call, as far as these tests need them.
  uint64_t m = d.rows, n = d.cols;
  uint64_t aRows = transA ? a.cols : a.rows, k = transA ? a.rows : a.cols;
  uint64_t bRows = transB ? b.cols : b.rows, bCols = transB ? b.rows : b.cols;
  DType aType, bType, dType, biasType;
  if (aRows != m || bRows != k || bCols != n || a.order != CUBLASLT_ORDER_COL ||
      d.order != CUBLASLT_ORDER_COL || !sameLayout(c, d) || C != D ||
      a.ld < static_cast<int64_t>(a.rows) || b.ld < static_cast<int64_t>(b.rows) ||
      d.ld < static_cast<int64_t>(d.rows) || a.batch != d.batch || b.batch != d.batch ||
      !dtypeOf(a.type, aType) || !dtypeOf(b.type, bType) || !dtypeOf(d.type, dType) ||
      a.type != b.type)
    return CUBLAS_STATUS_INVALID_VALUE;
  bool needsBias = epilogue == CUBLASLT_EPILOGUE_BIAS || epilogue == CUBLASLT_EPILOGUE_RELU_BIAS ||
                   epilogue == CUBLASLT_EPILOGUE_GELU_BIAS;
  if (needsBias && (!bias || (biasTypeCode != -1 && biasTypeCode != d.type)))
    return CUBLAS_STATUS_INVALID_VALUE;
  dtypeOf(d.type, biasType);
  bool isDouble = compute == CUBLAS_COMPUTE_64F;
  if ((isDouble && (scale != CUDA_R_64F || dType != DType::F64)) ||
      (!isDouble && (compute != CUBLAS_COMPUTE_32F || scale != CUDA_R_32F)))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  double alphaValue = isDouble ? *static_cast<const double *>(alpha)
                               : *static_cast<const float *>(alpha);
  double betaValue = isDouble ? *static_cast<const double *>(beta)
                              : *static_cast<const float *>(beta);
  // mpc never scales products, accumulates into C (in place) only in a
  // single product without an epilogue, and its matrices are packed
  // (leading dimension = rows).
  bool accumulateOk = betaValue == 0 || (std::isfinite(betaValue) && d.batch == 1 &&
                                         epilogue == CUBLASLT_EPILOGUE_DEFAULT);
  if (alphaValue != 1 || !accumulateOk || a.ld != static_cast<int64_t>(a.rows) ||
      b.ld != static_cast<int64_t>(b.rows) || d.ld != static_cast<int64_t>(d.rows))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const auto *aBytes = static_cast<const uint8_t *>(A);
  const auto *bBytes = static_cast<const uint8_t *>(B);
  auto *dBytes = static_cast<uint8_t *>(D);
  const auto *biasBytes = needsBias ? static_cast<const uint8_t *>(bias) : nullptr;
  const std::vector<float> &times = current().options.algorithmMilliseconds;
  int rank = algo ? static_cast<int>(algo->data[0]) : -1;
  if (rank < 0 || rank >= std::max<int>(1, times.size()))
    return CUBLAS_STATUS_INVALID_VALUE; // not one the heuristic offered
  double milliseconds = times.empty() ? 0.0 : times[rank];
  if (milliseconds < 0)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  enqueue(
      reinterpret_cast<CUstream>(stream),
      [=] {
        emulatedGemm(transA, transB, a, b, d, aBytes, bBytes, dBytes, epilogue, biasBytes, biasType,
                     aType, bType, dType, betaValue);
        ++current().counters.gemmsRun;
        current().counters.gemmAlgorithms.push_back(rank);
        current().counters.gemmResults.push_back(reinterpret_cast<uintptr_t>(dBytes));
        current().clock += milliseconds;
      },
      true);
  return CUBLAS_STATUS_SUCCESS;
}

// --- NVRTC, counted ---------------------------------------------------------

nvrtcResult countedCompile(nvrtcProgram program, int count, const char *const *options) {
  ++current().counters.nvrtcCompilations;
  return current().realNvrtc->nvrtcCompileProgram(program, count, options);
}

rt::Status emulatedNvrtc(const rt::NvrtcApi *&out) {
  if (!current().realNvrtc) {
    if (rt::Status status = rt::loadNvrtcApi(current().realNvrtc); !status.isOk())
      return status;
    current().nvrtc = *current().realNvrtc;
    current().nvrtc.nvrtcCompileProgram = countedCompile;
  }
  out = &current().nvrtc;
  return rt::Status();
}

// --- NCCL: a job of one rank ----------------------------------------------

ncclResult_t emuNcclGetVersion(int *version) {
  *version = current().options.ncclVersion;
  return ncclSuccess;
}
const char *emuNcclGetErrorString(ncclResult_t result) {
  return result == ncclInvalidUsage ? "invalid usage (emulated NCCL)" : "emulated NCCL error";
}
ncclResult_t emuNcclGetUniqueId(ncclUniqueId *id) {
  *id = ncclUniqueId{};
  std::strncpy(id->internal, "mpc emulated NCCL", sizeof id->internal - 1);
  return ncclSuccess;
}
ncclResult_t emuNcclCommInitRank(ncclComm_t *comm, int ranks, ncclUniqueId id, int rank) {
  // (one process emulates one GPU: a job of one rank, with rank 0's id)
  if (ranks != 1 || rank != 0 || std::strcmp(id.internal, "mpc emulated NCCL") != 0)
    return ncclInvalidUsage;
  *comm = new ncclComm{ranks, rank};
  ++current().counters.ncclCommunicators;
  return ncclSuccess;
}
ncclResult_t emuNcclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclInvalidArgument;
  delete comm;
  --current().counters.ncclCommunicators;
  return ncclSuccess;
}
size_t ncclElementBytes(ncclDataType_t type) {
  switch (type) {
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclFloat64:
  case ncclInt64:
  case ncclUint64:
    return 8;
  case ncclInt8:
  case ncclUint8:
    return 1;
  default:
    return 4;
  }
}
// Over one rank a sum, maximum or mean is the data itself: the result is
// the send buffer's, copied when the buffers differ.
ncclResult_t emuNcclAllReduce(const void *send, void *receive, size_t count, ncclDataType_t type,
                              ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  if (!comm || (count > 0 && (!send || !receive)) || op < ncclSum || op > ncclAvg)
    return ncclInvalidArgument;
  size_t bytes = count * ncclElementBytes(type);
  current().counters.allReduceCalls.push_back(
      std::to_string(count) + " " + std::to_string(static_cast<int>(type)) + " " +
      std::to_string(static_cast<int>(op)) + (send == receive ? " in-place" : " apart"));
  enqueue(
      reinterpret_cast<CUstream>(stream),
      [=] {
        if (send != receive && bytes > 0)
          std::memmove(receive, send, bytes);
        ++current().counters.allReducesRun;
      },
      true);
  return ncclSuccess;
}

} // namespace

CudaEmulator::CudaEmulator(const std::string &hostObjectPath, CudaEmulatorOptions options) {
  if (emulation)
    throw std::logic_error("only one CudaEmulator may exist at a time");
  auto state = std::make_unique<Emulation>();
  state->options = std::move(options);
  if (!hostObjectPath.empty()) {
    state->hostObject = dlopen(hostObjectPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!state->hostObject)
      throw std::runtime_error("cannot load the host object " + hostObjectPath + ": " +
                               dlerror());
  }
  if (rt::Status status = rt::loadCublasLtApi(state->realBlas); !status.isOk())
    throw std::runtime_error(status.message());
  rt::CudaDriverApi &d = state->driver;
  d.cuInit = emuInit;
  d.cuDriverGetVersion = emuDriverGetVersion;
  d.cuDeviceGetCount = emuDeviceGetCount;
  d.cuDeviceGet = emuDeviceGet;
  d.cuDeviceGetAttribute = emuDeviceGetAttribute;
  d.cuDeviceGetName = emuDeviceGetName;
  d.cuDevicePrimaryCtxRetain = emuPrimaryCtxRetain;
  d.cuDevicePrimaryCtxRelease = emuPrimaryCtxRelease;
  d.cuCtxSetCurrent = emuCtxSetCurrent;
  d.cuMemAlloc = emuMemAlloc;
  d.cuMemFree = emuMemFree;
  d.cuMemHostAlloc = emuMemHostAlloc;
  d.cuMemFreeHost = emuMemFreeHost;
  d.cuMemcpyHtoDAsync = emuMemcpyHtoDAsync;
  d.cuMemcpyDtoHAsync = emuMemcpyDtoHAsync;
  d.cuMemcpyDtoDAsync = emuMemcpyDtoDAsync;
  d.cuMemsetD8Async = emuMemsetD8Async;
  d.cuStreamCreate = emuStreamCreate;
  d.cuStreamDestroy = emuStreamDestroy;
  d.cuStreamSynchronize = emuStreamSynchronize;
  d.cuStreamBeginCapture = emuStreamBeginCapture;
  d.cuStreamEndCapture = emuStreamEndCapture;
  d.cuGraphInstantiate = emuGraphInstantiate;
  d.cuGraphLaunch = emuGraphLaunch;
  d.cuGraphExecDestroy = emuGraphExecDestroy;
  d.cuGraphDestroy = emuGraphDestroy;
  d.cuEventCreate = emuEventCreate;
  d.cuEventDestroy = emuEventDestroy;
  d.cuEventRecord = emuEventRecord;
  d.cuEventQuery = emuEventQuery;
  d.cuEventSynchronize = emuEventSynchronize;
  d.cuEventElapsedTime = emuEventElapsedTime;
  d.cuModuleLoadData = emuModuleLoadData;
  d.cuModuleUnload = emuModuleUnload;
  d.cuModuleGetFunction = emuModuleGetFunction;
  d.cuLaunchKernel = emuLaunchKernel;
  d.cuGetErrorName = emuGetErrorName;
  d.cuGetErrorString = emuGetErrorString;
  state->blas = *state->realBlas;
  state->blas.cublasLtCreate = emuBlasCreate;
  state->blas.cublasLtDestroy = emuBlasDestroy;
  state->blas.cublasLtMatmulAlgoGetHeuristic = emuHeuristic;
  state->blas.cublasLtMatmulPreferenceSetAttribute = emuPreferenceSetAttribute;
  state->blas.cublasLtMatmulPreferenceDestroy = emuPreferenceDestroy;
  state->blas.cublasLtMatmul = emuMatmul;
  state->api.driver = &state->driver;
  state->api.blas = &state->blas;
  state->api.nvrtc = emulatedNvrtc;
  rt::NcclApi &n = state->nccl;
  n.ncclGetVersion = emuNcclGetVersion;
  n.ncclGetErrorString = emuNcclGetErrorString;
  n.ncclGetUniqueId = emuNcclGetUniqueId;
  n.ncclCommInitRank = emuNcclCommInitRank;
  n.ncclCommDestroy = emuNcclCommDestroy;
  n.ncclAllReduce = emuNcclAllReduce;
  state->api.nccl = [](const rt::NcclApi *&out) {
    out = &current().nccl;
    return rt::Status();
  };
  emulation = state.release();
  rt::overrideCudaApi(&emulation->api);
}

void CudaEmulator::addKernelImage(const std::string &image, const std::string &hostObjectPath) {
  void *object = dlopen(hostObjectPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!object)
    throw std::runtime_error("cannot load the host object " + hostObjectPath + ": " + dlerror());
  current().imageObjects.emplace_back(image, object);
}

CudaEmulator::~CudaEmulator() {
  rt::overrideCudaApi(nullptr);
  for (const auto &entry : emulation->imageObjects)
    dlclose(entry.second);
  if (emulation->hostObject)
    dlclose(emulation->hostObject);
  delete emulation;
  emulation = nullptr;
}

void CudaEmulator::drain() {
  for (auto &stream : current().streams)
    runQueued(stream.get());
}

size_t CudaEmulator::pending() const {
  size_t count = 0;
  for (const auto &stream : current().streams)
    count += stream->queue.size();
  return count;
}

const CudaEmulatorCounters &CudaEmulator::counters() const { return current().counters; }

uint64_t CudaEmulator::deviceBytesInUse() const { return current().deviceBytes; }

} // namespace mpc::test
