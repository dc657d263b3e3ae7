//===- GenerateCommand.cpp - `mpc generate` ---------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Samples text from a character language model trained by `mpc train`: the
// forward step reads the last T characters (the window its text input
// takes), its logits for the next character are turned into probabilities
// (softmax at a temperature), a character is drawn with a seeded generator,
// appended, and the window moves on.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile/Compile.h"
#include "compiler/Data/BatchBinder.h"
#include "compiler/Data/Dataset.h"
#include "compiler/Driver/ArgParser.h"
#include "compiler/Driver/Driver.h"

#include "mpc/runtime.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mpc::driver;

namespace {

int fail(const std::string &message) {
  reportError(message);
  return kExitError;
}

} // namespace

int mpc::driver::runGenerateCommand(llvm::ArrayRef<std::string> args) {
  ArgParser parser(
      "generate", "mpc generate GRAPH|BUNDLE --params CHECKPOINT [--prompt TEXT] [--length N]",
      "Samples text from a character language model: a graph (its forward step is compiled)\n"
      "or a forward-step bundle whose inputs are text's (an integer input [B, T] of\n"
      "characters and \"targets\"; see 'mpc train --help'), with the parameters of a\n"
      "checkpoint written by 'mpc train --save'. Prints the prompt and what follows it.");
  parser.setPositionals("GRAPH|BUNDLE", "the graph file, or a forward-step bundle", 1, 1);
  parser.addOption({"params", 0, "FILE", "the trained parameters (safetensors)", "", {}});
  parser.addOption({"prompt", 0, "TEXT",
                    "the text to continue (printable ASCII; shorter than the model's window, "
                    "it is padded with newlines on the left)",
                    "\n", {}});
  parser.addOption({"length", 0, "N", "characters to generate", "200", {}});
  parser.addOption({"temperature", 0, "T",
                    "softmax temperature: below 1 sharper, above 1 flatter; 0 takes the "
                    "likeliest character",
                    "0.8", {}});
  parser.addOption({"seed", 0, "N", "seed of the sampling", "0", {}});
  parser.addOption(
      {"graph", 0, "NAME", "the graph to run when the file holds several (by its @name)", "", {}});
  addDeviceOption(parser, "where to run");
  if (std::optional<int> code = parseCommandLine(parser, args))
    return *code;
  uint64_t length = 0, seed = 0;
  double temperature = 0;
  if (!readIntegerOption(parser, "length", length) || !readIntegerOption(parser, "seed", seed))
    return kExitUsage;
  if (llvm::StringRef(*parser.get("temperature")).getAsDouble(temperature) ||
      !(temperature >= 0) || !std::isfinite(temperature)) {
    reportError("--temperature expects a number >= 0, got '" + *parser.get("temperature") + "'");
    return kExitUsage;
  }
  std::string params = parser.get("params").value_or("");
  if (params.empty()) {
    reportError("mpc generate needs --params CHECKPOINT (from 'mpc train --save')");
    return kExitUsage;
  }
  std::string device;
  if (int code = resolveDeviceOption(parser, device))
    return code;
  std::vector<int32_t> text;
  std::string prompt = *parser.get("prompt");
  for (unsigned char c : prompt) {
    int id = mpc::textCharacterId(c == '\t' ? ' ' : c);
    if (id < 0) {
      reportError("--prompt holds byte 0x" + llvm::utohexstr(c, true, 2) +
                  ", which is not printable ASCII or a newline");
      return kExitUsage;
    }
    text.push_back(id);
  }

  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("mpc-generate", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  std::string source = parser.positionals().front(), bundle = source;
  std::string graph = parser.get("graph").value_or("");
  if (isBundleFile(source)) {
    if (parser.isSet("graph")) {
      reportError("--graph is chosen when a bundle is compiled; '" + source + "' keeps its own");
      return kExitUsage;
    }
  } else {
    bundle = (dir + "/forward.mpcb").str();
    mpc::CompileOptions forward;
    forward.graphName = graph;
    if (int code = compileGraphFile(source, forward, bundle))
      return code;
  }
  ProgramHandle program = loadProgram(bundle, device, seed);
  if (!program)
    return kExitError;
  if (llvm::Error error = setParamsFromCheckpoint(program.get(), params))
    return fail(llvm::toString(std::move(error)));

  // The window the model reads, and its logits.
  mpc::Dataset window;
  window.text.assign(2, 0);
  window.count = 2;
  llvm::Expected<mpc::BatchBinder> binder =
      mpc::BatchBinder::create(program.get(), window, "the prompt");
  if (!binder)
    return fail("'" + source + "' is not a character language model: " +
                llvm::toString(binder.takeError()));
  mpc_tensor_info logits{};
  bool haveLogits = false;
  for (size_t i = 0, e = mpc_program_output_count(program.get()); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_output_info(program.get(), i, &info);
    if (std::string(info.name) == "logits" && std::string(info.dtype) == "f32" && info.rank == 2)
      logits = info, haveLogits = true;
  }
  if (!haveLogits)
    return fail("'" + source + "' has no f32 output \"logits\" [rows, characters] to sample from");
  int64_t classes = logits.shape[1];
  std::vector<float> scores(logits.shape[0] * classes);
  std::vector<int64_t> slots(binder->batchSize(), 0);

  // The window: the last T characters (newlines before a short prompt).
  int64_t t = 0;
  for (size_t i = 0, e = mpc_program_input_count(program.get()); i < e; ++i) {
    mpc_tensor_info info;
    mpc_program_input_info(program.get(), i, &info);
    if (std::string(info.name) != "targets")
      t = info.shape[1];
  }
  std::mt19937_64 rng(seed);
  llvm::outs() << *parser.get("prompt");
  for (uint64_t n = 0; n < length; ++n) {
    window.text.assign(t + 1, 0);
    for (int64_t i = 0; i < t && i < static_cast<int64_t>(text.size()); ++i)
      window.text[t - 1 - i] = text[text.size() - 1 - i];
    window.count = t + 1;
    if (llvm::Error error = binder->bind(program.get(), slots.data()))
      return fail(llvm::toString(std::move(error)));
    if (mpc_program_run(program.get()) != MPC_OK ||
        mpc_program_get_output(program.get(), "logits", scores.data(),
                               scores.size() * sizeof(float)) != MPC_OK)
      return fail(mpc_last_error());
    // The row of the last position of the first example of the batch.
    int64_t row = 0;
    for (size_t r = 0; r < binder->rowSlots().size(); ++r)
      if (binder->rowSlots()[r] == 0)
        row = static_cast<int64_t>(r);
    const float *next = &scores[row * classes];
    int64_t choice = std::max_element(next, next + classes) - next;
    if (temperature > 0) {
      std::vector<double> weights(classes);
      for (int64_t c = 0; c < classes; ++c)
        weights[c] = std::exp((next[c] - next[choice]) / temperature);
      choice = std::discrete_distribution<int64_t>(weights.begin(), weights.end())(rng);
    }
    if (choice >= mpc::kTextVocabularySize)
      return fail("the model predicted class " + std::to_string(choice) +
                  ", which is not a character (its vocabulary is larger than text's 96)");
    text.push_back(static_cast<int32_t>(choice));
    llvm::outs() << mpc::textCharacter(static_cast<int>(choice));
  }
  llvm::outs() << "\n";
  return kExitOk;
}
