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

LogicalResult Emitter::emitAttentionKernel(llvm::raw_ostream &os, const AttentionLaunch &launch,
                                           llvm::ArrayRef<Value> reads,
                                           llvm::ArrayRef<Value> writes, Value mask) {
  Operation *op = launch.op;
  if (launch.head > kAttentionMaxHead)
    return op->emitError() << "attention with a head size of " << launch.head
                           << " has no kernel yet (at most " << kAttentionMaxHead << ")";
  if (elementOf(reads.front()).isF64())
    return op->emitError("f64 attention is not supported by the kernel generator yet");
  llvm::SmallVector<Value> buffers(reads.begin(), reads.end());
  if (mask)
    buffers.push_back(mask);
  buffers.append(writes.begin(), writes.end());
  llvm::SmallVector<bool> written(buffers.size(), false);
  std::fill(written.end() - writes.size(), written.end(), true);
  auto m = beginFunctor(os, launch.name, buffers, written);
  std::string call;
  llvm::raw_string_ostream cs(call);
  cs << "mpc::" << launch.function << "<" << launch.head << ", "
     << (launch.causal ? "true" : "false") << ">(";
  for (size_t i = 0; i < reads.size(); ++i)
    cs << "fn." << m[i] << ", ";
  cs << (mask ? "fn." + m[reads.size()] : std::string("static_cast<const float *>(nullptr)"));
  for (size_t i = buffers.size() - writes.size(); i < buffers.size(); ++i)
    cs << ", fn." << m[i];
  cs << ", mpc::AttentionSizes{" << launch.batch << ", " << launch.queries << ", " << launch.keys
     << ", " << floatLiteral(launch.scale, false) << "})";
  endFunctor(os, launch.name, buffers, written, call, rowGrid(launch.tiles), kAttentionThreads);
  return success();
}

/// The launch of attention kernel `k` calling `function`, over tiles of
/// `tile` queries (or keys, `byKeys`).
template <class AttentionKernel>
static Emitter::AttentionLaunch launchOf(AttentionKernel k, llvm::StringRef function, bool byKeys,
                                         int64_t tile) {
  int64_t rows = byKeys ? k.getKeys() : k.getQueries();
  return {k,
          k.getSymName(),
          function,
          k.getBatch(),
          k.getQueries(),
          k.getKeys(),
          k.getHead(),
          k.getScale().convertToDouble(),
          k.getCausal(),
          k.getBatch() * llvm::divideCeil(rows, tile)};
}

LogicalResult Emitter::emitAttention(llvm::raw_ostream &os, mpk::AttentionOp k) {
  return emitAttentionKernel(os, launchOf(k, "attention_forward", false, kAttentionQueryTile),
                             {k.getQuery(), k.getKey(), k.getValue()}, {k.getOutput(), k.getLse()},
                             k.getMask());
}

LogicalResult Emitter::emitAttentionGradQuery(llvm::raw_ostream &os, mpk::AttentionGradQueryOp k) {
  return emitAttentionKernel(
      os, launchOf(k, "attention_grad_query", false, kAttentionQueryTile),
      {k.getQuery(), k.getKey(), k.getValue(), k.getOutput(), k.getLse(), k.getGradOutput()},
      {k.getGradQuery()}, k.getMask());
}

LogicalResult Emitter::emitAttentionGradKeyValue(llvm::raw_ostream &os,
                                                 mpk::AttentionGradKeyValueOp k) {
  return emitAttentionKernel(
      os, launchOf(k, "attention_grad_key_value", true, kAttentionKeyTile),
      {k.getQuery(), k.getKey(), k.getValue(), k.getOutput(), k.getLse(), k.getGradOutput()},
      {k.getGradKey(), k.getGradValue()}, k.getMask());
}
