//===- Driver.cpp - the mpc command-line driver ---------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Driver.h"

#include "compiler/Driver/ArgParser.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include "mpc/runtime.h"

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
    {"train", "train a graph on a dataset on the CPU and evaluate it", runTrainCommand},
    {"run", "run one step of a bundle on inputs from .npy files", runRunCommand},
    {"report", "show the kernels and the memory plan of a compiled graph", runReportCommand},
};
} // namespace

void mpc::driver::reportError(const llvm::Twine &message) {
  llvm::errs() << "mpc: ";
  llvm::WithColor::error(llvm::errs(), "", /*DisableColors=*/false);
  llvm::errs() << message << "\n";
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
