//===- KernelImageTest.cpp - which kernel binary a GPU gets ---------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "KernelImage.h"

#include <gtest/gtest.h>

using mpc::rt::BundleSection;
using mpc::rt::KernelImage;
using mpc::rt::kernelImagesFor;

namespace {

std::vector<std::string> describe(const std::vector<KernelImage> &images) {
  std::vector<std::string> out;
  for (const KernelImage &image : images)
    out.push_back(image.section + (image.target.empty() ? "" : " -> " + image.target));
  return out;
}

std::vector<BundleSection> sections(std::vector<std::string> names) {
  std::vector<BundleSection> out;
  for (std::string &name : names)
    out.push_back({std::move(name), "bytes"});
  return out;
}

TEST(KernelImage, ExactCubinThenOlderCubinsOfTheMajorThenPtxThenSource) {
  auto bundle = sections({"manifest.json", "cubin.sm_80", "ptx.sm_80", "cubin.sm_86",
                          "ptx.sm_86", "cubin.sm_90", "ptx.sm_90", "kernels.cu", "host.so"});
  EXPECT_EQ(describe(kernelImagesFor(bundle, 90)),
            (std::vector<std::string>{"cubin.sm_90", "ptx.sm_90", "ptx.sm_86", "ptx.sm_80",
                                      "kernels.cu -> sm_90"}));
  EXPECT_EQ(describe(kernelImagesFor(bundle, 89)),
            (std::vector<std::string>{"cubin.sm_86", "cubin.sm_80", "ptx.sm_86", "ptx.sm_80",
                                      "kernels.cu -> sm_89"}));
  EXPECT_EQ(describe(kernelImagesFor(bundle, 75)),
            (std::vector<std::string>{"kernels.cu -> sm_75"}));
  // sm_100 runs no sm_90 cubin, but compiles the newest PTX.
  EXPECT_EQ(describe(kernelImagesFor(bundle, 100)),
            (std::vector<std::string>{"ptx.sm_90", "ptx.sm_86", "ptx.sm_80",
                                      "kernels.cu -> sm_100"}));
}

TEST(KernelImage, NothingFitsWithoutBinariesOrSource) {
  EXPECT_TRUE(kernelImagesFor(sections({"manifest.json", "host.so"}), 90).empty());
  EXPECT_TRUE(kernelImagesFor(sections({"cubin.sm_100", "ptx.sm_100"}), 90).empty());
  // Names that only look like images are ignored.
  EXPECT_TRUE(kernelImagesFor(sections({"cubin.sm_", "cubin.sm_9x", "ptx.90"}), 90).empty());
}

} // namespace
