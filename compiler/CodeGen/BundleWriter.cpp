//===- BundleWriter.cpp - write a compiled program as one bundle ----------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/BundleWriter.h"
#include "compiler/CodeGen/KernelCompiler.h"

#include "mpc/format/Bundle.h"
#include "mpc/format/Manifest.h"

#include "llvm/ADT/StringSet.h"

#include "dialects/mpg/IR/MpgOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <chrono>
#include <optional>
#include <thread>
using namespace mlir;
namespace mpk = mlir::mpk;
namespace rt = mpc::rt;

// The manifest's enums mirror the compiler's by value.
static_assert(
    static_cast<int>(mpg::InitKind::Zeros) == static_cast<int>(rt::InitKind::Zeros) &&
        static_cast<int>(mpg::InitKind::Ones) == static_cast<int>(rt::InitKind::Ones) &&
        static_cast<int>(mpg::InitKind::Constant) == static_cast<int>(rt::InitKind::Constant) &&
        static_cast<int>(mpg::InitKind::Normal) == static_cast<int>(rt::InitKind::Normal) &&
        static_cast<int>(mpg::InitKind::Uniform) == static_cast<int>(rt::InitKind::Uniform) &&
        static_cast<int>(mpg::InitKind::GlorotUniform) ==
            static_cast<int>(rt::InitKind::GlorotUniform) &&
        static_cast<int>(mpg::InitKind::HeNormal) == static_cast<int>(rt::InitKind::HeNormal) &&
        static_cast<int>(mpg::InitKind::Seed) == static_cast<int>(rt::InitKind::Seed),
    "mpg::InitKind and rt::InitKind must list the initializers in one order");
static_assert(static_cast<int>(mpk::GemmEpilogue::None) == static_cast<int>(rt::Epilogue::None) &&
                  static_cast<int>(mpk::GemmEpilogue::Bias) == static_cast<int>(rt::Epilogue::Bias) &&
                  static_cast<int>(mpk::GemmEpilogue::Relu) == static_cast<int>(rt::Epilogue::Relu) &&
                  static_cast<int>(mpk::GemmEpilogue::BiasRelu) ==
                      static_cast<int>(rt::Epilogue::BiasRelu) &&
                  static_cast<int>(mpk::GemmEpilogue::Gelu) == static_cast<int>(rt::Epilogue::Gelu) &&
                  static_cast<int>(mpk::GemmEpilogue::BiasGelu) ==
                      static_cast<int>(rt::Epilogue::BiasGelu),
              "mpk::GemmEpilogue and rt::Epilogue must list the epilogues in one order");

rt::DType mpc::manifestDtypeOf(Type type) {
  if (type.isF16())
    return rt::DType::F16;
  if (type.isBF16())
    return rt::DType::BF16;
  if (type.isF64())
    return rt::DType::F64;
  if (type.isInteger(1))
    return rt::DType::Bool;
  if (type.isInteger(32))
    return rt::DType::I32;
  if (type.isInteger(64))
    return rt::DType::I64;
  return rt::DType::F32;
}

namespace {

/// The bytes of a constant as stored in memory: row-major, i1 as one byte.
std::string constantBytes(DenseElementsAttr value) {
  Type elem = value.getElementType();
  int64_t count = value.getNumElements();
  std::string bytes;
  if (elem.isInteger(1)) {
    for (bool b : value.getValues<bool>())
      bytes.push_back(b ? 1 : 0);
    return bytes;
  }
  size_t width = elem.getIntOrFloatBitWidth() / 8;
  llvm::ArrayRef<char> raw = value.getRawData();
  if (value.isSplat()) {
    for (int64_t i = 0; i < count; ++i)
      bytes.append(raw.data(), width);
    return bytes;
  }
  return std::string(raw.data(), raw.size());
}

class ManifestBuilder {
public:
  explicit ManifestBuilder(mpk::ProgramOp program) : program(program) {}

  llvm::Expected<rt::Manifest> build(const mpc::GeneratedKernels &kernels,
                                     std::vector<rt::BundleSection> &constantSections) {
    manifest.program = program.getSymName().str();
    manifest.arenaBytes = program.getArenaBytes();
    manifest.persistentBytes = program.getPersistentBytes();
    llvm::StringMap<const mpc::KernelLaunch *> launches;
    llvm::StringSet<> declared;
    for (const mpc::KernelLaunch &launch : kernels.kernels) {
      launches[launch.symbol] = &launch;
      if (declared.insert(launch.name).second) // (several ops may launch one kernel)
        manifest.kernels.push_back({launch.name, launch.grid, launch.block});
    }
    // What kernels merged into another's launch write, by that launch.
    llvm::StringMap<llvm::SmallVector<Value>> mergedWrites;
    for (Operation &op : program.getBody().front())
      if (auto symbol = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        if (auto into = kernels.mergedInto.find(symbol.getValue().str());
            into != kernels.mergedInto.end())
          mergedWrites[into->second].append(mpk::writtenBuffers(&op));
    auto addLaunch = [&](Operation &op, StringAttr symbol) -> llvm::Error {
      const mpc::KernelLaunch *launch = launches.lookup(symbol.getValue());
      if (!launch)
        return llvm::createStringError("kernel " + symbol.getValue().str() + " was not emitted");
      rt::LaunchStep step;
      step.kernel = launch->name;
      for (Value buffer : launch->buffers)
        step.buffers.push_back(ref(buffer));
      manifest.steps.push_back(std::move(step));
      llvm::SmallVector<Value> writes = mpk::writtenBuffers(&op);
      writes.append(mergedWrites.lookup(symbol.getValue()));
      noteWrites(writes);
      lastStep = &op;
      return llvm::Error::success();
    };
    auto addGemm = [&](mpk::GemmOp gemm, const rt::GemmStep &step) {
      manifest.steps.push_back(step);
      noteWrites(mpk::writtenBuffers(gemm));
      lastStep = gemm;
    };
    // GEMMs with a relu_grad hint, moved down to the launch it stands for.
    llvm::DenseMap<Operation *, std::pair<mpk::GemmOp, rt::GemmStep>> movedDown;
    for (Operation &op : program.getBody().front()) {
      if (auto symbol = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName())) {
        if (kernels.mergedInto.count(symbol.getValue().str()))
          continue; // runs inside the launch of the kernel it was merged into
        if (auto moved = movedDown.find(&op); moved != movedDown.end())
          addGemm(moved->second.first, moved->second.second);
        if (llvm::Error failure = addLaunch(op, symbol))
          return std::move(failure);
        continue;
      }
      if (auto gemm = llvm::dyn_cast<mpk::GemmOp>(op)) {
        rt::GemmStep step = gemmStep(gemm);
        if (auto hint = reluGradHint(gemm, kernels)) {
          step.reluGrad = hint->first;
          movedDown[hint->second] = {gemm, step};
          continue;
        }
        step.im2colB = im2colHint(gemm, lastStep, kernels);
        addGemm(gemm, step);
        continue;
      }
      llvm::TypeSwitch<Operation *>(&op)
          .Case([&](mpk::InputOp input) {
            manifest.inputs.push_back(spec(input.getName(), input.getBuffer()));
          })
          .Case([&](mpk::OutputOp output) {
            manifest.outputs.push_back(spec(output.getName(), output.getBuffer()));
          })
          .Case([&](mpk::ParamOp param) {
            rt::ParamSpec p;
            static_cast<rt::TensorSpec &>(p) = spec(param.getName(), param.getBuffer());
            auto init = llvm::cast<mpg::InitializerAttr>(param.getInit());
            p.init.kind = static_cast<rt::InitKind>(static_cast<int>(init.getKind()));
            for (NamedAttribute arg : init.getArgs())
              p.init.args[arg.getName().str()] = init.getArg(arg.getName(), 0.0);
            p.trainable = !param.getFrozen();
            p.state = param.getState();
            if (std::optional<llvm::StringRef> master = param.getCastOf())
              p.castOf = master->str();
            manifest.params.push_back(std::move(p));
          })
          .Case([&](mpk::ConstantOp constant) {
            rt::ConstantSpec c;
            auto type = llvm::cast<MemRefType>(constant.getBuffer().getType());
            c.dtype = mpc::manifestDtypeOf(type.getElementType());
            c.shape.assign(type.getShape().begin(), type.getShape().end());
            c.buffer = ref(constant.getBuffer());
            c.section = "const." + std::to_string(constantSections.size());
            constantSections.push_back(
                {c.section, constantBytes(llvm::cast<DenseElementsAttr>(constant.getValue()))});
            manifest.constants.push_back(std::move(c));
          })
          .Case([&](mpk::CopyOp copy) {
            rt::CopyStep step;
            step.source = ref(copy.getSource());
            step.target = ref(copy.getTarget());
            step.bytes = bytesOf(copy.getSource());
            manifest.steps.push_back(step);
            noteWrites(mpk::writtenBuffers(copy));
            lastStep = copy;
          })
          .Case([&](mpk::AllReduceOp reduce) {
            auto type = llvm::cast<MemRefType>(reduce.getBuffer().getType());
            rt::AllReduceStep step;
            step.buffer = ref(reduce.getBuffer());
            step.dtype = mpc::manifestDtypeOf(type.getElementType());
            step.count = static_cast<uint64_t>(type.getNumElements());
            step.reduce = allReduceOpOf(reduce.getReduce());
            manifest.steps.push_back(step);
            noteWrites(mpk::writtenBuffers(reduce));
            lastStep = reduce;
          });
    }
    keepWidenedOperands();
    return std::move(manifest);
  }

private:
  static rt::AllReduceOp allReduceOpOf(mpk::AllReduceKind kind) {
    switch (kind) {
    case mpk::AllReduceKind::Sum:
      return rt::AllReduceOp::Sum;
    case mpk::AllReduceKind::Mean:
      return rt::AllReduceOp::Mean;
    case mpk::AllReduceKind::Max:
      return rt::AllReduceOp::Max;
    }
    llvm_unreachable("unknown all-reduce kind");
  }

  /// Records what the step just added writes.
  void noteWrites(llvm::ArrayRef<Value> buffers) {
    std::vector<rt::ByteRange> &ranges = writes.emplace_back();
    for (Value buffer : buffers)
      ranges.push_back(byteRange(buffer));
  }

  /// keep_a, keep_b or keep_c of `gemm`.
  static bool &keepFlag(rt::GemmStep &gemm, rt::GemmOperand operand) {
    switch (operand) {
    case rt::GemmOperand::A:
      return gemm.keepA;
    case rt::GemmOperand::B:
      return gemm.keepB;
    case rt::GemmOperand::C:
      return gemm.keepC;
    }
    llvm_unreachable("unknown operand");
  }

  /// The CPU widens f16 GEMM operands to fp32 (it has no fp16 GEMM); an
  /// operand that is the same elements as one an earlier GEMM read or wrote,
  /// with no step writing them in between (an activation read again by its
  /// weight gradient, a weight by its input gradient, a GEMM's result by the
  /// next layer's GEMM), reuses that widened copy: keep_x on the first
  /// reader (keep_c on the GEMM that wrote them), reuse_x on the later ones.
  void keepWidenedOperands() {
    using rt::GemmOperand;
    struct Elements {
      rt::ByteRange bytes;
      size_t step;
      GemmOperand operand;
    };
    std::vector<Elements> unchanged; // read or written by a GEMM, not written since
    for (size_t i = 0; i < manifest.steps.size(); ++i) {
      auto *gemm = std::get_if<rt::GemmStep>(&manifest.steps[i]);
      if (gemm && gemm->batch != 1)
        gemm = nullptr;
      std::vector<Elements> here;
      for (GemmOperand operand : {GemmOperand::A, GemmOperand::B}) {
        if (!gemm || (operand == GemmOperand::A ? gemm->aDtype : gemm->bDtype) != rt::DType::F16)
          continue;
        if (operand == GemmOperand::B && gemm->im2colB)
          continue; // a backend taking the hint gathers B instead

        rt::ByteRange bytes = rt::gemmOperandBytes(*gemm, operand);
        auto earlier =
            llvm::find_if(unchanged, [&](const Elements &e) { return e.bytes == bytes; });
        if (earlier == unchanged.end()) {
          here.push_back({bytes, i, operand});
          continue;
        }
        (operand == GemmOperand::A ? gemm->reuseA : gemm->reuseB) = true;
        keepFlag(std::get<rt::GemmStep>(manifest.steps[earlier->step]), earlier->operand) = true;
      }
      unchanged.insert(unchanged.end(), here.begin(), here.end());
      for (const rt::ByteRange &written : writes[i])
        llvm::erase_if(unchanged, [&](const Elements &e) { return e.bytes.overlaps(written); });
      if (gemm && gemm->cDtype == rt::DType::F16)
        unchanged.push_back({rt::gemmOperandBytes(*gemm, GemmOperand::C), i, GemmOperand::C});
    }
  }

  /// The value of a float constant, if `value` is one.
  static std::optional<llvm::APFloat> floatConstant(Value value) {
    auto constant = value.getDefiningOp<arith::ConstantOp>();
    if (auto attr = constant ? llvm::dyn_cast<FloatAttr>(constant.getValue()) : nullptr)
      return attr.getValue();
    return std::nullopt;
  }

  /// The relu_grad hint of a single product (see Manifest.h) and the launch
  /// it stands for: when the first op to read C is a launch of its own whose
  /// body is `select(cmpf ogt(aux, 0), C, +0)` over C's elements (a ReLU's
  /// gradient, dy = y > 0 ? dx : 0), the steps in between touch no byte of
  /// C and write no operand of the GEMM (which then moves down to precede
  /// the launch), and no later step or output reads C's bytes before a step
  /// writes all of them.
  std::optional<std::pair<rt::GemmStep::ReluGrad, mpk::PointwiseOp>>
  reluGradHint(mpk::GemmOp gemm, const mpc::GeneratedKernels &kernels) const {
    auto cType = llvm::cast<MemRefType>(gemm.getC().getType());
    Type cElement = cType.getElementType();
    if (gemm.getBatch() != 1 || gemm.getEpilogue() != mpk::GemmEpilogue::None ||
        !gemm.getBeta().isZero() || gemm.getOffsetC() != 0 ||
        cType.getNumElements() != gemm.getM() * gemm.getN() ||
        !(cElement.isF32() || cElement.isF16() || cElement.isBF16()))
      return std::nullopt;
    // The first later op to read C.
    Operation *next = gemm->getNextNode();
    while (next && !llvm::is_contained(next->getOperands(), gemm.getC()))
      next = next->getNextNode();
    // Whether the launch of kernel `name` also runs kernels merged into it.
    auto hostsMerged = [&](llvm::StringRef name) {
      return llvm::any_of(kernels.mergedInto,
                          [&](const auto &merged) { return merged.second == name; });
    };
    auto kernel = llvm::dyn_cast_or_null<mpk::PointwiseOp>(next);
    if (!kernel || kernel.getInputs().size() != 2 || kernel.getOutputs().size() != 1 ||
        kernels.mergedInto.count(kernel.getSymName().str()) || hostsMerged(kernel.getSymName()))
      return std::nullopt;
    for (AffineMap map : kernel.getIndexing().getAsValueRange<AffineMapAttr>())
      if (!map.isIdentity() || map.getNumDims() != cType.getRank())
        return std::nullopt;
    if (kernel.getIteration() != cType.getShape())
      return std::nullopt;
    Value out = kernel.getOutputs().front();
    auto outType = llvm::cast<MemRefType>(out.getType());
    if (outType.getShape() != cType.getShape() || outType.getElementType() != cElement)
      return std::nullopt;
    // The body: constants, the comparison, the select, the yield.
    Block &body = kernel.getBody().front();
    auto yield = llvm::dyn_cast<mpk::YieldOp>(body.getTerminator());
    if (!yield || yield->getNumOperands() != 1 || body.getOperations().size() > 5)
      return std::nullopt;
    auto select = yield->getOperand(0).getDefiningOp<arith::SelectOp>();
    auto compare = select ? select.getCondition().getDefiningOp<arith::CmpFOp>() : nullptr;
    if (!compare || compare.getPredicate() != arith::CmpFPredicate::OGT)
      return std::nullopt;
    std::optional<llvm::APFloat> threshold = floatConstant(compare.getRhs()); // +0 or -0
    std::optional<llvm::APFloat> otherwise = floatConstant(select.getFalseValue());
    if (!threshold || !threshold->isZero() || !otherwise || !otherwise->isPosZero())
      return std::nullopt;
    auto auxArg = llvm::dyn_cast<BlockArgument>(compare.getLhs());
    auto cArg = llvm::dyn_cast<BlockArgument>(select.getTrueValue());
    if (!auxArg || !cArg || auxArg.getOwner() != &body || cArg.getOwner() != &body ||
        auxArg == cArg || kernel.getInputs()[cArg.getArgNumber()] != gemm.getC())
      return std::nullopt;
    Value aux = kernel.getInputs()[auxArg.getArgNumber()];
    auto auxType = llvm::cast<MemRefType>(aux.getType());
    Type auxElement = auxType.getElementType();
    if (auxType.getShape() != cType.getShape() ||
        !(auxElement.isF32() || auxElement.isF16() || auxElement.isBF16()))
      return std::nullopt;
    // A backend taking the hint does not write C: nothing may read it.
    rt::ByteRange c = byteRange(gemm.getC());
    if (c.space != rt::BufferSpace::Arena)
      return std::nullopt; // persistent memory is read by the next run
    rt::ByteRange auxBytes = byteRange(aux), outBytes = byteRange(out);
    if (auxBytes.overlaps(c) || (outBytes.overlaps(c) && !(outBytes == c)))
      return std::nullopt;
    // out replaces aux element for element, or is apart from it.
    if (outBytes.overlaps(auxBytes) &&
        !(outBytes == auxBytes &&
          auxElement.getIntOrFloatBitWidth() == cElement.getIntOrFloatBitWidth()))
      return std::nullopt;
    // The GEMM moves down to just before the launch: the steps in between
    // touch no byte of C and write none of its operands.
    llvm::SmallVector<rt::ByteRange> operands;
    for (Value operand : {gemm.getA(), gemm.getB(), gemm.getBias()})
      if (operand)
        operands.push_back(byteRange(operand));
    for (Operation *op = gemm->getNextNode(); op != kernel; op = op->getNextNode()) {
      // A launch running kernels merged into it runs them at its place,
      // whatever they read and write: no move past one.
      if (auto symbol = op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
          symbol && hostsMerged(symbol.getValue()))
        return std::nullopt;
      llvm::SmallVector<Value> written = mpk::writtenBuffers(op);
      for (Value operand : op->getOperands()) {
        if (!operand.getDefiningOp<mpk::BufferOp>())
          continue;
        rt::ByteRange range = byteRange(operand);
        if (range.overlaps(c) ||
            (llvm::is_contained(written, operand) &&
             llvm::any_of(operands, [&](const rt::ByteRange &r) { return r.overlaps(range); })))
          return std::nullopt;
      }
    }
    if (!unreadAfter(kernel, c))
      return std::nullopt;
    rt::GemmStep::ReluGrad hint;
    hint.aux = ref(aux);
    hint.auxDtype = mpc::manifestDtypeOf(auxElement);
    hint.out = ref(out);
    return std::pair{hint, kernel};
  }

  /// Whether no op after `from` reads a byte of `bytes` before an op writes
  /// it: what a hint leaves unwritten there is never seen. (The memory plan
  /// gives dead bytes to other tensors, piece by piece, so the pieces are
  /// followed one by one.)
  bool unreadAfter(Operation *from, rt::ByteRange bytes) const {
    llvm::SmallVector<rt::ByteRange> unwritten{bytes};
    for (Operation *op = from->getNextNode(); op && !unwritten.empty(); op = op->getNextNode()) {
      for (Value operand : mpk::readBuffers(op)) {
        if (!operand.getDefiningOp<mpk::BufferOp>())
          continue;
        rt::ByteRange read = byteRange(operand);
        if (llvm::any_of(unwritten, [&](const rt::ByteRange &r) { return r.overlaps(read); }))
          return false;
      }
      for (Value written : mpk::writtenBuffers(op)) {
        if (!written.getDefiningOp<mpk::BufferOp>())
          continue;
        rt::ByteRange w = byteRange(written);
        llvm::SmallVector<rt::ByteRange> left;
        for (const rt::ByteRange &r : unwritten) {
          if (!r.overlaps(w)) {
            left.push_back(r);
            continue;
          }
          if (r.begin < w.begin)
            left.push_back({r.space, r.begin, w.begin});
          if (w.end < r.end)
            left.push_back({r.space, w.end, r.end});
        }
        unwritten = std::move(left);
      }
    }
    return true;
  }

  /// The im2col_b hint (see Manifest.h) of a GEMM whose B is the columns
  /// that `previous`, the op of the step before it, writes: a launch of its
  /// own (no kernel merged into it) of an mpk.im2col just before the GEMM in
  /// the program too (so that no GEMM moved down past the GEMM by a
  /// relu_grad hint lies between them), into arena bytes of the image's
  /// element type that the GEMM reads whole as its batch of B operands (one
  /// per image, from the first byte), and that no later op reads before one
  /// writes all of them; the image must not share bytes with the GEMM's
  /// result (a backend may read images after writing earlier products).
  std::optional<rt::GemmStep::Im2col>
  im2colHint(mpk::GemmOp gemm, Operation *previous, const mpc::GeneratedKernels &kernels) const {
    auto im2col = llvm::dyn_cast_or_null<mpk::Im2ColOp>(previous);
    if (!im2col || gemm->getPrevNode() != im2col ||
        llvm::any_of(kernels.mergedInto, [&](const auto &merged) {
          return merged.second == im2col.getSymName();
        }))
      return std::nullopt;
    auto columnsType = llvm::cast<MemRefType>(im2col.getColumns().getType());
    auto bType = llvm::cast<MemRefType>(gemm.getB().getType());
    rt::ByteRange columns = byteRange(im2col.getColumns());
    rt::ByteRange b = byteRange(gemm.getB());
    int64_t images = columnsType.getDimSize(0);
    int64_t rows = columnsType.getDimSize(1), cols = columnsType.getDimSize(2);
    int64_t storedRows = gemm.getTransposeB() ? gemm.getN() : gemm.getK();
    int64_t storedCols = gemm.getTransposeB() ? gemm.getK() : gemm.getN();
    if (columns.space != rt::BufferSpace::Arena || columns.space != b.space ||
        columns.begin != b.begin || columnsType.getElementType() != bType.getElementType() ||
        llvm::cast<MemRefType>(im2col.getInput().getType()).getElementType() !=
            bType.getElementType() ||
        gemm.getBatch() != images || gemm.getOffsetB() != 0 || gemm.getStrideB() != rows * cols ||
        storedRows != rows || storedCols != cols)
      return std::nullopt;
    if (byteRange(im2col.getInput()).overlaps(byteRange(gemm.getC())))
      return std::nullopt;
    // A backend taking the hint does not write the columns.
    if (!unreadAfter(gemm, columns))
      return std::nullopt;
    auto inputType = llvm::cast<MemRefType>(im2col.getInput().getType());
    rt::GemmStep::Im2col hint;
    hint.input = ref(im2col.getInput());
    hint.shape.assign(inputType.getShape().begin(), inputType.getShape().end());
    hint.kernel.assign(im2col.getKernel().begin(), im2col.getKernel().end());
    hint.stride.assign(im2col.getStride().begin(), im2col.getStride().end());
    hint.padding.assign(im2col.getPadding().begin(), im2col.getPadding().end());
    hint.dilation.assign(im2col.getDilation().begin(), im2col.getDilation().end());
    return hint;
  }

  static rt::BufferRef ref(Value buffer) {
    auto op = buffer.getDefiningOp<mpk::BufferOp>();
    rt::BufferRef r;
    r.space = op.getSpace() == mpk::Space::Arena ? rt::BufferSpace::Arena
                                                 : rt::BufferSpace::Persistent;
    r.offset = op.getOffset();
    return r;
  }

  /// The bytes of `buffer` in its memory space.
  static rt::ByteRange byteRange(Value buffer) {
    rt::BufferRef at = ref(buffer);
    return {at.space, at.offset, at.offset + bytesOf(buffer)};
  }

  static uint64_t bytesOf(Value buffer) {
    auto type = llvm::cast<MemRefType>(buffer.getType());
    return rt::tensorBytes(mpc::manifestDtypeOf(type.getElementType()),
                           std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
  }

  static rt::TensorSpec spec(llvm::StringRef name, Value buffer) {
    auto type = llvm::cast<MemRefType>(buffer.getType());
    rt::TensorSpec s;
    s.name = name.str();
    s.dtype = mpc::manifestDtypeOf(type.getElementType());
    s.shape.assign(type.getShape().begin(), type.getShape().end());
    s.buffer = ref(buffer);
    return s;
  }

  static rt::GemmStep gemmStep(mpk::GemmOp gemm) {
    rt::GemmStep step;
    step.a = ref(gemm.getA());
    step.b = ref(gemm.getB());
    step.c = ref(gemm.getC());
    auto elem = [](Value v) {
      return mpc::manifestDtypeOf(llvm::cast<MemRefType>(v.getType()).getElementType());
    };
    step.aDtype = elem(gemm.getA());
    step.bDtype = elem(gemm.getB());
    step.cDtype = elem(gemm.getC());
    if (gemm.getBias()) {
      step.bias = ref(gemm.getBias());
      step.biasDtype = elem(gemm.getBias());
    }
    step.m = gemm.getM();
    step.n = gemm.getN();
    step.k = gemm.getK();
    step.batch = gemm.getBatch();
    step.offsetA = gemm.getOffsetA();
    step.offsetB = gemm.getOffsetB();
    step.offsetC = gemm.getOffsetC();
    step.strideA = gemm.getStrideA();
    step.strideB = gemm.getStrideB();
    step.strideC = gemm.getStrideC();
    step.transposeA = gemm.getTransposeA();
    step.transposeB = gemm.getTransposeB();
    step.epilogue = static_cast<rt::Epilogue>(static_cast<int>(gemm.getEpilogue()));
    step.beta = gemm.getBeta().convertToDouble();
    return step;
  }

  mpk::ProgramOp program;
  rt::Manifest manifest;
  /// The op of the step last added.
  Operation *lastStep = nullptr;
  /// What each step of the manifest writes.
  std::vector<std::vector<rt::ByteRange>> writes;
};

} // namespace

llvm::Expected<mpc::BundleTargets> mpc::parseTargets(llvm::StringRef list) {
  BundleTargets targets;
  targets.cpu = false;
  llvm::SmallVector<llvm::StringRef> parts;
  list.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part == "cpu") {
      targets.cpu = true;
      continue;
    }
    llvm::StringRef number = part;
    if (!number.consume_front("sm_") || number.empty() ||
        !llvm::all_of(number, [](char c) { return llvm::isDigit(c); }))
      return llvm::createStringError("unknown target '" + part.str() +
                                     "'; expected cpu or sm_XX (e.g. sm_80, sm_90)");
    if (!llvm::is_contained(targets.gpuArchs, part.str()))
      targets.gpuArchs.push_back(part.str());
  }
  if (!targets.cpu && targets.gpuArchs.empty())
    return llvm::createStringError("--target names no target; expected e.g. cpu,sm_90");
  return targets;
}

/// The verified manifest of `program`; the constants' data goes to
/// `constants`.
static llvm::Expected<rt::Manifest> verifiedManifest(mpk::ProgramOp program,
                                                     const mpc::GeneratedKernels &kernels,
                                                     std::vector<rt::BundleSection> &constants) {
  ManifestBuilder builder(program);
  llvm::Expected<rt::Manifest> manifest = builder.build(kernels, constants);
  if (!manifest)
    return manifest.takeError();
  if (rt::Status status = rt::verifyManifest(*manifest); !status.isOk())
    return llvm::createStringError("internal error: the generated manifest is invalid: " +
                                   status.message());
  return manifest;
}

llvm::Expected<std::string> mpc::programManifest(mpk::ProgramOp program,
                                                 const GeneratedKernels &kernels) {
  std::vector<rt::BundleSection> constants;
  llvm::Expected<rt::Manifest> manifest = verifiedManifest(program, kernels, constants);
  if (!manifest)
    return manifest.takeError();
  return rt::writeManifest(*manifest);
}

llvm::Error mpc::writeProgramBundle(mpk::ProgramOp program, const GeneratedKernels &kernels,
                                    const BundleTargets &targets, const std::string &path,
                                    BundleTimings *timings) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  Clock::time_point start = Clock::now();
  BundleTimings local;
  BundleTimings &times = timings ? *timings : local;
  times.gpuCached = true;
  std::vector<rt::BundleSection> sections, constants;
  llvm::Expected<rt::Manifest> manifest = verifiedManifest(program, kernels, constants);
  if (!manifest)
    return manifest.takeError();
  sections.push_back({rt::kManifestSection, rt::writeManifest(*manifest)});
  sections.push_back({"kernels.cu", kernels.source});
  // The host object compiles on a thread of its own (the C++ compiler is a
  // process of its own) while NVRTC compiles for the GPUs: GPT-2 small's
  // cold compile took their sum.
  Clock::time_point kernelStart = Clock::now();
  std::optional<llvm::Expected<std::string>> host;
  std::thread hostThread;
  if (targets.cpu)
    hostThread = std::thread([&] {
      host.emplace(compileForHost(kernels.source, &times.hostCached, targets.host));
      times.hostSeconds = seconds(kernelStart);
    });
  std::optional<llvm::Error> gpuError;
  for (const std::string &arch : targets.gpuArchs) {
    Clock::time_point gpuStart = Clock::now();
    bool cached = false;
    llvm::Expected<GpuBinary> gpu = compileForGpu(kernels.source, arch, &cached);
    if (!gpu) {
      gpuError.emplace(gpu.takeError());
      break;
    }
    sections.push_back({"cubin." + arch, std::move(gpu->cubin)});
    sections.push_back({"ptx." + arch, std::move(gpu->ptx)});
    times.gpuSeconds += seconds(gpuStart);
    times.gpuCached &= cached;
  }
  if (hostThread.joinable())
    hostThread.join();
  times.kernelSeconds = seconds(kernelStart);
  if (host && !*host) {
    if (gpuError)
      llvm::consumeError(std::move(*gpuError));
    return host->takeError();
  }
  if (gpuError)
    return std::move(*gpuError);
  if (host)
    sections.push_back({"host.so", std::move(**host)});
  for (rt::BundleSection &constant : constants)
    sections.push_back(std::move(constant));
  if (rt::Status status = rt::writeBundle(path, sections); !status.isOk())
    return llvm::createStringError(status.message());
  times.otherSeconds = seconds(start) - times.kernelSeconds;
  return llvm::Error::success();
}
