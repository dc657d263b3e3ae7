//===- OnnxWire.h - an ONNX model's tensor data found without copying -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Parsing an .onnx file with protobuf copies every initializer's raw data
// into a string of its own; for GPT-2 small that is 500 MB of fresh memory,
// seconds on a machine whose page faults are slow. Before the parse, this
// walks the protobuf wire format of ModelProto -> graph (field 7) ->
// initializer (field 5) -> raw_data (field 9) and writes a copy of the file
// without those raw_data fields, recording where each one lies in the file;
// protobuf then parses the small copy, and the initializers' bytes are read
// from the file itself. Anything it does not expect (groups, a second graph
// or raw_data field, a malformed length) makes it give up, and the caller
// parses the whole file as before, so protobuf still judges every file.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_COMPILER_FRONTEND_ONNXMODEL_ONNXWIRE_H
#define MPC_COMPILER_FRONTEND_ONNXMODEL_ONNXWIRE_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mpc::onnx {

/// `model` (a serialized ModelProto) without its initializers' raw_data
/// fields, and each initializer's raw_data in the graph's order (nullopt for
/// one without: typed values or external data), as views of `model`. False,
/// with the outputs unspecified, where the model is not laid out as
/// expected.
bool stripInitializerData(llvm::StringRef model, std::string &stripped,
                          std::vector<std::optional<llvm::StringRef>> &rawData);

} // namespace mpc::onnx

#endif // MPC_COMPILER_FRONTEND_ONNXMODEL_ONNXWIRE_H
