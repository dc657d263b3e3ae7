//===- Driver.cpp - the mpc command-line driver ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Driver.h"

#include "compiler/Compile/Compile.h"
#include "compiler/Driver/ArgParser.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include "mpc/runtime.h"

#include "mpc/format/HostTensor.h"
#include "mpc/format/Safetensors.h"

#include <cstring>
#include <fstream>
#include <map>
#include <set>

using namespace mpc::driver;

namespace {
struct Command {
  const char *name;
  const char *summary;
  int (*run)(llvm::ArrayRef<std::string>);
};

const Command kCommands[] = {
    {"compile", "compile a training graph into a bundle (or an intermediate form)",
     runCompileCommand},
    {"import", "translate an ONNX model into a graph and a weights file", runImportCommand},
    {"train", "train a graph on a dataset on the CPU and evaluate it", runTrainCommand},
    {"run", "run one step of a bundle on inputs from .npy files", runRunCommand},
    {"report", "show the kernels and the memory plan of a compiled graph", runReportCommand},
    {"generate", "sample text from a character language model trained by mpc train",
     runGenerateCommand},
    {"plot", "draw training logs: loss curves, loss scale, gradient histograms (SVG, PNG)",
     runPlotCommand},
};
} // namespace

void mpc::driver::reportError(const llvm::Twine &message) {
  llvm::errs() << "mpc: ";
  llvm::WithColor::error(llvm::errs(), "", /*DisableColors=*/false);
  llvm::errs() << message << "\n";
}

void mpc::driver::reportCompileError(llvm::Error error) {
  llvm::handleAllErrors(
      std::move(error), [](const mpc::DiagnosedError &) {},
      [](const llvm::ErrorInfoBase &other) { reportError(other.message()); });
}

llvm::Error mpc::driver::lastRuntimeError() { return llvm::createStringError(mpc_last_error()); }

std::optional<int> mpc::driver::parseCommandLine(ArgParser &parser,
                                                 llvm::ArrayRef<std::string> args) {
  std::string error;
  if (!parser.parse(args, error)) {
    reportError(error + "; run 'mpc " + parser.getCommand() + " --help' for usage");
    return kExitUsage;
  }
  if (parser.helpRequested()) {
    parser.printHelp(llvm::outs());
    return kExitOk;
  }
  return std::nullopt;
}

bool mpc::driver::readIntegerOption(const ArgParser &parser, llvm::StringRef name, uint64_t &out,
                                    uint64_t minimum) {
  std::string text = parser.get(name.str()).value_or("");
  if (!llvm::StringRef(text).getAsInteger(10, out) && out >= minimum)
    return true;
  reportError("--" + name + " expects " +
              (minimum == 0   ? std::string("a non-negative integer")
               : minimum == 1 ? std::string("a positive integer")
                              : "an integer >= " + std::to_string(minimum)) +
              ", got '" + text + "'");
  return false;
}

std::string mpc::driver::describeTensor(const mpc_tensor_info &info) {
  std::string text = std::string(info.dtype) + "[";
  for (size_t d = 0; d < info.rank; ++d)
    text += (d ? ", " : "") + std::to_string(info.shape[d]);
  return text + "]";
}

llvm::Error mpc::driver::setParamsFromCheckpoint(mpc_program *program, const std::string &path) {
  std::map<std::string, rt::HostTensor> tensors;
  if (rt::Status status = rt::readSafetensors(path, tensors, nullptr); !status.isOk())
    return llvm::createStringError(status.message());
  for (size_t i = 0, e = mpc_program_param_count(program); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(program, i, &info);
    if (info.flags & MPC_TENSOR_WORKING_COPY)
      continue; // follows its parameter
    auto it = tensors.find(info.name);
    std::vector<int64_t> shape(info.shape, info.shape + info.rank);
    if (it == tensors.end())
      return llvm::createStringError(path + " has no tensor '" + info.name + "' (" +
                                     describeTensor(info) + "), which the program needs");
    if (std::string(rt::dtypeName(it->second.dtype)) != info.dtype || it->second.shape != shape)
      return llvm::createStringError(path + ": tensor '" + info.name + "' is " +
                                     rt::dtypeName(it->second.dtype) +
                                     rt::formatShape(it->second.shape) +
                                     ", the program needs " + describeTensor(info));
    if (mpc_program_set_param(program, info.name, it->second.bytes.data(),
                              it->second.bytes.size()) != MPC_OK)
      return llvm::createStringError(mpc_last_error());
  }
  return llvm::Error::success();
}

llvm::Error mpc::driver::setWeights(mpc_program *program, const ModelWeights &weights,
                                    const std::string &from) {
  std::set<std::string> used;
  for (size_t i = 0, e = mpc_program_param_count(program); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_param_info(program, i, &info);
    if (info.flags & MPC_TENSOR_WORKING_COPY)
      continue; // (follows its parameter)
    auto it = weights.tensors.find(info.name);
    // (state, such as optimizer moments, starts as initialised unless the
    // weights hold it: a model's running statistics)
    if ((info.flags & MPC_TENSOR_STATE) && it == weights.tensors.end())
      continue;
    std::vector<int64_t> shape(info.shape, info.shape + info.rank);
    if (it == weights.tensors.end())
      return llvm::createStringError(from + " has no tensor '" + info.name + "' (" +
                                     describeTensor(info) + "), a parameter of the program");
    if (std::string(rt::dtypeName(it->second.dtype)) != info.dtype || it->second.shape != shape)
      return llvm::createStringError(
          from + ": tensor '" + info.name + "' is " + rt::dtypeName(it->second.dtype) +
          rt::formatShape(it->second.shape) + ", the program needs " + describeTensor(info));
    if (mpc_program_set_param(program, info.name, it->second.bytes.data(),
                              it->second.bytes.size()) != MPC_OK)
      return llvm::createStringError(mpc_last_error());
    used.insert(info.name);
  }
  for (const auto &[name, tensor] : weights.tensors)
    if (!used.count(name))
      return llvm::createStringError(from + " has a tensor '" + name +
                                     "' that is no parameter of the program");
  return llvm::Error::success();
}

void mpc::driver::addDeviceOption(ArgParser &parser, const char *help) {
  parser.addOption({"device", 0, "DEVICE",
                    std::string(help) +
                        ": cpu, cuda (the first GPU) or cuda:N (the N-th, from 0); cuda "
                        "needs an NVIDIA driver and a runtime built with the CUDA toolkit",
                    "cpu", {}});
}

int mpc::driver::resolveDeviceOption(const ArgParser &parser, std::string &device) {
  std::string value = parser.get("device").value_or("cpu");
  llvm::StringRef name(value);
  bool wellFormed = name == "cpu" || name == "cuda" ||
                    (name.consume_front("cuda:") && !name.empty() &&
                     llvm::all_of(name, [](char c) { return llvm::isDigit(c); }));
  if (!wellFormed) {
    reportError("--device expects cpu, cuda or cuda:N, got '" + value + "'");
    return kExitUsage;
  }
  if (mpc_device_check(value.c_str()) != MPC_OK) {
    reportError(mpc_last_error());
    return kExitNoDevice;
  }
  device = value;
  return kExitOk;
}

bool mpc::driver::isBundleFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  char head[8] = {};
  file.read(head, sizeof head);
  return file.gcount() == sizeof head && std::memcmp(head, "MPCBUNDL", sizeof head) == 0;
}

mpc::driver::ProgramHandle mpc::driver::loadProgram(const std::string &path,
                                                    const std::string &device, uint64_t seed) {
  mpc_program_options options;
  mpc_program_options_initialize(&options);
  options.device = device.c_str();
  options.seed = seed;
  mpc_program *program = nullptr;
  if (mpc_program_load(path.c_str(), &options, &program) != MPC_OK) {
    reportError(mpc_last_error());
    return ProgramHandle(nullptr, mpc_program_release);
  }
  return ProgramHandle(program, mpc_program_release);
}

DiagnosticPrinter::DiagnosticPrinter(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context)
    : located(sourceMgr, &context, llvm::errs()),
      unlocated(&context, [](mlir::Diagnostic &diag) -> mlir::LogicalResult {
        if (!llvm::isa<mlir::UnknownLoc>(diag.getLocation()))
          return mlir::failure(); // handled by `located`
        if (diag.getSeverity() == mlir::DiagnosticSeverity::Error) {
          reportError(diag.str());
        } else {
          llvm::errs() << "mpc: ";
          llvm::WithColor::warning(llvm::errs(), "", /*DisableColors=*/false);
          llvm::errs() << diag.str() << "\n";
        }
        return mlir::success();
      }) {}

static void printTopLevelHelp(llvm::raw_ostream &os) {
  os << "mpc - a mixed-precision training compiler\n\n"
        "Usage: mpc <command> [options] [arguments]\n\nCommands:\n";
  for (const Command &c : kCommands)
    os << "  " << llvm::left_justify(c.name, 10) << " " << c.summary << "\n";
  os << "\nRun 'mpc <command> --help' for the options of a command.\n\n"
        "Options:\n"
        "  -h, --help   show this help\n"
        "  --version    print the version\n\n"
        "Exit codes:\n"
        "  0  success\n"
        "  1  bad input (graph file, data) or a failure while compiling or running\n"
        "  2  bad command line\n"
        "  3  the device asked for (--device cuda) is not available on this machine\n";
}

int mpc::driver::runDriver(llvm::ArrayRef<std::string> args) {
  if (args.empty()) {
    printTopLevelHelp(llvm::errs());
    return kExitUsage;
  }
  const std::string &first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    if (first == "help" && args.size() > 1)
      return runDriver({args[1], "--help"});
    printTopLevelHelp(llvm::outs());
    return kExitOk;
  }
  if (first == "--version") {
    llvm::outs() << "mpc " << mpc_runtime_version() << "\n";
    return kExitOk;
  }
  for (const Command &c : kCommands)
    if (first == c.name)
      return c.run(args.drop_front());
  reportError("unknown command '" + first + "'; run 'mpc --help' for the list of commands");
  return kExitUsage;
}
