//===- RunCommand.cpp - `mpc run` -------------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Loads a bundle with the runtime's C API (or compiles an .onnx model's
// forward step into a temporary one, its parameters from the model's
// initializers), binds inputs from .npy files by name, runs one step and
// writes outputs as .npy files (or safetensors files, which keep bf16).
// Shapes and dtypes are checked against the program and mismatches are
// reported by name; an integer input also takes another integer type's file
// when every value fits (NumPy's and PyTorch's indices are int64).
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/Compile.h"
#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"
#include "compiler/Driver/ImportOptions.h"

#include "mpc/format/HostTensor.h"
#include "mpc/format/Npy.h"
#include "mpc/format/Safetensors.h"

#include "mpc/runtime.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>

using namespace mpc::driver;
namespace rt = mpc::rt;

namespace {

/// The program's inputs, outputs or parameters by name.
std::map<std::string, mpc_tensor_info>
describe(const mpc_program *program, size_t (*count)(const mpc_program *),
         mpc_status_code (*info)(const mpc_program *, size_t, mpc_tensor_info *)) {
  std::map<std::string, mpc_tensor_info> result;
  for (size_t i = 0, e = count(program); i < e; ++i) {
    mpc_tensor_info tensor;
    if (info(program, i, &tensor) == MPC_OK)
      result[tensor.name] = tensor;
  }
  return result;
}

std::string names(const std::map<std::string, mpc_tensor_info> &tensors) {
  std::vector<std::string> list;
  for (const auto &entry : tensors)
    list.push_back(entry.first);
  return llvm::join(list, ", ");
}

/// Whether an output goes to a safetensors file (by the file's extension)
/// rather than a .npy one: safetensors keeps every dtype, .npy has no bf16.
bool isSafetensorsFile(llvm::StringRef file) { return file.ends_with(".safetensors"); }

/// Splits NAME=PATH.
bool splitBinding(const std::string &text, std::string &name, std::string &path) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return false;
  name = text.substr(0, eq);
  path = text.substr(eq + 1);
  return true;
}

int fail(const std::string &message) {
  reportError(message);
  return kExitError;
}

bool isIntegerType(rt::DType dtype) { return dtype == rt::DType::I32 || dtype == rt::DType::I64; }

/// `tensor`'s integers as `to` (i32 or i64); false when a value does not fit.
bool convertIntegers(rt::HostTensor &tensor, rt::DType to) {
  if (tensor.dtype == to)
    return true;
  size_t count = tensor.numElements();
  std::vector<int64_t> values(count);
  for (size_t i = 0; i < count; ++i) {
    if (tensor.dtype == rt::DType::I64) {
      std::memcpy(&values[i], tensor.bytes.data() + 8 * i, 8);
    } else {
      int32_t v;
      std::memcpy(&v, tensor.bytes.data() + 4 * i, 4);
      values[i] = v;
    }
  }
  size_t width = to == rt::DType::I64 ? 8 : 4;
  std::vector<uint8_t> bytes(count * width);
  for (size_t i = 0; i < count; ++i) {
    if (width == 8) {
      std::memcpy(bytes.data() + 8 * i, &values[i], 8);
      continue;
    }
    if (values[i] < INT32_MIN || values[i] > INT32_MAX)
      return false;
    int32_t v = static_cast<int32_t>(values[i]);
    std::memcpy(bytes.data() + 4 * i, &v, 4);
  }
  tensor.bytes = std::move(bytes);
  tensor.dtype = to;
  return true;
}

/// The bundle that `mpc run SOURCE` loads: SOURCE itself, or an .onnx
/// model's forward step compiled into `dir` (its initializers into
/// `weights`). Returns an exit code on failure.
std::optional<int> prepareBundle(const ArgParser &parser, const std::string &source,
                                 llvm::SmallString<128> &dir, std::string &bundle,
                                 mpc::ModelWeights &weights) {
  bool onnx = isOnnxFile(source);
  for (const char *option :
       {"batch", "dim", "loss", "optimizer", "freeze", "constant", "precision"})
    if (!onnx && parser.isSet(option)) {
      reportError(llvm::Twine("--") + option + " applies to .onnx models; '" + source +
                  "' is a bundle");
      return kExitUsage;
    }
  if (!onnx) {
    bundle = source;
    return std::nullopt;
  }
  mpc::OnnxImportOptions import;
  if (!readImportOptions(parser, /*training=*/false, import))
    return kExitUsage;
  mpc::CompileOptions options;
  options.trainingStep = false;
  options.precision.mode = parser.get("precision").value_or("fp32");
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("mpc-run", dir)) {
    reportError("cannot create a temporary directory: " + ec.message());
    return kExitError;
  }
  bundle = (dir + "/forward.mpcb").str();
  if (int code = compileGraphFile(source, options, bundle, &import, &weights))
    return code;
  return std::nullopt;
}

} // namespace

int mpc::driver::runRunCommand(llvm::ArrayRef<std::string> args) {
  ArgParser parser("run",
                   "mpc run BUNDLE|MODEL.onnx --input NAME=FILE.npy ... [--output NAME=FILE.npy "
                   "...]",
                   "Loads a bundle (or compiles an .onnx model's forward step), binds every input "
                   "from a\n.npy file, runs one step and writes the requested outputs as .npy "
                   "files (all outputs\nare summarised when none is requested). Parameters start "
                   "from their initializers\n(--seed; an .onnx model's own values) or from a "
                   "safetensors file (--params).");
  parser.setPositionals("BUNDLE|MODEL.onnx",
                        "a bundle written by mpc compile, or an ONNX model (its forward step)", 1,
                        1);
  parser.addOption({"input", 'i', "NAME=FILE", "bind input NAME to a .npy file", "", {}, true});
  parser.addOption({"output", 'o', "NAME=FILE",
                    "write output NAME to a .npy file, or to a .safetensors file (one tensor, "
                    "named NAME) to keep a bf16 output's values",
                    "", {}, true});
  parser.addOption({"params", 0, "FILE",
                    "load parameters and state from a safetensors file, e.g. a checkpoint of "
                    "mpc train (its optimizer state is skipped when the program has none)",
                    "", {}});
  parser.addOption({"save-params", 0, "FILE",
                    "after the step, write parameters and state to a safetensors file (a "
                    "training step updates them)",
                    "", {}});
  parser.addOption({"seed", 0, "N", "seed of the parameter initializers", "0", {}});
  addDeviceOption(parser, "where to run");
  parser.addOption({"precision",
                    0,
                    "MODE",
                    "an .onnx model: fp32, or fp16/bf16 mixed precision as mpc compile's",
                    "",
                    {"fp32", "fp16", "bf16"}});
  addImportOptions(parser, /*training=*/false);
  if (std::optional<int> code = parseCommandLine(parser, args))
    return *code;
  uint64_t seed = 0;
  if (!readIntegerOption(parser, "seed", seed))
    return kExitUsage;

  std::string device;
  if (int code = resolveDeviceOption(parser, device))
    return code;
  const std::string &source = parser.positionals().front();
  llvm::SmallString<128> dir;
  auto cleanup = llvm::make_scope_exit([&] {
    if (!dir.empty())
      llvm::sys::fs::remove_directories(dir);
  });
  std::string bundle;
  mpc::ModelWeights weights;
  if (std::optional<int> code = prepareBundle(parser, source, dir, bundle, weights))
    return *code;
  ProgramHandle owner = loadProgram(bundle, device, seed);
  if (!owner)
    return kExitError;
  mpc_program *program = owner.get();

  if (auto params = parser.get("params"); params && !params->empty()) {
    if (llvm::Error error = setParamsFromCheckpoint(program, *params))
      return fail(llvm::toString(std::move(error)));
  } else if (!weights.empty()) {
    if (llvm::Error error = setWeights(program, weights, "model '" + source + "'"))
      return fail(llvm::toString(std::move(error)));
  }

  auto inputs = describe(program, mpc_program_input_count, mpc_program_input_info);
  auto outputs = describe(program, mpc_program_output_count, mpc_program_output_info);
  std::map<std::string, bool> bound;
  for (const std::string &binding : parser.getAll("input")) {
    std::string name, file;
    if (!splitBinding(binding, name, file)) {
      reportError("--input expects NAME=FILE.npy, got '" + binding + "'");
      return kExitUsage;
    }
    auto it = inputs.find(name);
    if (it == inputs.end())
      return fail("the program has no input '" + name + "' (its inputs: " + names(inputs) + ")");
    if (bound.count(name)) {
      reportError("--input " + binding + ": input '" + name + "' is already bound");
      return kExitUsage;
    }
    rt::HostTensor tensor;
    if (rt::Status status = rt::readNpy(file, tensor); !status.isOk())
      return fail(status.message());
    const mpc_tensor_info &info = it->second;
    std::vector<int64_t> expected(info.shape, info.shape + info.rank);
    std::string held = std::string(rt::dtypeName(tensor.dtype)) + rt::formatShape(tensor.shape);
    for (rt::DType integer : {rt::DType::I32, rt::DType::I64})
      if (info.dtype == std::string(rt::dtypeName(integer)) && isIntegerType(tensor.dtype) &&
          !convertIntegers(tensor, integer))
        return fail("input '" + name + "' is " + info.dtype + ", and " + file +
                    " holds a value outside its range");
    if (std::string(rt::dtypeName(tensor.dtype)) != info.dtype || tensor.shape != expected)
      return fail("input '" + name + "' expects " + describeTensor(info) + ", but " + file +
                  " holds " + held);
    if (mpc_program_set_input(program, name.c_str(), tensor.bytes.data(), tensor.bytes.size()) !=
        MPC_OK)
      return fail(mpc_last_error());
    bound[name] = true;
  }
  for (const auto &[name, info] : inputs)
    if (!bound.count(name))
      return fail("input '" + name + "' (" + describeTensor(info) +
                  ") is not bound; pass --input " + name + "=FILE.npy");

  // Every --output checked before anything runs or is written: a wrong one
  // fails the command with no file replaced.
  std::vector<std::pair<std::string, std::string>> requested;
  std::map<std::string, std::string> outputOfFile;
  for (const std::string &binding : parser.getAll("output")) {
    std::string name, file;
    if (!splitBinding(binding, name, file)) {
      reportError("--output expects NAME=FILE.npy or NAME=FILE.safetensors, got '" + binding +
                  "'");
      return kExitUsage;
    }
    if (!outputs.count(name))
      return fail("the program has no output '" + name + "' (its outputs: " + names(outputs) +
                  ")");
    if (std::string(outputs.at(name).dtype) == "bf16" && !isSafetensorsFile(file)) {
      reportError("--output " + name + "=" + file + ": output '" + name +
                  "' is bf16, which NumPy has no dtype for; name a .safetensors file instead");
      return kExitUsage;
    }
    if (auto [it, added] = outputOfFile.try_emplace(file, name); !added) {
      reportError("--output " + name + "=" + file + ": '" + file + "' is already the file of " +
                  "output '" + it->second + "'");
      return kExitUsage;
    }
    requested.emplace_back(name, file);
  }

  if (mpc_program_run(program) != MPC_OK)
    return fail(mpc_last_error());
  if (auto save = parser.get("save-params"); save && !save->empty())
    if (mpc_program_save_params(program, save->c_str()) != MPC_OK)
      return fail(mpc_last_error());

  auto readOutput = [&](const mpc_tensor_info &info, rt::HostTensor &tensor) -> bool {
    tensor.shape.assign(info.shape, info.shape + info.rank);
    tensor.bytes.resize(info.bytes);
    for (rt::DType dtype : {rt::DType::F16, rt::DType::BF16, rt::DType::F32, rt::DType::F64,
                            rt::DType::I32, rt::DType::I64, rt::DType::Bool})
      if (std::string(rt::dtypeName(dtype)) == info.dtype)
        tensor.dtype = dtype;
    return mpc_program_get_output(program, info.name, tensor.bytes.data(), info.bytes) == MPC_OK;
  };

  for (const auto &[name, file] : requested) {
    rt::HostTensor tensor;
    if (!readOutput(outputs.at(name), tensor))
      return fail(mpc_last_error());
    rt::Status status = isSafetensorsFile(file) ? rt::writeSafetensors(file, {{name, tensor}}, {})
                                                : rt::writeNpy(file, tensor);
    if (!status.isOk())
      return fail(status.message());
  }
  if (requested.empty()) {
    // A summary: each output's type, and the value of scalar outputs.
    for (const auto &[name, info] : outputs) {
      llvm::outs() << name << ": " << describeTensor(info);
      rt::HostTensor tensor;
      if (info.rank == 0 && readOutput(info, tensor)) {
        if (tensor.dtype == rt::DType::F32) {
          float v;
          std::memcpy(&v, tensor.bytes.data(), sizeof v);
          llvm::outs() << " = " << v;
        } else if (tensor.dtype == rt::DType::F64) {
          double v;
          std::memcpy(&v, tensor.bytes.data(), sizeof v);
          llvm::outs() << " = " << v;
        }
      }
      llvm::outs() << "\n";
    }
  }
  return kExitOk;
}
