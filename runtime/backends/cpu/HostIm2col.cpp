//===- HostIm2col.cpp - a convolution's GEMM columns gathered in fp32 -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
//===----------------------------------------------------------------------===//

#include "HostIm2col.h"

#include "Elements.h"

#include <algorithm>

namespace mpc::rt {

namespace {
/// Floats a stride-1 row copy moves at a time: whole vectors, so that a row
/// of 14 or 28 values is two or four vector moves and no scalar tail.
constexpr int64_t kCopyChunk = 8;
} // namespace

size_t imageColumnCount(const GemmStep::Im2col &hint) {
  return static_cast<size_t>(hint.shape[1] * hint.kernel[0] * hint.kernel[1] * hint.outH() *
                             hint.outW());
}

size_t planeScratchCount(const GemmStep::Im2col &hint) {
  const std::vector<int64_t> &shape = hint.shape;
  const int64_t padded = (shape[2] + hint.padding[0] + hint.padding[2]) *
                         (shape[3] + hint.padding[1] + hint.padding[3]);
  // The widened plane follows the padded one, then a chunk of slack for the
  // reads of planeColumnsBody's chunked row copies past the padded plane.
  return static_cast<size_t>(padded + shape[2] * shape[3] + kCopyChunk);
}

namespace {

/// `rows` rows of Wo values at stride 1 from `from` (a padded line apart),
/// each copied as `chunks` whole chunks of kCopyChunk floats. With `Chunks`
/// (the count, known when compiled; 0: `chunks`) a row is a few vector
/// moves and no loop. The scratch plane and the columns never overlap:
/// without __restrict the compiler copies such a row a float at a time.
template <int Chunks>
__attribute__((always_inline)) inline void
chunkedRows(const float *__restrict from, int64_t lineStride, int64_t rows, int64_t outW,
            int64_t chunks, float *__restrict out) {
  const int64_t floats = (Chunks ? Chunks : chunks) * kCopyChunk;
  for (int64_t oh = 0; oh < rows; ++oh)
    for (int64_t k = 0; k < floats; ++k)
      out[oh * outW + k] = from[oh * lineStride + k];
}

/// Copies the widened image plane (`height` rows of `width` floats) into
/// the padded one, whose border stays zero, as plain loops: a memcpy call
/// per row of 14 or 28 floats cost more than the copy.
__attribute__((always_inline)) inline void stagePlane(const float *__restrict widened,
                                                      int64_t height, int64_t width, int64_t top,
                                                      int64_t left, int64_t paddedW,
                                                      float *__restrict padded) {
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x)
      padded[(y + top) * paddedW + left + x] = widened[y * width + x];
}

/// Stages the widened image plane `widened` in `padded` (stagePlane), then
/// writes the rows of its columns from that padded fp32 copy: for
/// each kernel element (i, j), Ho output rows of Wo values, as plain loops
/// (a memcpy call per output row of 14 or 28 values cost more than the
/// copy). At stride 1 a row is copied in whole chunks of kCopyChunk, as
/// many as a row needs (for rows of up to 4 chunks, a count known when
/// compiled): what it writes past its end belongs to the rows, kernel
/// elements and planes after it, which are written later, so only rows
/// whose chunks would run past the end of all the columns (`room` floats
/// from `out`) are copied exactly; the reads past a row stay inside the
/// scratch (planeScratchCount's slack). Written once and built twice, for
/// AVX2 and for any x86-64, which copy the same values.
__attribute__((always_inline)) inline void
planeColumnsBody(const float *widened, float *padded, int64_t paddedW, const GemmStep::Im2col &hint,
                 int64_t outH, int64_t outW, int64_t room, float *out) {
  stagePlane(widened, hint.shape[2], hint.shape[3], hint.padding[0], hint.padding[1], paddedW,
             padded);
  const int64_t strideH = hint.stride[0], strideW = hint.stride[1];
  const int64_t chunked = (outW + kCopyChunk - 1) / kCopyChunk * kCopyChunk;
  const int64_t lineStride = strideH * paddedW;
  int64_t at = 0; // out's offset from where the plane's columns start
  for (int64_t i = 0; i < hint.kernel[0]; ++i) {
    for (int64_t j = 0; j < hint.kernel[1]; ++j, out += outH * outW, at += outH * outW) {
      const float *from = padded + i * hint.dilation[0] * paddedW + j * hint.dilation[1];
      if (strideW != 1) {
        for (int64_t oh = 0; oh < outH; ++oh)
          for (int64_t ow = 0; ow < outW; ++ow)
            out[oh * outW + ow] = from[oh * lineStride + ow * strideW];
        continue;
      }
      // The rows from the first whose chunks would run past `room` are
      // copied exactly.
      const int64_t whole =
          at + chunked > room ? 0 : std::min(outH, (room - chunked - at) / outW + 1);
      const int64_t chunks = chunked / kCopyChunk;
      switch (chunks) {
      case 1:
        chunkedRows<1>(from, lineStride, whole, outW, chunks, out);
        break;
      case 2:
        chunkedRows<2>(from, lineStride, whole, outW, chunks, out);
        break;
      case 3:
        chunkedRows<3>(from, lineStride, whole, outW, chunks, out);
        break;
      case 4:
        chunkedRows<4>(from, lineStride, whole, outW, chunks, out);
        break;
      default:
        chunkedRows<0>(from, lineStride, whole, outW, chunks, out);
      }
      for (int64_t oh = whole; oh < outH; ++oh)
        for (int64_t ow = 0; ow < outW; ++ow)
          out[oh * outW + ow] = from[oh * lineStride + ow];
    }
  }
}

void planeColumnsPortable(const float *widened, float *padded, int64_t paddedW,
                          const GemmStep::Im2col &hint, int64_t outH, int64_t outW, int64_t room,
                          float *out) {
  planeColumnsBody(widened, padded, paddedW, hint, outH, outW, room, out);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MPC_HAVE_X86_DISPATCH 1
__attribute__((target("avx2"))) void planeColumnsAvx2(const float *widened, float *padded,
                                                      int64_t paddedW, const GemmStep::Im2col &hint,
                                                      int64_t outH, int64_t outW, int64_t room,
                                                      float *out) {
  planeColumnsBody(widened, padded, paddedW, hint, outH, outW, room, out);
}
#endif

void planeColumns(const float *widened, float *padded, int64_t paddedW,
                  const GemmStep::Im2col &hint, int64_t outH, int64_t outW, int64_t room,
                  float *out) {
#ifdef MPC_HAVE_X86_DISPATCH
  static const bool haveAvx2 = __builtin_cpu_supports("avx2");
  if (haveAvx2)
    return planeColumnsAvx2(widened, padded, paddedW, hint, outH, outW, room, out);
#endif
  planeColumnsPortable(widened, padded, paddedW, hint, outH, outW, room, out);
}

} // namespace

void gatherColumns(const GemmStep::Im2col &hint, DType dtype, const uint8_t *input,
                   int64_t firstImage, int64_t images, float *columns, std::vector<float> &plane) {
  const int64_t channels = hint.shape[1];
  const int64_t height = hint.shape[2], width = hint.shape[3];
  const int64_t outH = hint.outH(), outW = hint.outW();
  // The plane with its padding: zero outside the image.
  const int64_t paddedH = height + hint.padding[0] + hint.padding[2];
  const int64_t paddedW = width + hint.padding[1] + hint.padding[3];
  const size_t planeFloats = static_cast<size_t>(paddedH * paddedW);
  const size_t imageFloats = static_cast<size_t>(height * width);
  // Grown, never shrunk (planeScratchCount); the image part is widened
  // after the border.
  if (plane.size() < planeScratchCount(hint))
    plane.resize(planeScratchCount(hint));
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
      const size_t inputPlane = static_cast<size_t>((firstImage + n) * channels + c);
      widenElements(dtype, input + inputPlane * imageFloats * elementBytes, widened, imageFloats);
      // The floats from this plane's columns to the end of all of them.
      const int64_t room =
          static_cast<int64_t>((static_cast<size_t>(images * channels) - at) * planeColumnFloats);
      planeColumns(widened, padded, paddedW, hint, outH, outW, room,
                   columns + at * planeColumnFloats);
    }
  }
}

} // namespace mpc::rt
