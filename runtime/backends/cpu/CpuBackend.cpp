//===- CpuBackend.cpp - running programs on the host ----------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "CpuBackend.h"

#include "Collective.h"
#include "CpuSettings.h"
#include "HostGemm.h"
#include "HostIm2col.h"
#include "HostMemory.h"
#include "HostObject.h"
#include "mpc/format/HostTensor.h"
#include "mpc/format/Json.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <variant>

namespace mpc::rt {

namespace {

struct PlannedLaunch {
  std::string name;
  HostKernel kernel;
  std::vector<void *> table;
};

struct PlannedGemm {
  GemmStep step;
  const uint8_t *a, *b, *bias;
  uint8_t *c;
  GemmOperandCopies copies;
  GemmReluGradBuffers reluGrad;
  /// With an im2col_b hint taken: the image, whose columns are gathered in
  /// fp32 for B (`step` then has an f32 B), and its dtype.
  const uint8_t *im2colInput = nullptr;
  DType im2colDtype = DType::F16;
  /// The images whose columns are gathered and multiplied at a time
  /// (imagesPerGather), and `step` without its hint, for each pass's GEMM.
  int64_t imagesPerGather = 0;
  GemmStep passStep;
};

/// Whether MPC_CPU_GEMM_HINTS allows taking the manifest's relu_grad and
/// im2col_b hints (unset, or anything but 0); with 0 every step runs as it
/// is, for side-by-side measurements and to rule the hints out.
bool gemmHintsAllowed() { return cpuSetting("MPC_CPU_GEMM_HINTS").value_or(true); }

/// Whether the CPU takes `step`'s im2col_b hint: for an f16 B, which it
/// would otherwise widen to fp32 after the launch wrote it.
bool takesIm2col(const GemmStep &step) {
  return step.im2colB && step.bDtype == DType::F16;
}

/// The most bytes of fp32 columns gathered at a time: with the step's other
/// operands they stay in a core's L2 (1 MiB on Zen 4, 2 MiB on recent Intel
/// cores) between being written and being multiplied.
constexpr size_t kGatherPassBytes = size_t(256) << 10;

/// The images of a taken im2col_b hint whose columns are gathered, then
/// multiplied, at a time: all of them when `gemm` may multiply a batch in
/// one call (a pass's product could then differ in its last bits from the
/// whole batch's, which the launch's columns get); else at most
/// kGatherPassBytes of columns, in the fewest passes, each of the same
/// number of images but the last, which may have fewer. All 32 at once
/// wrote the CNN's 1.8 MB of columns of its second convolution to L3 and
/// read them back.
int64_t imagesPerGather(const GemmStep &step, HostGemm &gemm) {
  const int64_t images = step.batch;
  if (!gemm.multipliesMatrixByMatrix(step))
    return images;
  const size_t imageBytes = imageColumnCount(*step.im2colB) * sizeof(float);
  const int64_t most = std::max<int64_t>(1, static_cast<int64_t>(kGatherPassBytes / imageBytes));
  if (most >= images)
    return images;
  const int64_t passes = (images + most - 1) / most;
  return (images + passes - 1) / passes;
}

struct PlannedCopy {
  const uint8_t *source;
  uint8_t *target;
  size_t bytes;
};

struct PlannedAllReduce {
  uint8_t *data;
  AllReduceStep step;
};

using PlannedStep = std::variant<PlannedLaunch, PlannedGemm, PlannedCopy, PlannedAllReduce>;

class CpuBackend final : public Backend {
public:
  Status create(const std::string &bundlePath, const Manifest &manifest,
                const std::vector<BundleSection> &sections, const BackendConfig &config) {
    telemetry_ = config.telemetry;
    collective_ = config.collective;
    deviceBytes_ = manifest.arenaBytes + manifest.persistentBytes;
    if (Status status = arena_.allocate(bundlePath, BufferSpace::Arena,
                                        manifest.arenaBytes);
        !status.isOk())
      return status;
    if (Status status = persistent_.allocate(
            bundlePath, BufferSpace::Persistent, manifest.persistentBytes);
        !status.isOk())
      return status;
    if (!manifest.kernels.empty()) {
      const BundleSection *object = findSection(sections, kHostObjectSection);
      if (!object)
        return Status::error(MPC_FORMAT_ERROR,
                             bundlePath + ": the program has " +
                                 std::to_string(manifest.kernels.size()) +
                                 " kernels but the bundle has no \"" +
                                 kHostObjectSection +
                                 "\" section (no host kernels: was it compiled for GPUs "
                                 "only? compile it with --target cpu, or run it on a GPU)");
      if (Status status = object_.load(bundlePath, object->bytes);
          !status.isOk())
        return status;
      // Every kernel the manifest declares, launched or not (a host object
      // that lacks one does not belong to this manifest).
      for (const KernelSpec &kernel : manifest.kernels) {
        HostKernel function = nullptr;
        if (Status status = object_.kernel(kernel.name, function); !status.isOk())
          return status;
      }
    }
    std::vector<Step> steps = manifest.steps;
    if (!gemmHintsAllowed())
      for (Step &step : steps)
        if (auto *gemm = std::get_if<GemmStep>(&step)) {
          gemm->reluGrad.reset();
          gemm->im2colB.reset();
        }
    for (size_t i = 0; i < steps.size(); ++i) {
      // The launch before a taken im2col_b hint is the GEMM's gathering of
      // its columns (verified: the next step is the GEMM).
      if (std::holds_alternative<LaunchStep>(steps[i]) && i + 1 < steps.size())
        if (const auto *gemm = std::get_if<GemmStep>(&steps[i + 1]); gemm && takesIm2col(*gemm))
          continue;
      if (Status status = plan(bundlePath, manifest, i, steps[i]); !status.isOk())
        return status;
      stepIndices_.push_back(i);
      // The launch after a relu_grad hint runs inside its GEMM (verified: a
      // launch follows).
      if (const auto *gemm = std::get_if<GemmStep>(&steps[i]); gemm && gemm->reluGrad)
        ++i;
    }
    return Status();
  }

  Status write(const BufferRef &at, const void *data, size_t size) override {
    if (size > 0)
      std::memcpy(address(at), data, size);
    return Status();
  }

  Status read(const BufferRef &at, void *data, size_t size) override {
    if (size > 0)
      std::memcpy(data, address(at), size);
    return Status();
  }

  Status run(const std::vector<InputBytes> &inputs) override {
    copyIn(inputs);
    for (const PlannedStep &step : steps_)
      if (Status status = perform(step); !status.isOk())
        return status;
    TelemetryRecord record;
    record.run = runs_++;
    for (const TensorSpec &spec : telemetry_) {
      const uint8_t *bytes = address(spec.buffer);
      record.bytes.insert(record.bytes.end(), bytes,
                          bytes + tensorBytes(spec.dtype, spec.shape));
    }
    completed_.push_back(std::move(record));
    return Status();
  }

  Status collect(bool, std::vector<TelemetryRecord> &out) override {
    for (TelemetryRecord &record : completed_)
      out.push_back(std::move(record));
    completed_.clear();
    return Status();
  }

  Status timeSteps(const std::vector<std::vector<InputBytes>> &batches, int runs,
                   std::vector<CpuStepTiming> &out) {
    if (runs < 1 || batches.empty())
      return Status::error(MPC_INVALID_ARGUMENT,
                           "timing steps needs at least one run and one batch");
    std::vector<std::vector<double>> times(steps_.size());
    for (int run = 0; run < runs; ++run) {
      copyIn(batches[run % batches.size()]);
      for (size_t i = 0; i < steps_.size(); ++i) {
        auto start = std::chrono::steady_clock::now();
        if (Status status = perform(steps_[i]); !status.isOk())
          return status;
        times[i].push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                .count());
      }
    }
    out.clear();
    for (size_t i = 0; i < steps_.size(); ++i) {
      std::vector<double> &samples = times[i];
      std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
      out.push_back({stepIndices_[i], describe(steps_[i]), samples[samples.size() / 2]});
    }
    return Status();
  }

  BackendStats stats() const override {
    BackendStats stats;
    stats.runs = runs_;
    stats.deviceBytes = deviceBytes_;
    stats.device = "cpu";
    return stats;
  }

private:
  /// A run's inputs into their buffers in the arena.
  void copyIn(const std::vector<InputBytes> &inputs) {
    for (const InputBytes &input : inputs)
      if (input.bytes > 0)
        std::memcpy(address(input.buffer), input.data, input.bytes);
  }

  Status perform(const PlannedStep &step) {
    if (const auto *launch = std::get_if<PlannedLaunch>(&step)) {
      launch->kernel(launch->table.data());
    } else if (const auto *gemm = std::get_if<PlannedGemm>(&step)) {
      if (gemm->im2colInput)
        gatherAndMultiply(*gemm);
      else
        gemm_.run(gemm->step, gemm->a, gemm->b, gemm->bias, gemm->c, gemm->copies, gemm->reluGrad);
    } else if (const auto *reduce = std::get_if<PlannedAllReduce>(&step)) {
      return collective_->allReduce(reduce->data, reduce->step.count, reduce->step.dtype,
                                    reduce->step.reduce);
    } else {
      const auto &copy = std::get<PlannedCopy>(step);
      std::memcpy(copy.target, copy.source, copy.bytes);
    }
    return Status();
  }

  /// A GEMM with a taken im2col_b hint, imagesPerGather images at a time:
  /// their columns gathered into columns_, then multiplied as a batch of
  /// those images (B's offset 0 and per-image stride, verified, hold for
  /// the gathered columns; A's and C's offsets move to the pass's first
  /// image; the images do not overlap C, verified, so later passes read
  /// them as they were). The whole batch at once runs the step with its
  /// hint, which HostGemm counts as a widened B.
  void gatherAndMultiply(const PlannedGemm &gemm) {
    const GemmStep &whole = gemm.step;
    const auto *columns = reinterpret_cast<const uint8_t *>(columns_.data());
    for (int64_t first = 0; first < whole.batch; first += gemm.imagesPerGather) {
      const int64_t images = std::min(gemm.imagesPerGather, whole.batch - first);
      gatherColumns(*whole.im2colB, gemm.im2colDtype, gemm.im2colInput, first, images,
                    columns_.data(), columnPlane_);
      if (images == whole.batch)
        return gemm_.run(whole, gemm.a, columns, gemm.bias, gemm.c, gemm.copies, gemm.reluGrad);
      GemmStep pass = gemm.passStep;
      pass.batch = images;
      pass.offsetA += first * whole.strideA;
      pass.offsetC += first * whole.strideC;
      gemm_.run(pass, gemm.a, columns, gemm.bias, gemm.c, gemm.copies, gemm.reluGrad);
    }
  }

  /// "kernel k3", "gemm 64x128x64 f16*f16->f16 bias_relu" (m x n x k, then
  /// the batch when there is one), "copy 8 bytes".
  static std::string describe(const PlannedStep &step) {
    if (const auto *launch = std::get_if<PlannedLaunch>(&step))
      return "kernel " + launch->name;
    if (const auto *gemm = std::get_if<PlannedGemm>(&step)) {
      if (!gemm->im2colInput)
        return describeGemm(gemm->step);
      GemmStep shown = gemm->step; // B is the image's columns, gathered in im2colDtype
      shown.bDtype = gemm->im2colDtype;
      return describeGemm(shown) + " im2col";
    }
    if (const auto *reduce = std::get_if<PlannedAllReduce>(&step))
      return std::string("all-reduce ") + allReduceOpName(reduce->step.reduce) + " of " +
             std::to_string(reduce->step.count) + " " + dtypeName(reduce->step.dtype);
    return "copy " + std::to_string(std::get<PlannedCopy>(step).bytes) + " bytes";
  }

  uint8_t *address(const BufferRef &at) const {
    return (at.space == BufferSpace::Arena ? arena_ : persistent_)
        .at(at.offset);
  }

  /// Checks launch step `index` against its kernel's buffer table in the
  /// host object: as many buffers, each inside its memory (the manifest's
  /// verifier knows only where a buffer starts).
  Status checkLaunchBuffers(const std::string &bundlePath, const Manifest &manifest, size_t index,
                            const LaunchStep &launch) const {
    size_t count = 0;
    const unsigned long long *bytes = object_.bufferBytes(launch.kernel, count);
    if (!bytes)
      return Status();
    std::string where = bundlePath + ": manifest.json: steps[" + std::to_string(index) + "]";
    if (count != launch.buffers.size())
      return Status::error(MPC_FORMAT_ERROR,
                           where + ".buffers: " + std::to_string(launch.buffers.size()) +
                               " buffers, but kernel " + quoteJson(launch.kernel) + " takes " +
                               std::to_string(count) + " (its host object says)");
    for (size_t j = 0; j < count; ++j) {
      const BufferRef &buffer = launch.buffers[j];
      uint64_t size =
          buffer.space == BufferSpace::Arena ? manifest.arenaBytes : manifest.persistentBytes;
      if (buffer.offset > size || bytes[j] > size - buffer.offset)
        return Status::error(
            MPC_FORMAT_ERROR,
            where + ".buffers[" + std::to_string(j) + "]: kernel " + quoteJson(launch.kernel) +
                " uses " + std::to_string(bytes[j]) + " bytes from offset " +
                std::to_string(buffer.offset) + ", past the end of " +
                (buffer.space == BufferSpace::Arena ? "the arena" : "persistent memory") + " (" +
                std::to_string(size) + " bytes)");
    }
    return Status();
  }

  Status plan(const std::string &bundlePath, const Manifest &manifest, size_t index,
              const Step &step) {
    if (const auto *launch = std::get_if<LaunchStep>(&step)) {
      PlannedLaunch planned;
      planned.name = launch->kernel;
      if (Status status = object_.kernel(launch->kernel, planned.kernel);
          !status.isOk())
        return status;
      if (Status status = checkLaunchBuffers(bundlePath, manifest, index, *launch); !status.isOk())
        return status;
      for (const BufferRef &buffer : launch->buffers)
        planned.table.push_back(address(buffer));
      steps_.push_back(std::move(planned));
    } else if (const auto *gemm = std::get_if<GemmStep>(&step)) {
      PlannedGemm planned{*gemm, address(gemm->a), address(gemm->b),
                          gemm->bias ? address(*gemm->bias) : nullptr, address(gemm->c), {},
                          {}};
      if (gemm->reluGrad)
        planned.reluGrad = {address(gemm->reluGrad->aux), address(gemm->reluGrad->out)};
      if (takesIm2col(*gemm)) {
        // B's fp32 columns and a padded image plane in memory of the
        // backend's, shared by the steps (one runs at a time) and counted in
        // its memory.
        planned.im2colInput = address(gemm->im2colB->input);
        planned.im2colDtype = gemm->bDtype;
        planned.step.bDtype = DType::F32;
        auto grow = [&](std::vector<float> &scratch, size_t count) {
          if (count > scratch.size()) {
            deviceBytes_ += (count - scratch.size()) * sizeof(float);
            scratch.resize(count);
          }
        };
        planned.passStep = planned.step;
        planned.passStep.im2colB.reset();
        planned.imagesPerGather = imagesPerGather(planned.step, gemm_);
        grow(columns_, planned.imagesPerGather * imageColumnCount(*gemm->im2colB));
        grow(columnPlane_, planeScratchCount(*gemm->im2colB));
      }
      // One fp32 copy per kept operand's or result's elements, shared by
      // the steps reusing it (verified: an earlier step keeps them), and
      // counted in the backend's memory.
      auto keep = [&](GemmOperand operand) {
        ByteRange bytes = gemmOperandBytes(*gemm, operand);
        auto [copy, added] = widenedCopies_.try_emplace(bytes);
        if (added) // 4 bytes for each 2-byte element
          deviceBytes_ += 2 * (bytes.end - bytes.begin);
        return &copy->second;
      };
      auto reuse = [&](GemmOperand operand) -> const std::vector<float> * {
        auto copy = widenedCopies_.find(gemmOperandBytes(*gemm, operand));
        return copy == widenedCopies_.end() ? nullptr : &copy->second;
      };
      if (gemm->keepA)
        planned.copies.keepA = keep(GemmOperand::A);
      if (gemm->keepB)
        planned.copies.keepB = keep(GemmOperand::B);
      if (gemm->keepC)
        planned.copies.keepC = keep(GemmOperand::C);
      if (gemm->reuseA && !(planned.copies.reuseA = reuse(GemmOperand::A)))
        return Status::error(MPC_FORMAT_ERROR, "gemm step reuses a widened copy of operand a "
                                               "that no earlier step keeps");
      if (gemm->reuseB && !(planned.copies.reuseB = reuse(GemmOperand::B)))
        return Status::error(MPC_FORMAT_ERROR, "gemm step reuses a widened copy of operand b "
                                               "that no earlier step keeps");
      steps_.push_back(planned);
    } else if (const auto *reduce = std::get_if<AllReduceStep>(&step)) {
      if (!collective_)
        return Status::error(MPC_INTERNAL, "an all_reduce step without the job's collective");
      steps_.push_back(PlannedAllReduce{address(reduce->buffer), *reduce});
    } else {
      const auto &copy = std::get<CopyStep>(step);
      steps_.push_back(PlannedCopy{address(copy.source), address(copy.target),
                                   static_cast<size_t>(copy.bytes)});
    }
    return Status();
  }

  HostMemory arena_, persistent_;
  /// The job of all_reduce steps (the program's; null without them).
  Collective *collective_ = nullptr;
  HostObject object_;
  HostGemm gemm_;
  std::vector<PlannedStep> steps_;
  /// Widened copies of kept f16 GEMM operands and results, by their bytes
  /// (a map: its elements stay where they are as it grows).
  std::map<ByteRange, std::vector<float>> widenedCopies_;
  /// fp32 columns of taken im2col_b hints, and a padded image plane.
  std::vector<float> columns_, columnPlane_;
  /// The manifest's index of each planned step.
  std::vector<size_t> stepIndices_;
  std::vector<TensorSpec> telemetry_;
  /// Telemetry of the runs since the last collect.
  std::vector<TelemetryRecord> completed_;
  uint64_t runs_ = 0;
  uint64_t deviceBytes_ = 0;
};

} // namespace

Status timeCpuSteps(Backend &backend, const std::vector<std::vector<InputBytes>> &batches,
                    int runs, std::vector<CpuStepTiming> &out) {
  auto *cpu = dynamic_cast<CpuBackend *>(&backend);
  if (!cpu)
    return Status::error(MPC_UNSUPPORTED, "timing steps one by one needs the CPU backend");
  return cpu->timeSteps(batches, runs, out);
}

Status createCpuBackend(const std::string &bundlePath, const Manifest &manifest,
                        const std::vector<BundleSection> &sections,
                        const BackendConfig &config, std::unique_ptr<Backend> &out) {
  auto backend = std::make_unique<CpuBackend>();
  if (Status status = backend->create(bundlePath, manifest, sections, config);
      !status.isOk())
    return status;
  out = std::move(backend);
  return Status();
}

} // namespace mpc::rt
