//===- CudaApi.cpp - the CUDA libraries the GPU backend calls -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/CudaApi.h"

#include <dlfcn.h>

#include <atomic>
#include <vector>

// The CUDA major version the runtime was compiled against, and the folder
// of the toolkit's libraries (tried after the loader's search path).
#ifndef MPC_CUDA_MAJOR
#error "MPC_CUDA_MAJOR must be defined by the build"
#endif
#ifndef MPC_CUDA_LIBRARY_DIR
#define MPC_CUDA_LIBRARY_DIR ""
#endif

#define MPC_CUDA_STRINGIFY_EXPANDED(x) MPC_CUDA_STRINGIFY(x)
#define MPC_CUDA_STRINGIFY(x) #x

namespace mpc::rt {

namespace {

constexpr char kDeviceHint[] = "; use device \"cpu\" (mpc: --device cpu)";

/// dlopens the first of `names` that loads; `error` lists why each failed.
void *openLibrary(const std::vector<std::string> &names, std::string &error) {
  for (const std::string &name : names) {
    if (name.empty())
      continue;
    if (void *handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
      return handle;
    const char *reason = dlerror();
    error += (error.empty() ? "" : "; ") + std::string(reason ? reason : name);
  }
  return nullptr;
}

#define MPC_LOOK_UP(name)                                                      \
  table.name = reinterpret_cast<decltype(table.name)>(                         \
      dlsym(handle, MPC_CUDA_STRINGIFY_EXPANDED(name)));                       \
  if (!table.name)                                                             \
    missing += (missing.empty() ? "" : ", ") +                                 \
               std::string(MPC_CUDA_STRINGIFY_EXPANDED(name));

void fillDriver(void *handle, CudaDriverApi &table, std::string &missing) {
  MPC_CUDA_DRIVER_FUNCTIONS(MPC_LOOK_UP)
}

void fillBlas(void *handle, CublasLtApi &table, std::string &missing) {
  MPC_CUBLASLT_FUNCTIONS(MPC_LOOK_UP)
}

void fillNvrtc(void *handle, NvrtcApi &table, std::string &missing) {
  MPC_NVRTC_FUNCTIONS(MPC_LOOK_UP)
}

void fillNccl(void *handle, NcclApi &table, std::string &missing){MPC_NCCL_FUNCTIONS(MPC_LOOK_UP)}

#undef MPC_LOOK_UP

std::string versioned(const char *stem) {
  return std::string(stem) + ".so." + std::to_string(MPC_CUDA_MAJOR);
}

std::string inToolkit(const std::string &file) {
  std::string dir = MPC_CUDA_LIBRARY_DIR;
  return dir.empty() ? "" : dir + "/" + file;
}

/// Loads one library into `table`, or explains why it could not.
template <typename Table>
Status loadTable(const std::vector<std::string> &names, const char *what,
                 const char *advice, void (*fill)(void *, Table &,
                                                  std::string &),
                 Table &table) {
  std::string error;
  void *handle = openLibrary(names, error);
  if (!handle)
    return Status::error(MPC_UNSUPPORTED, std::string("device \"cuda\": ") +
                                              what + " cannot be loaded (" +
                                              error + "): " + advice);
  std::string missing; // the entry points it lacks
  fill(handle, table, missing);
  if (!missing.empty())
    return Status::error(MPC_UNSUPPORTED,
                         std::string("device \"cuda\": ") + what + " (" +
                             names.front() + ") lacks " + missing +
                             ": it is older than the CUDA " +
                             std::to_string(MPC_CUDA_MAJOR) +
                             " that mpc was built with" + kDeviceHint);
  return Status();
}

/// One library's table and the outcome of loading it.
template <typename Table> struct Loaded {
  Table table;
  Status status;
};

Status nvrtcEntry(const NvrtcApi *&out) { return loadNvrtcApi(out); }

Status ncclEntry(const NcclApi *&out) { return loadNcclApi(out); }

std::atomic<const CudaApi *> overridden{nullptr};

Status loadDriverApi(const CudaDriverApi *&out) {
  static Loaded<CudaDriverApi> *loaded = [] {
    auto *api = new Loaded<CudaDriverApi>(); // kept for the life of the process
    api->status = loadTable<CudaDriverApi>(
        {"libcuda.so.1"}, "the NVIDIA driver library libcuda.so.1",
        (std::string("this machine has no NVIDIA driver") + kDeviceHint).c_str(), fillDriver,
        api->table);
    return api;
  }();
  out = &loaded->table;
  return loaded->status;
}

} // namespace

void overrideCudaApi(const CudaApi *api) { overridden.store(api); }

Status loadCublasLtApi(const CublasLtApi *&out) {
  static Loaded<CublasLtApi> *loaded = [] {
    auto *api = new Loaded<CublasLtApi>(); // kept for the life of the process
    api->status = loadTable<CublasLtApi>(
        {versioned("libcublasLt"), inToolkit(versioned("libcublasLt"))},
        ("cuBLASLt (" + versioned("libcublasLt") + ")").c_str(),
        (std::string("install the cuBLAS of the CUDA toolkit mpc was built with") +
         kDeviceHint)
            .c_str(),
        fillBlas, api->table);
    return api;
  }();
  out = &loaded->table;
  return loaded->status;
}

Status loadCudaApi(CudaApi &out) {
  if (const CudaApi *api = overridden.load()) {
    out = *api;
    return Status();
  }
  const CudaDriverApi *driver = nullptr;
  if (Status status = loadDriverApi(driver); !status.isOk())
    return status;
  const CublasLtApi *blas = nullptr;
  if (Status status = loadCublasLtApi(blas); !status.isOk())
    return status;
  out.driver = driver;
  out.blas = blas;
  out.nvrtc = nvrtcEntry;
  out.nccl = ncclEntry;
  return Status();
}

Status loadNcclApi(const NcclApi *&out) {
  static Loaded<NcclApi> *loaded = [] {
    auto *api = new Loaded<NcclApi>(); // kept for the life of the process
    api->status = loadTable<NcclApi>(
        {"libnccl.so.2", inToolkit("libnccl.so.2")}, "NCCL (libnccl.so.2)",
        "install NCCL 2 (the CUDA toolkit's, or libnccl2) to run data-parallel jobs on GPUs, "
        "or run them on the CPU (mpc: --device cpu)",
        fillNccl, api->table);
    return api;
  }();
  out = &loaded->table;
  return loaded->status;
}

Status ncclFailure(const NcclApi &nccl, ncclResult_t result, const std::string &what) {
  const char *text = nccl.ncclGetErrorString ? nccl.ncclGetErrorString(result) : nullptr;
  mpc_status_code code = result == ncclSystemError || result == ncclRemoteError ? MPC_IO_ERROR
                         : result == ncclInvalidUsage || result == ncclInvalidArgument
                             ? MPC_INVALID_ARGUMENT
                             : MPC_INTERNAL;
  return Status::error(
      code, what + ": " + (text ? std::string(text) : "NCCL result " + std::to_string(result)) +
                " (NCCL_DEBUG=WARN says more)");
}

Status loadNvrtcApi(const NvrtcApi *&out) {
  static Loaded<NvrtcApi> *loaded = [] {
    auto *api = new Loaded<NvrtcApi>(); // kept for the life of the process
    api->status = loadTable<NvrtcApi>(
        {versioned("libnvrtc"), inToolkit(versioned("libnvrtc"))},
        ("NVRTC (" + versioned("libnvrtc") + ")").c_str(),
        "install the NVRTC of the CUDA toolkit mpc was built with",
        fillNvrtc, api->table);
    if (!api->status.isOk()) {
      // The message should not speak of device "cuda" when the compiler
      // asks for NVRTC to build a bundle.
      std::string message = api->status.message();
      const std::string prefix = "device \"cuda\": ";
      if (message.compare(0, prefix.size(), prefix) == 0)
        message.erase(0, prefix.size());
      api->status = Status::error(api->status.code(), message);
    }
    return api;
  }();
  out = &loaded->table;
  return loaded->status;
}

std::string describeCudaResult(const CudaDriverApi &driver, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

Status cudaFailure(const CudaDriverApi &driver, CUresult result,
                   const std::string &what) {
  mpc_status_code code = MPC_INTERNAL;
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    code = MPC_RESOURCE_EXHAUSTED;
    break;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    code = MPC_UNSUPPORTED;
    break;
  default:
    break;
  }
  return Status::error(code, what + ": " + describeCudaResult(driver, result));
}

Status cublasFailure(const CublasLtApi &blas, cublasStatus_t result,
                     const std::string &what) {
  const char *text =
      blas.cublasLtGetStatusString ? blas.cublasLtGetStatusString(result)
                                   : nullptr;
  mpc_status_code code = result == CUBLAS_STATUS_ALLOC_FAILED
                             ? MPC_RESOURCE_EXHAUSTED
                         : result == CUBLAS_STATUS_NOT_SUPPORTED ||
                                 result == CUBLAS_STATUS_ARCH_MISMATCH
                             ? MPC_UNSUPPORTED
                             : MPC_INTERNAL;
  return Status::error(code, what + ": " +
                                 (text ? std::string(text)
                                       : "cuBLAS status " +
                                             std::to_string(result)));
}

} // namespace mpc::rt
