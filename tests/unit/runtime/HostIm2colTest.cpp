//===- HostIm2colTest.cpp - a convolution's columns gathered in fp32 ------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostIm2col.h"

#include "Elements.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

using mpc::rt::DType;
using mpc::rt::GemmStep;

namespace {

/// The columns of `hint` from the fp32 image `image`, element by element.
std::vector<float> naiveColumns(const GemmStep::Im2col &hint, const std::vector<float> &image) {
  const int64_t n = hint.shape[0], c = hint.shape[1], h = hint.shape[2], w = hint.shape[3];
  std::vector<float> columns;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t ki = 0; ki < hint.kernel[0]; ++ki)
        for (int64_t kj = 0; kj < hint.kernel[1]; ++kj)
          for (int64_t oh = 0; oh < hint.outH(); ++oh)
            for (int64_t ow = 0; ow < hint.outW(); ++ow) {
              const int64_t ih = oh * hint.stride[0] - hint.padding[0] + ki * hint.dilation[0];
              const int64_t iw = ow * hint.stride[1] - hint.padding[1] + kj * hint.dilation[1];
              const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < w;
              columns.push_back(inside ? image[((b * c + ch) * h + ih) * w + iw] : 0.0f);
            }
  return columns;
}

} // namespace

// gatherColumns writes exactly the columns of an f16 image: the values of
// the element-by-element gather, and nothing past them (its stride-1 rows
// are copied in whole vectors that run into the rows after them, but not
// past the last column), for widths that fill the vectors, leave a tail or
// are narrower than one, rows of 1 to 5 vectors, planes of fewer columns
// than a vector, at stride 1 and 2, with dilation and uneven padding; for
// the whole batch and for the images after the first.
TEST(HostIm2col, GathersExactlyTheColumns) {
  struct Case {
    const char *name;
    std::vector<int64_t> shape, kernel, stride, padding, dilation;
  };
  const Case cases[] = {
      {"14 wide, 3x3 same", {2, 3, 14, 14}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {"16 wide", {1, 2, 5, 16}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {"3 wide", {2, 1, 4, 3}, {2, 2}, {1, 1}, {0, 0, 1, 0}, {1, 1}},
      {"strided and dilated", {1, 2, 9, 11}, {3, 2}, {2, 1}, {2, 0, 1, 3}, {1, 2}},
      {"stride 2 across", {1, 1, 8, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},
      {"planes of one column", {3, 4, 1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
      // Rows of 3, 4 and 5 chunks (the last in the form for any count),
      // whole and with a tail: a row copied in more chunks than it has
      // runs past the last column.
      {"24 wide", {2, 2, 6, 24}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {"28 wide", {2, 1, 5, 28}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {"32 wide", {2, 1, 4, 32}, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {"40 wide", {2, 2, 3, 40}, {2, 2}, {1, 1}, {0, 0, 1, 1}, {1, 1}},
  };
  std::mt19937 random(5);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    GemmStep::Im2col hint{mpc::rt::BufferRef{}, c.shape, c.kernel, c.stride, c.padding,
                          c.dilation};
    const size_t pixels = static_cast<size_t>(c.shape[0] * c.shape[1] * c.shape[2] * c.shape[3]);
    std::vector<uint16_t> half(pixels);
    std::vector<float> image(pixels);
    for (size_t i = 0; i < pixels; ++i) {
      float value = uniform(random);
      mpc::rt::narrowElements(&value, DType::F16, &half[i], 1);
      mpc::rt::widenElements(DType::F16, &half[i], &image[i], 1);
    }
    const std::vector<float> expected = naiveColumns(hint, image);
    ASSERT_EQ(expected.size(), c.shape[0] * mpc::rt::imageColumnCount(hint));
    // A guard of sentinels after the columns.
    constexpr size_t kGuard = 64;
    std::vector<float> columns(expected.size() + kGuard, -7.0f);
    std::vector<float> plane;
    mpc::rt::gatherColumns(hint, DType::F16, reinterpret_cast<const uint8_t *>(half.data()), 0,
                           c.shape[0], columns.data(), plane);
    EXPECT_EQ(0, std::memcmp(columns.data(), expected.data(), expected.size() * sizeof(float)));
    for (size_t i = expected.size(); i < columns.size(); ++i)
      ASSERT_EQ(columns[i], -7.0f) << "written past the columns at " << i - expected.size();
    EXPECT_LE(plane.size(), mpc::rt::planeScratchCount(hint));
    // The images from the second on, alone: their columns, and nothing
    // past them.
    if (c.shape[0] < 2)
      continue;
    const size_t imageColumns = mpc::rt::imageColumnCount(hint);
    const size_t rest = expected.size() - imageColumns;
    std::fill(columns.begin(), columns.end(), -7.0f);
    mpc::rt::gatherColumns(hint, DType::F16, reinterpret_cast<const uint8_t *>(half.data()), 1,
                           c.shape[0] - 1, columns.data(), plane);
    EXPECT_EQ(0, std::memcmp(columns.data(), expected.data() + imageColumns, rest * sizeof(float)));
    for (size_t i = rest; i < columns.size(); ++i)
      ASSERT_EQ(columns[i], -7.0f) << "written past the later images' columns at " << i - rest;
  }
}
