//===- HostCompilerOptions.cpp - --host-cxx, --host-arch, ... -------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/HostCompilerOptions.h"

using namespace mpc::driver;

void mpc::driver::addHostCompilerOptions(ArgParser &parser) {
  parser.addOption({"host-cxx", 0, "PROGRAM",
                    "the C++ compiler of the CPU kernels (default: $MPC_HOST_CXX, else c++)",
                    "", {}});
  parser.addOption({"host-arch",
                    0,
                    "LEVEL",
                    "the x86-64 level of the CPU kernels: x86-64 (any x86-64 CPU), x86-64-v3 "
                    "(AVX2, FMA, F16C) or x86-64-v4 (AVX-512); a bundle is refused on a CPU "
                    "below its level (default: $MPC_HOST_ARCH, else this CPU's)",
                    "",
                    {"x86-64", "x86-64-v3", "x86-64-v4"}});
  parser.addOption({"host-kernel-form", 0, "FORM",
                    "rows = pointwise CPU kernels walk rows of contiguous elements; elements = "
                    "one element per index, as on the GPU (default: $MPC_HOST_KERNEL_FORM, "
                    "else rows)",
                    "", {"rows", "elements"}});
}

mpc::HostCompilerOptions mpc::driver::readHostCompilerOptions(const ArgParser &parser) {
  mpc::HostCompilerOptions options = mpc::HostCompilerOptions::fromEnvironment();
  if (std::optional<std::string> compiler = parser.get("host-cxx"); compiler && !compiler->empty())
    options.compiler = *compiler;
  if (std::optional<std::string> arch = parser.get("host-arch"); arch && !arch->empty())
    options.arch = *arch;
  if (std::optional<std::string> form = parser.get("host-kernel-form"); form && !form->empty())
    options.kernelForm = *form;
  return options;
}
