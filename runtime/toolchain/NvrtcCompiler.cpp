//===- NvrtcCompiler.cpp - generated kernels to GPU binaries with NVRTC ---===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "mpc/toolchain/NvrtcCompiler.h"

#include "mpc/toolchain/DeviceHeaders.h"
#include "mpc/toolchain/KernelCache.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace mpc::rt {

namespace {

/// Whether `target` is `prefix` followed by digits.
bool hasForm(const std::string &target, const std::string &prefix) {
  if (target.size() <= prefix.size() || target.compare(0, prefix.size(), prefix) != 0)
    return false;
  for (size_t i = prefix.size(); i < target.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(target[i])))
      return false;
  return true;
}

/// The generated kernel whose definition holds line `line` (1-based) of
/// `source`: the functor "struct kN_fn" or the entry "MPC_KERNEL(kN)" above.
std::string kernelAtLine(const std::string &source, unsigned line) {
  std::vector<std::string> lines;
  std::istringstream stream(source);
  for (std::string text; std::getline(stream, text);)
    lines.push_back(text);
  for (int i = static_cast<int>(std::min<size_t>(line, lines.size())) - 1; i >= 0; --i) {
    std::string text = lines[i];
    size_t start = text.find_first_not_of(' ');
    if (start == std::string::npos)
      continue;
    text = text.substr(start);
    if (text.compare(0, 7, "struct ") == 0) {
      std::string name = text.substr(7, text.find(' ', 7) - 7);
      if (name.size() > 3 && name.compare(name.size() - 3, 3, "_fn") == 0)
        return name.substr(0, name.size() - 3);
    }
    for (std::string head : {"MPC_KERNEL(", "MPC_KERNEL_BOUNDED("})
      if (text.compare(0, head.size(), head) == 0)
        return text.substr(head.size(), text.find_first_of(",)", head.size()) - head.size());
  }
  return "";
}

/// Runs NVRTC once; `binary` gets the cubin or the PTX.
Status runNvrtc(const NvrtcApi &nvrtc, const std::string &source, const std::string &target,
                bool cubin, std::string &binary) {
  std::vector<const char *> headers, names;
  for (unsigned i = 0; i < kNumDeviceHeaders; ++i) {
    headers.push_back(kDeviceHeaders[i].contents);
    names.push_back(kDeviceHeaders[i].name);
  }
  nvrtcProgram program;
  nvrtcResult created = nvrtc.nvrtcCreateProgram(&program, source.c_str(), "kernels.cu",
                                                 static_cast<int>(headers.size()),
                                                 headers.data(), names.data());
  if (created != NVRTC_SUCCESS)
    return Status::error(MPC_INTERNAL, std::string("NVRTC could not create a program: ") +
                                           nvrtc.nvrtcGetErrorString(created));
  std::vector<std::string> options = nvrtcOptions(target);
  std::vector<const char *> optionPointers;
  for (const std::string &option : options)
    optionPointers.push_back(option.c_str());
  nvrtcResult result = nvrtc.nvrtcCompileProgram(program, static_cast<int>(optionPointers.size()),
                                                 optionPointers.data());
  size_t logSize = 0;
  nvrtc.nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize > 0)
    nvrtc.nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (result != NVRTC_SUCCESS) {
    nvrtc.nvrtcDestroyProgram(&program);
    std::string kernel;
    // NVRTC reports "kernels.cu(LINE): error: ...".
    size_t at = log.find("kernels.cu(");
    if (at != std::string::npos)
      kernel = kernelAtLine(source, static_cast<unsigned>(std::strtoul(log.c_str() + at + 11,
                                                                       nullptr, 10)));
    return Status::error(MPC_FORMAT_ERROR,
                         "NVRTC failed to compile the generated kernels for " + target +
                             (kernel.empty() ? "" : " (first error in kernel " + kernel + ")") +
                             ":\n" + log);
  }
  size_t size = 0;
  nvrtcResult got = cubin ? nvrtc.nvrtcGetCUBINSize(program, &size)
                          : nvrtc.nvrtcGetPTXSize(program, &size);
  if (got == NVRTC_SUCCESS) {
    binary.assign(size, '\0');
    got = cubin ? nvrtc.nvrtcGetCUBIN(program, binary.data())
                : nvrtc.nvrtcGetPTX(program, binary.data());
  }
  nvrtc.nvrtcDestroyProgram(&program);
  if (got != NVRTC_SUCCESS)
    return Status::error(MPC_INTERNAL, "NVRTC compiled the kernels for " + target +
                                           " but did not return the " +
                                           (cubin ? "cubin" : "PTX") + ": " +
                                           nvrtc.nvrtcGetErrorString(got));
  return Status();
}

} // namespace

std::vector<std::string> nvrtcOptions(const std::string &target) {
  return {"--gpu-architecture=" + target, "-std=c++17"};
}

std::string nvrtcVersionString(const NvrtcApi &nvrtc) {
  int major = 0, minor = 0;
  nvrtc.nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string nvrtcCacheEntry(const std::string &source, const std::string &target,
                            const std::string &version) {
  std::string options;
  for (const std::string &option : nvrtcOptions(target))
    options += option + " ";
  return kernelCacheKey({source, target, "nvrtc", version, options}) +
         (hasForm(target, "sm_") ? ".cubin" : ".ptx");
}

Status compileWithNvrtc(const NvrtcApi &nvrtc, const std::string &source,
                        const std::string &target, std::string &binary, bool *fromCache) {
  bool cubin = hasForm(target, "sm_");
  if (!cubin && !hasForm(target, "compute_"))
    return Status::error(MPC_INVALID_ARGUMENT,
                         "unknown GPU target '" + target +
                             "'; expected sm_XX (a cubin) or compute_XX (PTX), e.g. sm_90");
  std::string entry = nvrtcCacheEntry(source, target, nvrtcVersionString(nvrtc));
  if (readCachedKernel(entry, binary)) {
    if (fromCache)
      *fromCache = true;
    return Status();
  }
  if (Status status = runNvrtc(nvrtc, source, target, cubin, binary); !status.isOk())
    return status;
  writeCachedKernel(entry, binary);
  if (fromCache)
    *fromCache = false;
  return Status();
}

} // namespace mpc::rt
