//===- HostIm2col.cpp - a convolution's GEMM columns gathered in fp32 -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostIm2col.h"

#include "Elements.h"

#include <algorithm>
#include <cstring>

namespace mpc::rt {

size_t columnCount(const GemmStep::Im2col &hint) {
  const std::vector<int64_t> &shape = hint.shape;
  return static_cast<size_t>(shape[0] * shape[1] * hint.kernel[0] * hint.kernel[1] *
                             hint.outH() * hint.outW());
}

size_t planeScratchCount(const GemmStep::Im2col &hint) {
  const std::vector<int64_t> &shape = hint.shape;
  const int64_t padded = (shape[2] + hint.padding[0] + hint.padding[2]) *
                         (shape[3] + hint.padding[1] + hint.padding[3]);
  return static_cast<size_t>(padded + shape[2] * shape[3]);
}

namespace {

/// The rows of one image plane's columns from its padded fp32 copy: for
/// each kernel element (i, j), Ho output rows of Wo values, as plain loops
/// (a memcpy call per output row of 14 or 28 values cost more than the
/// copy). Written once and built twice, for AVX2 and for any x86-64, which
/// copy the same values.
__attribute__((always_inline)) inline void planeColumnsBody(const float *padded, int64_t paddedW,
                                                              const GemmStep::Im2col &hint,
                                                              int64_t outH, int64_t outW,
                                                              float *out) {
  const int64_t strideH = hint.stride[0], strideW = hint.stride[1];
  for (int64_t i = 0; i < hint.kernel[0]; ++i) {
    for (int64_t j = 0; j < hint.kernel[1]; ++j) {
      const float *from = padded + i * hint.dilation[0] * paddedW + j * hint.dilation[1];
      for (int64_t oh = 0; oh < outH; ++oh, out += outW) {
        const float *line = from + oh * strideH * paddedW;
        if (strideW == 1) {
          for (int64_t ow = 0; ow < outW; ++ow)
            out[ow] = line[ow];
        } else {
          for (int64_t ow = 0; ow < outW; ++ow)
            out[ow] = line[ow * strideW];
        }
      }
    }
  }
}

void planeColumnsPortable(const float *padded, int64_t paddedW, const GemmStep::Im2col &hint,
                          int64_t outH, int64_t outW, float *out) {
  planeColumnsBody(padded, paddedW, hint, outH, outW, out);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MPC_HAVE_X86_DISPATCH 1
__attribute__((target("avx2"))) void planeColumnsAvx2(const float *padded, int64_t paddedW,
                                                       const GemmStep::Im2col &hint,
                                                       int64_t outH, int64_t outW, float *out) {
  planeColumnsBody(padded, paddedW, hint, outH, outW, out);
}
#endif

void planeColumns(const float *padded, int64_t paddedW, const GemmStep::Im2col &hint,
                  int64_t outH, int64_t outW, float *out) {
#ifdef MPC_HAVE_X86_DISPATCH
  static const bool haveAvx2 = __builtin_cpu_supports("avx2");
  if (haveAvx2)
    return planeColumnsAvx2(padded, paddedW, hint, outH, outW, out);
#endif
  planeColumnsPortable(padded, paddedW, hint, outH, outW, out);
}

} // namespace

void gatherColumns(const GemmStep::Im2col &hint, DType dtype, const uint8_t *input,
                   float *columns, std::vector<float> &plane) {
  const int64_t images = hint.shape[0], channels = hint.shape[1];
  const int64_t height = hint.shape[2], width = hint.shape[3];
  const int64_t top = hint.padding[0], left = hint.padding[1];
  const int64_t outH = hint.outH(), outW = hint.outW();
  // The plane with its padding: zero outside the image.
  const int64_t paddedH = height + top + hint.padding[2];
  const int64_t paddedW = width + left + hint.padding[3];
  const size_t planeFloats = static_cast<size_t>(paddedH * paddedW);
  const size_t imageFloats = static_cast<size_t>(height * width);
  // Grown, never shrunk (planeScratchCount); the image part is widened
  // after the border.
  if (plane.size() < planeFloats + imageFloats)
    plane.resize(planeFloats + imageFloats);
  float *padded = plane.data();
  float *widened = plane.data() + planeFloats;
  std::fill(padded, padded + planeFloats, 0.0f);
  const size_t elementBytes = dtypeSize(dtype);
  // The rows of one plane's columns: kH kW rows of Ho Wo values.
  const size_t planeColumnFloats =
      static_cast<size_t>(hint.kernel[0] * hint.kernel[1] * outH * outW);
  for (int64_t n = 0; n < images; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const size_t at = static_cast<size_t>(n * channels + c);
      widenElements(dtype, input + at * imageFloats * elementBytes, widened, imageFloats);
      // The border stays zero: only the image rows are written.
      for (int64_t y = 0; y < height; ++y)
        std::memcpy(padded + (y + top) * paddedW + left, widened + y * width,
                    static_cast<size_t>(width) * sizeof(float));
      planeColumns(padded, paddedW, hint, outH, outW, columns + at * planeColumnFloats);
    }
  }
}

} // namespace mpc::rt
