//===- EmitWindows.cpp - pooling, im2col, col2im, gather ------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Kernels over windows of an image: pooling and its gradients (tiled forms
// for small windows), im2col and col2im of convolutions; and the gather of
// an embedding.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelEmitter.h"

using namespace mpc::codegen;

LogicalResult Emitter::emitPool(llvm::raw_ostream &os, mpk::Pool2DOp k) {
  Value in = k.getInput(), out = k.getOutput();
  auto m = beginFunctor(os, k.getSymName(), {in, out}, {false, true});
  auto inShape = shapeOf(in), outShape = shapeOf(out);
  int64_t h = inShape[2], w = inShape[3];
  auto kernel = k.getKernel(), stride = k.getStride(), pad = k.getPadding();
  bool isMax = k.getKind() == mpk::PoolKind::Max;
  os << "  MPC_HD void operator()(int64_t i) const {\n";
  emitDecompose(os, "    ", "i", outShape, {"n", "ch", "oh", "ow"});
  os << "    const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ";\n"
     << "    const int64_t w0 = ow * " << stride[1] << " - " << pad[1] << ";\n"
     << "    float acc = " << (isMax ? "-mpc::inf_f()" : "0.0f") << ";\n"
     << "    int64_t count = 0;\n"
     << "    for (int64_t kh = 0; kh < " << kernel[0] << "; ++kh)\n"
     << "      for (int64_t kw = 0; kw < " << kernel[1] << "; ++kw) {\n"
     << "        const int64_t ih = h0 + kh, iw = w0 + kw;\n"
     << "        if (ih < 0 || ih >= " << h << " || iw < 0 || iw >= " << w << ")\n"
     << "          continue;\n"
     << "        const float v = "
     << loadExpr(in, m[0],
                 "((n * " + std::to_string(inShape[1]) + " + ch) * " + std::to_string(h) +
                     " + ih) * " + std::to_string(w) + " + iw")
     << ";\n"
     << "        acc = " << (isMax ? "mpc::max_f(acc, v)" : "acc + v") << ";\n"
     << "        ++count;\n"
     << "      }\n";
  if (!isMax) {
    if (k.getCountIncludePad())
      emitCountWithPadding(os, "    ", kernel, pad, h, w);
    os << "    acc = acc / static_cast<float>(count);\n";
  }
  os << "    " << m[1] << "[i] = " << storeExpr(out, "acc") << ";\n  }\n";
  if (stride == kernel && llvm::all_of(pad, [](int64_t p) { return p == 0; }) &&
      kernel[0] * kernel[1] <= kMaxTiledWindow) {
    emitTiledPool(os, k, m);
    return success();
  }
  // The host's form: row (n, ch, oh) is Wo outputs, accumulated a kernel
  // row and column at a time over runs of valid columns (each output
  // combines its window in the same order as above).
  int64_t wo = outShape[3];
  std::string type = storageType(elementOf(in));
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  emitDecompose(os, "    ", "r", outShape.take_front(3), {"n", "ch", "oh"});
  os << "    const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ";\n"
     << "    float acc[" << wo << "];\n    int64_t count[" << wo << "];\n"
     << "    for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n"
     << "      acc[ow] = " << (isMax ? "-mpc::inf_f()" : "0.0f") << ";\n"
     << "      count[ow] = 0;\n    }\n"
     << "    for (int64_t kh = 0; kh < " << kernel[0] << "; ++kh) {\n"
     << "      const int64_t ih = h0 + kh;\n"
     << "      if (ih < 0 || ih >= " << h << ")\n        continue;\n"
     << "      const " << type << " *line = " << m[0] << " + ((n * " << inShape[1] << " + ch) * "
     << h << " + ih) * " << w << ";\n";
  // fp16/bf16 input rows are widened once per kernel row.
  bool stage = is16Bit(elementOf(in));
  if (stage)
    os << "      float linev[" << w << "];\n"
       << "      mpc::widen_chunk(line, linev, " << w << ");\n";
  os << "      for (int64_t kw = 0; kw < " << kernel[1] << "; ++kw) {\n"
     << "        const int64_t shift = kw - " << pad[1] << ";\n"
     << "        // Outputs ow with 0 <= ow * stride + shift < W.\n"
     << "        const int64_t lo = shift >= 0 ? 0 : (-shift + " << stride[1] - 1 << ") / "
     << stride[1] << ";\n"
     << "        int64_t hi = shift >= " << w << " ? 0 : (" << w - 1 << " - shift) / " << stride[1]
     << " + 1;\n"
     << "        hi = hi < " << wo << " ? hi : " << wo << ";\n"
     << "        for (int64_t ow = lo; ow < hi; ++ow) {\n"
     << "          const float v = "
     << (stage ? "linev[ow * " + std::to_string(stride[1]) + " + shift]"
               : loadExpr(in, "line", "ow * " + std::to_string(stride[1]) + " + shift"))
     << ";\n"
     << "          acc[ow] = " << (isMax ? "mpc::max_f(acc[ow], v)" : "acc[ow] + v") << ";\n"
     << "          ++count[ow];\n        }\n      }\n    }\n"
     << "    for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n"
     << "      float value = acc[ow];\n";
  if (!isMax) {
    os << "      int64_t divisor = count[ow];\n";
    if (k.getCountIncludePad())
      os << "      const int64_t w0 = ow * " << stride[1] << " - " << pad[1] << ";\n"
         << "      const int64_t hend = h0 + " << kernel[0] << " < " << h + pad[2] << " ? h0 + "
         << kernel[0] << " : " << h + pad[2] << ";\n"
         << "      const int64_t wend = w0 + " << kernel[1] << " < " << w + pad[3] << " ? w0 + "
         << kernel[1] << " : " << w + pad[3] << ";\n"
         << "      divisor = (hend - h0) * (wend - w0);\n";
    os << "      value = value / static_cast<float>(divisor);\n";
  }
  if (is16Bit(elementOf(out)))
    os << "      acc[ow] = value;\n    }\n"
       << "    mpc::narrow_chunk(acc, " << m[1] << " + r * " << wo << ", " << wo << ");\n"
       << "  }\n#endif\n";
  else
    os << "      " << m[1] << "[r * " << wo << " + ow] = " << storeExpr(out, "value") << ";\n"
       << "    }\n  }\n#endif\n";
  int64_t rows = outShape[0] * outShape[1] * outShape[2];
  os << "  static constexpr int64_t kRows = " << rows << ";\n";
  int64_t n = product(outShape);
  endFunctor(os, k.getSymName(), {in, out}, {false, true},
             "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) + ", fn)",
             pointwiseGrid(n), 256);
  return success();
}

void Emitter::emitTiledPool(llvm::raw_ostream &os, mpk::Pool2DOp k, llvm::ArrayRef<std::string> m) {
  Value in = k.getInput(), out = k.getOutput();
  auto inShape = shapeOf(in), outShape = shapeOf(out);
  int64_t h = inShape[2], w = inShape[3], ho = outShape[2], wo = outShape[3];
  int64_t kh = k.getKernel()[0], kw = k.getKernel()[1];
  bool isMax = k.getKind() == mpk::PoolKind::Max;
  bool stageIn = is16Bit(elementOf(in)) && h * w <= kMaxStagedPoolPlane;
  bool stageOut = is16Bit(elementOf(out)) && ho * wo <= kMaxStagedPoolPlane;
  std::string x = stageIn ? "xv" : "(" + m[0] + " + r * " + std::to_string(h * w) + ")";
  std::string y = stageOut ? "yv" : m[1] + " + r * " + std::to_string(ho * wo);
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  if (stageIn)
    os << "    float xv[" << h * w << "];\n"
       << "    mpc::widen_chunk(" << m[0] << " + r * " << h * w << ", xv, " << h * w << ");\n";
  if (stageOut)
    os << "    float yv[" << ho * wo << "];\n";
  else
    os << "    " << storageType(elementOf(out)) << " *plane = " << y << ";\n";
  os << "    for (int64_t oh = 0; oh < " << ho << "; ++oh) {\n";
  std::string pad = openWindowRowLoop(os, wo);
  os << pad << "        float acc = " << (isMax ? "-mpc::inf_f()" : "0.0f") << ";\n";
  for (int64_t a = 0; a < kh; ++a)
    for (int64_t c = 0; c < kw; ++c) {
      std::string at = tiledWindowElement(kh, kw, w, a, c);
      std::string v = stageIn ? x + "[" + at + "]" : loadExpr(in, x, at);
      os << pad << "        acc = " << (isMax ? "mpc::max_f(acc, " + v + ")" : "acc + " + v)
         << ";\n";
    }
  if (!isMax)
    os << pad << "        acc = acc / static_cast<float>(" << kh * kw << ");\n";
  if (stageOut)
    os << pad << "        yv[oh * " << wo << " + ow] = acc;\n";
  else
    os << pad << "        plane[oh * " << wo << " + ow] = " << storeExpr(out, "acc") << ";\n";
  closeWindowRowLoop(os, wo);
  os << "    }\n";
  if (stageOut)
    os << "    mpc::narrow_chunk(yv, " << m[1] << " + r * " << ho * wo << ", " << ho * wo << ");\n";
  os << "  }\n#endif\n";
  int64_t planes = outShape[0] * outShape[1];
  os << "  static constexpr int64_t kRows = " << planes << ";\n";
  int64_t n = product(outShape);
  endFunctor(os, k.getSymName(), {in, out}, {false, true},
             "mpc::pointwise_rows(" + std::to_string(planes) + ", " + std::to_string(n) + ", fn)",
             pointwiseGrid(n), 256);
}

void Emitter::emitCountWithPadding(llvm::raw_ostream &os, llvm::StringRef indent,
                                   llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> pad,
                                   int64_t h, int64_t w) {
  os << indent << "const int64_t hend = h0 + " << kernel[0] << " < " << h + pad[2] << " ? h0 + "
     << kernel[0] << " : " << h + pad[2] << ";\n"
     << indent << "const int64_t wend = w0 + " << kernel[1] << " < " << w + pad[3] << " ? w0 + "
     << kernel[1] << " : " << w + pad[3] << ";\n"
     << indent << "count = (hend - h0) * (wend - w0);\n";
}

void Emitter::emitWindowFirstMax(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w,
                                 const std::string &input) {
  auto kernel = k.getKernel();
  os << "        int64_t bh = -1, bw = -1;\n"
     << "        float best = -mpc::inf_f();\n"
     << "        for (int64_t a = 0; a < " << kernel[0] << "; ++a)\n"
     << "          for (int64_t c = 0; c < " << kernel[1] << "; ++c) {\n"
     << "            const int64_t y = h0 + a, z = w0 + c;\n"
     << "            if (y < 0 || y >= " << h << " || z < 0 || z >= " << w << ")\n"
     << "              continue;\n"
     << "            const float v = " << input << ";\n"
     << "            if (bh < 0 || v > best || (mpc::is_nan_f(v) && !mpc::is_nan_f(best))) {\n"
     << "              best = v;\n              bh = y;\n              bw = z;\n            }\n"
     << "          }\n";
}

std::string Emitter::tiledWindowElement(int64_t kh, int64_t kw, int64_t w, int64_t a, int64_t c) {
  return "(oh * " + std::to_string(kh) + " + " + std::to_string(a) + ") * " + std::to_string(w) +
         " + ow * " + std::to_string(kw) + " + " + std::to_string(c);
}

int64_t Emitter::windowRowBlock(int64_t wo) {
  int64_t block = wo >= kTiledPoolBlock       ? kTiledPoolBlock
                  : wo >= kTiledPoolBlock / 2 ? kTiledPoolBlock / 2
                                              : 0;
  return block > 0 && wo % block != 0 ? block : 0;
}

std::string Emitter::openWindowRowLoop(llvm::raw_ostream &os, int64_t wo) {
  int64_t block = windowRowBlock(wo);
  if (!block) {
    os << "      MPC_INDEPENDENT_ITERATIONS\n"
       << "      for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n";
    return "";
  }
  os << "      for (int64_t b_ = 0; b_ < " << (wo + block - 1) / block << "; ++b_) {\n"
     << "        const int64_t first_ = b_ * " << block << " < " << wo - block << " ? b_ * "
     << block << " : " << wo - block << ";\n"
     << "        MPC_INDEPENDENT_ITERATIONS\n"
     << "        for (int64_t j_ = 0; j_ < " << block << "; ++j_) {\n"
     << "          const int64_t ow = first_ + j_;\n";
  return "  ";
}

void Emitter::closeWindowRowLoop(llvm::raw_ostream &os, int64_t wo) {
  if (windowRowBlock(wo))
    os << "        }\n";
  os << "      }\n";
}

void Emitter::emitTiledMaxPoolGrad(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w,
                                   int64_t ho, int64_t wo, const std::string &gradient,
                                   llvm::function_ref<std::string(const std::string &)> input,
                                   llvm::function_ref<std::string(const std::string &)> write) {
  int64_t kh = k.getKernel()[0], kw = k.getKernel()[1];
  auto at = [&](int64_t a, int64_t c) { return tiledWindowElement(kh, kw, w, a, c); };
  os << "    for (int64_t oh = 0; oh < " << ho << "; ++oh) {\n";
  std::string pad = openWindowRowLoop(os, wo);
  os << pad << "        const float g = " << gradient << ";\n"
     << pad << "        int32_t best = mpc::first_max_key(" << input(at(0, 0)) << ");\n"
     << pad << "        int32_t first = 0;\n";
  for (int64_t e = 1; e < kh * kw; ++e)
    os << pad << "        {\n"
       << pad << "          const int32_t v = mpc::first_max_key(" << input(at(e / kw, e % kw))
       << ");\n"
       << pad << "          const bool take = v > best;\n"
       << pad << "          best = take ? v : best;\n"
       << pad << "          first = take ? " << e << " : first;\n"
       << pad << "        }\n";
  for (int64_t e = 0; e < kh * kw; ++e)
    os << pad << "        plane[" << at(e / kw, e % kw) << "] = first == " << e << " ? "
       << write("0.0f + g") << " : " << write("0.0f") << ";\n";
  closeWindowRowLoop(os, wo);
  if (wo * kw < w)
    os << "      for (int64_t a = 0; a < " << kh << "; ++a)\n"
       << "        for (int64_t z = " << wo * kw << "; z < " << w << "; ++z)\n"
       << "          plane[(oh * " << kh << " + a) * " << w << " + z] = " << write("0.0f") << ";\n";
  os << "    }\n";
  if (ho * kh < h)
    os << "    for (int64_t e = " << ho * kh * w << "; e < " << h * w << "; ++e)\n"
       << "      plane[e] = " << write("0.0f") << ";\n";
}

void Emitter::emitWindowCount(llvm::raw_ostream &os, mpk::Pool2DGradOp k, int64_t h, int64_t w) {
  auto kernel = k.getKernel(), pad = k.getPadding();
  os << "        int64_t count = 0;\n";
  if (k.getCountIncludePad())
    emitCountWithPadding(os, "        ", kernel, pad, h, w);
  else
    os << "        for (int64_t a = 0; a < " << kernel[0] << "; ++a)\n"
       << "          for (int64_t c = 0; c < " << kernel[1] << "; ++c)\n"
       << "            count += (h0 + a >= 0 && h0 + a < " << h << " && w0 + c >= 0 && w0 + c < "
       << w << ") ? 1 : 0;\n";
}

LogicalResult Emitter::emitPoolGrad(llvm::raw_ostream &os, mpk::Pool2DGradOp k) {
  bool isMax = k.getKind() == mpk::PoolKind::Max;
  llvm::SmallVector<Value> buffers{k.getGradOutput()};
  if (isMax)
    buffers.push_back(k.getInput());
  buffers.push_back(k.getGradInput());
  llvm::SmallVector<bool> written(buffers.size(), false);
  written.back() = true;
  auto m = beginFunctor(os, k.getSymName(), buffers, written);
  const std::string &dy = m[0], &dx = m.back();
  auto inShape = shapeOf(k.getGradInput()), outShape = shapeOf(k.getGradOutput());
  int64_t channels = inShape[1], h = inShape[2], w = inShape[3], ho = outShape[2], wo = outShape[3];
  auto kernel = k.getKernel(), stride = k.getStride(), pad = k.getPadding();
  std::string plane = "(n * " + std::to_string(channels) + " + ch)";
  os << "  MPC_HD void operator()(int64_t i) const {\n";
  emitDecompose(os, "    ", "i", inShape, {"n", "ch", "ih", "iw"});
  os << "    float acc = 0.0f;\n"
     << "    for (int64_t ki = 0; ki < " << kernel[0] << "; ++ki) {\n"
     << "      const int64_t th = ih + " << pad[0] << " - ki;\n"
     << "      if (th < 0 || th % " << stride[0] << " != 0 || th / " << stride[0] << " >= " << ho
     << ")\n        continue;\n"
     << "      const int64_t oh = th / " << stride[0] << ";\n"
     << "      for (int64_t kj = 0; kj < " << kernel[1] << "; ++kj) {\n"
     << "        const int64_t tw = iw + " << pad[1] << " - kj;\n"
     << "        if (tw < 0 || tw % " << stride[1] << " != 0 || tw / " << stride[1] << " >= " << wo
     << ")\n          continue;\n"
     << "        const int64_t ow = tw / " << stride[1] << ";\n"
     << "        const float g = "
     << loadExpr(buffers[0], dy,
                 "(" + plane + " * " + std::to_string(ho) + " + oh) * " + std::to_string(wo) +
                     " + ow")
     << ";\n"
     << "        const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ", w0 = ow * "
     << stride[1] << " - " << pad[1] << ";\n";
  if (isMax) {
    emitWindowFirstMax(os, k, h, w,
                       loadExpr(buffers[1], m[1],
                                "(" + plane + " * " + std::to_string(h) + " + y) * " +
                                    std::to_string(w) + " + z"));
    os << "        if (bh == ih && bw == iw)\n          acc += g;\n";
  } else {
    emitWindowCount(os, k, h, w);
    os << "        acc += g / static_cast<float>(count);\n";
  }
  os << "      }\n    }\n"
     << "    " << dx << "[i] = " << storeExpr(buffers.back(), "acc") << ";\n  }\n";
  // The host's form, row = one image plane. Windows that do not overlap
  // (stride >= kernel) each hand their gradient to their own inputs: the
  // plane is zeroed and every window writes 0 + its share (the gather
  // above adds it to 0 as well); max pooling's windows that tile the plane
  // write every element once instead (emitTiledMaxPoolGrad). Overlapping
  // windows gather as above.
  int64_t planes = inShape[0] * inShape[1];
  int64_t n = product(inShape);
  std::string type = storageType(elementOf(buffers.back()));
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  if (stride[0] >= kernel[0] && stride[1] >= kernel[1]) {
    // fp16/bf16 planes are widened into float arrays first and the
    // gradient plane narrowed from one (when they are small enough for
    // the stack), so that the loops below read and write floats.
    bool stage = is16Bit(elementOf(buffers.back())) && h * w <= kMaxStagedPoolPlane;
    // Windows that tile the plane from its corner (stride = kernel, no
    // padding) have a form of their own that writes every element once.
    bool tiledMax = isMax && stride[0] == kernel[0] && stride[1] == kernel[1] &&
                    llvm::all_of(pad, [](int64_t p) { return p == 0; }) &&
                    kernel[0] * kernel[1] <= kMaxTiledWindow;
    std::string g = "dyv", x = "xv", plane = "plane";
    if (stage) {
      os << "    float dyv[" << ho * wo << "];\n"
         << "    mpc::widen_chunk(" << dy << " + r * " << ho * wo << ", dyv, " << ho * wo << ");\n";
      if (isMax)
        os << "    float xv[" << h * w << "];\n"
           << "    mpc::widen_chunk(" << m[1] << " + r * " << h * w << ", xv, " << h * w << ");\n";
      os << "    float plane[" << h * w << "];\n";
      if (!tiledMax)
        os << "    for (int64_t e = 0; e < " << h * w << "; ++e)\n      plane[e] = 0.0f;\n";
    } else {
      g = dy + " + r * " + std::to_string(ho * wo);
      if (isMax)
        x = m[1] + " + r * " + std::to_string(h * w);
      os << "    " << type << " *plane = " << dx << " + r * " << h * w << ";\n";
      if (!tiledMax)
        os << "    for (int64_t e = 0; e < " << h * w << "; ++e)\n"
           << "      plane[e] = " << storeExpr(buffers.back(), "0.0f") << ";\n";
    }
    auto read = [&](const std::string &from, Value buffer, const std::string &at) {
      return stage ? from + "[" + at + "]" : loadExpr(buffer, "(" + from + ")", at);
    };
    auto write = [&](const std::string &value) {
      return stage ? value : storeExpr(buffers.back(), value);
    };
    if (tiledMax) {
      emitTiledMaxPoolGrad(
          os, k, h, w, ho, wo, read(g, buffers[0], "oh * " + std::to_string(wo) + " + ow"),
          [&](const std::string &at) { return read(x, buffers[1], at); }, write);
    } else {
      os << "    for (int64_t oh = 0; oh < " << ho << "; ++oh)\n"
         << "      for (int64_t ow = 0; ow < " << wo << "; ++ow) {\n"
         << "        const float g = "
         << read(g, buffers[0], "oh * " + std::to_string(wo) + " + ow") << ";\n"
         << "        const int64_t h0 = oh * " << stride[0] << " - " << pad[0] << ", w0 = ow * "
         << stride[1] << " - " << pad[1] << ";\n";
      if (isMax) {
        emitWindowFirstMax(os, k, h, w, read(x, buffers[1], "y * " + std::to_string(w) + " + z"));
        os << "        if (bh >= 0)\n"
           << "          plane[bh * " << w << " + bw] = " << write("0.0f + g") << ";\n";
      } else {
        emitWindowCount(os, k, h, w);
        os << "        const float share = 0.0f + g / static_cast<float>(count);\n"
           << "        for (int64_t a = 0; a < " << kernel[0] << "; ++a)\n"
           << "          for (int64_t c = 0; c < " << kernel[1] << "; ++c) {\n"
           << "            const int64_t y = h0 + a, z = w0 + c;\n"
           << "            if (y >= 0 && y < " << h << " && z >= 0 && z < " << w << ")\n"
           << "              plane[y * " << w << " + z] = " << write("share") << ";\n"
           << "          }\n";
      }
      os << "      }\n";
    }
    if (stage)
      os << "    mpc::narrow_chunk(plane, " << dx << " + r * " << h * w << ", " << h * w << ");\n";
  } else {
    os << "    for (int64_t e = 0; e < " << h * w << "; ++e)\n"
       << "      (*this)(r * " << h * w << " + e);\n";
  }
  os << "  }\n#endif\n"
     << "  static constexpr int64_t kRows = " << planes << ";\n";
  endFunctor(os, k.getSymName(), buffers, written,
             "mpc::pointwise_rows(" + std::to_string(planes) + ", " + std::to_string(n) + ", fn)",
             pointwiseGrid(n), 256);
  return success();
}

void Emitter::emitUnrolledIm2ColRow(llvm::raw_ostream &os, const Windows &w,
                                    const std::string &type, const std::string &bits,
                                    const std::string &image, const std::string &columns) {
  int64_t height = w.image[2], width = w.image[3], plane = height * width;
  int64_t spatial = w.outH * w.outW, area = w.kernel[0] * w.kernel[1];
  auto plus = [](int64_t offset) {
    return (offset < 0 ? " - " : " + ") + std::to_string(offset < 0 ? -offset : offset);
  };
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n"
     << "    const " << type << " *image = " << image << " + r * " << plane << ";\n"
     << "    " << type << " *cols = " << columns << " + r * " << area * spatial << ";\n";
  for (int64_t ki = 0; ki < w.kernel[0]; ++ki) {
    // Output rows oh read input row oh * stride + rowShift, inside the
    // image for oh in [top, bottom).
    int64_t rowShift = ki * w.dilation[0] - w.pad[0];
    int64_t bottom = std::clamp<int64_t>(
        llvm::divideFloorSigned(height - 1 - rowShift, w.stride[0]) + 1, 0, w.outH);
    int64_t top = std::clamp<int64_t>(llvm::divideCeilSigned(-rowShift, w.stride[0]), 0, bottom);
    for (int64_t kj = 0; kj < w.kernel[1]; ++kj) {
      // Likewise output columns [lo, hi) read input columns ow * stride + shift.
      int64_t shift = kj * w.dilation[1] - w.pad[1];
      int64_t hi = std::clamp<int64_t>(llvm::divideFloorSigned(width - 1 - shift, w.stride[1]) + 1,
                                       0, w.outW);
      int64_t lo = std::clamp<int64_t>(llvm::divideCeilSigned(-shift, w.stride[1]), 0, hi);
      os << "    {\n      " << type << " *out = cols + " << (ki * w.kernel[1] + kj) * spatial
         << ";\n";
      if (top > 0)
        os << "      for (int64_t e = 0; e < " << top * w.outW << "; ++e)\n        out[e]" << bits
           << " = 0;\n";
      if (bottom > top) {
        os << "      for (int64_t oh = " << top << "; oh < " << bottom << "; ++oh) {\n"
           << "        const " << type << " *line = image + (oh * " << w.stride[0] << plus(rowShift)
           << ") * " << width << ";\n"
           << "        " << type << " *row = out + oh * " << w.outW << ";\n";
        if (lo > 0)
          os << "        for (int64_t ow = 0; ow < " << lo << "; ++ow)\n          row[ow]" << bits
             << " = 0;\n";
        if (hi > lo)
          os << "        for (int64_t ow = " << lo << "; ow < " << hi << "; ++ow)\n"
             << "          row[ow]" << bits << " = line[ow * " << w.stride[1] << plus(shift) << "]"
             << bits << ";\n";
        if (hi < w.outW)
          os << "        for (int64_t ow = " << hi << "; ow < " << w.outW << "; ++ow)\n"
             << "          row[ow]" << bits << " = 0;\n";
        os << "      }\n";
      }
      if (bottom < w.outH)
        os << "      for (int64_t e = " << bottom * w.outW << "; e < " << spatial
           << "; ++e)\n        out[e]" << bits << " = 0;\n";
      os << "    }\n";
    }
  }
  os << "  }\n#endif\n";
}

LogicalResult Emitter::emitIm2Col(llvm::raw_ostream &os, mpk::Im2ColOp k) {
  Value in = k.getInput(), cols = k.getColumns();
  auto m = beginFunctor(os, k.getSymName(), {in, cols}, {false, true});
  Windows w = windowsOf(k, in);
  auto colShape = shapeOf(cols);
  std::string type = storageType(elementOf(in));
  int64_t area = w.kernel[0] * w.kernel[1];
  os << "  MPC_HD void operator()(int64_t i) const {\n";
  emitDecompose(os, "    ", "i", colShape, {"n", "ckk", "p"});
  os << "    const int64_t ch = ckk / " << area << ";\n"
     << "    const int64_t ki = (ckk / " << w.kernel[1] << ") % " << w.kernel[0] << ";\n"
     << "    const int64_t kj = ckk % " << w.kernel[1] << ";\n"
     << "    const int64_t ih = (p / " << w.outW << ") * " << w.stride[0] << " - " << w.pad[0]
     << " + ki * " << w.dilation[0] << ";\n"
     << "    const int64_t iw = (p % " << w.outW << ") * " << w.stride[1] << " - " << w.pad[1]
     << " + kj * " << w.dilation[1] << ";\n"
     << "    const bool inside = ih >= 0 && ih < " << w.image[2] << " && iw >= 0 && iw < "
     << w.image[3] << ";\n"
     << "    " << m[1] << "[i] = inside ? " << m[0] << "[((n * " << w.image[1] << " + ch) * "
     << w.image[2] << " + ih) * " << w.image[3] << " + iw] : "
     << "mpc::from_f32<" << type << ">(0.0f);\n  }\n";
  // fp16/bf16 elements are copied as their bits (a copy of the struct
  // does not vectorise); zero is all bits clear in every type.
  std::string bits = is16Bit(elementOf(in)) ? ".bits" : "";
  int64_t rows = colShape[0] * colShape[1];
  if (area <= kMaxUnrolledIm2ColTaps) {
    emitUnrolledIm2ColRow(os, w, type, bits, m[0], m[1]);
    rows = w.image[0] * w.image[1];
  } else {
    // The host's form for larger kernels: row (n, ckk) is the Ho x Wo
    // columns of one kernel element, an output row at a time: zeros where
    // the window reads padding and the input row (with stride) between.
    os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
    emitDecompose(os, "    ", "r", {colShape[0], colShape[1]}, {"n", "ckk"});
    os << "    const int64_t ch = ckk / " << area << ";\n"
       << "    const int64_t ki = (ckk / " << w.kernel[1] << ") % " << w.kernel[0] << ";\n"
       << "    const int64_t kj = ckk % " << w.kernel[1] << ";\n"
       << "    const int64_t shift = kj * " << w.dilation[1] << " - " << w.pad[1] << ";\n"
       << "    // Columns ow with 0 <= ow * stride + shift < W read the input.\n"
       << "    int64_t lo = shift >= 0 ? 0 : (-shift + " << w.stride[1] - 1 << ") / " << w.stride[1]
       << ";\n"
       << "    int64_t hi = shift >= " << w.image[3] << " ? 0 : (" << w.image[3] - 1
       << " - shift) / " << w.stride[1] << " + 1;\n"
       << "    hi = hi < " << w.outW << " ? hi : " << w.outW << ";\n"
       << "    lo = lo < hi ? lo : hi;\n"
       << "    const " << type << " *image = " << m[0] << " + (n * " << w.image[1] << " + ch) * "
       << w.image[2] * w.image[3] << ";\n"
       << "    " << type << " *out = " << m[1] << " + r * " << w.outH * w.outW << ";\n"
       << "    for (int64_t oh = 0; oh < " << w.outH << "; ++oh, out += " << w.outW << ") {\n"
       << "      const int64_t ih = oh * " << w.stride[0] << " - " << w.pad[0] << " + ki * "
       << w.dilation[0] << ";\n"
       << "      const bool inside = ih >= 0 && ih < " << w.image[2] << ";\n"
       << "      const int64_t from = inside ? lo : " << w.outW << ", to = inside ? hi : " << w.outW
       << ";\n"
       << "      const " << type << " *line = image + (inside ? ih : 0) * " << w.image[3] << ";\n";
    os << "      for (int64_t ow = 0; ow < from; ++ow)\n        out[ow]" << bits << " = 0;\n"
       << "      for (int64_t ow = from; ow < to; ++ow)\n        out[ow]" << bits << " = line[ow * "
       << w.stride[1] << " + shift]" << bits << ";\n"
       << "      for (int64_t ow = to; ow < " << w.outW << "; ++ow)\n        out[ow]" << bits
       << " = 0;\n"
       << "    }\n  }\n#endif\n";
  }
  os << "  static constexpr int64_t kRows = " << rows << ";\n";
  int64_t n = product(colShape);
  endFunctor(os, k.getSymName(), {in, cols}, {false, true},
             "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) + ", fn)",
             pointwiseGrid(n), 256);
  return success();
}

LogicalResult Emitter::emitCol2Im(llvm::raw_ostream &os, mpk::Col2ImOp k) {
  Value cols = k.getColumns(), out = k.getOutput();
  auto m = beginFunctor(os, k.getSymName(), {cols, out}, {false, true});
  Windows w = windowsOf(k, out);
  std::string type = storageType(elementOf(out));
  int64_t ckk = shapeOf(cols)[1], spatial = w.outH * w.outW;
  int64_t area = w.kernel[0] * w.kernel[1];
  // The sum over kernel rows ki, then columns kj, of the entries that
  // read this element, in both forms.
  os << "  MPC_HD void operator()(int64_t i) const {\n";
  emitDecompose(os, "    ", "i", w.image, {"n", "ch", "h", "x"});
  os << "    float acc = 0.0f;\n"
     << "    for (int64_t ki = 0; ki < " << w.kernel[0] << "; ++ki) {\n"
     << "      const int64_t th = h + " << w.pad[0] << " - ki * " << w.dilation[0] << ";\n"
     << "      if (th < 0 || th % " << w.stride[0] << " != 0 || th / " << w.stride[0]
     << " >= " << w.outH << ")\n        continue;\n"
     << "      for (int64_t kj = 0; kj < " << w.kernel[1] << "; ++kj) {\n"
     << "        const int64_t tw = x + " << w.pad[1] << " - kj * " << w.dilation[1] << ";\n"
     << "        if (tw < 0 || tw % " << w.stride[1] << " != 0 || tw / " << w.stride[1]
     << " >= " << w.outW << ")\n          continue;\n"
     << "        acc += mpc::to_f32(" << m[0] << "[(n * " << ckk << " + ch * " << area << " + ki * "
     << w.kernel[1] << " + kj) * " << spatial << " + (th / " << w.stride[0] << ") * " << w.outW
     << " + tw / " << w.stride[1] << "]);\n"
     << "      }\n    }\n"
     << "    " << m[1] << "[i] = mpc::from_f32<" << type << ">(acc);\n  }\n";
  // The host's form: row (n, ch) is an image plane, summed a band of its
  // rows at a time in a float array: for each kernel row ki, then column
  // kj, every row of the band that entry reads adds one column run, so
  // each element gets its terms in the element form's order. A tap's run
  // bounds are then fixed across the band's rows; summing one image row at
  // a time over all taps took 2.2-2.9x longer on the CNN example's 14x14
  // planes. A band is the whole plane up to kCol2ImBandElements.
  int64_t width = w.image[3], height = w.image[2];
  // (An empty image has one band of nothing.)
  int64_t band =
      width > 0 && height > 0 ? std::clamp<int64_t>(kCol2ImBandElements / width, 1, height) : 1;
  os << "#ifndef __CUDACC__\n  void row(int64_t r) const {\n";
  emitDecompose(os, "    ", "r", w.image.take_front(2), {"n", "ch"});
  os << "    for (int64_t h0 = 0; h0 < " << height << "; h0 += " << band << ") {\n"
     << "      const int64_t rows = " << height << " - h0 < " << band << " ? " << height
     << " - h0 : " << band << ";\n"
     << "      float acc[" << std::max<int64_t>(band * width, 1) << "];\n"
     << "      for (int64_t e = 0; e < rows * " << width << "; ++e)\n        acc[e] = 0.0f;\n"
     << "      for (int64_t ki = 0; ki < " << w.kernel[0] << "; ++ki)\n"
     << "        for (int64_t kj = 0; kj < " << w.kernel[1] << "; ++kj) {\n"
     << "          const " << storageType(elementOf(cols)) << " *in = " << m[0] << " + (n * " << ckk
     << " + ch * " << area << " + ki * " << w.kernel[1] << " + kj) * " << spatial << ";\n"
     << "          const int64_t shift = " << w.pad[1] << " - kj * " << w.dilation[1] << ";\n";
  if (w.stride[1] == 1)
    // Output columns x with 0 <= x + shift < Wo, a contiguous run.
    os << "          const int64_t lo = shift >= 0 ? 0 : -shift;\n"
       << "          int64_t hi = " << w.outW << " - shift;\n"
       << "          hi = hi < " << width << " ? hi : " << width << ";\n";
  os << "          for (int64_t h = 0; h < rows; ++h) {\n"
     << "            const int64_t th = h0 + h + " << w.pad[0] << " - ki * " << w.dilation[0]
     << ";\n"
     << "            if (th < 0 || th % " << w.stride[0] << " != 0 || th / " << w.stride[0]
     << " >= " << w.outH << ")\n              continue;\n"
     << "            const " << storageType(elementOf(cols)) << " *line = in + (th / "
     << w.stride[0] << ") * " << w.outW << ";\n"
     << "            float *sums = acc + h * " << width << ";\n";
  if (w.stride[1] == 1)
    os << "            MPC_INDEPENDENT_ITERATIONS\n"
       << "            for (int64_t x = lo; x < hi; ++x)\n"
       << "              sums[x] += mpc::to_f32(line[x + shift]);\n";
  else
    os << "            for (int64_t x = 0; x < " << width << "; ++x) {\n"
       << "              const int64_t tw = x + shift;\n"
       << "              if (tw >= 0 && tw % " << w.stride[1] << " == 0 && tw / " << w.stride[1]
       << " < " << w.outW << ")\n"
       << "                sums[x] += mpc::to_f32(line[tw / " << w.stride[1] << "]);\n"
       << "            }\n";
  os << "          }\n        }\n";
  std::string bandAt = "(r * " + std::to_string(height) + " + h0) * " + std::to_string(width);
  if (is16Bit(elementOf(out)))
    os << "      mpc::narrow_chunk(acc, " << m[1] << " + " << bandAt << ", rows * " << width
       << ");\n";
  else
    os << "      " << type << " *band = " << m[1] << " + " << bandAt << ";\n"
       << "      for (int64_t e = 0; e < rows * " << width << "; ++e)\n"
       << "        band[e] = mpc::from_f32<" << type << ">(acc[e]);\n";
  os << "    }\n  }\n#endif\n";
  int64_t rows = w.image[0] * w.image[1];
  os << "  static constexpr int64_t kRows = " << rows << ";\n";
  int64_t n = product(w.image);
  endFunctor(os, k.getSymName(), {cols, out}, {false, true},
             "mpc::pointwise_rows(" + std::to_string(rows) + ", " + std::to_string(n) + ", fn)",
             pointwiseGrid(n), 256);
  return success();
}

LogicalResult Emitter::emitGather(llvm::raw_ostream &os, mpk::GatherOp k) {
  Value table = k.getTable(), ids = k.getIndices(), out = k.getOutput();
  auto m = beginFunctor(os, k.getSymName(), {table, ids, out}, {false, false, true});
  int64_t vocab = shapeOf(table)[0], dim = shapeOf(table)[1];
  std::string type = storageType(elementOf(out));
  os << "  MPC_HD void operator()(int64_t i) const {\n"
     << "    const int64_t row = static_cast<int64_t>(" << m[1] << "[i / " << dim << "]);\n"
     << "    " << m[2] << "[i] = (row >= 0 && row < " << vocab << ") ? " << m[0] << "[row * " << dim
     << " + i % " << dim << "] : mpc::from_f32<" << type << ">(mpc::nan_f());\n  }\n";
  int64_t n = product(shapeOf(out));
  endFunctor(os, k.getSymName(), {table, ids, out}, {false, false, true},
             "mpc::pointwise(" + std::to_string(n) + ", fn)", pointwiseGrid(n), 256);
  return success();
}
