//===- MpgAttrs.cpp - mpg attributes: initializers and optimizers ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mpg;

namespace {
/// One allowed argument of an initializer or optimizer.
struct ArgSpec {
  llvm::StringRef name;
  bool required;
  bool isFlag; // a boolean, not a number
};
} // namespace

/// Reads a numeric argument. Only the forms the custom syntax prints back
/// unchanged are numbers: a float literal (f64) or an integer literal (i64).
static std::optional<double> numericValue(Attribute attr) {
  if (auto f = llvm::dyn_cast<FloatAttr>(attr))
    return f.getType().isF64() ? std::optional<double>(f.getValueAsDouble()) : std::nullopt;
  if (auto i = llvm::dyn_cast<IntegerAttr>(attr))
    if (i.getType().isSignlessInteger(64))
      return static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

/// Checks names, presence and kinds of `args` against `specs`.
static LogicalResult checkArgs(llvm::function_ref<InFlightDiagnostic()> emitError,
                               llvm::StringRef what, llvm::StringRef kind,
                               DictionaryAttr args, llvm::ArrayRef<ArgSpec> specs) {
  for (NamedAttribute arg : args) {
    const ArgSpec *spec = llvm::find_if(specs, [&](const ArgSpec &s) {
      return s.name == arg.getName().strref();
    });
    if (spec == specs.end()) {
      InFlightDiagnostic diag = emitError();
      diag << "unknown argument '" << arg.getName().strref() << "' for " << what << " '"
           << kind << "'";
      if (specs.empty()) {
        diag << "; it takes no arguments";
      } else {
        diag << "; expected one of: ";
        llvm::interleaveComma(specs, diag, [&](const ArgSpec &s) { diag << s.name; });
      }
      return diag;
    }
    if (spec->isFlag ? !llvm::isa<BoolAttr>(arg.getValue())
                     : !numericValue(arg.getValue()).has_value())
      return emitError() << "argument '" << spec->name << "' of " << what << " '" << kind
                         << "' must be "
                         << (spec->isFlag ? "true or false"
                                          : "a number (a literal without a type suffix)");
    if (!spec->isFlag && !std::isfinite(*numericValue(arg.getValue())))
      return emitError() << "argument '" << spec->name << "' of " << what << " '" << kind
                         << "' must be finite";
  }
  for (const ArgSpec &spec : specs)
    if (spec.required && !args.get(spec.name))
      return emitError() << what << " '" << kind << "' requires argument '" << spec.name
                         << "'";
  return success();
}

static double argOr(DictionaryAttr args, llvm::StringRef name, double fallback) {
  if (Attribute attr = args.get(name))
    if (std::optional<double> v = numericValue(attr))
      return *v;
  return fallback;
}

//===----------------------------------------------------------------------===//
// InitializerAttr
//===----------------------------------------------------------------------===//

double InitializerAttr::getArg(llvm::StringRef name, double fallback) const {
  return argOr(getArgs(), name, fallback);
}

LogicalResult InitializerAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                                      InitKind kind, DictionaryAttr args) {
  llvm::StringRef name = stringifyInitKind(kind);
  llvm::SmallVector<ArgSpec> specs;
  switch (kind) {
  case InitKind::Zeros:
  case InitKind::Ones:
  case InitKind::Seed:
    break;
  case InitKind::Constant:
    specs = {{"value", true, false}};
    break;
  case InitKind::Normal:
    specs = {{"mean", false, false}, {"std", false, false}};
    break;
  case InitKind::Uniform:
    specs = {{"low", false, false}, {"high", false, false}};
    break;
  case InitKind::GlorotUniform:
  case InitKind::HeNormal:
    specs = {{"gain", false, false}};
    break;
  }
  if (failed(checkArgs(emitError, "initializer", name, args, specs)))
    return failure();
  if (kind == InitKind::Normal && argOr(args, "std", 1.0) <= 0)
    return emitError() << "initializer 'normal' expects std > 0";
  if (kind == InitKind::Uniform && !(argOr(args, "low", 0.0) < argOr(args, "high", 1.0)))
    return emitError() << "initializer 'uniform' expects low < high";
  if ((kind == InitKind::GlorotUniform || kind == InitKind::HeNormal) &&
      argOr(args, "gain", 1.0) <= 0)
    return emitError() << "initializer '" << name << "' expects gain > 0";
  return success();
}

//===----------------------------------------------------------------------===//
// OptimizerAttr
//===----------------------------------------------------------------------===//

double OptimizerAttr::getArg(llvm::StringRef name, double fallback) const {
  return argOr(getArgs(), name, fallback);
}

bool OptimizerAttr::getFlag(llvm::StringRef name, bool fallback) const {
  if (auto flag = llvm::dyn_cast_or_null<BoolAttr>(getArgs().get(name)))
    return flag.getValue();
  return fallback;
}

LogicalResult OptimizerAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                                    OptimizerKind kind, DictionaryAttr args) {
  llvm::StringRef name = stringifyOptimizerKind(kind);
  llvm::SmallVector<ArgSpec> specs;
  if (kind == OptimizerKind::SGD)
    specs = {{"lr", true, false},
             {"momentum", false, false},
             {"nesterov", false, true},
             {"weight_decay", false, false}};
  else
    specs = {{"lr", true, false},
             {"beta1", false, false},
             {"beta2", false, false},
             {"eps", false, false},
             {"weight_decay", false, false}};
  // The learning-rate schedule, any optimizer.
  specs.append({{"warmup_steps", false, false},
                {"decay_steps", false, false},
                {"min_lr", false, false},
                {"clip_grad_norm", false, false},
                {"accumulate_steps", false, false}});
  if (failed(checkArgs(emitError, "optimizer", name, args, specs)))
    return failure();

  auto inUnitInterval = [&](llvm::StringRef arg, double fallback) -> LogicalResult {
    double v = argOr(args, arg, fallback);
    if (v < 0 || v >= 1)
      return emitError() << "optimizer '" << name << "' expects " << arg
                         << " in [0, 1), got " << v;
    return success();
  };
  if (argOr(args, "lr", 1.0) <= 0)
    return emitError() << "optimizer '" << name << "' expects lr > 0";
  if (argOr(args, "weight_decay", 0.0) < 0)
    return emitError() << "optimizer '" << name << "' expects weight_decay >= 0";
  for (llvm::StringRef steps : {"warmup_steps", "decay_steps"}) {
    double v = argOr(args, steps, 0.0);
    if (v < 0 || v != std::floor(v))
      return emitError() << "optimizer '" << name << "' expects " << steps
                         << " to be a whole number >= 0, got " << v;
  }
  double clip = argOr(args, "clip_grad_norm", 0.0);
  if (!(clip >= 0) || !std::isfinite(clip))
    return emitError()
           << "optimizer '" << name
           << "' expects clip_grad_norm to be a finite number >= 0 (0: no clipping), got " << clip;
  double accumulate = argOr(args, "accumulate_steps", 1.0);
  if (!(accumulate >= 1 && accumulate <= kMaxAccumulateSteps) ||
      accumulate != std::floor(accumulate))
    return emitError() << "optimizer '" << name
                       << "' expects accumulate_steps to be a whole number in [1, "
                       << kMaxAccumulateSteps << "] (1: no accumulation), got " << accumulate;
  double minLr = argOr(args, "min_lr", 0.0);
  if (minLr < 0 || minLr > argOr(args, "lr", 1.0))
    return emitError() << "optimizer '" << name << "' expects 0 <= min_lr <= lr";
  if (kind == OptimizerKind::SGD) {
    if (failed(inUnitInterval("momentum", 0.0)))
      return failure();
    auto nesterov = llvm::dyn_cast_or_null<BoolAttr>(args.get("nesterov"));
    if (nesterov && nesterov.getValue() && argOr(args, "momentum", 0.0) <= 0)
      return emitError() << "optimizer 'sgd' with nesterov requires momentum > 0";
    return success();
  }
  if (failed(inUnitInterval("beta1", 0.9)) || failed(inUnitInterval("beta2", 0.999)))
    return failure();
  if (argOr(args, "eps", 1e-8) <= 0)
    return emitError() << "optimizer '" << name << "' expects eps > 0";
  return success();
}
