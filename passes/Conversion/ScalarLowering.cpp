//===- ScalarLowering.cpp - mpg pointwise ops as scalar arith/math --------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/ScalarLowering.h"

#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mpg;

Type mpc::computeType(Type elementType) {
  if (auto f = llvm::dyn_cast<FloatType>(elementType))
    return f.isF64() ? f : Float32Type::get(elementType.getContext());
  return elementType;
}

namespace {

Type elementOf(Value tensor) { return llvm::cast<RankedTensorType>(tensor.getType()).getElementType(); }

/// Builds scalar arithmetic in one compute type.
class Scalar {
public:
  Scalar(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value constant(Type type, double value) {
    if (llvm::isa<FloatType>(type))
      return b.create<arith::ConstantOp>(loc, type, b.getFloatAttr(type, value));
    return b.create<arith::ConstantOp>(loc, type, b.getIntegerAttr(type, static_cast<int64_t>(value)));
  }
  bool isFloat(Value v) { return llvm::isa<FloatType>(v.getType()); }
  Value add(Value x, Value y) {
    return isFloat(x) ? Value(b.create<arith::AddFOp>(loc, x, y)) : b.create<arith::AddIOp>(loc, x, y);
  }
  Value sub(Value x, Value y) {
    return isFloat(x) ? Value(b.create<arith::SubFOp>(loc, x, y)) : b.create<arith::SubIOp>(loc, x, y);
  }
  Value mul(Value x, Value y) {
    return isFloat(x) ? Value(b.create<arith::MulFOp>(loc, x, y)) : b.create<arith::MulIOp>(loc, x, y);
  }
  Value div(Value x, Value y) {
    return isFloat(x) ? Value(b.create<arith::DivFOp>(loc, x, y)) : b.create<arith::DivSIOp>(loc, x, y);
  }
  Value scaled(Value x, double factor) { return mul(x, constant(x.getType(), factor)); }
  Value exp(Value x) { return b.create<math::ExpOp>(loc, x); }
  Value tanh(Value x) { return b.create<math::TanhOp>(loc, x); }
  Value erf(Value x) { return b.create<math::ErfOp>(loc, x); }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) { return b.create<arith::CmpFOp>(loc, p, x, y); }
  Value select(Value c, Value x, Value y) { return b.create<arith::SelectOp>(loc, c, x, y); }

  OpBuilder &b;
  Location loc;
};

// (Ops are created in statements of their own: the order in which a call's
// arguments are evaluated differs between compilers, and with it the order of
// the ops, so the generated kernels' text and the kernel cache's keys would.)

/// Normal CDF and density for the exact GELU and its derivative.
Value geluExact(Scalar &s, Value x) {
  Value erf = s.erf(s.scaled(x, M_SQRT1_2));
  Value one = s.constant(x.getType(), 1.0);
  Value cdf = s.scaled(s.add(one, erf), 0.5);
  return s.mul(x, cdf);
}

/// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), and its inner tanh.
Value geluTanhInner(Scalar &s, Value x) {
  Value cube = s.mul(s.mul(x, x), x);
  return s.tanh(s.scaled(s.add(x, s.scaled(cube, 0.044715)), std::sqrt(2.0 / M_PI)));
}

Value geluApprox(Scalar &s, Value x) {
  Value t = geluTanhInner(s, x);
  Value onePlusT = s.add(s.constant(x.getType(), 1.0), t);
  Value half = s.scaled(x, 0.5);
  return s.mul(half, onePlusT);
}

Value geluGrad(Scalar &s, Value x, Value dy, bool approximate) {
  Type type = x.getType();
  Value one = s.constant(type, 1.0);
  if (!approximate) {
    // Phi(x) + x * phi(x)
    Value cdf = s.scaled(s.add(one, s.erf(s.scaled(x, M_SQRT1_2))), 0.5);
    Value pdf = s.scaled(s.exp(s.scaled(s.mul(x, x), -0.5)), 1.0 / std::sqrt(2.0 * M_PI));
    return s.mul(dy, s.add(cdf, s.mul(x, pdf)));
  }
  // d/dx of 0.5 x (1 + t), t = tanh(k (x + c x^3)).
  Value t = geluTanhInner(s, x);
  double k = std::sqrt(2.0 / M_PI), c = 0.044715;
  Value dInner = s.scaled(s.add(one, s.scaled(s.mul(x, x), 3 * c)), k);
  Value dt = s.mul(s.sub(one, s.mul(t, t)), dInner);
  Value second = s.mul(s.scaled(x, 0.5), dt);
  Value first = s.scaled(s.add(one, t), 0.5);
  Value grad = s.add(first, second);
  return s.mul(dy, grad);
}

} // namespace

Value mpc::convertScalar(OpBuilder &b, Location loc, Value value, Type elementType,
                         bool roundThroughStorage) {
  Type from = value.getType();
  Type to = computeType(elementType);
  if (auto toFloat = llvm::dyn_cast<FloatType>(to)) {
    Value v = value;
    if (from.isInteger(1))
      v = b.create<arith::UIToFPOp>(loc, toFloat, value);
    else if (llvm::isa<IntegerType>(from))
      v = b.create<arith::SIToFPOp>(loc, toFloat, value);
    else if (from.getIntOrFloatBitWidth() < toFloat.getWidth())
      v = b.create<arith::ExtFOp>(loc, toFloat, value);
    else if (from.getIntOrFloatBitWidth() > toFloat.getWidth())
      v = b.create<arith::TruncFOp>(loc, toFloat, value);
    // Round through a narrower storage type: the value a cast to f16/bf16
    // produces is the rounded one, held in f32.
    if (roundThroughStorage && elementType != to) {
      Value narrow = b.create<arith::TruncFOp>(loc, elementType, v);
      v = b.create<arith::ExtFOp>(loc, toFloat, narrow);
    }
    return v;
  }
  auto toInt = llvm::cast<IntegerType>(to);
  if (auto fromFloat = llvm::dyn_cast<FloatType>(from)) {
    if (toInt.getWidth() == 1)
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, value,
                                     b.create<arith::ConstantOp>(loc, from, b.getFloatAttr(from, 0.0)));
    return b.create<arith::FPToSIOp>(loc, toInt, value);
  }
  auto fromInt = llvm::cast<IntegerType>(from);
  if (fromInt.getWidth() == toInt.getWidth())
    return value;
  if (toInt.getWidth() == 1)
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, value,
                                   b.create<arith::ConstantOp>(loc, from, b.getIntegerAttr(from, 0)));
  if (fromInt.getWidth() == 1)
    return b.create<arith::ExtUIOp>(loc, toInt, value);
  if (fromInt.getWidth() < toInt.getWidth())
    return b.create<arith::ExtSIOp>(loc, toInt, value);
  return b.create<arith::TruncIOp>(loc, toInt, value);
}

LogicalResult mpc::lowerToScalar(OpBuilder &b, Operation *op, IRMapping &scalars) {
  Scalar s(b, op->getLoc());
  auto in = [&](unsigned i) { return scalars.lookup(op->getOperand(i)); };
  Value result;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](ConstantOp c) {
        auto dense = llvm::dyn_cast<DenseElementsAttr>(c.getValue());
        if (!dense || !dense.isSplat())
          return; // only splats are scalars; the error follows

        Type elem = elementOf(c.getResult());
        Type type = computeType(elem);
        if (auto f = llvm::dyn_cast<FloatType>(type))
          result = s.constant(type, dense.getSplatValue<APFloat>().convertToDouble());
        else
          result = b.create<arith::ConstantOp>(op->getLoc(), type,
                                               b.getIntegerAttr(type, dense.getSplatValue<APInt>()));
      })
      .Case([&](AddOp) { result = s.add(in(0), in(1)); })
      .Case([&](SubOp) { result = s.sub(in(0), in(1)); })
      .Case([&](MulOp) { result = s.mul(in(0), in(1)); })
      .Case([&](DivOp) { result = s.div(in(0), in(1)); })
      .Case([&](NegOp) {
        result = s.isFloat(in(0)) ? Value(b.create<arith::NegFOp>(op->getLoc(), in(0)))
                                  : s.sub(s.constant(in(0).getType(), 0), in(0));
      })
      .Case([&](AbsOp) {
        result = s.isFloat(in(0)) ? Value(b.create<math::AbsFOp>(op->getLoc(), in(0)))
                                  : b.create<math::AbsIOp>(op->getLoc(), in(0));
      })
      .Case([&](ExpOp) { result = s.exp(in(0)); })
      .Case([&](LogOp) { result = b.create<math::LogOp>(op->getLoc(), in(0)); })
      .Case([&](SqrtOp) { result = b.create<math::SqrtOp>(op->getLoc(), in(0)); })
      .Case([&](RsqrtOp) { result = b.create<math::RsqrtOp>(op->getLoc(), in(0)); })
      .Case([&](TanhOp) { result = s.tanh(in(0)); })
      .Case([&](SinOp) { result = b.create<math::SinOp>(op->getLoc(), in(0)); })
      .Case([&](CosOp) { result = b.create<math::CosOp>(op->getLoc(), in(0)); })
      .Case([&](SigmoidOp) {
        Value one = s.constant(in(0).getType(), 1.0);
        result = s.div(one, s.add(one, s.exp(b.create<arith::NegFOp>(op->getLoc(), in(0)))));
      })
      .Case([&](ReluOp) {
        result = b.create<arith::MaximumFOp>(op->getLoc(), in(0), s.constant(in(0).getType(), 0.0));
      })
      .Case([&](LeakyReluOp l) {
        Value x = in(0);
        Value positive = s.cmpf(arith::CmpFPredicate::OGT, x, s.constant(x.getType(), 0.0));
        result = s.select(positive, x, s.scaled(x, l.getAlpha().convertToDouble()));
      })
      .Case([&](GeluOp g) { result = g.getApproximate() ? geluApprox(s, in(0)) : geluExact(s, in(0)); })
      .Case([&](GeluGradOp g) { result = geluGrad(s, in(0), in(1), g.getApproximate()); })
      .Case([&](PowOp) { result = b.create<math::PowFOp>(op->getLoc(), in(0), in(1)); })
      .Case([&](MaximumOp) {
        result = s.isFloat(in(0)) ? Value(b.create<arith::MaximumFOp>(op->getLoc(), in(0), in(1)))
                                  : b.create<arith::MaxSIOp>(op->getLoc(), in(0), in(1));
      })
      .Case([&](MinimumOp) {
        result = s.isFloat(in(0)) ? Value(b.create<arith::MinimumFOp>(op->getLoc(), in(0), in(1)))
                                  : b.create<arith::MinSIOp>(op->getLoc(), in(0), in(1));
      })
      .Case([&](CompareOp c) {
        static const arith::CmpFPredicate floatPreds[] = {
            arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE, arith::CmpFPredicate::OLT,
            arith::CmpFPredicate::OLE, arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
        static const arith::CmpIPredicate intPreds[] = {
            arith::CmpIPredicate::eq, arith::CmpIPredicate::ne, arith::CmpIPredicate::slt,
            arith::CmpIPredicate::sle, arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
        unsigned p = static_cast<unsigned>(c.getPredicate());
        result = s.isFloat(in(0)) ? s.cmpf(floatPreds[p], in(0), in(1))
                                  : Value(b.create<arith::CmpIOp>(op->getLoc(), intPreds[p], in(0), in(1)));
      })
      .Case([&](SelectOp) { result = s.select(in(0), in(1), in(2)); })
      .Case([&](CastOp c) {
        result = convertScalar(b, op->getLoc(), in(0), elementOf(c.getResult()), true);
      })
      .Case([&](BroadcastToOp) { result = in(0); })
      .Case([&](ScaleOp sc) {
        Value factor = convertScalar(b, op->getLoc(), in(1), elementOf(sc.getOperand()), false);
        result = convertScalar(b, op->getLoc(), s.mul(in(0), factor), elementOf(sc.getResult()),
                               false);
      })
      .Case([&](UnscaleOp sc) {
        Value factor = convertScalar(b, op->getLoc(), in(1), elementOf(sc.getOperand()), false);
        // A power of two's reciprocal is exact: the product rounds to the
        // quotient's value (see the op), and a kernel loop computes the
        // reciprocal once.
        Value unscaled =
            sc.getPowerOfTwoScale()
                ? s.mul(in(0), s.div(s.constant(factor.getType(), 1.0), factor))
                : s.div(in(0), factor);
        result = convertScalar(b, op->getLoc(), unscaled, elementOf(sc.getResult()), false);
      });
  if (!result)
    return op->emitError() << "'" << op->getName() << "' has no scalar form for a generated kernel";
  scalars.map(op->getResult(0), result);
  return success();
}
