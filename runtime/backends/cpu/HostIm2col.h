//===- HostIm2col.h - a convolution's GEMM columns gathered in fp32 -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// A gemm step's im2col_b hint (Manifest.h) says that its B operand is the
// im2col columns of an image batch, which the launch before the step
// writes. The CPU multiplies fp16 operands widened to fp32 (it has no fp16
// GEMM), so for an f16 B it skips that launch and gathers the fp32 columns
// from the image instead: one pass writing the widened columns, where the
// launch and the widening took two over them. Each image plane is widened
// once into a zero-bordered copy, and every row of the columns is then a
// copy from it, an output row at a time. The values are those of the
// launch's columns widened, bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_RUNTIME_BACKENDS_CPU_HOSTIM2COL_H
#define MPC_RUNTIME_BACKENDS_CPU_HOSTIM2COL_H

#include "mpc/format/Manifest.h"

#include <cstdint>
#include <vector>

namespace mpc::rt {

/// Writes the columns of `images` images from `firstImage` of `hint` (a
/// verified im2col_b) of the N x C x H x W image `input`, stored as `dtype`,
/// to `columns` as fp32: images x (C kH kW) x (Ho Wo) values, image by
/// image, as B is laid out (offset 0, stride C kH kW Ho Wo). `plane` is
/// scratch for one padded image plane.
void gatherColumns(const GemmStep::Im2col &hint, DType dtype, const uint8_t *input,
                   int64_t firstImage, int64_t images, float *columns, std::vector<float> &plane);

/// The number of fp32 values gatherColumns writes for one image of `hint`.
size_t imageColumnCount(const GemmStep::Im2col &hint);

/// The number of fp32 values of `plane` that gatherColumns uses for `hint`
/// (it grows a smaller one): a padded image plane, a widened one and a few
/// floats of slack for row copies in whole vectors.
size_t planeScratchCount(const GemmStep::Im2col &hint);

} // namespace mpc::rt

#endif // MPC_RUNTIME_BACKENDS_CPU_HOSTIM2COL_H
