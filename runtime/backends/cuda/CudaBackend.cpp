//===- CudaBackend.cpp - running programs on an NVIDIA GPU ----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"

#include "GemmPlan.h"
#include "KernelImage.h"
#include "NcclAllReduce.h"
#include "mpc/toolchain/CudaApi.h"
#include "mpc/toolchain/NvrtcCompiler.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <sstream>
#include <variant>

namespace mpc::rt {

namespace {

/// Alignment of device allocations and of the regions carved out of them.
constexpr uint64_t kAlignment = 256;
/// Alignment of the inputs and telemetry fields inside a staging slot.
constexpr uint64_t kStagingAlignment = 64;
/// Workspace of the GEMMs timed alone by timeGemmSteps.
constexpr uint64_t kBenchmarkWorkspaceBytes = 32u << 20;
/// Algorithms timeGemmSteps tries per GEMM.
constexpr int kBenchmarkAlgorithms = 8;
/// Calls of a GEMM candidate in the CUDA graph that times it at load.
constexpr int kTuningCalls = 8;
/// Timed launches of each candidate's graph, interleaved; its fastest counts.
constexpr int kTuningPasses = 3;
/// How much faster than the heuristic's first choice a candidate must be to
/// replace it (a fraction of its time): less is within the timing's noise.
constexpr double kTuningMinGain = 0.02;
/// A GEMM whose heuristic choice takes longer than this per call (ms) is
/// not tuned: large GEMMs gain little, and timing their candidates would
/// lengthen the load by seconds.
constexpr double kTuningMaxMs = 0.25;

/// Whether GEMM algorithms are timed at load: yes unless the environment
/// sets MPC_GEMM_AUTOTUNE=0.
bool gemmAutotuneEnabled() {
  const char *value = std::getenv("MPC_GEMM_AUTOTUNE");
  return !value || std::strcmp(value, "0") != 0;
}

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// The GPU ordinal of "cuda" (0) or "cuda:N".
int ordinalOf(const std::string &device) {
  return device == "cuda" ? 0 : std::stoi(device.substr(5));
}

/// The GPU of this process: `device`, except that "cuda" in a launcher's
/// job of several ranks is the GPU of the rank's place on its node (its
/// local rank), so that `mpirun -np 8` on an 8-GPU node gives each rank its
/// own, for every program it loads (the training step and the evaluation's
/// forward step alike).
std::string deviceOfRank(const std::string &device) {
  if (device != "cuda" || launcherWorldSize() == 1)
    return device;
  int local = launcherLocalRank();
  return local < 0 ? device : "cuda:" + std::to_string(local);
}

/// Initialises the driver and finds `device`'s GPU.
Status openDevice(const CudaDriverApi &driver, const std::string &device, CUdevice &out) {
  const std::string hint = "; use device \"cpu\" (mpc: --device cpu)";
  CUresult result = driver.cuInit(0);
  if (result == CUDA_ERROR_NO_DEVICE)
    return Status::error(MPC_UNSUPPORTED,
                         "device \"" + device + "\": this machine has no CUDA GPU" + hint);
  if (result != CUDA_SUCCESS)
    return Status::error(MPC_UNSUPPORTED,
                         "device \"" + device + "\": the NVIDIA driver did not initialise: " +
                             describeCudaResult(driver, result) + hint);
  // Kernels and cuBLASLt of this toolkit need a driver of its CUDA version.
  int version = 0;
  result = driver.cuDriverGetVersion(&version);
  if (result != CUDA_SUCCESS)
    return cudaFailure(driver, result, "device \"" + device + "\": cuDriverGetVersion");
  if (version < CUDA_VERSION)
    return Status::error(MPC_UNSUPPORTED,
                         "device \"" + device + "\": the NVIDIA driver supports CUDA " +
                             std::to_string(version / 1000) + "." +
                             std::to_string(version % 1000 / 10) +
                             ", this runtime was built with CUDA " +
                             std::to_string(CUDA_VERSION / 1000) + "." +
                             std::to_string(CUDA_VERSION % 1000 / 10) +
                             ": update the driver" + hint);
  int count = 0;
  result = driver.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return cudaFailure(driver, result, "device \"" + device + "\": cuDeviceGetCount");
  int ordinal = ordinalOf(device);
  if (ordinal >= count)
    return Status::error(MPC_UNSUPPORTED,
                         "device \"" + device + "\": this machine has " +
                             (count == 0 ? std::string("no CUDA GPU")
                                         : std::to_string(count) + " CUDA GPU" +
                                               (count == 1 ? "" : "s") + " (cuda:0" +
                                               (count > 1 ? " to cuda:" +
                                                                std::to_string(count - 1)
                                                          : "") +
                                               ")") +
                             (count == 0 ? hint : ""));
  result = driver.cuDeviceGet(&out, ordinal);
  if (result != CUDA_SUCCESS)
    return cudaFailure(driver, result, "device \"" + device + "\": cuDeviceGet");
  return Status();
}

struct PlannedLaunch {
  std::string kernel;
  CUfunction function = nullptr;
  unsigned grid = 1, block = 1;
  /// The device address of the kernel's buffer table.
  CUdeviceptr table = 0;
};

struct PlannedGemm {
  size_t step = 0;
  GemmStep gemm;
  std::unique_ptr<GemmCall> call;
};

struct PlannedCopy {
  CUdeviceptr source = 0, target = 0;
  size_t bytes = 0;
};

struct PlannedAllReduce {
  CUdeviceptr buffer = 0;
  AllReduceStep step;
  size_t index = 0;
};

/// A step as the device runs it; a GEMM is an index into the GEMM list.
using DeviceStep = std::variant<PlannedLaunch, size_t, PlannedCopy, PlannedAllReduce>;

/// A run in flight: its number and its staging slot.
struct InFlight {
  uint64_t run;
  int slot;
};

/// Times CUDA graphs on a stream with a pair of events it owns. A sample is
/// a launch of the graph to warm up and one between the events, so that
/// what is timed is the GPU's work alone (a call enqueued from the host
/// costs microseconds, as long as a small GEMM takes).
class GraphStopwatch {
public:
  /// `prefix` starts error messages (the bundle's path).
  GraphStopwatch(const CudaDriverApi &driver, CUstream stream, std::string prefix)
      : driver_(driver), stream_(stream), prefix_(std::move(prefix)) {}
  GraphStopwatch(const GraphStopwatch &) = delete;
  GraphStopwatch &operator=(const GraphStopwatch &) = delete;
  ~GraphStopwatch() {
    for (CUevent event : {start_, stop_})
      if (event)
        driver_.cuEventDestroy(event);
  }

  /// Creates the events; call before sample().
  Status create() {
    Status status = check(driver_.cuEventCreate(&start_, CU_EVENT_DEFAULT), "creating an event");
    if (status.isOk())
      status = check(driver_.cuEventCreate(&stop_, CU_EVENT_DEFAULT), "creating an event");
    return status;
  }

  /// Milliseconds per call of `graph`, a graph of `calls` calls: one sample.
  Status sample(CUgraphExec graph, int calls, double &ms) {
    Status status = check(driver_.cuGraphLaunch(graph, stream_), "warming up a GEMM");
    if (status.isOk())
      status = check(driver_.cuEventRecord(start_, stream_), "recording an event");
    if (status.isOk())
      status = check(driver_.cuGraphLaunch(graph, stream_), "timing a GEMM");
    if (status.isOk())
      status = check(driver_.cuEventRecord(stop_, stream_), "recording an event");
    if (status.isOk())
      status = check(driver_.cuEventSynchronize(stop_), "timing a GEMM");
    float elapsed = 0;
    if (status.isOk())
      status = check(driver_.cuEventElapsedTime(&elapsed, start_, stop_), "timing a GEMM");
    if (status.isOk())
      ms = elapsed / std::max(calls, 1);
    return status;
  }

private:
  Status check(CUresult result, const std::string &what) const {
    return result == CUDA_SUCCESS ? Status() : cudaFailure(driver_, result, prefix_ + what);
  }

  const CudaDriverApi &driver_;
  CUstream stream_;
  std::string prefix_;
  CUevent start_ = nullptr, stop_ = nullptr;
};

class CudaBackend final : public Backend {
public:
  ~CudaBackend() override { release(); }

  Status create(const std::string &bundlePath, const Manifest &manifest,
                const std::vector<BundleSection> &sections, const BackendConfig &config) {
    path_ = bundlePath;
    inputs_ = manifest.inputs;
    telemetry_ = config.telemetry;
    job_ = config.collective;
    if (Status s = loadCudaApi(api_); !s.isOk())
      return s;
    driver_ = api_.driver;
    blas_ = api_.blas;
    std::string device = deviceOfRank(config.device);
    if (Status s = openDevice(*driver_, device, device_); !s.isOk())
      return s;
    ordinal_ = ordinalOf(device);
    if (Status s = check(driver_->cuDevicePrimaryCtxRetain(&context_, device_),
                         "retaining the GPU's primary context");
        !s.isOk())
      return s;
    if (Status s = makeCurrent(); !s.isOk())
      return s;
    int major = 0, minor = 0;
    char name[256] = {};
    for (Status s :
         {check(driver_->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                              device_),
                "cuDeviceGetAttribute"),
          check(driver_->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                              device_),
                "cuDeviceGetAttribute"),
          check(driver_->cuDeviceGetName(name, sizeof name - 1, device_), "cuDeviceGetName")})
      if (!s.isOk())
        return s;
    arch_ = major * 10 + minor;
    deviceName_ = "cuda:" + std::to_string(ordinal_) + " (" + name + ", sm_" +
                  std::to_string(arch_) + ")";
    if (Status s = check(driver_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
                         "creating a stream");
        !s.isOk())
      return s;
    if (Status s = loadKernels(manifest, sections); !s.isOk())
      return s;
    if (Status s = allocate(manifest); !s.isOk())
      return s;
    if (Status s = planSteps(manifest); !s.isOk())
      return s;
    if (Status s = tuneGemms(); !s.isOk())
      return s;
    if (Status s = prepareStaging(); !s.isOk())
      return s;
    return captureGraphs();
  }

  Status write(const BufferRef &at, const void *data, size_t size) override {
    if (Status s = drain(); !s.isOk())
      return s;
    if (size == 0)
      return Status();
    ++hostSyncs_;
    if (Status s = check(driver_->cuMemcpyHtoDAsync(address(at), data, size, stream_),
                         "copying to the GPU");
        !s.isOk())
      return s;
    return check(driver_->cuStreamSynchronize(stream_), "copying to the GPU");
  }

  Status read(const BufferRef &at, void *data, size_t size) override {
    if (Status s = drain(); !s.isOk())
      return s;
    if (size == 0)
      return Status();
    ++hostSyncs_;
    if (Status s = check(driver_->cuMemcpyDtoHAsync(data, address(at), size, stream_),
                         "copying from the GPU");
        !s.isOk())
      return s;
    return check(driver_->cuStreamSynchronize(stream_), "copying from the GPU");
  }

  Status run(const std::vector<InputBytes> &inputs) override {
    if (Status s = makeCurrent(); !s.isOk())
      return s;
    int slot = static_cast<int>(runs_ % kRunsInFlight);
    if (inFlight_.size() == static_cast<size_t>(kRunsInFlight)) {
      // The oldest run in flight holds this slot.
      ++throttleWaits_;
      if (Status s = finishOldest(/*wait=*/true); !s.isOk())
        return s;
    }
    uint8_t *staging = staging_ + static_cast<uint64_t>(slot) * slotBytes_;
    for (size_t i = 0; i < inputs.size() && i < inputOffsets_.size(); ++i)
      if (inputs[i].bytes > 0)
        std::memcpy(staging + inputOffsets_[i], inputs[i].data, inputs[i].bytes);
    if (Status s = check(driver_->cuGraphLaunch(graphs_[slot], stream_),
                         "launching the step's CUDA graph");
        !s.isOk())
      return s;
    if (Status s = check(driver_->cuEventRecord(events_[slot], stream_), "recording an event");
        !s.isOk())
      return s;
    inFlight_.push_back({runs_, slot});
    ++runs_;
    ++graphLaunches_;
    return Status();
  }

  Status collect(bool wait, std::vector<TelemetryRecord> &out) override {
    if (Status s = makeCurrent(); !s.isOk())
      return s;
    if (wait && !inFlight_.empty())
      ++hostSyncs_;
    Status status;
    while (!inFlight_.empty()) {
      bool done = false;
      status = pollOldest(wait, done);
      if (!status.isOk() || !done)
        break;
    }
    for (TelemetryRecord &record : completed_)
      out.push_back(std::move(record));
    completed_.clear();
    return status;
  }

  BackendStats stats() const override {
    BackendStats stats;
    stats.runs = runs_;
    stats.graphLaunches = graphLaunches_;
    stats.hostSyncs = hostSyncs_;
    stats.throttleWaits = throttleWaits_;
    stats.deviceBytes = deviceBytes_;
    stats.device = deviceName_;
    return stats;
  }

  Status timeGemms(int repetitions, std::vector<GemmTiming> &out);
  Status timeSteps(int repetitions, std::vector<DeviceStepTiming> &out);

private:
  Status check(CUresult result, const std::string &what) const {
    if (result == CUDA_SUCCESS)
      return Status();
    return cudaFailure(*driver_, result, path_ + ": " + what);
  }

  Status makeCurrent() const {
    return check(driver_->cuCtxSetCurrent(context_), "making the GPU's context current");
  }

  CUdeviceptr address(const BufferRef &at) const {
    return (at.space == BufferSpace::Arena ? arena_ : persistent_) + at.offset;
  }

  Status allocateDevice(uint64_t bytes, CUdeviceptr &out, const std::string &what) {
    uint64_t rounded = alignUp(std::max<uint64_t>(bytes, 1), kAlignment);
    CUresult result = driver_->cuMemAlloc(&out, rounded);
    if (result != CUDA_SUCCESS)
      return cudaFailure(*driver_, result,
                         path_ + ": cannot allocate " + std::to_string(rounded) +
                             " bytes of GPU memory for " + what);
    allocations_.push_back(out);
    deviceBytes_ += rounded;
    return check(driver_->cuMemsetD8Async(out, 0, rounded, stream_), "clearing GPU memory");
  }

  /// Loads the best kernel image for the GPU and finds every kernel in it.
  Status loadKernels(const Manifest &manifest, const std::vector<BundleSection> &sections) {
    if (manifest.kernels.empty())
      return Status();
    std::string attempts;
    auto attempt = [&](const std::string &what, const std::string &why) {
      attempts += "\n  " + what + ": " + why;
    };
    std::vector<KernelImage> images = kernelImagesFor(sections, arch_);
    for (const KernelImage &image : images) {
      const BundleSection *section = findSection(sections, image.section);
      std::string bytes = section->bytes;
      if (image.kind == KernelImage::Kind::Source) {
        const NvrtcApi *nvrtc = nullptr;
        if (Status s = api_.nvrtc(nvrtc); !s.isOk()) {
          attempt("compiling " + image.section + " for " + image.target, s.message());
          continue;
        }
        std::string cubin;
        if (Status s = compileWithNvrtc(*nvrtc, section->bytes, image.target, cubin);
            !s.isOk()) {
          attempt("compiling " + image.section + " for " + image.target, s.message());
          continue;
        }
        bytes = std::move(cubin);
      } else if (image.kind == KernelImage::Kind::Ptx && (bytes.empty() || bytes.back() != '\0')) {
        bytes.push_back('\0'); // the driver reads PTX as a C string
      }
      CUresult result = driver_->cuModuleLoadData(&module_, bytes.data());
      if (result == CUDA_SUCCESS) {
        kernelImage_ = image.section;
        break;
      }
      module_ = nullptr;
      attempt(image.section, describeCudaResult(*driver_, result));
    }
    if (!module_)
      return Status::error(
          MPC_UNSUPPORTED,
          path_ + ": no kernel binary for this GPU (sm_" + std::to_string(arch_) +
              ") could be loaded" +
              (images.empty() ? std::string(": the bundle has no cubin or PTX for it and no "
                                            "kernel source; compile it with --target sm_") +
                                    std::to_string(arch_)
                              : attempts));
    for (const KernelSpec &kernel : manifest.kernels) {
      CUfunction function = nullptr;
      CUresult result = driver_->cuModuleGetFunction(&function, module_, kernel.name.c_str());
      if (result != CUDA_SUCCESS)
        return Status::error(MPC_FORMAT_ERROR, path_ + ": kernel " + kernel.name +
                                                   " is missing from the GPU binary " +
                                                   kernelImage_ + " (" +
                                                   describeCudaResult(*driver_, result) + ")");
      functions_[kernel.name] = {function, kernel};
    }
    return Status();
  }

  /// The arena (and the GEMM workspace after it) and persistent memory.
  Status allocate(const Manifest &manifest) {
    bool hasGemms = false;
    for (const Step &step : manifest.steps)
      hasGemms |= std::holds_alternative<GemmStep>(step);
    workspaceOffset_ = alignUp(manifest.arenaBytes, kAlignment);
    workspaceBytes_ = hasGemms ? kGemmWorkspaceBytes : 0;
    if (Status s = allocateDevice(workspaceOffset_ + workspaceBytes_, arena_, "the arena");
        !s.isOk())
      return s;
    if (Status s = allocateDevice(manifest.persistentBytes, persistent_, "persistent state");
        !s.isOk())
      return s;
    return check(driver_->cuStreamSynchronize(stream_), "clearing GPU memory");
  }

  /// Resolves every step: kernel tables, GEMM descriptors and algorithms.
  Status planSteps(const Manifest &manifest) {
    std::vector<CUdeviceptr> tables;
    std::vector<size_t> tableStart;
    for (const Step &step : manifest.steps)
      if (const auto *launch = std::get_if<LaunchStep>(&step)) {
        tableStart.push_back(tables.size());
        for (const BufferRef &buffer : launch->buffers)
          tables.push_back(address(buffer));
      }
    if (!tables.empty()) {
      if (Status s = allocateDevice(tables.size() * sizeof(CUdeviceptr), tables_,
                                    "the kernels' buffer tables");
          !s.isOk())
        return s;
      if (Status s = check(driver_->cuMemcpyHtoDAsync(tables_, tables.data(),
                                                      tables.size() * sizeof(CUdeviceptr),
                                                      stream_),
                           "copying the kernels' buffer tables");
          !s.isOk())
        return s;
      if (Status s = check(driver_->cuStreamSynchronize(stream_),
                           "copying the kernels' buffer tables");
          !s.isOk())
        return s;
    }
    size_t launches = 0;
    for (size_t i = 0; i < manifest.steps.size(); ++i) {
      const Step &step = manifest.steps[i];
      if (const auto *launch = std::get_if<LaunchStep>(&step)) {
        const auto &[function, spec] = functions_.at(launch->kernel);
        if (spec.grid < 1 || spec.grid > 0x7fffffff || spec.block < 1 || spec.block > 1024)
          return Status::error(MPC_FORMAT_ERROR,
                               path_ + ": kernel " + spec.name + " has a launch of " +
                                   std::to_string(spec.grid) + " blocks of " +
                                   std::to_string(spec.block) +
                                   " threads, which no GPU runs (1..2^31-1 blocks of "
                                   "1..1024 threads)");
        PlannedLaunch planned;
        planned.kernel = launch->kernel;
        planned.function = function;
        planned.grid = static_cast<unsigned>(spec.grid);
        planned.block = static_cast<unsigned>(spec.block);
        planned.table = tables_ + tableStart[launches++] * sizeof(CUdeviceptr);
        steps_.push_back(planned);
      } else if (const auto *gemm = std::get_if<GemmStep>(&step)) {
        if (Status s = planGemmStep(*gemm, i); !s.isOk())
          return s;
        steps_.push_back(gemms_.size() - 1);
      } else if (const auto *reduce = std::get_if<AllReduceStep>(&step)) {
        if (Status s = planAllReduce(*reduce, i); !s.isOk())
          return s;
      } else {
        const auto &copy = std::get<CopyStep>(step);
        steps_.push_back(
            PlannedCopy{address(copy.source), address(copy.target), static_cast<size_t>(copy.bytes)});
      }
      stepIndices_.resize(steps_.size(), i);
    }
    return Status();
  }

  /// An all_reduce step: NCCL over the program's job, whose communicator
  /// the first such step creates.
  Status planAllReduce(const AllReduceStep &reduce, size_t index) {
    std::string what = path_ + ": steps[" + std::to_string(index) + "] (all-reduce)";
    if (Status s = NcclAllReduce::check(reduce, what); !s.isOk())
      return s;
    if (!job_)
      return Status::error(MPC_INTERNAL, what + " without the job's collective");
    if (!nccl_) {
      nccl_ = std::make_unique<NcclAllReduce>();
      if (Status s = nccl_->create(api_, *job_, path_ + ": "); !s.isOk())
        return s;
    }
    steps_.push_back(PlannedAllReduce{address(reduce.buffer), reduce, index});
    return Status();
  }

  Status planGemmStep(const GemmStep &gemm, size_t index) {
    LtGemmPlan plan;
    if (Status s = planGemm(gemm, index, plan); !s.isOk())
      return Status::error(s.code(), path_ + ": " + s.message());
    if (!blasHandle_) {
      cublasStatus_t created = blas_->cublasLtCreate(&blasHandle_);
      if (created != CUBLAS_STATUS_SUCCESS)
        return cublasFailure(*blas_, created, path_ + ": cublasLtCreate");
    }
    PlannedGemm planned;
    planned.step = index;
    planned.gemm = gemm;
    planned.call = std::make_unique<GemmCall>();
    // cuBLASLt's A is the step's B and its B the step's A (GemmPlan.h).
    if (Status s = planned.call->create(
            *blas_, blasHandle_, deviceName_, plan, address(gemm.b) + plan.aOffsetBytes,
            address(gemm.a) + plan.bOffsetBytes, address(gemm.c) + plan.dOffsetBytes,
            gemm.bias ? address(*gemm.bias) : 0, workspaceBytes_,
            path_ + ": steps[" + std::to_string(index) + "] (GEMM " + std::to_string(gemm.m) + "x" +
                std::to_string(gemm.n) + "x" + std::to_string(gemm.k) + ")",
            gemmAutotuneEnabled() ? kMaxGemmCandidates : 1);
        !s.isOk())
      return s;
    gemms_.push_back(std::move(planned));
    return Status();
  }

  /// For each kind of GEMM whose candidates were kept (GemmCall::create),
  /// times them (timeCandidates) and keeps the choice for every GEMM of that
  /// kind. The candidates write a scratch result, not the program's memory.
  /// Best effort: where the scratch cannot be had or a kind's timing fails,
  /// the heuristic's choices stand (GemmCall::algorithmSource says so), and
  /// the load fails only if the GPU then fails to synchronise.
  Status tuneGemms() {
    std::map<std::string, std::vector<GemmCall *>> kinds;
    int64_t scratchBytes = 0;
    for (PlannedGemm &planned : gemms_)
      if (!planned.call->candidates().empty()) {
        kinds[planned.call->key()].push_back(planned.call.get());
        scratchBytes = std::max(scratchBytes, planned.call->dBytes());
      }
    if (kinds.empty())
      return Status();
    CUdeviceptr scratch = 0;
    GraphStopwatch stopwatch(*driver_, stream_, path_ + ": ");
    bool ready = driver_->cuMemAlloc(&scratch, alignUp(scratchBytes, kAlignment)) == CUDA_SUCCESS &&
                 stopwatch.create().isOk();
    Status status;
    for (auto &[key, calls] : kinds) {
      const std::vector<cublasLtMatmulAlgo_t> candidates = calls.front()->candidates();
      int chosen = -1;
      bool timed = false;
      std::string outcome =
          "cuBLASLt's heuristic: the timing's scratch memory or events could not be had";
      if (ready) {
        Status attempt = timeCandidates(*calls.front(), scratch, stopwatch, chosen, timed);
        if (!attempt.isOk()) {
          // Whatever was launched has finished or failed before the next
          // kind, or the scratch's release.
          status = check(driver_->cuStreamSynchronize(stream_),
                         "timing GEMM algorithms (" + attempt.message() + ")");
          if (!status.isOk())
            break;
          outcome = "cuBLASLt's heuristic: timing failed (" + attempt.message() + ")";
        } else if (chosen < 0) {
          outcome = "cuBLASLt's heuristic: no candidate ran";
        } else if (!timed) {
          std::ostringstream os;
          os << "cuBLASLt's choice " << chosen + 1 << " of " << candidates.size()
             << " (the first that runs): over " << kTuningMaxMs
             << " ms a call, not timed against the others";
          outcome = os.str();
        } else {
          outcome = "timed at load: cuBLASLt's choice " + std::to_string(chosen + 1) + " of " +
                    std::to_string(candidates.size());
        }
      }
      for (GemmCall *same : calls)
        if (chosen >= 0)
          same->choose(candidates[chosen], outcome);
        else
          same->keepFirstChoice(outcome);
    }
    if (scratch)
      driver_->cuMemFree(scratch);
    return status;
  }

  /// Times `call`'s candidates, each as kTuningCalls calls in a CUDA graph
  /// writing `scratch`, sampled by `stopwatch`. The heuristic's first choice (the first
  /// candidate that runs) is sampled first, and kept untimed against the
  /// rest where it takes over kTuningMaxMs a call (`timed` false);
  /// otherwise every candidate is sampled kTuningPasses times, interleaved
  /// in the heuristic's order, its fastest sample counting (the first
  /// choice's first sample too: with kTuningMinGain, what leans the choice
  /// to the heuristic's where times are close). `chosen`: the fastest where
  /// it beats the first choice by kTuningMinGain, else the first choice; -1
  /// where none runs or the status is an error.
  Status timeCandidates(const GemmCall &call, CUdeviceptr scratch, GraphStopwatch &stopwatch,
                        int &chosen, bool &timed) {
    chosen = -1;
    timed = false;
    const std::vector<cublasLtMatmulAlgo_t> &candidates = call.candidates();
    const int count = static_cast<int>(candidates.size());
    std::vector<CUgraphExec> graphs(count, nullptr);
    std::vector<double> fastest(count, INFINITY);
    auto capture = [&](int i) {
      return captureCalls(
          [&] {
            return call.enqueueWith(blasHandle_, stream_, candidates[i], scratch,
                                    arena_ + workspaceOffset_, workspaceBytes_, path_);
          },
          kTuningCalls, graphs[i]);
    };
    auto sample = [&](int i) {
      double ms = 0;
      Status s = stopwatch.sample(graphs[i], kTuningCalls, ms);
      if (s.isOk())
        fastest[i] = std::min(fastest[i], ms);
      return s;
    };
    Status status;
    int first = 0;
    for (; status.isOk() && first < count; ++first)
      if ((status = capture(first)).isOk() && graphs[first])
        break;
    if (status.isOk() && first < count) {
      status = sample(first);
      timed = status.isOk() && fastest[first] <= kTuningMaxMs;
      for (int i = first + 1; timed && status.isOk() && i < count; ++i)
        status = capture(i);
      for (int pass = 0; timed && status.isOk() && pass < kTuningPasses; ++pass)
        for (int i = first; status.isOk() && i < count; ++i)
          if (graphs[i])
            status = sample(i);
      if (status.isOk()) {
        chosen = first;
        for (int i = first + 1; timed && i < count; ++i)
          if (fastest[i] < fastest[chosen] && fastest[i] < (1 - kTuningMinGain) * fastest[first])
            chosen = i;
      }
    }
    for (CUgraphExec graph : graphs)
      if (graph)
        driver_->cuGraphExecDestroy(graph);
    if (!status.isOk()) {
      chosen = -1;
      timed = false;
    }
    return status;
  }

  /// Captures `calls` calls of `enqueue` (which enqueues one on the stream)
  /// into an instantiated CUDA graph; `graph` stays null, and the status
  /// OK, where enqueueing fails (cuBLASLt refuses an algorithm).
  template <class Enqueue> Status captureCalls(Enqueue enqueue, int calls, CUgraphExec &graph) {
    graph = nullptr;
    if (Status s =
            check(driver_->cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                  "starting to capture a GEMM's timing");
        !s.isOk())
      return s;
    bool enqueued = true;
    for (int i = 0; i < calls && enqueued; ++i)
      enqueued = enqueue().isOk();
    CUgraph captured = nullptr;
    CUresult ended = driver_->cuStreamEndCapture(stream_, &captured);
    Status status;
    if (enqueued && ended != CUDA_SUCCESS) // the capture itself failed, not the algorithm
      status = check(ended, "capturing a GEMM's timing");
    else if (enqueued)
      status =
          check(driver_->cuGraphInstantiate(&graph, captured, 0), "instantiating a GEMM's timing");
    if (captured)
      driver_->cuGraphDestroy(captured);
    return status;
  }

  /// Milliseconds per call of `enqueue`: `calls` calls captured into a CUDA
  /// graph, one sample of it by `stopwatch`. `ran` is false, and the status
  /// OK, where enqueueing fails.
  template <class Enqueue>
  Status timeCalls(Enqueue enqueue, int calls, GraphStopwatch &stopwatch, bool &ran, double &ms) {
    ran = false;
    CUgraphExec graph = nullptr;
    Status status = captureCalls(enqueue, calls, graph);
    if (!status.isOk() || !graph)
      return status;
    status = stopwatch.sample(graph, calls, ms);
    driver_->cuGraphExecDestroy(graph);
    ran = status.isOk();
    return status;
  }

  /// Pinned host memory for the inputs and telemetry of each slot, and the
  /// slots' events.
  Status prepareStaging() {
    uint64_t offset = 0;
    for (const TensorSpec &input : inputs_) {
      inputOffsets_.push_back(offset);
      offset = alignUp(offset + tensorBytes(input.dtype, input.shape), kStagingAlignment);
    }
    for (const TensorSpec &field : telemetry_) {
      telemetryOffsets_.push_back(offset);
      offset = alignUp(offset + tensorBytes(field.dtype, field.shape), kStagingAlignment);
    }
    slotBytes_ = std::max<uint64_t>(offset, kStagingAlignment);
    void *pinned = nullptr;
    CUresult result = driver_->cuMemHostAlloc(&pinned, slotBytes_ * kRunsInFlight, 0);
    if (result != CUDA_SUCCESS)
      return cudaFailure(*driver_, result,
                         path_ + ": cannot allocate " + std::to_string(slotBytes_ * kRunsInFlight) +
                             " bytes of pinned host memory for the inputs");
    staging_ = static_cast<uint8_t *>(pinned);
    std::memset(staging_, 0, slotBytes_ * kRunsInFlight);
    for (CUevent &event : events_)
      if (Status s = check(driver_->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                           "creating an event");
          !s.isOk())
        return s;
    return Status();
  }

  /// Enqueues the steps of one run on the stream.
  Status enqueueSteps() {
    for (const DeviceStep &step : steps_)
      if (Status s = enqueueStep(step); !s.isOk())
        return s;
    return Status();
  }

  /// Enqueues one step on the stream.
  Status enqueueStep(const DeviceStep &step) {
    if (const auto *launch = std::get_if<PlannedLaunch>(&step)) {
      CUdeviceptr table = launch->table;
      void *parameters[] = {&table};
      return check(driver_->cuLaunchKernel(launch->function, launch->grid, 1, 1, launch->block, 1,
                                           1, 0, stream_, parameters, nullptr),
                   "launching kernel " + launch->kernel);
    }
    if (const auto *gemm = std::get_if<size_t>(&step)) {
      const PlannedGemm &planned = gemms_[*gemm];
      return planned.call->enqueue(blasHandle_, stream_, arena_ + workspaceOffset_, workspaceBytes_,
                                   path_ + ": steps[" + std::to_string(planned.step) + "]");
    }
    if (const auto *reduce = std::get_if<PlannedAllReduce>(&step))
      return nccl_->enqueue(reduce->buffer, reduce->step, stream_,
                            path_ + ": steps[" + std::to_string(reduce->index) + "]");
    const auto &copy = std::get<PlannedCopy>(step);
    if (copy.bytes == 0)
      return Status();
    return check(driver_->cuMemcpyDtoDAsync(copy.target, copy.source, copy.bytes, stream_),
                 "enqueueing a copy");
  }

  /// "kernel k3", "gemm 64x128x64 f16*f16->f16" (describeGemm) or "copy 8
  /// bytes", as the CPU backend's profile names a step (all-reduces are not
  /// timed alone: timeSteps skips them).
  std::string describe(const DeviceStep &step) const {
    if (const auto *launch = std::get_if<PlannedLaunch>(&step))
      return "kernel " + launch->kernel;
    if (const auto *gemm = std::get_if<size_t>(&step))
      return describeGemm(gemms_[*gemm].gemm);
    if (const auto *copy = std::get_if<PlannedCopy>(&step))
      return "copy " + std::to_string(copy->bytes) + " bytes";
    return "all-reduce";
  }

  /// Enqueues a whole run from staging slot `slot`.
  Status enqueueRun(int slot) {
    uint8_t *staging = staging_ + static_cast<uint64_t>(slot) * slotBytes_;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      uint64_t bytes = tensorBytes(inputs_[i].dtype, inputs_[i].shape);
      if (bytes > 0)
        if (Status s = check(driver_->cuMemcpyHtoDAsync(address(inputs_[i].buffer),
                                                        staging + inputOffsets_[i], bytes,
                                                        stream_),
                             "enqueueing the copy of input " + inputs_[i].name);
            !s.isOk())
          return s;
    }
    if (Status s = enqueueSteps(); !s.isOk())
      return s;
    for (size_t i = 0; i < telemetry_.size(); ++i) {
      uint64_t bytes = tensorBytes(telemetry_[i].dtype, telemetry_[i].shape);
      if (bytes > 0)
        if (Status s = check(driver_->cuMemcpyDtoHAsync(staging + telemetryOffsets_[i],
                                                        address(telemetry_[i].buffer), bytes,
                                                        stream_),
                             "enqueueing the copy of telemetry output " + telemetry_[i].name);
            !s.isOk())
          return s;
    }
    return Status();
  }

  /// Captures one run per staging slot into a CUDA graph.
  Status captureGraphs() {
    for (int slot = 0; slot < kRunsInFlight; ++slot) {
      if (Status s = check(driver_->cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                           "starting to capture the step");
          !s.isOk())
        return s;
      Status enqueued = enqueueRun(slot);
      CUgraph graph = nullptr;
      CUresult ended = driver_->cuStreamEndCapture(stream_, &graph);
      if (enqueued.isOk() && ended != CUDA_SUCCESS)
        enqueued = check(ended, "capturing the step into a CUDA graph");
      if (enqueued.isOk())
        enqueued = check(driver_->cuGraphInstantiate(&graphs_[slot], graph, 0),
                         "instantiating the step's CUDA graph");
      if (graph)
        driver_->cuGraphDestroy(graph);
      if (!enqueued.isOk())
        return enqueued;
    }
    return Status();
  }

  /// Turns the oldest run in flight into a telemetry record once it has
  /// completed (waiting for it with `wait`); `done` tells whether it had.
  Status pollOldest(bool wait, bool &done) {
    const InFlight oldest = inFlight_.front();
    CUresult result = wait ? driver_->cuEventSynchronize(events_[oldest.slot])
                           : driver_->cuEventQuery(events_[oldest.slot]);
    done = false;
    if (!wait && result == CUDA_ERROR_NOT_READY)
      return Status();
    if (result != CUDA_SUCCESS)
      return check(result, "run " + std::to_string(oldest.run) + " failed on the GPU");
    const uint8_t *staging = staging_ + static_cast<uint64_t>(oldest.slot) * slotBytes_;
    TelemetryRecord record;
    record.run = oldest.run;
    for (size_t i = 0; i < telemetry_.size(); ++i) {
      const uint8_t *field = staging + telemetryOffsets_[i];
      record.bytes.insert(record.bytes.end(), field,
                          field + tensorBytes(telemetry_[i].dtype, telemetry_[i].shape));
    }
    completed_.push_back(std::move(record));
    inFlight_.pop_front();
    done = true;
    return Status();
  }

  Status finishOldest(bool wait) {
    bool done = false;
    return pollOldest(wait, done);
  }

  /// Waits for every run in flight, keeping their telemetry for collect().
  Status drain() {
    if (Status s = makeCurrent(); !s.isOk())
      return s;
    while (!inFlight_.empty())
      if (Status s = finishOldest(/*wait=*/true); !s.isOk())
        return s;
    return Status();
  }

  void release() {
    if (!driver_ || !context_)
      return;
    driver_->cuCtxSetCurrent(context_);
    if (stream_)
      driver_->cuStreamSynchronize(stream_);
    for (CUgraphExec &graph : graphs_)
      if (graph)
        driver_->cuGraphExecDestroy(graph);
    for (CUevent &event : events_)
      if (event)
        driver_->cuEventDestroy(event);
    gemms_.clear();
    nccl_.reset(); // (with its GPU's context current)
    if (blasHandle_)
      blas_->cublasLtDestroy(blasHandle_);
    if (module_)
      driver_->cuModuleUnload(module_);
    for (CUdeviceptr allocation : allocations_)
      driver_->cuMemFree(allocation);
    if (staging_)
      driver_->cuMemFreeHost(staging_);
    if (stream_)
      driver_->cuStreamDestroy(stream_);
    driver_->cuDevicePrimaryCtxRelease(device_);
    context_ = nullptr;
  }

  std::string path_;
  CudaApi api_;
  const CudaDriverApi *driver_ = nullptr;
  const CublasLtApi *blas_ = nullptr;
  CUdevice device_ = 0;
  int ordinal_ = 0;
  int arch_ = 0;
  std::string deviceName_;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  cublasLtHandle_t blasHandle_ = nullptr;
  /// The job of the all_reduce steps, and NCCL's communicator for them.
  Collective *job_ = nullptr;
  std::unique_ptr<NcclAllReduce> nccl_;
  CUmodule module_ = nullptr;
  std::string kernelImage_;
  std::map<std::string, std::pair<CUfunction, KernelSpec>> functions_;

  std::vector<CUdeviceptr> allocations_;
  CUdeviceptr arena_ = 0, persistent_ = 0, tables_ = 0;
  uint64_t workspaceOffset_ = 0, workspaceBytes_ = 0;
  uint64_t deviceBytes_ = 0;

  std::vector<DeviceStep> steps_;
  std::vector<PlannedGemm> gemms_;

  std::vector<TensorSpec> inputs_, telemetry_;
  std::vector<uint64_t> inputOffsets_, telemetryOffsets_;
  uint8_t *staging_ = nullptr;
  uint64_t slotBytes_ = 0;
  CUgraphExec graphs_[kRunsInFlight] = {};
  CUevent events_[kRunsInFlight] = {};
  std::deque<InFlight> inFlight_;
  std::vector<TelemetryRecord> completed_;

  uint64_t runs_ = 0, graphLaunches_ = 0, hostSyncs_ = 0, throttleWaits_ = 0;
  /// The manifest's index of each of steps_.
  std::vector<size_t> stepIndices_;
};

Status CudaBackend::timeSteps(int repetitions, std::vector<DeviceStepTiming> &out) {
  if (Status s = drain(); !s.isOk())
    return s;
  GraphStopwatch stopwatch(*driver_, stream_, path_ + ": ");
  Status status = stopwatch.create();
  for (size_t i = 0; status.isOk() && i < steps_.size(); ++i) {
    if (std::holds_alternative<PlannedAllReduce>(steps_[i]))
      continue; // a collective alone would wait for the other ranks
    DeviceStepTiming timing;
    timing.step = stepIndices_[i];
    timing.what = describe(steps_[i]);
    bool ran = false;
    status =
        timeCalls([&] { return enqueueStep(steps_[i]); }, repetitions, stopwatch, ran, timing.ms);
    if (status.isOk() && !ran) {
      status = enqueueStep(steps_[i]); // its error
      if (status.isOk())
        status = Status::error(MPC_INTERNAL, path_ + ": steps[" + std::to_string(timing.step) +
                                                 "] could not be captured for timing");
    }
    if (status.isOk())
      out.push_back(timing);
  }
  return status;
}

Status CudaBackend::timeGemms(int repetitions, std::vector<GemmTiming> &out) {
  if (Status s = drain(); !s.isOk())
    return s;
  GraphStopwatch stopwatch(*driver_, stream_, path_ + ": ");
  CUdeviceptr workspace = 0;
  Status status = stopwatch.create();
  if (status.isOk())
    status = check(driver_->cuMemAlloc(&workspace, kBenchmarkWorkspaceBytes),
                   "allocating the benchmark's workspace");
  auto pointer = [](CUdeviceptr address) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
  };
  for (size_t g = 0; status.isOk() && g < gemms_.size(); ++g) {
    const PlannedGemm &planned = gemms_[g];
    const GemmCall &call = *planned.call;
    GemmTiming timing;
    timing.step = planned.step;
    timing.m = planned.gemm.m;
    timing.n = planned.gemm.n;
    timing.k = planned.gemm.k;
    timing.batch = planned.gemm.batch;
    timing.types = std::string(dtypeName(planned.gemm.aDtype)) + "x" +
                   dtypeName(planned.gemm.bDtype) + "->" + dtypeName(planned.gemm.cDtype);
    timing.algorithm = call.algorithmSource();
    const std::string what = path_ + ": GEMM step " + std::to_string(planned.step);
    bool ran = false;
    status = timeCalls(
        [&] {
          return call.enqueue(blasHandle_, stream_, arena_ + workspaceOffset_, workspaceBytes_,
                              what);
        },
        repetitions, stopwatch, ran, timing.stepMs);
    if (status.isOk() && !ran) {
      status = call.enqueue(blasHandle_, stream_, arena_ + workspaceOffset_, workspaceBytes_,
                            what); // its error
      if (status.isOk())
        status = Status::error(MPC_INTERNAL, what + ": could not be captured for timing");
    }
    if (!status.isOk())
      break;
    // cuBLASLt's top choices with a large workspace.
    cublasLtMatmulPreference_t preference = nullptr;
    blas_->cublasLtMatmulPreferenceCreate(&preference);
    uint64_t bytes = kBenchmarkWorkspaceBytes;
    blas_->cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes);
    // Only algorithms for the step's operand alignment (their element
    // offsets), as the step's own choice.
    call.preferOperandAlignment(*blas_, preference);
    cublasLtMatmulHeuristicResult_t results[kBenchmarkAlgorithms] = {};
    int found = 0;
    blas_->cublasLtMatmulAlgoGetHeuristic(blasHandle_, call.desc(), call.layoutA(),
                                          call.layoutB(), call.layoutD(), call.layoutD(),
                                          preference, kBenchmarkAlgorithms, results, &found);
    blas_->cublasLtMatmulPreferenceDestroy(preference);
    timing.bestMs = timing.stepMs;
    for (int i = 0; status.isOk() && i < found; ++i) {
      if (results[i].state != CUBLAS_STATUS_SUCCESS)
        continue;
      double ms = 0;
      status = timeCalls(
          [&]() -> Status {
            cublasStatus_t result = blas_->cublasLtMatmul(
                blasHandle_, call.desc(), call.alpha(), pointer(call.a()), call.layoutA(),
                pointer(call.b()), call.layoutB(), call.beta(), pointer(call.d()),
                call.layoutD(), pointer(call.d()), call.layoutD(), &results[i].algo,
                pointer(workspace), kBenchmarkWorkspaceBytes,
                reinterpret_cast<cudaStream_t>(stream_));
            return result == CUBLAS_STATUS_SUCCESS
                       ? Status()
                       : cublasFailure(*blas_, result, "cublasLtMatmul");
          },
          repetitions, stopwatch, ran, ms);
      if (!ran)
        continue; // an algorithm that does not run here is not a rival
      ++timing.algorithmsTried;
      timing.bestMs = std::min(timing.bestMs, ms);
    }
    out.push_back(timing);
  }
  if (workspace)
    driver_->cuMemFree(workspace);
  return status;
}

} // namespace

Status checkCudaDevice(const std::string &device) {
  CudaApi api;
  if (Status s = loadCudaApi(api); !s.isOk())
    return s;
  CUdevice handle;
  return openDevice(*api.driver, device, handle);
}

Status createCudaBackend(const std::string &bundlePath, const Manifest &manifest,
                         const std::vector<BundleSection> &sections,
                         const BackendConfig &config, std::unique_ptr<Backend> &out) {
  auto backend = std::make_unique<CudaBackend>();
  if (Status status = backend->create(bundlePath, manifest, sections, config); !status.isOk())
    return status;
  out = std::move(backend);
  return Status();
}

Status timeGemmSteps(Backend &backend, int repetitions, std::vector<GemmTiming> &out) {
  auto *cuda = dynamic_cast<CudaBackend *>(&backend);
  if (!cuda)
    return Status::error(MPC_UNSUPPORTED, "timing GEMM steps needs the CUDA backend");
  return cuda->timeGemms(repetitions, out);
}

Status timeDeviceSteps(Backend &backend, int repetitions, std::vector<DeviceStepTiming> &out) {
  auto *cuda = dynamic_cast<CudaBackend *>(&backend);
  if (!cuda)
    return Status::error(MPC_UNSUPPORTED, "timing a program's steps on a GPU needs the CUDA "
                                          "backend");
  return cuda->timeSteps(repetitions, out);
}

} // namespace mpc::rt
