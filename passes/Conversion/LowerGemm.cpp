//===- LowerGemm.cpp - GEMM groups and convolutions -------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A GEMM group becomes one mpk.gemm with the cuBLASLt epilogue its ops
// spell; a convolution im2col and batched GEMMs; its input gradient GEMMs
// and col2im; its filter gradient im2col, GEMMs and a sum over images.
//
//===----------------------------------------------------------------------===//

#include "passes/Conversion/ProgramLowering.h"

#include "passes/Conversion/ScalarLowering.h"
#include "passes/MemoryPlanning/MemoryPlanSupport.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mpc::conversion;

LogicalResult ProgramLowering::lowerGemm(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  // (after the splat constants cloned into the group, an accumulation's beta)
  Operation *matmul = nullptr;
  for (Operation &op : body.without_terminator())
    if (!llvm::isa<ConstantOp>(op)) {
      matmul = &op;
      break;
    }
  if (!matmul || !llvm::isa<MatmulOp, BatchMatmulOp>(matmul))
    return fusion.emitError("a gemm group starts with its matmul");
  bool transposeA = false, transposeB = false;
  llvm::TypeSwitch<Operation *>(matmul).Case<MatmulOp, BatchMatmulOp>([&](auto mm) {
    transposeA = mm.getTransposeA();
    transposeB = mm.getTransposeB();
  });
  // The epilogue cuBLASLt applies, in its order: bias, activation, output
  // type. Each op must consume the previous one's result. Or, after the
  // output type only, an accumulation into a matrix the group reads (C =
  // product + beta * C): the add of the product and that matrix, scaled
  // by a mul by a splat constant (beta) or not (1).
  Value bias, tail = matmul->getResult(0);
  Value accumulated; // the matrix accumulated into, a group input
  // The mul scaling that matrix, and its factor (1 without one).
  Value scaled;
  double beta = 1;
  mpk::GemmEpilogue epilogue = mpk::GemmEpilogue::None;
  int stage = 0; // 1: bias, 2: activation, 3: cast, 4: accumulation
  auto notAnEpilogue = [&](Operation &op) {
    return op.emitError() << "'" << op.getName()
                          << "' in a gemm group is not a cuBLASLt epilogue (bias, then relu "
                             "or approximate gelu, then a cast; or a cast, then an "
                             "accumulation into a matrix)";
  };
  auto isMatrixInput = [&](Value value) {
    return llvm::isa<BlockArgument>(value) && value.getType() == tail.getType() &&
           tensorTypeOf(value).getRank() == 2;
  };
  for (Operation &op : body.without_terminator()) {
    auto add = llvm::dyn_cast<AddOp>(op);
    auto gelu = llvm::dyn_cast<GeluOp>(op);
    if (&op == matmul || llvm::isa<ConstantOp>(op))
      continue; // (a constant: a mul's factor)
    if (auto mul = llvm::dyn_cast<MulOp>(op)) {
      // (a splat constant the mul reads, cloned into the group)
      auto constant = mul.getRhs().getDefiningOp<ConstantOp>();
      Value matrix = mul.getLhs();
      if (!constant) {
        constant = mul.getLhs().getDefiningOp<ConstantOp>();
        matrix = mul.getRhs();
      }
      auto dense = constant ? llvm::dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
      if (scaled || !dense || !dense.isSplat() || !llvm::isa<FloatType>(dense.getElementType()) ||
          !isMatrixInput(matrix) || mul.getType() != tail.getType())
        return notAnEpilogue(op);
      scaled = mul.getResult();
      accumulated = matrix;
      beta = dense.getSplatValue<APFloat>().convertToDouble();
      continue;
    }
    if (add && (stage == 0 || stage == 3) && epilogue == mpk::GemmEpilogue::None &&
        (add.getLhs() == tail || add.getRhs() == tail) &&
        tensorTypeOf(add.getLhs() == tail ? add.getRhs() : add.getLhs()).getRank() == 2) {
      // (straight after the product, or after its cast; into an f32 or
      // f64 matrix, which the GEMM reads and writes in the compute type)
      Value other = add.getLhs() == tail ? add.getRhs() : add.getLhs();
      Type element = tensorTypeOf(add.getResult()).getElementType();
      if ((other != scaled && !(!scaled && isMatrixInput(other))) ||
          !(element.isF32() || element.isF64()))
        return notAnEpilogue(op);
      accumulated = scaled ? accumulated : other;
      stage = 4;
    } else if (add && stage < 1 && (add.getLhs() == tail || add.getRhs() == tail)) {
      bias = add.getLhs() == tail ? add.getRhs() : add.getLhs();
      if (tensorTypeOf(bias).getRank() != 1)
        return notAnEpilogue(op);
      epilogue = mpk::GemmEpilogue::Bias;
      stage = 1;
    } else if (llvm::isa<ReluOp>(op) && stage < 2 && op.getOperand(0) == tail) {
      epilogue = bias ? mpk::GemmEpilogue::BiasRelu : mpk::GemmEpilogue::Relu;
      stage = 2;
    } else if (gelu && gelu.getApproximate() && stage < 2 && op.getOperand(0) == tail) {
      epilogue = bias ? mpk::GemmEpilogue::BiasGelu : mpk::GemmEpilogue::Gelu;
      stage = 2;
    } else if (llvm::isa<CastOp>(op) && stage < 3 && op.getOperand(0) == tail) {
      stage = 3;
    } else {
      return notAnEpilogue(op);
    }
    tail = op.getResult(0);
  }
  if (llvm::cast<YieldOp>(body.getTerminator()).getValues() != ValueRange{tail})
    return fusion.emitError("a gemm group yields exactly the end of its epilogue");
  if (scaled && stage != 4)
    return fusion.emitError("a mul in a gemm group scales the matrix its result accumulates "
                            "into; this group accumulates into none");
  auto lhs = tensorTypeOf(matmul->getOperand(0)), rhs = tensorTypeOf(matmul->getOperand(1));
  int64_t r = lhs.getRank();
  int64_t m = lhs.getDimSize(transposeA ? r - 1 : r - 2);
  int64_t k = lhs.getDimSize(transposeA ? r - 2 : r - 1);
  int64_t n = rhs.getDimSize(transposeB ? r - 2 : r - 1);
  int64_t batch = product(lhs.getShape().drop_back(2));
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  Value c = bufferOf(yield.getValues()[0]);
  if (accumulated) {
    if (batch != 1)
      return fusion.emitError("a gemm group accumulates into a matrix only in a single "
                              "product");
    // The GEMM accumulates into C itself: the matrix goes there first,
    // unless it is there already (a state updated in its own memory).
    copyUnlessThere(fusion.getLoc(), bufferOf(accumulated), c);
  }
  auto gemm = b.create<mpk::GemmOp>(fusion.getLoc(), bufferOf(matmul->getOperand(0)),
                                    bufferOf(matmul->getOperand(1)), c,
                                    bias ? bufferOf(bias) : Value(), m, n, k);
  if (accumulated)
    gemm.setBeta(llvm::APFloat(beta));
  gemm.setBatch(batch);
  if (batch > 1) {
    gemm.setStrideA(m * k);
    gemm.setStrideB(k * n);
    gemm.setStrideC(m * n);
  }
  gemm.setTransposeA(transposeA);
  gemm.setTransposeB(transposeB);
  gemm.setEpilogue(epilogue);
  return success();
}

ProgramLowering::ConvSizes ProgramLowering::convSizes(RankedTensorType input,
                                                      RankedTensorType filter,
                                                      RankedTensorType output, int64_t groups) {
  ConvSizes s;
  s.n = input.getDimSize(0);
  s.c = input.getDimSize(1);
  s.o = filter.getDimSize(0);
  s.groups = groups;
  s.spatial = output.getDimSize(2) * output.getDimSize(3);
  s.ckk = s.c * filter.getDimSize(2) * filter.getDimSize(3);
  s.og = s.o / groups;
  s.kg = s.ckk / groups;
  return s;
}

LogicalResult ProgramLowering::lowerConv(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  auto conv = llvm::cast<Conv2DOp>(*body.begin());
  // The GEMMs write C in the type of the group's one epilogue op, a cast
  // of the convolution's result, when it has one.
  Value result = conv.getResult();
  for (Operation &op : llvm::drop_begin(body.without_terminator())) {
    if (!llvm::isa<CastOp>(op) || op.getOperand(0) != result)
      return op.emitError() << "'" << op.getName()
                            << "' in a conv group is not its epilogue (one cast of the "
                               "convolution's result)";
    result = op.getResult(0);
  }
  if (llvm::cast<YieldOp>(body.getTerminator()).getValues() != ValueRange{result})
    return fusion.emitError("a conv group yields exactly the end of its epilogue");
  auto in = conv.getInput().getType(), filter = conv.getFilter().getType();
  auto [n, c, o, groups, spatial, ckk, og, kg] =
      convSizes(in, filter, conv.getType(), conv.getGroupCount());
  FailureOr<Value> scratchBuffer = scratch(fusion, in.getElementType(), {n, ckk, spatial});
  if (failed(scratchBuffer))
    return failure();
  Value columns = *scratchBuffer;
  b.create<mpk::Im2ColOp>(fusion.getLoc(), nextKernelName(), bufferOf(conv.getInput()), columns,
                          b.getDenseI64ArrayAttr(filter.getShape().drop_front(2)),
                          b.getDenseI64ArrayAttr(conv.getStrideValues()),
                          b.getDenseI64ArrayAttr(conv.getPaddingValues()),
                          b.getDenseI64ArrayAttr(conv.getDilationValues()));
  // Per group g: out[n, g] (O/G x HoWo) = filter[g] (O/G x CKK/G) x columns[n, g].
  for (int64_t g = 0; g < groups; ++g) {
    auto gemm = b.create<mpk::GemmOp>(fusion.getLoc(), bufferOf(conv.getFilter()), columns,
                                      bufferOf(result), Value(), og, spatial, kg);
    gemm.setBatch(n);
    gemm.setOffsetA(g * og * kg);
    gemm.setOffsetB(g * kg * spatial);
    gemm.setOffsetC(g * og * spatial);
    gemm.setStrideA(0);
    gemm.setStrideB(ckk * spatial);
    gemm.setStrideC(o * spatial);
  }
  return success();
}

LogicalResult ProgramLowering::lowerConvGradInput(FusionOp fusion, Conv2DGradInputOp grad) {
  Location loc = grad.getLoc();
  auto filter = grad.getFilter().getType();
  auto dx = grad.getType();
  auto [n, c, o, groups, spatial, ckk, og, kg] =
      convSizes(dx, filter, grad.getGradOutput().getType(), grad.getGroupCount());
  FailureOr<Value> columns =
      scratch(fusion, mpc::computeType(dx.getElementType()), {n, ckk, spatial});
  if (failed(columns))
    return failure();
  for (int64_t g = 0; g < groups; ++g) {
    auto gemm =
        b.create<mpk::GemmOp>(loc, bufferOf(grad.getFilter()), bufferOf(grad.getGradOutput()),
                              *columns, Value(), kg, spatial, og);
    gemm.setTransposeA(true);
    gemm.setBatch(n);
    gemm.setOffsetA(g * og * kg);
    gemm.setStrideA(0);
    gemm.setOffsetB(g * og * spatial);
    gemm.setStrideB(o * spatial);
    gemm.setOffsetC(g * kg * spatial);
    gemm.setStrideC(ckk * spatial);
  }
  b.create<mpk::Col2ImOp>(loc, nextKernelName(), *columns, bufferOf(grad.getResult()),
                          b.getDenseI64ArrayAttr(filter.getShape().drop_front(2)),
                          b.getDenseI64ArrayAttr(grad.getStrideValues()),
                          b.getDenseI64ArrayAttr(grad.getPaddingValues()),
                          b.getDenseI64ArrayAttr(grad.getDilationValues()));
  return success();
}

LogicalResult ProgramLowering::lowerConvGradFilter(FusionOp fusion, Conv2DGradFilterOp grad) {
  Location loc = grad.getLoc();
  auto in = grad.getInput().getType();
  auto dw = grad.getType();
  auto [n, c, o, groups, spatial, ckk, og, kg] =
      convSizes(in, dw, grad.getGradOutput().getType(), grad.getGroupCount());
  FailureOr<Value> columns = scratch(fusion, in.getElementType(), {n, ckk, spatial});
  if (failed(columns))
    return failure();
  int64_t columnBytes = n * ckk * spatial * (in.getElementType().getIntOrFloatBitWidth() / 8);
  Type accType = mpc::computeType(dw.getElementType());
  FailureOr<Value> partials =
      scratch(fusion, accType, {n, o * kg},
              static_cast<int64_t>(llvm::alignTo(columnBytes, mpc::kScratchPartAlignment)));
  if (failed(partials))
    return failure();
  b.create<mpk::Im2ColOp>(loc, nextKernelName(), bufferOf(grad.getInput()), *columns,
                          b.getDenseI64ArrayAttr(dw.getShape().drop_front(2)),
                          b.getDenseI64ArrayAttr(grad.getStrideValues()),
                          b.getDenseI64ArrayAttr(grad.getPaddingValues()),
                          b.getDenseI64ArrayAttr(grad.getDilationValues()));
  for (int64_t g = 0; g < groups; ++g) {
    auto gemm = b.create<mpk::GemmOp>(loc, bufferOf(grad.getGradOutput()), *columns, *partials,
                                      Value(), og, kg, spatial);
    gemm.setTransposeB(true);
    gemm.setBatch(n);
    gemm.setOffsetA(g * og * spatial);
    gemm.setStrideA(o * spatial);
    gemm.setOffsetB(g * kg * spatial);
    gemm.setStrideB(ckk * spatial);
    gemm.setOffsetC(g * og * kg);
    gemm.setStrideC(o * kg);
  }
  // The sum over images, into the gradient viewed as [O * C / G * kH * kW].
  auto result = bufferOf(grad.getResult()).getDefiningOp<mpk::BufferOp>();
  Value flat = b.create<mpk::BufferOp>(loc, MemRefType::get({o * kg}, dw.getElementType()),
                                       result.getSpace(), result.getOffset());
  sumOverFirstDim(loc, *partials, flat, {n, o * kg}, accType);
  return success();
}
