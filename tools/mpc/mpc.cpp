//===- mpc.cpp - the mpc driver -------------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/Driver.h"

#include "llvm/Support/InitLLVM.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  return mpc::driver::runDriver(args);
}
