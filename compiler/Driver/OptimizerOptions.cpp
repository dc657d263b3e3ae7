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
  parser.addOption({"clip-grad-norm",
                    0,
                    "X",
                    "clip the gradients, unscaled, to a global L2 norm of X (computed in fp32; "
                    "PyTorch's clip_grad_norm_ after GradScaler.unscale_); the log records the "
                    "norm of every step as grad_norm",
                    "",
                    {}});
  parser.addOption({"accumulate",
                    0,
                    "N",
                    "accumulate the gradients of N runs of the step (micro-batches) before each "
                    "update: one update, one overflow check and one loss-scale update per N "
                    "batches, the mean of their gradients summed in fp32 (N batches of B train "
                    "as one batch of N*B)",
                    "",
                    {}});
  parser.addOption(
      {"optimizer-arg",
       0,
       "NAME=X",
       "set one of the optimizer's hyper-parameters, replacing the graph's: lr, "
       "momentum, weight_decay (sgd); lr, beta1, beta2, eps, weight_decay (adam, "
       "adamw); the schedule: warmup_steps, decay_steps, min_lr (a linear "
       "warm-up, then a cosine decay to min_lr); clip_grad_norm, accumulate_steps. Repeat "
       "for several",
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
  for (auto [option, arg] : {std::pair{"lr", "lr"}, std::pair{"clip-grad-norm", "clip_grad_norm"},
                             std::pair{"accumulate", "accumulate_steps"}})
    if (std::optional<std::string> given = parser.get(option)) {
      double parsed = 0;
      if (!number(*given, parsed)) {
        reportError("--" + std::string(option) + " expects a number, got '" + *given + "'");
        return false;
      }
      args.emplace_back(arg, parsed);
    }
  return true;
}
