//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// The format: the magic "\x93NUMPY", two version bytes, the header length
// (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), then the header, a
// Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and ended by '\n' so that the data starts at a multiple
// of 64 bytes, then the raw elements.
//
//===----------------------------------------------------------------------===//

#include "mpc/format/Npy.h"

#include "mpc/format/FileIO.h"

#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

namespace mpc::rt {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr size_t kAlignment = 64;

struct DescrEntry {
  const char *descr;
  DType dtype;
};

constexpr DescrEntry kDescrs[] = {
    {"<f2", DType::F16}, {"<f4", DType::F32}, {"<f8", DType::F64},
    {"<i4", DType::I32}, {"<i8", DType::I64}, {"|b1", DType::Bool},
};

const char *descrOf(DType dtype) {
  for (const DescrEntry &entry : kDescrs)
    if (entry.dtype == dtype)
      return entry.descr;
  return nullptr;
}

/// The fields of a .npy header.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Parses the Python dict literal of a .npy header. It accepts exactly the
/// keys 'descr', 'fortran_order' and 'shape' with a string, a bool and a
/// tuple of integers; a structured dtype (a list as 'descr') is reported as
/// unsupported.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  /// On failure, `error` says what is wrong and where.
  bool parse(NpyHeader &header, std::string &error) {
    bool sawDescr = false, sawOrder = false, sawShape = false;
    if (!expect('{'))
      return fail(error);
    while (!peek('}')) {
      std::string key;
      if (!parseString(key) || !expect(':'))
        return fail(error);
      if (key == "descr") {
        if (peek('[')) {
          error = "structured dtypes are not supported";
          return false;
        }
        if (!parseString(header.descr))
          return fail(error);
        sawDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(header.fortranOrder))
          return fail(error);
        sawOrder = true;
      } else if (key == "shape") {
        if (!parseShape(header.shape))
          return fail(error);
        sawShape = true;
      } else {
        error = "unexpected key '" + key + "'";
        return false;
      }
      if (!peek('}') && !expect(','))
        return fail(error);
    }
    ++pos_;
    skipSpace();
    if (pos_ != text_.size()) {
      expected_ = "the end of the header after '}'";
      return fail(error);
    }
    if (!sawDescr || !sawOrder || !sawShape) {
      error = std::string("missing key '") +
              (!sawDescr   ? "descr"
               : !sawOrder ? "fortran_order"
                           : "shape") +
              "'";
      return false;
    }
    return true;
  }

private:
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool peek(char c) {
    skipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  bool expect(char c) {
    if (peek(c)) {
      ++pos_;
      return true;
    }
    expected_ = std::string("'") + c + "'";
    return false;
  }

  bool fail(std::string &error) const {
    error = "expected " + expected_ + " at byte " + std::to_string(pos_) +
            " of the header";
    return false;
  }

  /// A Python string literal in single or double quotes, without escapes.
  bool parseString(std::string &out) {
    skipSpace();
    expected_ = "a quoted string";
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return false;
    char quote = text_[pos_];
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos)
      return false;
    std::string_view body = text_.substr(pos_ + 1, end - pos_ - 1);
    if (body.find('\\') != std::string_view::npos)
      return false;
    out = std::string(body);
    pos_ = end + 1;
    return true;
  }

  bool parseBool(bool &out) {
    skipSpace();
    std::string_view rest = text_.substr(pos_);
    for (bool value : {false, true}) {
      std::string_view word = value ? "True" : "False";
      if (rest.substr(0, word.size()) == word) {
        out = value;
        pos_ += word.size();
        return true;
      }
    }
    expected_ = "True or False";
    return false;
  }

  /// A non-negative Python int; Python 2's 'L' suffix is accepted.
  bool parseDimension(int64_t &out) {
    skipSpace();
    expected_ = "a non-negative integer dimension";
    size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      int digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return false;
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start)
      return false;
    if (pos_ < text_.size() && text_[pos_] == 'L')
      ++pos_;
    out = value;
    return true;
  }

  /// A tuple of dimensions: "()", "(5,)", "(2, 3)".
  bool parseShape(std::vector<int64_t> &out) {
    out.clear();
    if (!expect('('))
      return false;
    while (!peek(')')) {
      int64_t dim;
      if (!parseDimension(dim))
        return false;
      out.push_back(dim);
      if (!peek(')') && !expect(','))
        return false;
    }
    ++pos_;
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string expected_;
};

uint32_t readLittleEndian(const unsigned char *bytes, size_t count) {
  uint32_t value = 0;
  for (size_t i = 0; i < count; ++i)
    value |= static_cast<uint32_t>(bytes[i]) << (8 * i);
  return value;
}

/// The header for error messages, shortened when long.
std::string quoteHeader(std::string_view header) {
  constexpr size_t kMaxShown = 120;
  while (!header.empty() && (header.back() == ' ' || header.back() == '\n'))
    header.remove_suffix(1);
  if (header.size() > kMaxShown)
    return std::string(header.substr(0, kMaxShown)) + "...";
  return std::string(header);
}

Status formatError(const std::string &path, const std::string &what) {
  return Status::error(MPC_FORMAT_ERROR, path + ": " + what);
}

/// readNpyLayout on an open file.
Status readLayout(const std::string &path, InputFile &file, NpyLayout &out) {
  unsigned char prefix[kMagicSize + 6];
  if (file.size() < kMagicSize + 2 ||
      !file.readAt(0, prefix, kMagicSize + 2, "the magic").isOk() ||
      std::memcmp(prefix, kMagic, kMagicSize) != 0)
    return formatError(path, "not a .npy file (bad magic; expected "
                             "\"\\x93NUMPY\")");
  unsigned major = prefix[kMagicSize], minor = prefix[kMagicSize + 1];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return Status::error(
        MPC_UNSUPPORTED,
        path + ": unsupported .npy format version " + std::to_string(major) +
            "." + std::to_string(minor) + " (mpc reads 1.0, 2.0 and 3.0)");
  size_t lengthSize = major == 1 ? 2 : 4;
  size_t prefixSize = kMagicSize + 2 + lengthSize;
  if (file.size() < prefixSize)
    return formatError(path, "truncated: the file ends inside the header "
                             "length");
  if (Status status = file.readAt(kMagicSize + 2, prefix + kMagicSize + 2,
                                  lengthSize, "the header length");
      !status.isOk())
    return status;
  uint64_t headerSize = readLittleEndian(prefix + kMagicSize + 2, lengthSize);
  if (headerSize > file.size() - prefixSize)
    return formatError(path, "truncated header: expected " +
                                 std::to_string(headerSize) +
                                 " bytes of header, found " +
                                 std::to_string(file.size() - prefixSize));
  std::string headerText(headerSize, '\0');
  if (Status status =
          file.readAt(prefixSize, headerText.data(), headerSize, "the header");
      !status.isOk())
    return status;

  NpyHeader header;
  std::string error;
  if (!HeaderParser(headerText).parse(header, error))
    return formatError(path, "malformed .npy header: " + error + ": " +
                                 quoteHeader(headerText));

  std::optional<DType> dtype;
  for (const DescrEntry &entry : kDescrs)
    if (header.descr == entry.descr)
      dtype = entry.dtype;
  if (!dtype) {
    bool bigEndian = !header.descr.empty() && header.descr[0] == '>';
    return Status::error(
        MPC_UNSUPPORTED,
        path + ": unsupported " + (bigEndian ? "big-endian " : "") + "dtype '" +
            header.descr +
            "' (mpc reads '<f2', '<f4', '<f8', '<i4', '<i8' and '|b1')");
  }
  if (header.fortranOrder)
    return Status::error(MPC_UNSUPPORTED,
                         path +
                             ": Fortran-order arrays are not supported; "
                             "save a C-order array (numpy.ascontiguousarray)");

  size_t elementSize = dtypeSize(*dtype);
  std::optional<int64_t> count = elementCount(header.shape);
  if (!count || static_cast<uint64_t>(*count) >
                    std::numeric_limits<uint64_t>::max() / elementSize)
    return formatError(path,
                       "shape " + formatShape(header.shape) + " is too large");
  uint64_t dataSize = static_cast<uint64_t>(*count) * elementSize;
  uint64_t dataOffset = prefixSize + headerSize;
  uint64_t available = file.size() - dataOffset;
  if (available != dataSize)
    return formatError(
        path, std::string(available < dataSize ? "truncated" : "trailing") +
                  " data: expected " + std::to_string(dataSize) +
                  " bytes of data, found " + std::to_string(available));
  out.dtype = *dtype;
  out.shape = std::move(header.shape);
  out.dataOffset = dataOffset;
  out.dataBytes = dataSize;
  return Status();
}

} // namespace

Status readNpyLayout(const std::string &path, NpyLayout &out) {
  InputFile file;
  if (Status status = file.open(path); !status.isOk())
    return status;
  return readLayout(path, file, out);
}

Status readNpy(const std::string &path, HostTensor &out) {
  InputFile file;
  if (Status status = file.open(path); !status.isOk())
    return status;
  NpyLayout layout;
  if (Status status = readLayout(path, file, layout); !status.isOk())
    return status;
  HostTensor tensor;
  tensor.dtype = layout.dtype;
  tensor.shape = std::move(layout.shape);
  tensor.bytes.resize(layout.dataBytes);
  if (Status status =
          file.readAt(layout.dataOffset, tensor.bytes.data(), layout.dataBytes, "the data");
      !status.isOk())
    return status;
  out = std::move(tensor);
  return Status();
}

Status writeNpy(const std::string &path, const HostTensor &tensor) {
  if (Status status = checkHostTensor(tensor, path); !status.isOk())
    return status;
  const char *descr = descrOf(tensor.dtype);
  if (!descr)
    return Status::error(MPC_UNSUPPORTED,
                         path + ": NumPy has no " + dtypeName(tensor.dtype) +
                             " dtype; convert the tensor to f32 first");

  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.shape)
    dict += std::to_string(dim) + (tensor.shape.size() == 1 ? "," : ", ");
  if (tensor.shape.size() > 1)
    dict.resize(dict.size() - 2);
  dict += "), }";

  // Version 1.0 unless its 16-bit header length cannot hold the header.
  unsigned major = 1;
  size_t prefixSize = kMagicSize + 4;
  size_t padded =
      (prefixSize + dict.size() + 1 + kAlignment - 1) / kAlignment * kAlignment;
  if (padded - prefixSize > std::numeric_limits<uint16_t>::max()) {
    major = 2;
    prefixSize = kMagicSize + 6;
    padded = (prefixSize + dict.size() + 1 + kAlignment - 1) / kAlignment *
             kAlignment;
  }
  size_t headerSize = padded - prefixSize;
  if (headerSize > std::numeric_limits<uint32_t>::max())
    return Status::error(MPC_INVALID_ARGUMENT,
                         path + ": the .npy header for rank " +
                             std::to_string(tensor.shape.size()) +
                             " is too large");

  std::string prefix(kMagic, kMagicSize);
  prefix += static_cast<char>(major);
  prefix += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    prefix += static_cast<char>((headerSize >> (8 * i)) & 0xff);
  std::string header = dict;
  header.resize(headerSize - 1, ' ');
  header += '\n';
  return writeFileAtomically(path,
                             {{prefix.data(), prefix.size()},
                              {header.data(), header.size()},
                              {tensor.bytes.data(), tensor.bytes.size()}});
}

} // namespace mpc::rt
