//===- NumericsProbes.h - every op's value as an output ----------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// `mpc train --check-numerics` reruns a step whose loss is not finite with
// every op's value kept: the graph's forward step with an output for every
// float result of every op ("numerics.0", "numerics.1", ... in graph order),
// described here by the op, its source location, the precision it runs in
// and where each of its operands comes from.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_NUMERICSPROBES_H
#define MPC_COMPILER_DRIVER_NUMERICSPROBES_H

#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mpc::driver {

struct NumericsProbe {
  /// Where an operand's value comes from.
  struct Operand {
    enum class Kind { Probe, Input, Param, Constant, Other };
    Kind kind = Kind::Other;
    /// The input's or parameter's (or state's) name.
    std::string name;
    /// Kind::Probe: the index of the probe of the op that computes it.
    size_t probe = 0;
  };
  std::string output;   // "numerics.3"
  std::string op;       // "mpg.sqrt"
  unsigned result = 0;  // which result of the op
  std::string location; // "mlp.mlir:14:8", or "-"
  /// "f16 storage, f32 compute" as precision assignment decides it, or ""
  /// for an op it makes no decision for (integers, f64).
  std::string precision;
  std::vector<Operand> operands;
};

/// Adds the probes' outputs to the graph of `module` that a bundle would
/// hold (`graphName`, or the only one; the others are erased) and describes
/// them, with the precision of each op in `precision`'s forward step.
llvm::Expected<std::vector<NumericsProbe>> addNumericsProbes(mlir::ModuleOp module,
                                                             const std::string &graphName,
                                                             const mpc::PrecisionConfig &precision);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_NUMERICSPROBES_H
