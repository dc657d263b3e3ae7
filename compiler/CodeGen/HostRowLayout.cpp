//===- HostRowLayout.cpp - how a pointwise kernel's host form walks memory -===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/HostRowLayout.h"

#include "mlir/IR/AffineExpr.h"

using namespace mlir;

namespace {

/// Whether a buffer indexed by `map` either walks iteration dimensions
/// [first, rank) as its trailing results, in order, or uses none of them;
/// sets `advances` to which. Results must be dimensions, the constant 0 or
/// a dimension plus a constant (a slice's offset): in a run, only its
/// outermost dimension may be offset, which shifts where the run starts.
bool fitsRun(AffineMap map, llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> iteration,
             unsigned first, bool &advances) {
  unsigned rank = iteration.size();
  unsigned results = map.getNumResults();
  unsigned inRun = 0;
  for (AffineExpr expr : map.getResults()) {
    if (std::optional<unsigned> dim = mpc::offsetDimension(expr)) {
      if (*dim >= first)
        ++inRun;
      continue;
    }
    auto constant = llvm::dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return false;
  }
  advances = inRun != 0;
  if (!advances)
    return true;
  unsigned length = rank - first;
  if (inRun != length || results < length)
    return false;
  if (shape.size() != results)
    return false;
  for (unsigned i = 0; i < length; ++i) {
    unsigned at = results - length + i;
    std::optional<unsigned> dim = mpc::offsetDimension(map.getResult(at));
    bool offset = !llvm::isa<AffineDimExpr>(map.getResult(at));
    if (!dim || *dim != first + i || (offset && i > 0))
      return false;
    if (i > 0 && shape[at] != iteration[first + i])
      return false;
  }
  return true;
}

} // namespace

std::optional<unsigned> mpc::offsetDimension(AffineExpr expr) {
  if (auto dim = llvm::dyn_cast<AffineDimExpr>(expr))
    return dim.getPosition();
  auto sum = llvm::dyn_cast<AffineBinaryOpExpr>(expr);
  if (!sum || sum.getKind() != AffineExprKind::Add)
    return std::nullopt;
  auto dim = llvm::dyn_cast<AffineDimExpr>(sum.getLHS());
  auto constant = llvm::dyn_cast<AffineConstantExpr>(sum.getRHS());
  if (!dim || !constant || constant.getValue() < 0)
    return std::nullopt;
  return dim.getPosition();
}

std::optional<mpc::HostRowLayout>
mpc::hostRowLayout(llvm::ArrayRef<int64_t> iteration, llvm::ArrayRef<AffineMap> maps,
                   llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) {
  unsigned rank = iteration.size();
  if (rank == 0)
    return std::nullopt;
  std::optional<HostRowLayout> best;
  for (unsigned first = rank; first-- > 0;) {
    HostRowLayout layout;
    layout.firstRunDim = first;
    bool fits = true;
    for (auto [map, shape] : llvm::zip(maps, shapes)) {
      bool advances = false;
      if (map.getNumDims() != rank || !fitsRun(map, shape, iteration, first, advances)) {
        fits = false;
        break;
      }
      layout.advances.push_back(advances);
    }
    if (!fits)
      break;
    for (unsigned d = 0; d < rank; ++d)
      (d < first ? layout.runs : layout.runLength) *= iteration[d];
    best = std::move(layout);
  }
  return best;
}
