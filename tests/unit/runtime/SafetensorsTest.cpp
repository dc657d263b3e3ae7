//===- SafetensorsTest.cpp - safetensors checkpoint files -----------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Round trips through mpc; a file from an independent writer (Python's
// struct and json, following the format description) read by mpc; a file
// from mpc checked by Python; every validation error; and failed writes that
// must leave neither a temporary file nor a clobbered checkpoint.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Safetensors.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using mpc::rt::DType;
using mpc::rt::HostTensor;
using mpc::rt::readSafetensors;
using mpc::rt::Status;
using mpc::rt::writeSafetensors;
using mpc::test::makeTensor;
using mpc::test::readBytes;
using mpc::test::runPython;
using mpc::test::TempDir;
using mpc::test::valuesOf;
using mpc::test::writeBytes;

namespace {

using TensorMap = std::map<std::string, HostTensor>;
using Metadata = std::map<std::string, std::string>;

/// One tensor of every dtype, with the values that the Python scripts below
/// write and expect.
TensorMap sampleTensors() {
  TensorMap tensors;
  tensors["weights"] = makeTensor<float>(
      DType::F32, {2, 3}, {1.5f, -2.0f, 0.25f, 1e-3f, 3e38f, -0.0f});
  tensors["half"] =
      makeTensor<uint16_t>(DType::F16, {4}, {0x3c00, 0xc100, 0x7bff, 0x0001});
  tensors["brain"] =
      makeTensor<uint16_t>(DType::BF16, {3}, {0x3f80, 0xc060, 0x7180});
  tensors["double"] = makeTensor<double>(DType::F64, {}, {3.141592653589793});
  tensors["ints"] =
      makeTensor<int32_t>(DType::I32, {2, 2}, {-1, INT32_MAX, INT32_MIN, 7});
  tensors["longs"] =
      makeTensor<int64_t>(DType::I64, {3, 1}, {INT64_MIN, 0, INT64_MAX});
  tensors["mask"] = makeTensor<uint8_t>(DType::Bool, {2, 2}, {1, 0, 0, 1});
  tensors["nothing"] = makeTensor<float>(DType::F32, {0, 4}, {});
  return tensors;
}

/// The same tensors and values, in Python, for the scripts.
constexpr char kPythonSamples[] = R"(
import json, struct, sys
d = sys.argv[1] + '/'
def bf16(x):
    return struct.unpack('<I', struct.pack('<f', x))[0] >> 16
samples = [
    ('weights', 'F32', [2, 3],
     struct.pack('<6f', 1.5, -2.0, 0.25, 1e-3, 3e38, -0.0)),
    ('half', 'F16', [4], struct.pack('<4e', 1.0, -2.5, 65504.0, 2.0**-24)),
    ('brain', 'BF16', [3], struct.pack('<3H', bf16(1.0), bf16(-3.5),
                                       bf16(2.0**100))),
    ('double', 'F64', [], struct.pack('<d', 3.141592653589793)),
    ('ints', 'I32', [2, 2], struct.pack('<4i', -1, 2**31 - 1, -2**31, 7)),
    ('longs', 'I64', [3, 1], struct.pack('<3q', -2**63, 0, 2**63 - 1)),
    ('mask', 'BOOL', [2, 2], bytes([1, 0, 0, 1])),
    ('nothing', 'F32', [0, 4], b''),
]
)";

void expectSameTensors(const TensorMap &actual, const TensorMap &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto &[name, tensor] : expected) {
    SCOPED_TRACE(name);
    auto found = actual.find(name);
    ASSERT_NE(found, actual.end());
    EXPECT_EQ(found->second.dtype, tensor.dtype);
    EXPECT_EQ(found->second.shape, tensor.shape);
    EXPECT_EQ(found->second.bytes, tensor.bytes);
  }
}

/// A safetensors file with `header` (unpadded) and `data`.
std::string safetensorsFile(const std::string &header,
                            const std::string &data) {
  std::string file;
  for (int i = 0; i < 8; ++i)
    file += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return file + header + data;
}

/// Checks that reading `path` fails with `code` and a message that starts
/// with the path and contains `message`, leaving the outputs alone.
void expectRefused(const std::string &path, mpc_status_code code,
                   const std::string &message) {
  TensorMap tensors = {{"keep", HostTensor()}};
  Metadata metadata = {{"keep", "me"}};
  Status status = readSafetensors(path, tensors, &metadata);
  EXPECT_EQ(status.code(), code) << status.message();
  EXPECT_EQ(status.message().rfind(path + ": ", 0), 0u) << status.message();
  EXPECT_NE(status.message().find(message), std::string::npos)
      << "expected \"" << message << "\" in: " << status.message();
  EXPECT_EQ(tensors.size(), 1u);
  EXPECT_EQ(metadata.size(), 1u);
}

TEST(Safetensors, RoundTripsEveryDtypeWithMetadata) {
  TempDir dir;
  TensorMap tensors = sampleTensors();
  tensors["caf\xc3\xa9 \"quoted\"\n"] =
      makeTensor<float>(DType::F32, {1, 1, 1, 1}, {42.0f});
  Metadata metadata = {{"format", "pt"},
                       {"step", "1000"},
                       {"odd \"key\"", "tab\there \\ \x01 caf\xc3\xa9"}};
  std::string path = dir.file("ckpt.safetensors");
  Status written = writeSafetensors(path, tensors, metadata);
  ASSERT_TRUE(written.isOk()) << written.message();

  std::string file = readBytes(path);
  uint64_t headerSize = 0;
  for (int i = 0; i < 8; ++i)
    headerSize |= static_cast<uint64_t>(static_cast<uint8_t>(file[i]))
                  << (8 * i);
  EXPECT_EQ(headerSize % 8, 0u) << "the data is not 8-byte aligned";
  std::string header = file.substr(8, headerSize);
  EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}'));

  TensorMap back;
  Metadata backMetadata;
  Status read = readSafetensors(path, back, &backMetadata);
  ASSERT_TRUE(read.isOk()) << read.message();
  expectSameTensors(back, tensors);
  EXPECT_EQ(backMetadata, metadata);
  // Without a metadata map the tensors still read.
  ASSERT_TRUE(readSafetensors(path, back, nullptr).isOk());
  EXPECT_EQ(back.size(), tensors.size());
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"ckpt.safetensors"});
}

TEST(Safetensors, RoundTripsAnEmptyFile) {
  TempDir dir;
  std::string path = dir.file("empty.safetensors");
  ASSERT_TRUE(writeSafetensors(path, {}, {}).isOk());
  EXPECT_EQ(readBytes(path), safetensorsFile("{}      ", ""));
  TensorMap back = sampleTensors();
  Metadata metadata = {{"old", "value"}};
  Status read = readSafetensors(path, back, &metadata);
  ASSERT_TRUE(read.isOk()) << read.message();
  EXPECT_TRUE(back.empty());
  EXPECT_TRUE(metadata.empty());
}

TEST(Safetensors, ReadsAFileFromAnIndependentWriter) {
  TempDir dir;
  std::string output;
  // The buffer holds the tensors in reverse name order, the header lists them
  // shuffled, the JSON uses \u escapes and the header is not padded.
  ASSERT_EQ(runPython(dir, std::string(kPythonSamples) + R"(
header, data = {}, b''
for name, dtype, shape, raw in reversed(samples):
    header[name] = {'dtype': dtype, 'shape': shape,
                    'data_offsets': [len(data), len(data) + len(raw)]}
    data += raw
header['__metadata__'] = {'format': 'pt', 'note': 'caf\u00e9 "q" \\ \n'}
order = ['mask', '__metadata__', 'weights', 'nothing', 'half', 'longs',
         'brain', 'ints', 'double']
text = json.dumps({k: header[k] for k in order}, ensure_ascii=True)
blob = (text + ' ' * (1 - len(text) % 2)).encode('utf-8')  # an odd size
with open(d + 'independent.safetensors', 'wb') as f:
    f.write(struct.pack('<Q', len(blob)) + blob + data)
)",
                      output),
            0)
      << output;
  TensorMap tensors;
  Metadata metadata;
  Status status =
      readSafetensors(dir.file("independent.safetensors"), tensors, &metadata);
  ASSERT_TRUE(status.isOk()) << status.message();
  expectSameTensors(tensors, sampleTensors());
  EXPECT_EQ(metadata,
            (Metadata{{"format", "pt"}, {"note", "caf\xc3\xa9 \"q\" \\ \n"}}));
  // Spot checks of the values, independent of sampleTensors().
  EXPECT_EQ(valuesOf<float>(tensors["weights"])[4], 3e38f);
  EXPECT_EQ(valuesOf<double>(tensors["double"])[0], 3.141592653589793);
  EXPECT_EQ(valuesOf<int64_t>(tensors["longs"])[0], INT64_MIN);
}

TEST(Safetensors, PythonReadsAFileWrittenByMpc) {
  TempDir dir;
  TensorMap tensors = sampleTensors();
  tensors["\xc3\xbcnicode \"name\""] =
      makeTensor<int32_t>(DType::I32, {2}, {5, -5});
  Metadata metadata = {{"format", "pt"}, {"note", "caf\xc3\xa9 \"q\" \\ \n"}};
  Status written =
      writeSafetensors(dir.file("mpc.safetensors"), tensors, metadata);
  ASSERT_TRUE(written.isOk()) << written.message();
  std::string output;
  EXPECT_EQ(runPython(dir, std::string(kPythonSamples) + R"(
samples.append(('\u00fcnicode "name"', 'I32', [2], struct.pack('<2i', 5, -5)))
raw = open(d + 'mpc.safetensors', 'rb').read()
failures = []
n, = struct.unpack('<Q', raw[:8])
text = raw[8:8 + n].decode('utf-8')
if n % 8:
    failures.append('header size %d is not a multiple of 8' % n)
if not text.rstrip(' ').endswith('}'):
    failures.append('header is not padded with spaces: %r' % text)
header = json.loads(text)
data = raw[8 + n:]
meta = header.pop('__metadata__', None)
if meta != {'format': 'pt', 'note': 'caf\u00e9 "q" \\ \n'}:
    failures.append('metadata: %r' % meta)
names = list(header)
if names != sorted(names):
    failures.append('tensors not in name order: %r' % names)
end = 0
for name in names:
    begin, stop = header[name]['data_offsets']
    if begin != end:
        failures.append('%s starts at %d, not %d' % (name, begin, end))
    end = stop
if end != len(data):
    failures.append('tensors cover %d of %d data bytes' % (end, len(data)))
expected = {name: (dtype, shape, blob) for name, dtype, shape, blob in samples}
if set(expected) != set(names):
    failures.append('names: %r' % names)
for name, (dtype, shape, blob) in expected.items():
    info = header.get(name, {})
    begin, stop = info.get('data_offsets', [0, 0])
    got = (info.get('dtype'), info.get('shape'), data[begin:stop])
    if got != (dtype, shape, blob):
        failures.append('%s: got %r' % (name, got))
print('\n'.join(failures))
sys.exit(1 if failures else 0)
)",
                      output),
            0)
      << output;
}

/// Views of `tensors`, which must outlive them.
std::map<std::string, mpc::rt::TensorView> viewsOf(const TensorMap &tensors) {
  std::map<std::string, mpc::rt::TensorView> views;
  for (const auto &[name, t] : tensors)
    views[name] = {t.dtype, t.shape, t.bytes.data(), t.bytes.size()};
  return views;
}

// Tensors held elsewhere are written as HostTensors are, byte for byte; a
// file is found to hold them exactly when it does: not after one byte of a
// tensor, its metadata or its size changed, nor when it is missing.
TEST(Safetensors, WritesViewsAndFindsAFileThatHoldsThem) {
  TempDir dir;
  TensorMap tensors = sampleTensors();
  Metadata metadata{{"format", "pt"}};
  std::string fromHost = dir.file("host.safetensors"), fromViews = dir.file("views.safetensors");
  ASSERT_TRUE(writeSafetensors(fromHost, tensors, metadata).isOk());
  ASSERT_TRUE(mpc::rt::writeSafetensorViews(fromViews, viewsOf(tensors), metadata).isOk());
  EXPECT_EQ(readBytes(fromHost), readBytes(fromViews));
  EXPECT_TRUE(mpc::rt::holdsSafetensors(fromViews, viewsOf(tensors), metadata));
  EXPECT_FALSE(mpc::rt::holdsSafetensors(fromViews, viewsOf(tensors), {}));
  EXPECT_FALSE(
      mpc::rt::holdsSafetensors(dir.file("missing.safetensors"), viewsOf(tensors), metadata));
  TensorMap changed = tensors;
  changed["longs"].bytes.back() ^= 1;
  EXPECT_FALSE(mpc::rt::holdsSafetensors(fromViews, viewsOf(changed), metadata));
  changed = tensors;
  changed.erase("nothing");
  EXPECT_FALSE(mpc::rt::holdsSafetensors(fromViews, viewsOf(changed), metadata));
  std::string bytes = readBytes(fromViews);
  writeBytes(fromViews, bytes + " ");
  EXPECT_FALSE(mpc::rt::holdsSafetensors(fromViews, viewsOf(tensors), metadata));
  // A view whose size does not fit its shape is refused, nothing written.
  auto wrong = viewsOf(tensors);
  wrong["weights"].size -= 4;
  Status status = mpc::rt::writeSafetensorViews(dir.file("wrong.safetensors"), wrong, {});
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find("\"weights\": 20 bytes for shape [2, 3] of f32"),
            std::string::npos)
      << status.message();
  EXPECT_NE(::access(dir.file("wrong.safetensors").c_str(), F_OK), 0);
}

TEST(Safetensors, RefusesInvalidFiles) {
  TempDir dir;
  auto make = [&](const std::string &name, const std::string &bytes) {
    writeBytes(dir.file(name), bytes);
    return dir.file(name);
  };
  std::string data24(24, '\x01');
  auto one = [](const std::string &dtype, const std::string &shape,
                const std::string &offsets) {
    return "{\"w\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
           ",\"data_offsets\":" + offsets + "}}";
  };

  expectRefused(dir.file("missing.safetensors"), MPC_NOT_FOUND, "no such file");
  expectRefused(make("short", std::string("\x08\0\0", 3)), MPC_FORMAT_ERROR,
                "3 bytes cannot hold the 8-byte header size");
  std::string sizeTooLarge = safetensorsFile("{}", "");
  sizeTooLarge[1] = '\x03'; // 770 bytes of header in an 10-byte file
  expectRefused(make("size", sizeTooLarge), MPC_FORMAT_ERROR,
                "header size 770 is larger than the file (10 bytes)");
  {
    // A sparse file: big enough for the size it claims, past the limit.
    std::string path =
        make("limit", std::string("\x01\xe1\xf5\x05\0\0\0\0", 8));
    std::filesystem::resize_file(path, 100000016); // 100000001 = 0x5f5e101
    expectRefused(path, MPC_FORMAT_ERROR,
                  "header size 100000001 exceeds the limit of 100000000 bytes");
  }
  expectRefused(make("json", safetensorsFile("{\"w\":{\"dtype\":\"F32\",}}", data24)),
                MPC_FORMAT_ERROR,
                "invalid JSON in the header at byte 20 (line 1, column 21) (the header "
                "starts at file offset 8): syntax error while parsing object key");
  expectRefused(make("array", safetensorsFile("[1, 2]", "")), MPC_FORMAT_ERROR,
                "the header is not a JSON object");
  expectRefused(make("duplicate", safetensorsFile("{\"w\":1,\"w\":2}", "")), MPC_FORMAT_ERROR,
                "at /w (the header starts at file offset 8): "
                "duplicate key \"w\"");
  expectRefused(
      make("dtype", safetensorsFile(one("F128", "[6]", "[0,24]"), data24)),
      MPC_UNSUPPORTED, "tensor \"w\": unsupported dtype \"F128\"");
  expectRefused(
      make("u8", safetensorsFile(one("U8", "[24]", "[0,24]"), data24)),
      MPC_UNSUPPORTED, "tensor \"w\": unsupported dtype \"U8\"");
  expectRefused(
      make("past", safetensorsFile(one("F32", "[8]", "[0,32]"), data24)),
      MPC_FORMAT_ERROR,
      "tensor \"w\": data_offsets [0, 32] go past the end of the "
      "data buffer (24 bytes)");
  expectRefused(
      make("size", safetensorsFile(one("F32", "[2,3]", "[0,20]"), data24)),
      MPC_FORMAT_ERROR,
      "tensor \"w\": data_offsets [0, 20] hold 20 bytes but shape "
      "[2, 3] of F32 needs 24");
  expectRefused(
      make("reversed", safetensorsFile(one("F32", "[0]", "[8,4]"), data24)),
      MPC_FORMAT_ERROR,
      "tensor \"w\": data_offsets [8, 4] end before they begin");
  expectRefused(
      make("overlap", safetensorsFile("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],"
                                      "\"data_offsets\":[0,16]},"
                                      "\"b\":{\"dtype\":\"I64\",\"shape\":[2],"
                                      "\"data_offsets\":[8,24]}}",
                                      data24)),
      MPC_FORMAT_ERROR,
      "tensor \"b\": data_offsets [8, 24] overlap tensor \"a\" [0, 16]");
  expectRefused(
      make("hole", safetensorsFile("{\"a\":{\"dtype\":\"F64\",\"shape\":[],"
                                   "\"data_offsets\":[0,8]},"
                                   "\"b\":{\"dtype\":\"I64\",\"shape\":[1],"
                                   "\"data_offsets\":[16,24]}}",
                                   data24)),
      MPC_FORMAT_ERROR,
      "bytes [8, 16] of the data buffer, before tensor \"b\", belong to no "
      "tensor");
  expectRefused(
      make("tail", safetensorsFile(one("F32", "[4]", "[0,16]"), data24)),
      MPC_FORMAT_ERROR,
      "bytes [16, 24] at the end of the data buffer belong to no "
      "tensor");
  expectRefused(make("noshape", safetensorsFile("{\"w\":{\"dtype\":\"F32\","
                                                "\"data_offsets\":[0,24]}}",
                                                data24)),
                MPC_FORMAT_ERROR, "tensor \"w\": missing \"shape\"");
  expectRefused(
      make("extra", safetensorsFile("{\"w\":{\"dtype\":\"F32\",\"shape\":[6],"
                                    "\"data_offsets\":[0,24],\"x\":1}}",
                                    data24)),
      MPC_FORMAT_ERROR, "tensor \"w\": unexpected key \"x\"");
  for (const char *shape : {"[2,-3]", "[2.5]", "6", "[\"6\"]"})
    expectRefused(
        make("shape", safetensorsFile(one("F32", shape, "[0,24]"), data24)),
        MPC_FORMAT_ERROR,
        "tensor \"w\": \"shape\" must be an array of non-negative "
        "integers");
  for (const char *offsets : {"[0]", "[0,24,24]", "[-1,24]", "{}"})
    expectRefused(
        make("offsets", safetensorsFile(one("F32", "[6]", offsets), data24)),
        MPC_FORMAT_ERROR,
        "tensor \"w\": \"data_offsets\" must be [begin, end]");
  expectRefused(make("huge", safetensorsFile(one("F64",
                                                 "[4294967296,"
                                                 "4294967296]",
                                                 "[0,24]"),
                                             data24)),
                MPC_FORMAT_ERROR,
                "shape [4294967296, 4294967296] is too large");
  expectRefused(
      make("meta", safetensorsFile("{\"__metadata__\":{\"k\":1}}", "")),
      MPC_FORMAT_ERROR, "\"__metadata__\" value of \"k\" must be a string");
  expectRefused(make("metaobj", safetensorsFile("{\"__metadata__\":[]}", "")),
                MPC_FORMAT_ERROR, "\"__metadata__\" must be an object");
}

TEST(Safetensors, WriteRefusesInvalidTensors) {
  TempDir dir;
  std::string path = dir.file("x.safetensors");
  HostTensor shortTensor = makeTensor<float>(DType::F32, {2, 2}, {1, 2, 3});
  Status status = writeSafetensors(path, {{"w", shortTensor}}, {});
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  EXPECT_NE(status.message().find(
                "tensor \"w\": shape [2, 2] of f32 needs 4 elements"),
            std::string::npos)
      << status.message();
  status = writeSafetensors(path, {{"__metadata__", HostTensor()}}, {});
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  status = writeSafetensors(path, {{"bad \xff", HostTensor()}}, {});
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  status = writeSafetensors(path, {}, {{"k", "bad \xc0\xaf"}});
  EXPECT_EQ(status.code(), MPC_INVALID_ARGUMENT);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(Safetensors, FailedWritesLeaveNoTemporaryAndKeepTheOldFile) {
  TempDir dir;
  TensorMap tensors = sampleTensors();
  std::string path = dir.file("ckpt.safetensors");
  ASSERT_TRUE(writeSafetensors(path, tensors, {{"v", "1"}}).isOk());
  std::string original = readBytes(path);

  // A folder that does not exist.
  Status status =
      writeSafetensors(dir.file("no/such/dir/ckpt.safetensors"), tensors, {});
  EXPECT_EQ(status.code(), MPC_IO_ERROR);
  EXPECT_NE(status.message().find("no/such/dir/ckpt.safetensors"),
            std::string::npos)
      << status.message();

  // An invalid tensor: refused before anything is written.
  TensorMap invalid = tensors;
  invalid["weights"].bytes.resize(3);
  EXPECT_EQ(writeSafetensors(path, invalid, {}).code(), MPC_INVALID_ARGUMENT);

  // The disk "fills up" in the middle of the data: the write fails with
  // EFBIG under a file-size limit of 4 KiB.
  TensorMap large = tensors;
  large["large"] =
      makeTensor<float>(DType::F32, {4096}, std::vector<float>(4096, 1.0f));
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto savedHandler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = saved;
  limit.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  status = writeSafetensors(path, large, {});
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, savedHandler);
  EXPECT_EQ(status.code(), MPC_IO_ERROR);
  EXPECT_NE(status.message().find("cannot write"), std::string::npos)
      << status.message();

  EXPECT_EQ(readBytes(path), original);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"ckpt.safetensors"});

  // A folder in the way of the rename.
  std::filesystem::create_directory(dir.file("taken"));
  EXPECT_EQ(writeSafetensors(dir.file("taken"), tensors, {}).code(),
            MPC_IO_ERROR);
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"ckpt.safetensors", "taken"}));

  // A successful write replaces the old file.
  ASSERT_TRUE(writeSafetensors(path, large, {}).isOk());
  TensorMap back;
  ASSERT_TRUE(readSafetensors(path, back, nullptr).isOk());
  expectSameTensors(back, large);
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"ckpt.safetensors", "taken"}));
}

} // namespace
