//===- MpgShapesTest.cpp - shape rules of the mpg ops ---------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "dialects/mpg/IR/MpgShapes.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::mpg;
using Shape = llvm::SmallVector<int64_t>;

TEST(MpgShapes, BroadcastAlignsTrailingDimensions) {
  Shape out;
  std::string error;
  ASSERT_TRUE(succeeded(broadcastShapes({64, 128}, {128}, out, error)));
  EXPECT_EQ(out, (Shape{64, 128}));
  ASSERT_TRUE(succeeded(broadcastShapes({4, 1, 5}, {3, 1}, out, error)));
  EXPECT_EQ(out, (Shape{4, 3, 5}));
  ASSERT_TRUE(succeeded(broadcastShapes({}, {2, 3}, out, error)));
  EXPECT_EQ(out, (Shape{2, 3}));
}

TEST(MpgShapes, BroadcastMismatchNamesBothShapes) {
  Shape out;
  std::string error;
  ASSERT_TRUE(failed(broadcastShapes({4, 5}, {3}, out, error)));
  EXPECT_NE(error.find("4x5"), std::string::npos) << error;
  EXPECT_NE(error.find("5 against 3"), std::string::npos) << error;
}

TEST(MpgShapes, BroadcastableTo) {
  EXPECT_TRUE(isBroadcastableTo({128}, {64, 128}));
  EXPECT_TRUE(isBroadcastableTo({1, 128}, {64, 128}));
  EXPECT_FALSE(isBroadcastableTo({64, 128}, {128}));
  EXPECT_FALSE(isBroadcastableTo({2}, {4}));
}

TEST(MpgShapes, AxesNormaliseSortAndRejectDuplicates) {
  Shape axes;
  std::string error;
  ASSERT_TRUE(succeeded(normalizeAxes({-1, 0}, 3, axes, error)));
  EXPECT_EQ(axes, (Shape{0, 2}));
  EXPECT_TRUE(failed(normalizeAxes({1, -2}, 3, axes, error)));
  EXPECT_NE(error.find("twice"), std::string::npos) << error;
  EXPECT_TRUE(failed(normalizeAxes({3}, 3, axes, error)));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  EXPECT_TRUE(failed(normalizeAxes({}, 3, axes, error)));
}

TEST(MpgShapes, ReducedShapeWithAndWithoutKeepDims) {
  EXPECT_EQ(reducedShape({4, 5, 6}, {0, 2}, false), (Shape{5}));
  EXPECT_EQ(reducedShape({4, 5, 6}, {0, 2}, true), (Shape{1, 5, 1}));
  EXPECT_EQ(reducedShape({4}, {0}, false), (Shape{}));
}

TEST(MpgShapes, ConvOutputFollowsPyTorchFormula) {
  Shape out;
  std::string error;
  // 32x32, 3x3 kernel, stride 2, pad 1: (32 + 2 - 3) / 2 + 1 = 16.
  llvm::SmallVector<int64_t> stride{2, 2}, padding{1, 1, 1, 1};
  ASSERT_TRUE(succeeded(conv2dOutputShape({8, 3, 32, 32}, {16, 3, 3, 3}, llvm::ArrayRef(stride),
                                          llvm::ArrayRef(padding), std::nullopt, 1, out,
                                          error)))
      << error;
  EXPECT_EQ(out, (Shape{8, 16, 16, 16}));
  // Dilation 2 makes a 3x3 kernel span 5: 10 - 5 + 1 = 6.
  llvm::SmallVector<int64_t> dilation{2, 2};
  ASSERT_TRUE(succeeded(conv2dOutputShape({1, 4, 10, 10}, {8, 2, 3, 3}, std::nullopt,
                                          std::nullopt, llvm::ArrayRef(dilation), 2, out,
                                          error)))
      << error;
  EXPECT_EQ(out, (Shape{1, 8, 6, 6}));
}

TEST(MpgShapes, ConvRejectsChannelMismatchAndOversizedKernel) {
  Shape out;
  std::string error;
  EXPECT_TRUE(failed(conv2dOutputShape({1, 3, 8, 8}, {4, 2, 3, 3}, std::nullopt, std::nullopt,
                                       std::nullopt, 1, out, error)));
  EXPECT_NE(error.find("input channels"), std::string::npos) << error;
  EXPECT_TRUE(failed(conv2dOutputShape({1, 3, 2, 2}, {4, 3, 3, 3}, std::nullopt, std::nullopt,
                                       std::nullopt, 1, out, error)));
  EXPECT_NE(error.find("does not fit"), std::string::npos) << error;
}

TEST(MpgShapes, PoolStrideDefaultsToKernel) {
  Shape out;
  std::string error;
  ASSERT_TRUE(succeeded(pool2dOutputShape({2, 3, 28, 28}, {2, 2}, std::nullopt, std::nullopt,
                                          out, error)));
  EXPECT_EQ(out, (Shape{2, 3, 14, 14}));
  // Odd size, floor division: (7 - 2) / 2 + 1 = 3.
  ASSERT_TRUE(succeeded(pool2dOutputShape({1, 1, 7, 7}, {2, 2}, std::nullopt, std::nullopt,
                                          out, error)));
  EXPECT_EQ(out, (Shape{1, 1, 3, 3}));
}

TEST(MpgShapes, SliceCountsStridedElements) {
  Shape out;
  std::string error;
  llvm::SmallVector<int64_t> step{1, 3};
  ASSERT_TRUE(succeeded(sliceShape({8, 10}, {0, 1}, {8, 10}, llvm::ArrayRef(step), out, error)));
  EXPECT_EQ(out, (Shape{8, 3})); // 1, 4, 7
  EXPECT_TRUE(failed(sliceShape({8}, {4}, {9}, std::nullopt, out, error)));
  EXPECT_NE(error.find("limit (9) <= size (8)"), std::string::npos) << error;
}
