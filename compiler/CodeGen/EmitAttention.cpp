//===- EmitAttention.cpp - fused attention kernels ------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// mpk.attention and its two gradient kernels: each an entry that calls the
// algorithm of runtime/device/attention.cuh (GPU and host forms) for its
// head size, causal flag and types, with its buffers and sizes.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelEmitter.h"

using namespace mpc::codegen;

LogicalResult Emitter::emitAttentionKernel(llvm::raw_ostream &os, Operation *op,
                                           llvm::StringRef function, llvm::ArrayRef<Value> reads,
                                           llvm::ArrayRef<Value> writes, Value mask,
                                           int64_t tiles) {
  auto name = op->getAttrOfType<StringAttr>("sym_name").getValue();
  int64_t head = op->getAttrOfType<IntegerAttr>("head").getInt();
  if (head > kAttentionMaxHead)
    return op->emitError() << "attention with a head size of " << head
                           << " has no kernel yet (at most " << kAttentionMaxHead << ")";
  Type element = elementOf(reads.front());
  if (element.isF64())
    return op->emitError("f64 attention is not supported by the kernel generator yet");
  llvm::SmallVector<Value> buffers(reads.begin(), reads.end());
  if (mask)
    buffers.push_back(mask);
  buffers.append(writes.begin(), writes.end());
  llvm::SmallVector<bool> written(buffers.size(), false);
  std::fill(written.end() - writes.size(), written.end(), true);
  auto m = beginFunctor(os, name, buffers, written);
  size_t maskIndex = reads.size();
  std::string maskArg = mask ? "fn." + m[maskIndex] : "static_cast<const float *>(nullptr)";
  std::string call;
  llvm::raw_string_ostream cs(call);
  cs << "mpc::" << function << "<" << head << ", " << (op->hasAttr("causal") ? "true" : "false")
     << ">(";
  for (size_t i = 0; i < reads.size(); ++i)
    cs << "fn." << m[i] << ", ";
  cs << maskArg;
  for (size_t i = buffers.size() - writes.size(); i < buffers.size(); ++i)
    cs << ", fn." << m[i];
  auto attr = [&](llvm::StringRef key) { return op->getAttrOfType<IntegerAttr>(key).getInt(); };
  cs << ", mpc::AttentionSizes{" << attr("batch") << ", " << attr("queries") << ", " << attr("keys")
     << ", " << floatLiteral(op->getAttrOfType<FloatAttr>("scale").getValueAsDouble(), false)
     << "})";
  endFunctor(os, name, buffers, written, call, rowGrid(tiles), kAttentionThreads);
  return success();
}

LogicalResult Emitter::emitAttention(llvm::raw_ostream &os, mpk::AttentionOp k) {
  int64_t tiles = k.getBatch() * llvm::divideCeil(k.getQueries(), kAttentionQueryTile);
  return emitAttentionKernel(os, k, "attention_forward", {k.getQuery(), k.getKey(), k.getValue()},
                             {k.getOutput(), k.getLse()}, k.getMask(), tiles);
}

LogicalResult Emitter::emitAttentionGradQuery(llvm::raw_ostream &os, mpk::AttentionGradQueryOp k) {
  int64_t tiles = k.getBatch() * llvm::divideCeil(k.getQueries(), kAttentionQueryTile);
  return emitAttentionKernel(
      os, k, "attention_grad_query",
      {k.getQuery(), k.getKey(), k.getValue(), k.getOutput(), k.getLse(), k.getGradOutput()},
      {k.getGradQuery()}, k.getMask(), tiles);
}

LogicalResult Emitter::emitAttentionGradKeyValue(llvm::raw_ostream &os,
                                                 mpk::AttentionGradKeyValueOp k) {
  int64_t tiles = k.getBatch() * llvm::divideCeil(k.getKeys(), kAttentionKeyTile);
  return emitAttentionKernel(
      os, k, "attention_grad_key_value",
      {k.getQuery(), k.getKey(), k.getValue(), k.getOutput(), k.getLse(), k.getGradOutput()},
      {k.getGradKey(), k.getGradValue()}, k.getMask(), tiles);
}
