//===- OptimizerOptions.cpp - --lr and --optimizer-arg --------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/OptimizerOptions.h"

#include "compiler/Driver/Driver.h"

#include <cmath>

using namespace mpc::driver;

void mpc::driver::addOptimizerOptions(ArgParser &parser) {
  parser.addOption(
      {"lr", 0, "X", "the learning rate, replacing the one of the graph's mpg.minimize", "", {}});
  parser.addOption({"optimizer-arg",
                    0,
                    "NAME=X",
                    "set one of the optimizer's hyper-parameters, replacing the graph's: lr, "
                    "momentum, weight_decay (sgd); lr, beta1, beta2, eps, weight_decay (adam, "
                    "adamw); and the schedule: warmup_steps, decay_steps, min_lr (a linear "
                    "warm-up, then a cosine decay to min_lr). Repeat for several",
                    "",
                    {},
                    /*repeatable=*/true});
}

bool mpc::driver::readOptimizerOptions(const ArgParser &parser,
                                       std::vector<std::pair<std::string, double>> &args) {
  auto number = [](llvm::StringRef text, double &out) {
    return !text.getAsDouble(out) && std::isfinite(out);
  };
  for (const std::string &given : parser.getAll("optimizer-arg")) {
    auto [name, value] = llvm::StringRef(given).split('=');
    double parsed = 0;
    if (name.empty() || !number(value, parsed)) {
      reportError("--optimizer-arg expects NAME=NUMBER (lr=0.01, warmup_steps=100), got '" + given +
                  "'");
      return false;
    }
    args.emplace_back(name.str(), parsed);
  }
  if (std::optional<std::string> lr = parser.get("lr")) {
    double parsed = 0;
    if (!number(*lr, parsed)) {
      reportError("--lr expects a number, got '" + *lr + "'");
      return false;
    }
    args.emplace_back("lr", parsed);
  }
  return true;
}
