//===- Driver.h - the mpc command-line driver -------------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_DRIVER_H
#define MPC_COMPILER_DRIVER_DRIVER_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include "compiler/Frontend/ModelWeights.h"
#include "mpc/format/HostTensor.h"
#include "mpc/runtime.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace mpc {
struct CompileOptions;
} // namespace mpc

namespace mpc {
struct OnnxImportOptions;
} // namespace mpc

namespace mpc::driver {

class ArgParser;

/// Exit codes of `mpc`, documented in `mpc --help` and the README.
enum ExitCode : int {
  kExitOk = 0,    ///< the command did what was asked
  kExitError = 1, ///< bad input (graph, file) or a failure while running it
  kExitUsage = 2, ///< the command line itself is wrong
  kExitNoDevice = 3, ///< the device asked for is not available on this machine
};

/// Runs `mpc ARGS...` (argv[0] excluded) and returns the exit code.
int runDriver(llvm::ArrayRef<std::string> args);

/// `mpc compile`: parse, verify and emit a graph.
int runCompileCommand(llvm::ArrayRef<std::string> args);

/// `mpc run`: one step of a bundle on .npy inputs.
int runRunCommand(llvm::ArrayRef<std::string> args);

/// `mpc train`: train a graph on a dataset and evaluate it.
int runTrainCommand(llvm::ArrayRef<std::string> args);

/// `mpc import`: an ONNX model into a graph and a weights file.
int runImportCommand(llvm::ArrayRef<std::string> args);

/// `mpc report`: the kernels and memory plan of a compiled graph.
int runReportCommand(llvm::ArrayRef<std::string> args);

/// `mpc generate`: sample text from a character language model.
int runGenerateCommand(llvm::ArrayRef<std::string> args);

/// `mpc plot`: draw the logs of training runs.
int runPlotCommand(llvm::ArrayRef<std::string> args);

/// Prints "mpc: error: MESSAGE" to stderr.
void reportError(const llvm::Twine &message);

/// Reports a failed compilation (compiler/Compile/Compile.h): a
/// DiagnosedError's diagnostics are printed already, anything else is
/// reported as an error.
void reportCompileError(llvm::Error error);

/// The runtime's last error (mpc_last_error) as an llvm::Error.
llvm::Error lastRuntimeError();

/// Parses a command's arguments with its `parser`: reports a wrong command
/// line (returning kExitUsage) or prints --help (returning kExitOk); returns
/// nothing when the command goes on.
std::optional<int> parseCommandLine(ArgParser &parser, llvm::ArrayRef<std::string> args);

/// Reads option `name` of a parsed command line (given, or its default) as
/// an integer of at least `minimum` into `out`; otherwise reports "--NAME
/// expects ..." and returns false (the command then exits with kExitUsage).
bool readIntegerOption(const ArgParser &parser, llvm::StringRef name, uint64_t &out,
                       uint64_t minimum = 0);

/// Reads the graph file `source` and compiles it into a bundle at
/// `bundlePath` (what mpc train and mpc generate do with a graph), printing
/// diagnostics as mpc compile does. Returns an exit code.
/// An .onnx `source` is imported with `onnx` first (its initializers'
/// values into `weights` when not null).
int compileGraphFile(const std::string &source, const mpc::CompileOptions &options,
                     const std::string &bundlePath, const OnnxImportOptions *onnx = nullptr,
                     ModelWeights *weights = nullptr);

/// Declares `--device cpu|cuda|cuda:N`.
void addDeviceOption(ArgParser &parser, const char *help);

/// The device of `--device`: kExitOk with `device` set when its form is
/// valid and this machine has it; otherwise reports why and returns the exit
/// code (kExitUsage for a malformed name, kExitNoDevice for a device that is
/// missing here).
int resolveDeviceOption(const ArgParser &parser, std::string &device);

/// Whether the file at `path` starts with the bundle magic (else a command
/// that takes GRAPH|BUNDLE reads it as a graph).
bool isBundleFile(const std::string &path);

/// A loaded program, released with it.
using ProgramHandle = std::unique_ptr<mpc_program, void (*)(mpc_program *)>;

/// Loads the bundle at `path` for `device`, its initializers seeded with
/// `seed`; on failure reports the runtime's error and returns null.
ProgramHandle loadProgram(const std::string &path, const std::string &device, uint64_t seed);

/// Sets every parameter and piece of state of `program` from the safetensors
/// file at `path` (working copies follow their parameters); tensors the
/// program lacks, such as a training checkpoint's optimizer state in a
/// forward program, are skipped. Errors name the file and the tensor.
llvm::Error setParamsFromCheckpoint(mpc_program *program, const std::string &path);

/// Sets every parameter of `program` (not its state) from `weights` by
/// name: the weights-only file of `--init` or an imported model's
/// initializers. A missing, extra or mismatched tensor is an error naming
/// `from` and the tensor; optimizer state and step counters keep their
/// initial values.
llvm::Error setWeights(mpc_program *program, const ModelWeights &weights, const std::string &from);

/// "f32[64, 10]".
std::string describeTensor(const mpc_tensor_info &info);

/// Prints the diagnostics of a compilation to stderr: located ones as
/// FILE:LINE:COL: error: MESSAGE with the source line, unlocated ones as
/// mpc: error: MESSAGE.
class DiagnosticPrinter {
public:
  DiagnosticPrinter(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &context);

private:
  mlir::SourceMgrDiagnosticHandler located;
  mlir::ScopedDiagnosticHandler unlocated;
};

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_DRIVER_H
