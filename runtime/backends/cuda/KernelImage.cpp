//===- KernelImage.cpp - which of a bundle's kernel binaries fits a GPU ---===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "KernelImage.h"

#include <algorithm>
#include <cctype>

namespace mpc::rt {

namespace {

/// The architecture number of a section named `prefix` + digits, or -1.
int archOf(const std::string &name, const std::string &prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.size() - prefix.size() > 4)
    return -1;
  int arch = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])))
      return -1;
    arch = arch * 10 + (name[i] - '0');
  }
  return arch;
}

} // namespace

std::vector<KernelImage> kernelImagesFor(const std::vector<BundleSection> &sections, int arch) {
  std::vector<std::pair<int, std::string>> cubins, ptx;
  bool haveSource = false;
  for (const BundleSection &section : sections) {
    int cubinArch = archOf(section.name, "cubin.sm_");
    int ptxArch = archOf(section.name, "ptx.sm_");
    if (cubinArch >= 0 && cubinArch / 10 == arch / 10 && cubinArch <= arch)
      cubins.emplace_back(cubinArch, section.name);
    if (ptxArch >= 0 && ptxArch <= arch)
      ptx.emplace_back(ptxArch, section.name);
    haveSource |= section.name == kKernelSourceSection;
  }
  auto newestFirst = [](const auto &x, const auto &y) { return x.first > y.first; };
  std::stable_sort(cubins.begin(), cubins.end(), newestFirst);
  std::stable_sort(ptx.begin(), ptx.end(), newestFirst);
  std::vector<KernelImage> images;
  for (const auto &cubin : cubins)
    images.push_back({KernelImage::Kind::Cubin, cubin.second, ""});
  for (const auto &code : ptx)
    images.push_back({KernelImage::Kind::Ptx, code.second, ""});
  if (haveSource)
    images.push_back({KernelImage::Kind::Source, kKernelSourceSection,
                      "sm_" + std::to_string(arch)});
  return images;
}

} // namespace mpc::rt
