//===- BackendCheck.cpp - a device's results against the CPU backend's -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "BackendCheck.h"

#include "Elements.h"
#include "StepRunner.h"
#include "mpc/format/Json.h"
#include "mpc/format/Safetensors.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace mpc::bench {

namespace {

constexpr uint64_t kSeed = 11;
constexpr int kBatches = 8;

struct Tolerances {
  double forward, update, curve;
};

/// fp32's curve tolerance is ten times its update tolerance: training
/// amplifies a step's rounding, slowly at first and then by about ten times
/// every four steps near the end of the wide MLP's 40 (SGD with momentum at
/// lr 0.05 on random labels, on an H200: 1.9e-6 at step 28, 3.7e-4 at step
/// 36 and 1.08e-3 at step 38, counting from 0, with every single-step
/// update within 2e-5).
Tolerances tolerancesFor(const std::string &precision) {
  if (precision == "fp32")
    return {1e-4, 1e-3, 1e-2};
  return {3e-2, 5e-2, 5e-2};
}

/// The floor of the gradients' comparison, as a fraction of the model's
/// largest gradient: a gradient's error is measured against the larger of
/// its own largest magnitude and this (see relativeError), and Adam's
/// update is compared where the gradient is at least this.
constexpr double kGradientFloor = 1e-2;

/// A tensor's elements as doubles.
std::vector<double> widened(const rt::TensorSpec &spec, const std::vector<uint8_t> &bytes) {
  size_t count = bytes.size() / rt::dtypeSize(spec.dtype);
  std::vector<double> values(count);
  switch (spec.dtype) {
  case rt::DType::F16:
  case rt::DType::BF16:
  case rt::DType::F32:
  case rt::DType::F64:
    rt::widenElements(spec.dtype, bytes.data(), values.data(), count);
    break;
  case rt::DType::I32:
    for (size_t i = 0; i < count; ++i)
      values[i] = reinterpret_cast<const int32_t *>(bytes.data())[i];
    break;
  case rt::DType::I64:
    for (size_t i = 0; i < count; ++i)
      values[i] = static_cast<double>(reinterpret_cast<const int64_t *>(bytes.data())[i]);
    break;
  case rt::DType::Bool:
    for (size_t i = 0; i < count; ++i)
      values[i] = bytes[i];
    break;
  }
  return values;
}

/// The largest |x| of the finite elements of `values`.
double largestMagnitude(const std::vector<double> &values) {
  double largest = 0;
  for (double x : values)
    if (std::isfinite(x))
      largest = std::max(largest, std::abs(x));
  return largest;
}

rt::Status readTensor(rt::Program &program, const rt::TensorSpec &spec, bool isOutput,
                      std::vector<uint8_t> &out) {
  out.assign(rt::tensorBytes(spec.dtype, spec.shape), 0);
  return isOutput ? program.getOutput(spec.name, out.data(), out.size())
                  : program.getParam(spec.name, out.data(), out.size());
}

/// Throws the message of a failed status out of a comparison.
struct Failed {
  std::string message;
};

void require(const rt::Status &status) {
  if (!status.isOk())
    throw Failed{status.message()};
}

/// A case's float64 reference (no tensors when it has none), and which of
/// its tensors the comparisons used: checkCase fails a case with a tensor
/// left unused, which would be a check silently not made.
struct Reference {
  std::map<std::string, rt::HostTensor> tensors;
  std::set<std::string> used;

  const rt::HostTensor *find(const std::string &name) {
    auto found = tensors.find(name);
    if (found == tensors.end())
      return nullptr;
    used.insert(name);
    return &found->second;
  }
};

/// `bundle` loaded for `device` with the case's weights.
std::unique_ptr<rt::Program> loadCase(const CheckCase &check, const std::string &bundle,
                                      const std::string &device) {
  std::unique_ptr<rt::Program> program;
  require(loadProgram(bundle, device, kSeed, program));
  if (!check.weights.empty())
    require(setWeights(*program, check.weights));
  return program;
}

/// The batch of the forward and update comparisons: the reference's inputs
/// where it has them, else synthetic ones.
Batch firstBatch(const rt::Manifest &manifest, Reference &reference) {
  Batch batch = syntheticBatches(manifest, 1, kSeed).front();
  for (size_t i = 0; i < manifest.inputs.size(); ++i) {
    const rt::TensorSpec &input = manifest.inputs[i];
    const rt::HostTensor *given = reference.find("input." + input.name);
    if (!given)
      continue;
    if (given->dtype != input.dtype || given->shape != input.shape)
      throw Failed{"the float64 reference's input." + input.name + " is " +
                   rt::dtypeName(given->dtype) + rt::formatShape(given->shape) +
                   ", the program's input " + rt::dtypeName(input.dtype) +
                   rt::formatShape(input.shape)};
    batch[i] = given->bytes;
  }
  return batch;
}

void compareForward(const CheckCase &check, const CheckOptions &options, const Tolerances &tol,
                    Reference &reference, CaseReport &report) {
  std::unique_ptr<rt::Program> cpu = loadCase(check, check.forwardBundle, "cpu");
  std::unique_ptr<rt::Program> device = loadCase(check, check.forwardBundle, options.device);
  Batch batch = firstBatch(cpu->manifest(), reference);
  require(runBatch(*cpu, batch));
  require(runBatch(*device, batch));
  std::vector<Measure> againstFloat64;
  for (const rt::TensorSpec &output : cpu->manifest().outputs) {
    std::vector<uint8_t> a, b;
    require(readTensor(*cpu, output, true, a));
    require(readTensor(*device, output, true, b));
    std::vector<double> expected = widened(output, a), actual = widened(output, b);
    report.measures.push_back({"forward output " + output.name, relativeError(expected, actual),
                               tol.forward, expected.size()});
    if (const rt::HostTensor *exact = reference.find("forward." + output.name)) {
      std::vector<double> values = rt::floatValues(*exact);
      againstFloat64.push_back({"forward output " + output.name + " against float64",
                                relativeError(values, actual), tol.forward, values.size()});
    }
  }
  report.measures.insert(report.measures.end(), againstFloat64.begin(), againstFloat64.end());
}

/// One parameter's comparison after the first training step: `cpu` and
/// `device` are what is compared, `what` names it.
struct GradientMeasure {
  std::string what;
  std::vector<double> cpu, device;
};

/// The training step's gradients, on the CPU and on the device. A
/// parameter's first update is compared where it is linear in the gradient
/// (SGD, with or without momentum: -lr g, plus weight decay). Adam's is
/// not: it moves every weight by about lr sign(g), so where a gradient is
/// zero but for rounding (a key projection's bias, whose gradient the
/// softmax makes exactly zero; or a weight whose summands cancel) rounding
/// decides the update's sign. For the Adam family the first moment is
/// compared instead ((1 - beta1) g after one step: the gradient itself),
/// and the update only where the gradient is above the floor below, where
/// its sign is not in doubt. Every gradient is measured against at least
/// kGradientFloor of the model's largest one, so that a gradient of
/// rounding noise is not held to a relative tolerance. A parameter whose
/// gradient is below the floor everywhere (the key projection's bias) has
/// no update measure, since it would compare nothing; its gradient's
/// measure says so.
void compareUpdate(const CheckCase &check, const CheckOptions &options, const Tolerances &tol,
                   Reference &reference, CaseReport &report) {
  std::unique_ptr<rt::Program> cpu = loadCase(check, check.trainBundle, "cpu");
  std::unique_ptr<rt::Program> device = loadCase(check, check.trainBundle, options.device);
  const rt::Manifest &manifest = cpu->manifest();
  std::vector<std::vector<uint8_t>> before;
  for (const rt::ParamSpec &param : manifest.params) {
    std::vector<uint8_t> bytes;
    require(readTensor(*cpu, param, false, bytes));
    before.push_back(std::move(bytes));
  }
  Batch batch = firstBatch(manifest, reference);
  require(runBatch(*cpu, batch));
  require(runBatch(*device, batch));
  auto after = [&](rt::Program &program, const rt::ParamSpec &param) {
    std::vector<uint8_t> bytes;
    require(readTensor(program, param, false, bytes));
    return widened(param, bytes);
  };
  // Per parameter: what is compared as its gradient, and for Adam its
  // update.
  std::vector<GradientMeasure> gradients, exactUpdates;
  std::vector<std::optional<GradientMeasure>> adamUpdates;
  for (size_t i = 0; i < manifest.params.size(); ++i) {
    const rt::ParamSpec &param = manifest.params[i];
    if (!param.trainable || param.state || !param.castOf.empty())
      continue;
    std::vector<double> start = widened(param, before[i]);
    GradientMeasure update{"update of " + param.name, after(*cpu, param), after(*device, param)};
    for (size_t j = 0; j < start.size(); ++j) {
      update.cpu[j] -= start[j];
      update.device[j] -= start[j];
    }
    const rt::ParamSpec *moment = nullptr;
    for (const rt::ParamSpec &state : manifest.params)
      if (state.state && state.name == param.name + ".exp_avg")
        moment = &state;
    if (const rt::HostTensor *exact = reference.find("update." + param.name)) {
      if (moment)
        throw Failed{"the float64 reference holds SGD updates, but " + param.name +
                     " is trained by the Adam family"};
      exactUpdates.push_back(
          {"update of " + param.name + " against float64", rt::floatValues(*exact), update.device});
    }
    if (!moment) {
      gradients.push_back(std::move(update));
      adamUpdates.push_back(std::nullopt);
      continue;
    }
    gradients.push_back({"gradient of " + param.name + " (Adam's first moment)",
                         after(*cpu, *moment), after(*device, *moment)});
    update.what += " where |gradient| >= the floor";
    adamUpdates.push_back(std::move(update));
  }
  double largest = 0;
  for (const GradientMeasure &g : gradients)
    largest = std::max(largest, largestMagnitude(g.cpu));
  const double gradientFloor = kGradientFloor * largest;
  std::vector<Measure> updateMeasures;
  for (size_t i = 0; i < gradients.size(); ++i) {
    Measure gradient{gradients[i].what,
                     relativeError(gradients[i].cpu, gradients[i].device, gradientFloor),
                     tol.update, gradients[i].cpu.size()};
    if (adamUpdates[i]) {
      const GradientMeasure &update = *adamUpdates[i];
      std::vector<double> cpuKept, deviceKept;
      for (size_t j = 0; j < update.cpu.size(); ++j)
        if (!(std::abs(gradients[i].cpu[j]) < gradientFloor)) { // NaN is kept
          cpuKept.push_back(update.cpu[j]);
          deviceKept.push_back(update.device[j]);
        }
      if (cpuKept.empty() && !update.cpu.empty())
        gradient.what += ", below the floor everywhere: its update is not compared";
      else
        updateMeasures.push_back(
            {update.what, relativeError(cpuKept, deviceKept), tol.update, cpuKept.size()});
    }
    report.measures.push_back(std::move(gradient));
  }
  report.measures.insert(report.measures.end(), updateMeasures.begin(), updateMeasures.end());
  // Against float64, each update measured against at least the floor of
  // the reference's largest.
  double largestExact = 0;
  for (const GradientMeasure &exact : exactUpdates)
    largestExact = std::max(largestExact, largestMagnitude(exact.cpu));
  for (const GradientMeasure &exact : exactUpdates)
    report.measures.push_back(
        {exact.what, relativeError(exact.cpu, exact.device, kGradientFloor * largestExact),
         tol.update, exact.cpu.size()});
}

void compareCurve(const CheckCase &check, const CheckOptions &options, const Tolerances &tol,
                  CaseReport &report) {
  std::unique_ptr<rt::Program> cpu = loadCase(check, check.trainBundle, "cpu");
  std::unique_ptr<rt::Program> device = loadCase(check, check.trainBundle, options.device);
  std::vector<Batch> batches = syntheticBatches(cpu->manifest(), kBatches, kSeed);
  report.steps = options.curveSteps;
  for (int step = 0; step < options.curveSteps; ++step) {
    require(runBatch(*cpu, batches[step % kBatches]));
    require(runBatch(*device, batches[step % kBatches]));
  }
  rt::BackendStats stats = device->stats();
  report.graphLaunches = stats.graphLaunches;
  report.hostSyncsInLoop = stats.hostSyncs;
  double worst = 0;
  for (int step = 0; step < options.curveSteps; ++step) {
    float a = 0, b = 0;
    require(telemetryScalar(*cpu, step, "loss", a));
    require(telemetryScalar(*device, step, "loss", b));
    report.cpuLosses.push_back(a);
    report.deviceLosses.push_back(b);
    // A loss that is not finite on the CPU is a broken reference, not an
    // agreement, even where the device's is NaN too.
    double error = std::isfinite(a) && std::isfinite(b)
                       ? std::abs(double(a) - b) / std::max(std::abs(double(a)), 1e-3)
                       : INFINITY;
    worst = std::max(worst, error);
  }
  report.measures.push_back({"loss curve over " + std::to_string(options.curveSteps) + " steps",
                             worst, tol.curve, report.cpuLosses.size()});
  if (options.device != "cpu") {
    report.measures.push_back(
        {"graph launches per step minus one",
         std::abs(double(report.graphLaunches) / std::max(options.curveSteps, 1) - 1.0), 0.0, 1});
    report.measures.push_back(
        {"host syncs in the training loop", double(report.hostSyncsInLoop), 0.0, 1});
  }
}

std::string number(double value) {
  if (!std::isfinite(value))
    return "null";
  std::ostringstream os;
  os.precision(9);
  os << value;
  return os.str();
}

} // namespace

double relativeError(const std::vector<double> &cpu, const std::vector<double> &device,
                     double floor) {
  if (cpu.size() != device.size())
    return INFINITY;
  double scale = floor, worst = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    if (!std::isfinite(cpu[i]) || !std::isfinite(device[i])) {
      // Equal only as NaN and NaN, or as the same infinity.
      if (std::isnan(cpu[i]) ? !std::isnan(device[i]) : cpu[i] != device[i])
        return INFINITY;
      continue;
    }
    scale = std::max(scale, std::abs(cpu[i]));
    worst = std::max(worst, std::abs(cpu[i] - device[i]));
  }
  return worst / std::max(scale, 1e-30);
}

bool CaseReport::passed() const {
  return error.empty() &&
         std::all_of(measures.begin(), measures.end(), [](const Measure &m) { return m.passed(); });
}

CaseReport checkCase(const CheckCase &check, const CheckOptions &options) {
  CaseReport report;
  report.name = check.name;
  report.precision = check.precision;
  Tolerances tol = tolerancesFor(check.precision);
  Reference reference;
  try {
    if (!check.reference.empty())
      require(rt::readSafetensors(check.reference, reference.tensors, nullptr));
    if (!check.forwardBundle.empty())
      compareForward(check, options, tol, reference, report);
    compareUpdate(check, options, tol, reference, report);
    compareCurve(check, options, tol, report);
  } catch (const Failed &failed) {
    report.error = failed.message;
    return report;
  }
  for (const auto &entry : reference.tensors)
    if (!reference.used.count(entry.first)) {
      report.error = check.reference + ": tensor \"" + entry.first +
                     "\" matches no input, output or SGD-trained parameter of the model, "
                     "so it would not be compared";
      break;
    }
  return report;
}

std::string reportJson(const std::string &device, const std::vector<CaseReport> &reports) {
  bool all = std::all_of(reports.begin(), reports.end(),
                         [](const CaseReport &r) { return r.passed(); });
  std::ostringstream os;
  os << "{\"device\": " << rt::quoteJson(device) << ", \"passed\": " << (all ? "true" : "false")
     << ", \"cases\": [";
  for (size_t i = 0; i < reports.size(); ++i) {
    const CaseReport &r = reports[i];
    os << (i ? ", " : "") << "{\"name\": " << rt::quoteJson(r.name)
       << ", \"precision\": " << rt::quoteJson(r.precision)
       << ", \"passed\": " << (r.passed() ? "true" : "false");
    if (!r.error.empty())
      os << ", \"error\": " << rt::quoteJson(r.error);
    os << ", \"measures\": [";
    for (size_t j = 0; j < r.measures.size(); ++j)
      os << (j ? ", " : "") << "{\"what\": " << rt::quoteJson(r.measures[j].what)
         << ", \"error\": " << number(r.measures[j].error)
         << ", \"tolerance\": " << number(r.measures[j].tolerance)
         << ", \"elements\": " << r.measures[j].elements
         << ", \"passed\": " << (r.measures[j].passed() ? "true" : "false") << "}";
    os << "], \"steps\": " << r.steps << ", \"graph_launches\": " << r.graphLaunches
       << ", \"host_syncs_in_loop\": " << r.hostSyncsInLoop << ", \"cpu_losses\": [";
    for (size_t j = 0; j < r.cpuLosses.size(); ++j)
      os << (j ? ", " : "") << number(r.cpuLosses[j]);
    os << "], \"device_losses\": [";
    for (size_t j = 0; j < r.deviceLosses.size(); ++j)
      os << (j ? ", " : "") << number(r.deviceLosses[j]);
    os << "]}";
  }
  os << "]}\n";
  return os.str();
}

rt::Status readModelList(const std::string &path, std::vector<CheckCase> &out) {
  std::ifstream file(path);
  if (!file)
    return rt::Status::error(MPC_NOT_FOUND, path + ": cannot read the model list");
  std::string folder = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  std::vector<CheckCase> cases;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.empty() || line[0] == '#')
      continue;
    std::vector<std::string> fields;
    std::istringstream stream(line);
    for (std::string field; std::getline(stream, field, '\t');)
      fields.push_back(field);
    if (fields.size() != 4 && fields.size() != 6)
      return rt::Status::error(MPC_FORMAT_ERROR,
                               path + ":" + std::to_string(number) +
                                   ": expected NAME, PRECISION, TRAIN and FORWARD, optionally "
                                   "then WEIGHTS and REFERENCE, separated by tabs");
    auto resolve = [&](const std::string &file) {
      return file.empty() || file == "-" ? std::string() : folder + "/" + file;
    };
    fields.resize(6);
    cases.push_back({fields[0], fields[1], resolve(fields[2]), resolve(fields[3]),
                     resolve(fields[4]), resolve(fields[5])});
  }
  if (cases.empty())
    return rt::Status::error(MPC_FORMAT_ERROR,
                             path + ": lists no model, so the GPU tests would check nothing");
  out = std::move(cases);
  return rt::Status();
}

} // namespace mpc::bench
