//===- KernelCompiler.cpp - compile generated kernels for each target -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelCompiler.h"

#include "mpc/toolchain/DeviceHeaders.h"
#include "mpc/toolchain/HostCpu.h"
#include "mpc/toolchain/KernelCache.h"
#ifdef MPC_HAVE_NVRTC
#include "mpc/toolchain/NvrtcCompiler.h"
#endif

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <thread>

using namespace mpc;

namespace {

/// What identifies a compiler binary: its path, size and modification time.
std::string compilerIdentity(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return path;
  return path + ":" + std::to_string(status.getSize()) + ":" +
         std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
}

} // namespace

std::string mpc::kernelCacheDirectory() { return rt::kernelCacheDirectory(); }

#ifdef MPC_HAVE_NVRTC

bool mpc::haveNvrtc() {
  const rt::NvrtcApi *nvrtc = nullptr;
  return rt::loadNvrtcApi(nvrtc).isOk();
}

llvm::Expected<GpuBinary> mpc::compileForGpu(const std::string &source, const std::string &arch,
                                             bool *fromCache) {
  llvm::StringRef number = llvm::StringRef(arch);
  if (!number.consume_front("sm_") || number.empty() ||
      !llvm::all_of(number, [](char c) { return llvm::isDigit(c); }))
    return llvm::createStringError("unknown GPU target '" + arch +
                                   "'; expected sm_XX, e.g. sm_80 or sm_90");
  const rt::NvrtcApi *nvrtc = nullptr;
  if (rt::Status status = rt::loadNvrtcApi(nvrtc); !status.isOk())
    return llvm::createStringError("cannot compile for " + arch + ": " + status.message());
  // The cubin and the PTX are two compilations of the whole source, each on
  // a thread of its own (NVRTC compiles separate programs concurrently).
  GpuBinary binary;
  rt::Status ptxStatus;
  bool cubinCached = false, ptxCached = false;
  std::thread ptxThread([&] {
    ptxStatus =
        rt::compileWithNvrtc(*nvrtc, source, "compute_" + number.str(), binary.ptx, &ptxCached);
  });
  rt::Status cubinStatus = rt::compileWithNvrtc(*nvrtc, source, arch, binary.cubin, &cubinCached);
  ptxThread.join();
  for (const rt::Status &status : {cubinStatus, ptxStatus})
    if (!status.isOk())
      return llvm::createStringError(status.message());
  if (fromCache)
    *fromCache = cubinCached && ptxCached;
  return binary;
}

#else

bool mpc::haveNvrtc() { return false; }

llvm::Expected<GpuBinary> mpc::compileForGpu(const std::string &, const std::string &arch, bool *) {
  return llvm::createStringError("cannot compile for " + arch +
                                 ": this mpc was built without the CUDA toolkit (NVRTC); "
                                 "use --target cpu");
}

#endif

mpc::HostCompilerOptions mpc::HostCompilerOptions::fromEnvironment() {
  auto variable = [](const char *name) {
    const char *value = std::getenv(name);
    return std::string(value ? value : "");
  };
  HostCompilerOptions options;
  options.compiler = variable("MPC_HOST_CXX");
  options.arch = variable("MPC_HOST_ARCH");
  options.kernelForm = variable("MPC_HOST_KERNEL_FORM");
  return options;
}

llvm::Expected<std::string> mpc::hostArchitecture(const HostCompilerOptions &options) {
  const std::string &chosen = options.arch;
  if (chosen == "x86-64" || chosen == "x86-64-v3" || chosen == "x86-64-v4")
    return chosen;
  if (!chosen.empty())
    return llvm::createStringError(
        "host architecture '" + chosen +
        "' (--host-arch or MPC_HOST_ARCH): expected x86-64 (any x86-64 CPU), x86-64-v3 (AVX2, "
        "FMA, F16C: Haswell and later) or x86-64-v4 (AVX-512: Skylake-SP, Zen 4 and later)");
  return std::string(rt::cpuIsX8664V4()   ? "x86-64-v4"
                     : rt::cpuIsX8664V3() ? "x86-64-v3"
                                          : "x86-64");
}

llvm::Expected<std::string> mpc::compileForHost(const std::string &source, bool *fromCache,
                                                const HostCompilerOptions &options) {
  std::string compiler = options.compiler.empty() ? "c++" : options.compiler;
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(compiler);
  if (!program)
    return llvm::createStringError("cannot find the host C++ compiler '" + compiler +
                                   "' (set --host-cxx or MPC_HOST_CXX)");
  // -fno-trapping-math lets the compiler compute both sides of a select
  // (the loss scaler's skip) and so vectorise the loops of pointwise kernels;
  // -fno-math-errno lets a square root be one vector instruction instead of
  // a scalar one with a libm call for negative inputs (Adam's update, layer
  // norms). Neither changes a result: kernels never look at floating-point
  // exceptions or errno, and the square root is correctly rounded either way.
  std::vector<std::string> flags = {"-O3",
                                    "-std=c++17",
                                    "-shared",
                                    "-fPIC",
                                    "-fopenmp",
                                    "-fvisibility=hidden",
                                    "-fno-trapping-math",
                                    "-fno-math-errno",
                                    "-w"};
  llvm::Expected<std::string> arch = hostArchitecture(options);
  if (!arch)
    return arch.takeError();
  if (*arch != "x86-64") {
    // Vector units, F16C conversions; no fused multiply-adds the source does
    // not ask for, so results do not depend on the level. (x86-64-v4 keeps
    // GCC's preference for 256-bit loops; AVX-512's masks and conversions
    // still apply.)
    flags.push_back("-march=" + *arch);
    flags.push_back("-ffp-contract=off");
  }
  // The GPU's indexing on the host, for the emulated GPU of the tests.
  if (options.kernelForm == "elements")
    flags.push_back("-DMPC_HOST_ELEMENT_FORM");
  else if (!options.kernelForm.empty() && options.kernelForm != "rows")
    return llvm::createStringError("host kernel form '" + options.kernelForm +
                                   "' (--host-kernel-form or MPC_HOST_KERNEL_FORM): expected "
                                   "rows (the default) or elements");
  std::string entry =
      rt::kernelCacheKey({source, compilerIdentity(*program), llvm::join(flags, " "), "host"}) +
      ".so";
  if (fromCache)
    *fromCache = false;
  if (std::string cached; rt::readCachedKernel(entry, cached)) {
    if (fromCache)
      *fromCache = true;
    return cached;
  }

  // A private directory with the source and the device headers.
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("mpc-host", dir))
    return llvm::createStringError("cannot create a temporary directory: " + ec.message());
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove_directories(dir); });
  auto writeFile = [&](llvm::StringRef relative, llvm::StringRef contents) -> llvm::Error {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, relative);
    if (std::error_code ec =
            llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
      return llvm::createStringError("cannot create " + path.str().str() + ": " + ec.message());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return llvm::createStringError("cannot write " + path.str().str() + ": " + ec.message());
    os << contents;
    return llvm::Error::success();
  };
  for (unsigned i = 0; i < rt::kNumDeviceHeaders; ++i)
    if (llvm::Error error = writeFile(std::string("include/") + rt::kDeviceHeaders[i].name,
                                      llvm::StringRef(rt::kDeviceHeaders[i].contents,
                                                      rt::kDeviceHeaders[i].size)))
      return std::move(error);
  if (llvm::Error error = writeFile("kernels.cpp", source))
    return std::move(error);

  llvm::SmallString<256> src(dir), out(dir), include(dir), log(dir);
  llvm::sys::path::append(src, "kernels.cpp");
  llvm::sys::path::append(out, "kernels.so");
  llvm::sys::path::append(include, "include");
  llvm::sys::path::append(log, "compile.log");
  std::vector<std::string> storage = {*program};
  storage.insert(storage.end(), flags.begin(), flags.end());
  storage.insert(storage.end(), {"-I", include.str().str(), "-x", "c++", src.str().str(), "-o",
                                 out.str().str()});
  std::vector<llvm::StringRef> args(storage.begin(), storage.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(), log.str()};
  std::string message;
  int code = llvm::sys::ExecuteAndWait(*program, args, std::nullopt, redirects, 0, 0, &message);
  if (code != 0) {
    std::string output;
    if (auto buffer = llvm::MemoryBuffer::getFile(log))
      output = (*buffer)->getBuffer().str();
    return llvm::createStringError("the host compiler failed on the generated kernels (" +
                                   compiler + ", exit " + std::to_string(code) + ")" +
                                   (message.empty() ? "" : ": " + message) + "\n" + output);
  }
  auto bytes = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!bytes)
    return llvm::createStringError("cannot read the compiled kernels: " +
                                   bytes.getError().message());
  std::string result = (*bytes)->getBuffer().str();
  rt::writeCachedKernel(entry, result);
  return result;
}
