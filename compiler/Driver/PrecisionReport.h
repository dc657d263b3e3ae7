//===- PrecisionReport.h - the precision section of `mpc report` -*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Reads the decisions mpg-assign-precision recorded on a graph (each op's
// mpg.precision_decision, the graph's mpg.precision_summary) and prints them
// per op with the source location, as text or JSON.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_DRIVER_PRECISIONREPORT_H
#define MPC_COMPILER_DRIVER_PRECISIONREPORT_H

#include "dialects/mpg/IR/MpgOps.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mpc::driver {

struct PrecisionDecision {
  std::string op;       // "mpg.matmul"
  std::string location; // "mlp.mlir:12:8", or "-" when unknown
  std::string category, storage, compute, accumulate, reason;
  bool forced = false;
};

struct PrecisionReport {
  std::string graph;
  std::string mode; // fp32 when precision was not assigned
  int64_t castsInserted = 0, castsRemoved = 0;
  int64_t workingCopies = 0; // parameters read through persistent copies
  std::vector<PrecisionDecision> decisions;
};

/// "file:line:col" of the first file location inside `loc` (autodiff's ops
/// carry their forward op's location), or "-".
std::string locationText(mlir::Location loc);

/// The decisions recorded on `graph` (after mpg-assign-precision).
PrecisionReport collectPrecisionReport(mlir::mpg::GraphOp graph);

void printPrecisionText(llvm::raw_ostream &os, const PrecisionReport &report);

/// {"mode", "casts_inserted", "casts_removed", "working_copies",
///  "categories": {name: count},
///  "ops": [{"op", "location", "category", "storage", "compute",
///           "accumulate" (dot-products), "forced", "reason"}]}
llvm::json::Object precisionToJson(const PrecisionReport &report);

} // namespace mpc::driver

#endif // MPC_COMPILER_DRIVER_PRECISIONREPORT_H
