//===- ArgParser.cpp - command-line parsing for the mpc driver ------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/ArgParser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace mpc::driver;

void ArgParser::addOption(OptionSpec spec) { options.push_back(std::move(spec)); }

void ArgParser::addFlag(std::string name, std::string help) {
  flagSpecs.emplace_back(std::move(name), std::move(help));
}

void ArgParser::setPositionals(std::string metavar, std::string help, unsigned min,
                               unsigned max) {
  positionalMetavar = std::move(metavar);
  positionalHelp = std::move(help);
  minPositionals = min;
  maxPositionals = max;
}

const OptionSpec *ArgParser::find(llvm::StringRef name) const {
  auto it = llvm::find_if(options, [&](const OptionSpec &o) { return o.name == name; });
  return it == options.end() ? nullptr : &*it;
}

const OptionSpec *ArgParser::findShort(char shortName) const {
  auto it = llvm::find_if(options, [&](const OptionSpec &o) { return o.shortName == shortName; });
  return it == options.end() ? nullptr : &*it;
}

std::string ArgParser::closestOption(llvm::StringRef shown) const {
  if (!shown.starts_with("--"))
    return "";
  llvm::StringRef name = shown.drop_front(2);
  std::string best;
  unsigned bestDistance = 3; // more edits than this is no likely typo
  auto consider = [&](llvm::StringRef candidate) {
    unsigned distance = name.edit_distance(candidate, /*AllowReplacements=*/true, bestDistance);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = "--" + candidate.str();
    }
  };
  for (const OptionSpec &spec : options)
    consider(spec.name);
  for (const auto &flag : flagSpecs)
    consider(flag.first);
  return best;
}

bool ArgParser::parse(llvm::ArrayRef<std::string> args, std::string &error) {
  bool onlyPositionals = false;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (onlyPositionals || arg == "-" || !arg.starts_with("-")) {
      positionalValues.push_back(arg.str());
      continue;
    }
    if (arg == "--") {
      onlyPositionals = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      wantsHelp = true;
      continue;
    }

    const OptionSpec *spec = nullptr;
    std::optional<std::string> inlineValue;
    std::string shown = arg.str();
    if (arg.starts_with("--")) {
      auto [name, value] = arg.drop_front(2).split('=');
      if (arg.contains('='))
        inlineValue = value.str();
      shown = "--" + name.str();
      if (llvm::any_of(flagSpecs, [&](const auto &f) { return f.first == name; })) {
        if (inlineValue) {
          error = "option '" + shown + "' takes no value";
          return false;
        }
        flags[name.str()] = true;
        continue;
      }
      spec = find(name);
    } else if (arg.size() >= 2) {
      spec = findShort(arg[1]);
      shown = arg.take_front(2).str();
      if (arg.size() > 2)
        inlineValue = arg.drop_front(2).str();
    }
    if (!spec) {
      error = "unknown option '" + shown + "' for 'mpc " + command + "'";
      if (std::string near = closestOption(shown); !near.empty())
        error += " (did you mean '" + near + "'?)";
      return false;
    }
    std::string value;
    if (inlineValue) {
      value = *inlineValue;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      error = "option '" + shown + "' expects a value (" + spec->metavar + ")";
      return false;
    }
    if (!spec->choices.empty() && !llvm::is_contained(spec->choices, value)) {
      error = "invalid value '" + value + "' for option '" + shown + "'; expected one of: " +
              llvm::join(spec->choices, ", ");
      return false;
    }
    std::vector<std::string> &given = values[spec->name];
    if (!given.empty() && !spec->repeatable) {
      error = "option '" + shown + "' is given twice";
      return false;
    }
    given.push_back(value);
  }
  if (wantsHelp)
    return true;
  if (positionalValues.size() < minPositionals) {
    error = "'mpc " + command + "' expects " + positionalMetavar + " (" + positionalHelp + ")";
    return false;
  }
  if (positionalValues.size() > maxPositionals) {
    error = "'mpc " + command + "' takes at most " + std::to_string(maxPositionals) + " " +
            positionalMetavar + ", got " + std::to_string(positionalValues.size()) + ": " +
            llvm::join(positionalValues, " ");
    return false;
  }
  return true;
}

std::optional<std::string> ArgParser::get(llvm::StringRef name) const {
  auto it = values.find(name.str());
  if (it != values.end())
    return it->second.back();
  if (const OptionSpec *spec = find(name))
    if (!spec->defaultValue.empty())
      return spec->defaultValue;
  return std::nullopt;
}

std::vector<std::string> ArgParser::getAll(llvm::StringRef name) const {
  auto it = values.find(name.str());
  return it == values.end() ? std::vector<std::string>() : it->second;
}

void ArgParser::printHelp(llvm::raw_ostream &os) const {
  os << "Usage: " << usage << "\n\n" << summary << "\n";
  if (!positionalMetavar.empty())
    os << "\nArguments:\n  " << llvm::left_justify(positionalMetavar, 22) << " "
       << positionalHelp << "\n";
  os << "\nOptions:\n";
  for (const OptionSpec &o : options) {
    std::string left = (o.shortName ? std::string("-") + o.shortName + ", " : "    ") + "--" +
                       o.name + " " + o.metavar;
    os << "  " << llvm::left_justify(left, 22) << " " << o.help;
    if (!o.choices.empty())
      os << " (" << llvm::join(o.choices, "|") << ")";
    if (!o.defaultValue.empty())
      os << " [default: " << o.defaultValue << "]";
    if (o.repeatable)
      os << " (repeatable)";
    os << "\n";
  }
  for (const auto &[name, help] : flagSpecs)
    os << "  " << llvm::left_justify("    --" + name, 22) << " " << help << "\n";
  os << "  " << llvm::left_justify("-h, --help", 22) << " show this help\n";
}
