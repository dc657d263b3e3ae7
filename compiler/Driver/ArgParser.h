//===- ArgParser.h - command-line parsing for the mpc driver ----*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A small, explicit parser for `mpc <command> [options] [files]`: each
// command declares its options with help text, defaults and allowed values,
// and the same declarations produce `--help` and the error messages. The
// driver does not use llvm::cl so that libLLVM's global options never leak
// into mpc's interface.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_ARGPARSER_H
#define MPC_COMPILER_DRIVER_ARGPARSER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mpc::driver {

/// One `--name VALUE` option or `--name` flag of a command.
struct OptionSpec {
  std::string name;                 // long name, without the dashes
  char shortName = 0;               // e.g. 'o' for -o, or 0
  std::string metavar;              // e.g. "FILE"; empty for a flag
  std::string help;
  std::string defaultValue;         // shown in --help; used when absent
  std::vector<std::string> choices; // allowed values; empty = any
  bool repeatable = false;          // may be given several times
};

/// Parses the arguments of one command.
class ArgParser {
public:
  ArgParser(std::string command, std::string usage, std::string summary)
      : command(std::move(command)), usage(std::move(usage)), summary(std::move(summary)) {}

  /// Declares an option taking a value.
  void addOption(OptionSpec spec);
  /// Declares a flag (an option without value).
  void addFlag(std::string name, std::string help);
  /// Declares the positional arguments: their name in help text, and bounds.
  void setPositionals(std::string metavar, std::string help, unsigned min, unsigned max);

  /// Parses `args` (without the program and command names). On failure,
  /// `error` says what is wrong in a sentence that names the option.
  bool parse(llvm::ArrayRef<std::string> args, std::string &error);

  /// The value of an option: given (the last one), else its default, else
  /// none.
  std::optional<std::string> get(llvm::StringRef name) const;
  /// Every value given for a repeatable option, in order.
  std::vector<std::string> getAll(llvm::StringRef name) const;
  bool isSet(llvm::StringRef name) const { return values.count(name.str()) != 0; }
  bool flag(llvm::StringRef name) const { return flags.count(name.str()) != 0; }
  const std::vector<std::string> &positionals() const { return positionalValues; }
  bool helpRequested() const { return wantsHelp; }

  void printHelp(llvm::raw_ostream &os) const;
  const std::string &getCommand() const { return command; }

private:
  /// The declared option nearest to `shown` ("--stpes" -> "--steps"), or "".
  std::string closestOption(llvm::StringRef shown) const;

  const OptionSpec *find(llvm::StringRef name) const;
  const OptionSpec *findShort(char shortName) const;

  std::string command, usage, summary;
  std::vector<OptionSpec> options;
  std::vector<std::pair<std::string, std::string>> flagSpecs;
  std::string positionalMetavar, positionalHelp;
  unsigned minPositionals = 0, maxPositionals = 0;

  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, bool> flags;
  std::vector<std::string> positionalValues;
  bool wantsHelp = false;
};

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_ARGPARSER_H
