//===- FuzzTarget.h - what every fuzz target shares -------------*- C++ -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A fuzz target defines LLVMFuzzerTestOneInput (libFuzzer's entry). Built
// with -DMPC_FUZZ=ON (clang's libFuzzer: tools/fuzz.sh) it is a fuzzer;
// otherwise FuzzReplayMain.cpp runs it over the files it is given, which is
// how the test suite replays the seed corpora and every input that once
// crashed (tests/fuzz/corpus/TARGET/).
//
// An input that a target refuses is not a failure; a crash, a sanitizer's
// report or a broken invariant (checked with FUZZ_CHECK) is.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_TESTS_FUZZ_FUZZTARGET_H
#define MPC_TESTS_FUZZ_FUZZTARGET_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace mpc::fuzz {

/// Aborts with `what` and the source line when `condition` is false: an
/// invariant that held for every accepted input no longer does.
#define FUZZ_CHECK(condition, what)                                                                \
  ((condition) ? (void)0 : ::mpc::fuzz::checkFailed(__FILE__, __LINE__, #condition, what))
[[noreturn]] void checkFailed(const char *file, int line, const char *condition, const char *what);

/// A private folder for the files of one process's inputs (the readers under
/// test read paths), removed at exit. Under $TMPDIR, else /tmp.
const std::string &scratchDirectory();

/// Writes `bytes` to `name` inside scratchDirectory() (replacing it) and
/// returns its path.
std::string writeScratchFile(const std::string &name, std::string_view bytes);

} // namespace mpc::fuzz

#endif // MPC_TESTS_FUZZ_FUZZTARGET_H
