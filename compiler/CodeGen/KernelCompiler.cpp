//===- KernelCompiler.cpp - compile generated kernels for each target -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "compiler/CodeGen/KernelCompiler.h"

#include "Bundle.h"
#include "DeviceHeaders.h"
#include "ObjectCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#ifdef MPC_HAVE_NVRTC
#include <nvrtc.h>
#endif

using namespace mpc;

namespace {

/// A hex digest of `parts`, and of everything else a compiled kernel depends
/// on: the device headers it includes and the version of mpc.
std::string cacheKey(llvm::ArrayRef<llvm::StringRef> parts) {
  uint64_t hash = rt::fnv1a64(MPC_VERSION_STRING, sizeof(MPC_VERSION_STRING));
  auto mix = [&](llvm::StringRef bytes) {
    hash = rt::fnv1a64(bytes.data(), bytes.size(), hash);
    hash = rt::fnv1a64("", 1, hash); // separator
  };
  for (unsigned i = 0; i < rt::kNumDeviceHeaders; ++i) {
    mix(rt::kDeviceHeaders[i].name);
    mix(llvm::StringRef(rt::kDeviceHeaders[i].contents, rt::kDeviceHeaders[i].size));
  }
  for (llvm::StringRef part : parts)
    mix(part);
  return llvm::utohexstr(hash, /*LowerCase=*/true, 16);
}

/// What identifies a compiler binary: its path, size and modification time.
std::string compilerIdentity(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return path;
  return path + ":" + std::to_string(status.getSize()) + ":" +
         std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
}

/// Returns the cached bytes for `key`, if any.
std::optional<std::string> readCache(const std::string &key) {
  std::string dir = kernelCacheDirectory();
  if (dir.empty())
    return std::nullopt;
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

/// Stores `bytes` under `key`; the cache is an optimisation, so failures
/// to write it are ignored. Written to a temporary name and renamed, so a
/// concurrent reader never sees a partial file.
void writeCache(const std::string &key, llvm::StringRef bytes) {
  llvm::SmallString<256> dir(kernelCacheDirectory());
  if (dir.empty() || llvm::sys::fs::create_directories(dir))
    return;
  llvm::SmallString<256> path(dir), temp;
  llvm::sys::path::append(path, key);
  int fd;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, path))
    llvm::sys::fs::remove(temp);
}

/// The kernel whose definition contains `line` (1-based) of `source`.
std::string kernelAtLine(const std::string &source, unsigned line) {
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(source).split(lines, '\n');
  for (int i = std::min<int>(line, lines.size()) - 1; i >= 0; --i) {
    llvm::StringRef text = lines[i].trim();
    if (text.consume_front("struct ") && text.contains("_fn"))
      return text.take_until([](char c) { return c == ' '; }).drop_back(3).str();
    if (text.consume_front("MPC_KERNEL("))
      return text.take_until([](char c) { return c == ')'; }).str();
  }
  return "";
}

} // namespace

std::string mpc::kernelCacheDirectory() {
  // The runtime's cache folder (private to the user), "kernels" inside it.
  std::string dir;
  if (!rt::objectCacheDirectory(dir).isOk())
    return "";
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "kernels");
  return path.str().str();
}

#ifdef MPC_HAVE_NVRTC

bool mpc::haveNvrtc() { return true; }

static llvm::Expected<std::string> runNvrtc(const std::string &source, const std::string &arch,
                                            bool cubin) {
  std::vector<const char *> headers, names;
  for (unsigned i = 0; i < rt::kNumDeviceHeaders; ++i) {
    headers.push_back(rt::kDeviceHeaders[i].contents);
    names.push_back(rt::kDeviceHeaders[i].name);
  }
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source.c_str(), "kernels.cu", headers.size(), headers.data(),
                         names.data()) != NVRTC_SUCCESS)
    return llvm::createStringError("NVRTC could not create a program");
  std::string target = "--gpu-architecture=" + arch;
  const char *options[] = {target.c_str(), "-std=c++17"};
  nvrtcResult result = nvrtcCompileProgram(program, 2, options);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  nvrtcGetProgramLog(program, log.data());
  if (result != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&program);
    std::string kernel;
    // NVRTC reports "kernels.cu(LINE): error: ...".
    size_t at = log.find("kernels.cu(");
    if (at != std::string::npos) {
      unsigned line = 0;
      llvm::StringRef(log).substr(at + 11).take_until([](char c) { return c == ')'; })
          .getAsInteger(10, line);
      kernel = kernelAtLine(source, line);
    }
    return llvm::createStringError(
        "NVRTC failed to compile the generated kernels for " + arch +
        (kernel.empty() ? std::string() : " (first error in kernel " + kernel + ")") + ":\n" +
        log);
  }
  std::string bytes;
  size_t size = 0;
  if (cubin) {
    nvrtcGetCUBINSize(program, &size);
    bytes.resize(size);
    nvrtcGetCUBIN(program, bytes.data());
  } else {
    nvrtcGetPTXSize(program, &size);
    bytes.resize(size);
    nvrtcGetPTX(program, bytes.data());
  }
  nvrtcDestroyProgram(&program);
  return bytes;
}

llvm::Expected<GpuBinary> mpc::compileForGpu(const std::string &source, const std::string &arch) {
  llvm::StringRef number = llvm::StringRef(arch);
  if (!number.consume_front("sm_") || number.empty() ||
      !llvm::all_of(number, [](char c) { return llvm::isDigit(c); }))
    return llvm::createStringError("unknown GPU target '" + arch +
                                   "'; expected sm_XX, e.g. sm_80 or sm_90");
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::string version = std::to_string(major) + "." + std::to_string(minor);
  GpuBinary binary;
  for (bool cubin : {true, false}) {
    std::string target = cubin ? arch : "compute_" + number.str();
    std::string key = cacheKey({source, target, "nvrtc", version, "-std=c++17"}) +
                      (cubin ? ".cubin" : ".ptx");
    std::string &out = cubin ? binary.cubin : binary.ptx;
    if (std::optional<std::string> cached = readCache(key)) {
      out = std::move(*cached);
      continue;
    }
    llvm::Expected<std::string> bytes = runNvrtc(source, target, cubin);
    if (!bytes)
      return bytes.takeError();
    out = std::move(*bytes);
    writeCache(key, out);
  }
  return binary;
}

#else

bool mpc::haveNvrtc() { return false; }

llvm::Expected<GpuBinary> mpc::compileForGpu(const std::string &, const std::string &arch) {
  return llvm::createStringError("cannot compile for " + arch +
                                 ": this mpc was built without the CUDA toolkit (NVRTC); "
                                 "use --target cpu");
}

#endif

llvm::Expected<std::string> mpc::compileForHost(const std::string &source) {
  const char *env = std::getenv("MPC_HOST_CXX");
  std::string compiler = env && *env ? env : "c++";
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(compiler);
  if (!program)
    return llvm::createStringError("cannot find the host C++ compiler '" + compiler +
                                   "' (set MPC_HOST_CXX)");
  std::vector<std::string> flags = {"-O3", "-std=c++17", "-shared", "-fPIC", "-fopenmp",
                                    "-fvisibility=hidden", "-w"};
  std::string key =
      cacheKey({source, compilerIdentity(*program), llvm::join(flags, " "), "host"}) + ".so";
  if (std::optional<std::string> cached = readCache(key))
    return std::move(*cached);

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
  writeCache(key, result);
  return result;
}
