//===- NpyTest.cpp - reading and writing NumPy .npy files -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Round trips through mpc, files written by NumPy read by mpc, files written
// by mpc read by NumPy, and damaged or foreign files refused with messages
// that say what is wrong.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Npy.h"

#include "TestUtil.h"

#include <gtest/gtest.h>


using mpc::rt::DType;
using mpc::rt::HostTensor;
using mpc::rt::readNpy;
using mpc::rt::Status;
using mpc::rt::writeNpy;
using mpc::test::makeTensor;
using mpc::test::readBytes;
using mpc::test::runPython;
using mpc::test::TempDir;
using mpc::test::valuesOf;
using mpc::test::writeBytes;

namespace {

/// A tensor of `dtype` and `shape` whose bytes all differ from their
/// neighbours (bools are 0 or 1).
HostTensor patternTensor(DType dtype, std::vector<int64_t> shape) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.bytes.resize(tensor.numElements() * mpc::rt::dtypeSize(dtype));
  for (size_t i = 0; i < tensor.bytes.size(); ++i)
    tensor.bytes[i] = dtype == DType::Bool ? (i * 7 + 3) % 5 % 2
                                           : static_cast<uint8_t>(i * 37 + 11);
  return tensor;
}

/// A .npy file with `dict` as its header, padded as NumPy pads it.
std::string npyFile(const std::string &dict, const std::string &data,
                    int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string file = "\x93NUMPY";
  file += static_cast<char>(major);
  file += '\0';
  for (size_t i = 0; i < prefix - 8; ++i)
    file += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return file + header + data;
}

/// Checks that reading `path` fails with `code` and a message that names the
/// file and contains `message`, leaving `out` alone.
void expectRefused(const std::string &path, mpc_status_code code,
                   const std::string &message) {
  HostTensor out;
  out.shape = {42};
  out.bytes.resize(42 * 4);
  Status status = readNpy(path, out);
  EXPECT_EQ(status.code(), code) << status.message();
  EXPECT_EQ(status.message().rfind(path + ": ", 0), 0u) << status.message();
  EXPECT_NE(status.message().find(message), std::string::npos)
      << "expected \"" << message << "\" in: " << status.message();
  EXPECT_EQ(out.shape, std::vector<int64_t>{42});
}

const DType kNpyDtypes[] = {DType::F16, DType::F32, DType::F64,
                            DType::I32, DType::I64, DType::Bool};

TEST(Npy, RoundTripsEveryDtypeAndRank) {
  TempDir dir;
  std::vector<std::vector<int64_t>> shapes = {
      {}, {5}, {2, 3}, {2, 3, 4}, {2, 1, 3, 2}, {0, 3}, {1}};
  for (DType dtype : kNpyDtypes) {
    for (const std::vector<int64_t> &shape : shapes) {
      SCOPED_TRACE(std::string(mpc::rt::dtypeName(dtype)) + " " +
                   mpc::rt::formatShape(shape));
      HostTensor tensor = patternTensor(dtype, shape);
      std::string path = dir.file("t.npy");
      Status written = writeNpy(path, tensor);
      ASSERT_TRUE(written.isOk()) << written.message();

      std::string file = readBytes(path);
      ASSERT_GE(file.size(), 10u);
      EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
      size_t headerSize =
          static_cast<uint8_t>(file[8]) | static_cast<uint8_t>(file[9]) << 8;
      EXPECT_EQ((10 + headerSize) % 64, 0u) << "data is not 64-byte aligned";
      EXPECT_EQ(file[10 + headerSize - 1], '\n');
      EXPECT_EQ(file.size(), 10 + headerSize + tensor.bytes.size());

      HostTensor back;
      Status read = readNpy(path, back);
      ASSERT_TRUE(read.isOk()) << read.message();
      EXPECT_EQ(back.dtype, dtype);
      EXPECT_EQ(back.shape, shape);
      EXPECT_EQ(back.bytes, tensor.bytes);
    }
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"t.npy"});
}

TEST(Npy, WritesVersion2WhenTheHeaderNeedsIt) {
  TempDir dir;
  // 30000 dimensions of 1 need about 90000 header bytes, more than the
  // 65535 that version 1.0 can describe.
  HostTensor tensor = patternTensor(DType::F32, std::vector<int64_t>(30000, 1));
  std::string path = dir.file("wide.npy");
  ASSERT_TRUE(writeNpy(path, tensor).isOk());
  std::string file = readBytes(path);
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x02\x00", 8));
  uint32_t headerSize = 0;
  for (int i = 0; i < 4; ++i)
    headerSize |= static_cast<uint32_t>(static_cast<uint8_t>(file[8 + i]))
                  << (8 * i);
  EXPECT_GT(headerSize, 65535u);
  EXPECT_EQ((12 + headerSize) % 64, 0u);
  HostTensor back;
  Status read = readNpy(path, back);
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_EQ(back.shape, tensor.shape);
  EXPECT_EQ(back.bytes, tensor.bytes);
}

TEST(Npy, ReadsFilesWrittenByNumpy) {
  std::string reason = mpc::test::numpyUnavailableReason();
  if (!reason.empty())
    GTEST_SKIP() << reason;
  TempDir dir;
  std::string output;
  ASSERT_EQ(runPython(dir, R"(
import sys, numpy as np
d = sys.argv[1] + '/'
np.save(d + 'f2.npy', np.array([[1.0, -2.5, 65504.0], [np.inf, -0.0, 3.0]],
                               dtype='<f2'))
np.save(d + 'f4.npy', (np.arange(24, dtype='<f4') * 0.5).reshape(2, 3, 4))
np.save(d + 'f8.npy', np.array(3.25, dtype='<f8'))
np.save(d + 'i4.npy', np.array([-1, 2**31 - 1, -2**31], dtype='<i4'))
np.save(d + 'i8.npy', np.arange(-5, 5, dtype='<i8').reshape(5, 2))
np.save(d + 'b1.npy', np.array([[True, False], [False, True]]))
np.save(d + 'empty.npy', np.zeros((0, 3), dtype='<f4'))
np.save(d + 'rank5.npy', np.arange(32, dtype='<i4').reshape(2, 2, 2, 2, 2))
for version in [(1, 0), (2, 0), (3, 0)]:
    with open(d + 'v%d.npy' % version[0], 'wb') as f:
        np.lib.format.write_array(f, np.arange(6, dtype='<i8').reshape(3, 2),
                                  version=version)
np.save(d + 'fortran.npy', np.asfortranarray(np.arange(6.0).reshape(2, 3)))
np.save(d + 'big.npy', np.arange(3, dtype='>f4'))
np.save(d + 'c8.npy', np.zeros(2, dtype='<c8'))
)",
                      output),
            0)
      << output;

  HostTensor t;
  ASSERT_TRUE(readNpy(dir.file("f2.npy"), t).isOk());
  EXPECT_EQ(t.dtype, DType::F16);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(
      valuesOf<uint16_t>(t),
      (std::vector<uint16_t>{0x3c00, 0xc100, 0x7bff, 0x7c00, 0x8000, 0x4200}));

  ASSERT_TRUE(readNpy(dir.file("f4.npy"), t).isOk());
  EXPECT_EQ(t.dtype, DType::F32);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3, 4}));
  std::vector<float> f4 = valuesOf<float>(t);
  ASSERT_EQ(f4.size(), 24u);
  for (size_t i = 0; i < f4.size(); ++i)
    EXPECT_EQ(f4[i], 0.5f * i) << i;

  ASSERT_TRUE(readNpy(dir.file("f8.npy"), t).isOk());
  EXPECT_EQ(t.dtype, DType::F64);
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(valuesOf<double>(t), std::vector<double>{3.25});

  ASSERT_TRUE(readNpy(dir.file("i4.npy"), t).isOk());
  EXPECT_EQ(t.dtype, DType::I32);
  EXPECT_EQ(valuesOf<int32_t>(t),
            (std::vector<int32_t>{-1, INT32_MAX, INT32_MIN}));

  ASSERT_TRUE(readNpy(dir.file("i8.npy"), t).isOk());
  EXPECT_EQ(t.dtype, DType::I64);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(valuesOf<int64_t>(t),
            (std::vector<int64_t>{-5, -4, -3, -2, -1, 0, 1, 2, 3, 4}));

  ASSERT_TRUE(readNpy(dir.file("b1.npy"), t).isOk());
  EXPECT_EQ(t.dtype, DType::Bool);
  EXPECT_EQ(t.bytes, (std::vector<uint8_t>{1, 0, 0, 1}));

  ASSERT_TRUE(readNpy(dir.file("empty.npy"), t).isOk());
  EXPECT_EQ(t.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(t.bytes.empty());

  ASSERT_TRUE(readNpy(dir.file("rank5.npy"), t).isOk());
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 2, 2, 2, 2}));
  EXPECT_EQ(valuesOf<int32_t>(t)[31], 31);

  for (const char *name : {"v1.npy", "v2.npy", "v3.npy"}) {
    SCOPED_TRACE(name);
    Status status = readNpy(dir.file(name), t);
    ASSERT_TRUE(status.isOk()) << status.message();
    EXPECT_EQ(t.shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(valuesOf<int64_t>(t), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  }

  expectRefused(dir.file("fortran.npy"), MPC_UNSUPPORTED,
                "Fortran-order arrays are not supported");
  expectRefused(dir.file("big.npy"), MPC_UNSUPPORTED,
                "unsupported big-endian dtype '>f4'");
  expectRefused(dir.file("c8.npy"), MPC_UNSUPPORTED, "unsupported dtype '<c8'");
}

TEST(Npy, NumpyReadsFilesWrittenByMpc) {
  std::string reason = mpc::test::numpyUnavailableReason();
  if (!reason.empty())
    GTEST_SKIP() << reason;
  TempDir dir;
  std::vector<float> f4(24);
  for (size_t i = 0; i < f4.size(); ++i)
    f4[i] = 0.5f * i - 3;
  std::vector<int64_t> i8 = {INT64_MIN, -1, 0, 1, INT64_MAX, 7};
  struct File {
    const char *name;
    HostTensor tensor;
  } files[] = {
      {"f2.npy", makeTensor<uint16_t>(DType::F16, {2, 2},
                                      {0x3c00, 0xc100, 0x7bff, 0x0001})},
      {"f4.npy", makeTensor(DType::F32, {2, 3, 4}, f4)},
      {"f8.npy", makeTensor<double>(DType::F64, {}, {-0.125})},
      {"i4.npy", makeTensor<int32_t>(DType::I32, {3}, {INT32_MIN, 0, 5})},
      {"i8.npy", makeTensor(DType::I64, {3, 2}, i8)},
      {"b1.npy", makeTensor<uint8_t>(DType::Bool, {1, 3}, {1, 0, 1})},
      {"empty.npy", makeTensor<float>(DType::F32, {2, 0}, {})},
      {"rank4.npy", patternTensor(DType::I32, {2, 1, 3, 2})},
  };
  for (const File &file : files) {
    Status status = writeNpy(dir.file(file.name), file.tensor);
    ASSERT_TRUE(status.isOk()) << status.message();
  }
  std::string output;
  EXPECT_EQ(runPython(dir, R"(
import sys, numpy as np
d = sys.argv[1] + '/'
failures = []
def check(name, dtype, shape, values):
    a = np.load(d + name)
    if a.dtype != np.dtype(dtype) or a.shape != shape or \
            not a.flags.c_contiguous or a.tolist() != values:
        failures.append('%s: got %s %s %r' % (name, a.dtype, a.shape,
                                              a.tolist()))
check('f2.npy', '<f2', (2, 2), [[1.0, -2.5], [65504.0, 2.0**-24]])
check('f4.npy', '<f4', (2, 3, 4),
      (np.arange(24, dtype='<f4') * 0.5 - 3).reshape(2, 3, 4).tolist())
check('f8.npy', '<f8', (), -0.125)
check('i4.npy', '<i4', (3,), [-2**31, 0, 5])
check('i8.npy', '<i8', (3, 2), [[-2**63, -1], [0, 1], [2**63 - 1, 7]])
check('b1.npy', '|b1', (1, 3), [[True, False, True]])
check('empty.npy', '<f4', (2, 0), [[], []])
a = np.load(d + 'rank4.npy')
if a.shape != (2, 1, 3, 2) or a.dtype != np.dtype('<i4') or \
        a.tobytes() != bytes((i * 37 + 11) % 256 for i in range(48)):
    failures.append('rank4.npy: got %s %s %r' % (a.dtype, a.shape,
                                                 a.tobytes()))
print('\n'.join(failures))
sys.exit(1 if failures else 0)
)",
                      output),
            0)
      << output;
}

TEST(Npy, RefusesDamagedAndForeignFiles) {
  TempDir dir;
  std::string f4Data(24, '\x01');
  auto make = [&](const std::string &name, const std::string &bytes) {
    writeBytes(dir.file(name), bytes);
    return dir.file(name);
  };
  std::string good =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

  expectRefused(dir.file("missing.npy"), MPC_NOT_FOUND, "no such file");
  expectRefused(make("empty.npy", ""), MPC_FORMAT_ERROR,
                "not a .npy file (bad magic");
  expectRefused(make("zip.npy", "PK\x03\x04 this is a zip file"),
                MPC_FORMAT_ERROR, "not a .npy file (bad magic");
  expectRefused(make("short.npy", std::string("\x93NUMPY\x01\x00\x10", 9)),
                MPC_FORMAT_ERROR, "truncated");
  expectRefused(make("header.npy", npyFile(good, f4Data).substr(0, 40)),
                MPC_FORMAT_ERROR,
                "truncated header: expected 118 bytes of "
                "header, found 30");
  expectRefused(make("data.npy", npyFile(good, f4Data.substr(0, 20))),
                MPC_FORMAT_ERROR,
                "truncated data: expected 24 bytes of data, found 20");
  expectRefused(make("trailing.npy", npyFile(good, f4Data + "junk")),
                MPC_FORMAT_ERROR,
                "trailing data: expected 24 bytes of data, found 28");
  expectRefused(make("v4.npy", std::string("\x93NUMPY\x04\x00", 8) +
                                   npyFile(good, f4Data).substr(8)),
                MPC_UNSUPPORTED, "unsupported .npy format version 4.0");
  expectRefused(
      make("fortran.npy",
           npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                   f4Data)),
      MPC_UNSUPPORTED, "Fortran-order arrays are not supported");
  expectRefused(
      make("c8.npy",
           npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
                   f4Data)),
      MPC_UNSUPPORTED, "unsupported dtype '<c8'");
  expectRefused(
      make("be.npy",
           npyFile("{'descr': '>i8', 'fortran_order': False, 'shape': (3,), }",
                   f4Data)),
      MPC_UNSUPPORTED, "unsupported big-endian dtype '>i8'");
  expectRefused(
      make("struct.npy",
           npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, "
                   "'shape': (3,), }",
                   f4Data)),
      MPC_FORMAT_ERROR, "structured dtypes are not supported");
  expectRefused(
      make("noshape.npy",
           npyFile("{'descr': '<f4', 'fortran_order': False, }", f4Data)),
      MPC_FORMAT_ERROR, "malformed .npy header: missing key 'shape'");
  expectRefused(
      make("extra.npy",
           npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), "
                   "'x': 1}",
                   f4Data)),
      MPC_FORMAT_ERROR, "unexpected key 'x'");
  expectRefused(
      make("negative.npy",
           npyFile(
               "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
               f4Data)),
      MPC_FORMAT_ERROR,
      "expected a non-negative integer dimension at byte 54 of the header");
  expectRefused(
      make("huge.npy", npyFile("{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (4294967296, 4294967296), }",
                               f4Data)),
      MPC_FORMAT_ERROR, "shape [4294967296, 4294967296] is too large");
}

TEST(Npy, WriteRefusesBf16AndInconsistentTensors) {
  TempDir dir;
  std::string path = dir.file("x.npy");
  Status status = writeNpy(path, patternTensor(DType::BF16, {4}));
  EXPECT_EQ(status.code(), MPC_UNSUPPORTED);
  EXPECT_NE(status.message().find("NumPy has no bf16 dtype"), std::string::npos)
      << status.message();

  HostTensor wrongSize = patternTensor(DType::F32, {2, 3});
  wrongSize.bytes.pop_back();
  status = writeNpy(path, wrongSize);
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("shape [2, 3] of f32 needs 6 elements of 4 "
                                  "bytes but the tensor holds 23 bytes"),
            std::string::npos)
      << status.message();

  HostTensor negative = patternTensor(DType::F32, {});
  negative.shape = {-1};
  status = writeNpy(path, negative);
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("invalid shape [-1]"), std::string::npos);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(Npy, FailedWritesLeaveNoFileBehind) {
  TempDir dir;
  HostTensor tensor = patternTensor(DType::F32, {3});
  Status status = writeNpy(dir.file("no/such/folder/x.npy"), tensor);
  EXPECT_EQ(status.code(), MPC_IO_ERROR);
  EXPECT_NE(status.message().find("no/such/folder/x.npy"), std::string::npos);
  // A folder in the way: the rename fails and the temporary file goes.
  std::filesystem::create_directory(dir.file("taken.npy"));
  status = writeNpy(dir.file("taken.npy"), tensor);
  EXPECT_EQ(status.code(), MPC_IO_ERROR) << status.message();
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"taken.npy"});
}

} // namespace
