//===- Program.cpp - a loaded bundle, ready to run ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "Program.h"

#include "mpc/format/Bundle.h"
#include "CpuBackend.h"
#ifdef MPC_HAVE_CUDA_BACKEND
#include "CudaBackend.h"
#endif
#include "Elements.h"
#include "Initializers.h"
#include "mpc/format/Json.h"
#include "mpc/format/Safetensors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>

namespace mpc::rt {

namespace {

/// How many names a "not found" message lists.
constexpr size_t kListedNames = 8;

std::string describe(DType dtype, const std::vector<int64_t> &shape) {
  return std::string(dtypeName(dtype)) + " " + formatShape(shape);
}

/// `specs`' names for a message: "\"a\", \"b\"", shortened when long.
template <typename Spec> std::string nameList(const std::vector<Spec> &specs) {
  if (specs.empty())
    return "none";
  std::string text;
  for (size_t i = 0; i < specs.size() && i < kListedNames; ++i)
    text += (i ? ", " : "") + quoteJson(specs[i].name);
  if (specs.size() > kListedNames)
    text += " and " + std::to_string(specs.size() - kListedNames) + " more";
  return text;
}

template <typename Spec>
Status findByName(const std::vector<Spec> &specs, const std::string &name,
                  const std::string &where, const char *what, size_t &index) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name) {
      index = i;
      return Status();
    }
  return Status::error(MPC_NOT_FOUND, where + ": no " + what + " named " +
                                          quoteJson(name) + " (the " + what +
                                          "s: " + nameList(specs) + ")");
}

#ifdef MPC_HAVE_CUDA_BACKEND
constexpr bool kHaveCudaBackend = true;
#else
constexpr bool kHaveCudaBackend = false;
#endif

/// Whether `device` names the CUDA backend: "cuda" or "cuda:N" (N of at most
/// 9 digits, so that it fits an int).
bool isCudaDevice(const std::string &device) {
  if (device == "cuda")
    return true;
  if (device.compare(0, 5, "cuda:") != 0 || device.size() == 5 || device.size() > 5 + 9)
    return false;
  return device.find_first_not_of("0123456789", 5) == std::string::npos;
}

Status unsupportedDevice(const std::string &device) {
#ifdef MPC_HAVE_CUDA_BACKEND
  return Status::error(MPC_UNSUPPORTED, "unknown device " + quoteJson(device) +
                                            ": the devices are \"cpu\", \"cuda\" and "
                                            "\"cuda:N\" (the N-th GPU)");
#else
  if (isCudaDevice(device))
    return Status::error(MPC_UNSUPPORTED,
                         "device " + quoteJson(device) +
                             ": the CUDA backend is not built into this runtime (it was "
                             "configured without the CUDA toolkit); use device \"cpu\"");
  return Status::error(MPC_UNSUPPORTED,
                       "unknown device " + quoteJson(device) +
                           ": this runtime has device \"cpu\" only (the CUDA "
                           "backend is not built)");
#endif
}

/// What is wrong with the values of parameter (or state) `spec` at `data`,
/// or "": no parameter or optimizer state holds a value that is not finite,
/// and a loss scale is a number > 0 (a step would divide by it).
std::string describeBadValues(const ParamSpec &spec, const void *data) {
  if (spec.dtype != DType::F16 && spec.dtype != DType::BF16 && spec.dtype != DType::F32 &&
      spec.dtype != DType::F64)
    return "";
  size_t size = dtypeSize(spec.dtype);
  size_t count = tensorBytes(spec.dtype, spec.shape) / size;
  bool isScale = spec.name == "loss_scale";
  constexpr size_t kChunk = 1024;
  double values[kChunk];
  for (size_t begin = 0; begin < count; begin += kChunk) {
    size_t n = std::min(kChunk, count - begin);
    widenElements(spec.dtype, static_cast<const char *>(data) + begin * size, values, n);
    for (size_t i = 0; i < n; ++i) {
      double value = values[i];
      if (std::isfinite(value) && (value > 0 || !isScale))
        continue;
      std::string at = count > 1 ? " at element " + std::to_string(begin + i) : "";
      if (std::isnan(value))
        return quoteJson(spec.name) + " holds NaN" + at +
               "; parameters and optimizer state must be finite";
      if (std::isinf(value))
        return quoteJson(spec.name) + " holds " + (value > 0 ? "+inf" : "-inf") + at +
               "; parameters and optimizer state must be finite";
      char text[32];
      auto end = std::to_chars(text, text + sizeof text, value).ptr;
      return quoteJson(spec.name) + " is " + std::string(text, end) +
             "; a loss scale must be a finite number > 0";
    }
  }
  return "";
}

} // namespace

Program::~Program() = default;

Status checkDevice(const std::string &device) {
  if (device == "cpu")
    return Status();
  if (!kHaveCudaBackend || !isCudaDevice(device))
    return unsupportedDevice(device);
#ifdef MPC_HAVE_CUDA_BACKEND
  return checkCudaDevice(device);
#else
  return Status();
#endif
}

Status Program::load(const std::string &path, const ProgramOptions &options,
                     std::unique_ptr<Program> &out) {
  if (options.device != "cpu" && !(kHaveCudaBackend && isCudaDevice(options.device)))
    return unsupportedDevice(options.device);
  std::vector<BundleSection> sections;
  if (Status status = readBundle(path, sections); !status.isOk())
    return status;
  const BundleSection *manifestSection =
      findSection(sections, kManifestSection);
  if (!manifestSection)
    return Status::error(MPC_FORMAT_ERROR, path + ": the bundle has no \"" +
                                               kManifestSection + "\" section");
  std::unique_ptr<Program> program(new Program());
  program->path_ = path;
  Manifest &manifest = program->manifest_;
  if (Status status = parseManifest(manifestSection->bytes, manifest);
      !status.isOk())
    return Status::error(status.code(), path + ": " + kManifestSection + ": " +
                                            status.message());

  std::vector<const BundleSection *> constants;
  for (size_t i = 0; i < manifest.constants.size(); ++i) {
    const ConstantSpec &constant = manifest.constants[i];
    std::string where = path + ": constants[" + std::to_string(i) + "]: ";
    const BundleSection *section = findSection(sections, constant.section);
    if (!section)
      return Status::error(MPC_FORMAT_ERROR, where +
                                                 "the bundle has no section " +
                                                 quoteJson(constant.section));
    uint64_t bytes = tensorBytes(constant.dtype, constant.shape);
    if (section->bytes.size() != bytes)
      return Status::error(
          MPC_FORMAT_ERROR,
          where + "section " + quoteJson(constant.section) + " holds " +
              std::to_string(section->bytes.size()) + " bytes but the " +
              describe(constant.dtype, constant.shape) + " constant needs " +
              std::to_string(bytes));
    constants.push_back(section);
  }

  // The telemetry outputs: those asked for, or every small output.
  std::vector<TensorSpec> &telemetry = program->telemetry_;
  if (options.telemetry) {
    for (const std::string &name : *options.telemetry) {
      size_t index;
      if (Status status = program->findOutput(name, index); !status.isOk())
        return Status::error(status.code(), status.message() + " (asked for as telemetry)");
      telemetry.push_back(manifest.outputs[index]);
    }
  } else {
    for (const TensorSpec &output : manifest.outputs)
      if (elementCount(output.shape).value_or(kDefaultTelemetryElements + 1) <=
          kDefaultTelemetryElements)
        telemetry.push_back(output);
  }
  size_t recordBytes = 0;
  for (const TensorSpec &spec : telemetry) {
    program->telemetryOffsets_.push_back(recordBytes);
    recordBytes += tensorBytes(spec.dtype, spec.shape);
  }
  program->ring_ = TelemetryRing(options.telemetryDepth);

  BackendConfig config;
  config.device = options.device;
  config.telemetry = telemetry;
  // A program with all_reduce steps joins the job of this process.
  if (std::any_of(manifest.steps.begin(), manifest.steps.end(),
                  [](const Step &step) { return std::holds_alternative<AllReduceStep>(step); })) {
    if (Status status = createCollective(program->collective_); !status.isOk())
      return Status::error(status.code(), path + ": " + status.message());
    if (Status status = agreeOnAllReduces(*program->collective_, manifest); !status.isOk())
      return Status::error(status.code(), path + ": " + status.message());
    config.collective = program->collective_.get();
  }
  Status created;
#ifdef MPC_HAVE_CUDA_BACKEND
  if (isCudaDevice(options.device))
    created = createCudaBackend(path, manifest, sections, config, program->backend_);
  else
#endif
    created = createCpuBackend(path, manifest, sections, config, program->backend_);
  if (!created.isOk())
    return created;
  Backend &backend = *program->backend_;
  for (size_t i = 0; i < constants.size(); ++i)
    if (Status status = backend.write(manifest.constants[i].buffer,
                                      constants[i]->bytes.data(),
                                      constants[i]->bytes.size());
        !status.isOk())
      return status;
  for (const ParamSpec &param : manifest.params) {
    std::vector<uint8_t> bytes(tensorBytes(param.dtype, param.shape));
    initializeParam(param, options.seed, bytes.data());
    if (Status status = backend.write(param.buffer, bytes.data(), bytes.size());
        !status.isOk())
      return status;
  }
  if (Status status = program->refreshWorkingCopies(""); !status.isOk())
    return status;
  program->inputs_.resize(manifest.inputs.size());
  program->inputSet_.assign(manifest.inputs.size(), false);
  program->statsAtLoad_ = backend.stats();
  out = std::move(program);
  return Status();
}

Status Program::findInput(const std::string &name, size_t &index) const {
  return findByName(manifest_.inputs, name, path_, "input", index);
}

Status Program::findOutput(const std::string &name, size_t &index) const {
  return findByName(manifest_.outputs, name, path_, "output", index);
}

Status Program::findParam(const std::string &name, size_t &index) const {
  return findByName(manifest_.params, name, path_, "parameter", index);
}

Status Program::checkSize(const TensorSpec &spec, const char *what,
                          size_t bytes) const {
  uint64_t size = tensorBytes(spec.dtype, spec.shape);
  if (bytes != size)
    return Status::error(MPC_INVALID_ARGUMENT,
                         path_ + ": " + what + " " + quoteJson(spec.name) +
                             " is " + describe(spec.dtype, spec.shape) + " (" +
                             std::to_string(size) + " bytes), not " +
                             std::to_string(bytes) + " bytes");
  return Status();
}

Status Program::setInput(const std::string &name, const void *data,
                         size_t bytes) {
  size_t index;
  if (Status status = findInput(name, index); !status.isOk())
    return status;
  if (Status status = checkSize(manifest_.inputs[index], "input", bytes);
      !status.isOk())
    return status;
  const uint8_t *begin = static_cast<const uint8_t *>(data);
  inputs_[index].assign(begin, begin + bytes);
  inputSet_[index] = true;
  return Status();
}

Status Program::setInput(const std::string &name, const HostTensor &tensor) {
  size_t index;
  if (Status status = findInput(name, index); !status.isOk())
    return status;
  const TensorSpec &spec = manifest_.inputs[index];
  if (tensor.dtype != spec.dtype || tensor.shape != spec.shape)
    return Status::error(MPC_INVALID_ARGUMENT,
                         path_ + ": input " + quoteJson(name) + " is " +
                             describe(spec.dtype, spec.shape) + ", not " +
                             describe(tensor.dtype, tensor.shape));
  if (Status status =
          checkHostTensor(tensor, path_ + ": input " + quoteJson(name));
      !status.isOk())
    return status;
  return setInput(name, tensor.bytes.data(), tensor.bytes.size());
}

Status Program::run() {
  for (size_t i = 0; i < manifest_.inputs.size(); ++i)
    if (!inputSet_[i])
      return Status::error(MPC_INVALID_ARGUMENT,
                           path_ + ": input " +
                               quoteJson(manifest_.inputs[i].name) +
                               " was never set");
  std::vector<InputBytes> inputs(manifest_.inputs.size());
  for (size_t i = 0; i < manifest_.inputs.size(); ++i)
    inputs[i] = {manifest_.inputs[i].buffer, inputs_[i].data(), inputs_[i].size()};
  if (Status status = backend_->run(inputs); !status.isOk())
    return status;
  ++runs_;
  hasRun_ = true;
  return collectTelemetry(/*wait=*/false);
}

BackendStats Program::stats() const {
  BackendStats stats = backend_->stats();
  stats.hostSyncs -= statsAtLoad_.hostSyncs;
  stats.throttleWaits -= statsAtLoad_.throttleWaits;
  return stats;
}

Status Program::collectTelemetry(bool wait) {
  std::vector<TelemetryRecord> records;
  Status status = backend_->collect(wait, records);
  for (TelemetryRecord &record : records)
    ring_.add(std::move(record));
  return status;
}

Status Program::completedRuns(uint64_t &out) {
  if (Status status = collectTelemetry(/*wait=*/false); !status.isOk())
    return status;
  out = ring_.completedRuns();
  return Status();
}

Status Program::synchronize() { return collectTelemetry(/*wait=*/true); }

Status Program::telemetry(uint64_t run, const std::string &name, void *data, size_t bytes) {
  size_t index = telemetry_.size();
  for (size_t i = 0; i < telemetry_.size(); ++i)
    if (telemetry_[i].name == name)
      index = i;
  if (index == telemetry_.size()) {
    size_t output;
    if (Status status = findOutput(name, output); !status.isOk())
      return status;
    return Status::error(MPC_NOT_FOUND, path_ + ": output " + quoteJson(name) +
                                            " is not telemetry (the telemetry outputs: " +
                                            nameList(telemetry_) + ")");
  }
  const TensorSpec &spec = telemetry_[index];
  if (Status status = checkSize(spec, "output", bytes); !status.isOk())
    return status;
  if (run >= runs_)
    return Status::error(MPC_INVALID_ARGUMENT,
                         path_ + ": run " + std::to_string(run) + " has not been started (" +
                             std::to_string(runs_) + " runs so far)");
  if (Status status = collectTelemetry(/*wait=*/false); !status.isOk())
    return status;
  const TelemetryRecord *record = ring_.find(run);
  if (!record) {
    if (run >= ring_.completedRuns())
      return Status::error(MPC_NOT_READY, path_ + ": run " + std::to_string(run) +
                                              " has not completed yet");
    return Status::error(MPC_NOT_FOUND,
                         path_ + ": the telemetry of run " + std::to_string(run) +
                             " is no longer kept (the last " + std::to_string(ring_.depth()) +
                             " runs' are)");
  }
  std::memcpy(data, record->bytes.data() + telemetryOffsets_[index], bytes);
  return Status();
}

Status Program::getOutput(const std::string &name, void *data,
                          size_t bytes) const {
  size_t index;
  if (Status status = findOutput(name, index); !status.isOk())
    return status;
  const TensorSpec &spec = manifest_.outputs[index];
  if (Status status = checkSize(spec, "output", bytes); !status.isOk())
    return status;
  if (!hasRun_)
    return Status::error(MPC_INVALID_ARGUMENT,
                         path_ + ": output " + quoteJson(name) +
                             " has no value before the first run");
  return backend_->read(spec.buffer, data, bytes);
}

Status Program::getOutput(const std::string &name, HostTensor &out) const {
  size_t index;
  if (Status status = findOutput(name, index); !status.isOk())
    return status;
  const TensorSpec &spec = manifest_.outputs[index];
  HostTensor tensor;
  tensor.dtype = spec.dtype;
  tensor.shape = spec.shape;
  tensor.bytes.resize(tensorBytes(spec.dtype, spec.shape));
  if (Status status = getOutput(name, tensor.bytes.data(), tensor.bytes.size());
      !status.isOk())
    return status;
  out = std::move(tensor);
  return Status();
}

Status Program::getParam(const std::string &name, void *data,
                         size_t bytes) const {
  size_t index;
  if (Status status = findParam(name, index); !status.isOk())
    return status;
  const ParamSpec &spec = manifest_.params[index];
  if (Status status = checkSize(spec, "parameter", bytes); !status.isOk())
    return status;
  return backend_->read(spec.buffer, data, bytes);
}

Status Program::setParam(const std::string &name, const void *data,
                         size_t bytes) {
  size_t index;
  if (Status status = findParam(name, index); !status.isOk())
    return status;
  const ParamSpec &spec = manifest_.params[index];
  if (!spec.castOf.empty())
    return Status::error(MPC_INVALID_ARGUMENT,
                         path_ + ": " + quoteJson(name) +
                             " is the working copy of parameter " +
                             quoteJson(spec.castOf) + "; set that one");
  if (Status status = checkSize(spec, "parameter", bytes); !status.isOk())
    return status;
  if (std::string problem = describeBadValues(spec, data); !problem.empty())
    return Status::error(MPC_INVALID_ARGUMENT, path_ + ": " + problem);
  if (Status status = backend_->write(spec.buffer, data, bytes); !status.isOk())
    return status;
  return refreshWorkingCopies(name);
}

Status Program::refreshWorkingCopies(const std::string &master) {
  for (const ParamSpec &copy : manifest_.params) {
    if (copy.castOf.empty() || (!master.empty() && copy.castOf != master))
      continue;
    size_t index;
    if (Status status = findParam(copy.castOf, index); !status.isOk())
      return status;
    const ParamSpec &source = manifest_.params[index];
    size_t count = tensorBytes(source.dtype, source.shape) / sizeof(float);
    std::vector<float> values(count);
    if (Status status = backend_->read(source.buffer, values.data(), count * sizeof(float));
        !status.isOk())
      return status;
    std::vector<uint8_t> converted(tensorBytes(copy.dtype, copy.shape));
    narrowElements(values.data(), copy.dtype, converted.data(), count);
    if (Status status = backend_->write(copy.buffer, converted.data(), converted.size());
        !status.isOk())
      return status;
  }
  return Status();
}

Status Program::saveParams(const std::string &path) const {
  std::map<std::string, HostTensor> tensors;
  for (const ParamSpec &spec : manifest_.params) {
    if (!spec.castOf.empty())
      continue; // working copies follow their parameters
    HostTensor &tensor = tensors[spec.name];
    tensor.dtype = spec.dtype;
    tensor.shape = spec.shape;
    tensor.bytes.resize(tensorBytes(spec.dtype, spec.shape));
    if (Status status = backend_->read(spec.buffer, tensor.bytes.data(),
                                       tensor.bytes.size());
        !status.isOk())
      return status;
  }
  return writeSafetensors(path, tensors, {{"mpc.program", manifest_.program}});
}

Status Program::loadParams(const std::string &path) {
  std::map<std::string, HostTensor> tensors;
  if (Status status = readSafetensors(path, tensors, nullptr); !status.isOk())
    return status;
  std::string problems;
  auto report = [&](const std::string &problem) {
    problems += (problems.empty() ? "" : "; ") + problem;
  };
  for (const ParamSpec &spec : manifest_.params) {
    if (!spec.castOf.empty())
      continue;
    auto found = tensors.find(spec.name);
    if (found == tensors.end())
      report("tensor " + quoteJson(spec.name) + " is missing");
    else if (found->second.dtype != spec.dtype ||
             found->second.shape != spec.shape)
      report("tensor " + quoteJson(spec.name) + " is " +
             describe(found->second.dtype, found->second.shape) +
             " but the program's parameter is " +
             describe(spec.dtype, spec.shape));
  }
  for (const auto &entry : tensors) {
    size_t index;
    if (!findParam(entry.first, index).isOk())
      report("tensor " + quoteJson(entry.first) +
             " is not a parameter of the program");
    else if (!manifest_.params[index].castOf.empty())
      report("tensor " + quoteJson(entry.first) +
             " is a working copy, which checkpoints leave out");
  }
  if (!problems.empty())
    return Status::error(MPC_FORMAT_ERROR, path + ": does not fit program " +
                                               quoteJson(manifest_.program) +
                                               ": " + problems);
  // Values last: a tensor of the wrong shape is reported as such.
  for (const ParamSpec &spec : manifest_.params)
    if (spec.castOf.empty())
      if (std::string problem = describeBadValues(spec, tensors[spec.name].bytes.data());
          !problem.empty())
        return Status::error(MPC_FORMAT_ERROR, path + ": tensor " + problem);
  for (const ParamSpec &spec : manifest_.params) {
    if (!spec.castOf.empty())
      continue;
    const HostTensor &tensor = tensors[spec.name];
    if (Status status = backend_->write(spec.buffer, tensor.bytes.data(),
                                        tensor.bytes.size());
        !status.isOk())
      return status;
  }
  return refreshWorkingCopies("");
}

} // namespace mpc::rt
