#include "format/npy.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>

namespace dsanalyze {
namespace {

constexpr char kMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

// Header text quoted in a message: bytes outside printable ASCII become \xNN
// and long text is cut, so that a corrupt header still gives one short line.
std::string Printable(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out += {'\\', 'x', kHex[c >> 4], kHex[c & 15]};
    }
  }
  if (text.size() > kMaxShown) out += "...";
  return out;
}

// The header dict, a Python literal such as
//   {'descr': '<i8', 'fortran_order': False, 'shape': (3, 2), }
// parsed just far enough for the three keys numpy writes: strings, booleans
// and tuples of non-negative integers (with Python 2's 'L' suffix allowed).
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<uint64_t>> shape;
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  // Fills *h, or returns the problem (without the file name).
  std::optional<std::string> Parse(Header* h) {
    SkipSpace();
    if (!Eat('{')) return "header is not a Python dict";
    SkipSpace();
    while (!Eat('}')) {
      std::string key;
      if (!String(&key)) return "header dict has a key that is not a quoted string";
      SkipSpace();
      if (!Eat(':')) return "header dict: expected ':' after '" + Printable(key) + "'";
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[')
          return "descr is a structured dtype; only plain integer arrays are supported";
        std::string descr;
        if (!String(&descr)) return "header dict: 'descr' is not a string";
        h->descr = descr;
      } else if (key == "fortran_order") {
        if (EatWord("True")) {
          h->fortran_order = true;
        } else if (EatWord("False")) {
          h->fortran_order = false;
        } else {
          return "header dict: 'fortran_order' is not True or False";
        }
      } else if (key == "shape") {
        std::vector<uint64_t> shape;
        if (!Tuple(&shape)) return "header dict: 'shape' is not a tuple of non-negative integers";
        h->shape = std::move(shape);
      } else {
        return "header dict has an unexpected key '" + Printable(key) +
               "' (expected descr, fortran_order, shape)";
      }
      SkipSpace();
      if (Eat(',')) {
        SkipSpace();
      } else if (Peek() != '}') {
        return "header dict: expected ',' or '}' after '" + Printable(key) + "'";
      }
    }
    SkipSpace();
    if (pos_ != text_.size()) return "header has text after the dict";
    return std::nullopt;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool EatWord(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  // A '...' or "..." string without escapes.
  bool String(std::string* out) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return false;
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    const std::string_view s = text_.substr(pos_ + 1, end - pos_ - 1);
    if (s.find('\\') != std::string_view::npos) return false;
    *out = std::string(s);
    pos_ = end + 1;
    return true;
  }
  bool Integer(uint64_t* out) {
    const size_t start = pos_;
    uint64_t v = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      const uint64_t digit = static_cast<uint64_t>(Peek() - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return false;
    Eat('L');
    *out = v;
    return true;
  }
  // "()", "(5,)", "(5, 2)", "(5, 2,)"; not "(5)", which Python reads as the integer 5.
  bool Tuple(std::vector<uint64_t>* out) {
    if (!Eat('(')) return false;
    SkipSpace();
    bool comma = false;  // after the last element
    while (!Eat(')')) {
      uint64_t v;
      if (!Integer(&v)) return false;
      out->push_back(v);
      SkipSpace();
      comma = Eat(',');
      if (comma) {
        SkipSpace();
      } else if (Peek() != ')') {
        return false;
      }
    }
    return out->size() != 1 || comma;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// What a non-integer descr kind character means, for messages ("" if unknown).
std::string KindName(char kind) {
  switch (kind) {
    case 'f':
      return "floating point";
    case 'c':
      return "complex";
    case 'b':
      return "boolean";
    case 'U':
    case 'S':
      return "string";
    case 'M':
    case 'm':
      return "date/time";
    case 'O':
      return "Python object";
    default:
      return "";
  }
}

// The dtype of a float descr ('<f4', '<f8') after the byte-order checks.
Result<DType> FloatDType(int size, const std::function<Status(const std::string&)>& problem) {
  if (size == 4) return DType::kF32;
  if (size == 8) return DType::kF64;
  return problem(
      "is a float size that is not supported (expected float32 or float64; convert "
      "with a.astype('float32'))");
}

// The dtype a descr names, or the problem with it.
Result<DType> DTypeOfDescr(const std::string& descr, NpyElements elements) {
  const std::function<Status(const std::string&)> problem = [&](const std::string& what) {
    return Status::BadInput("dtype '" + Printable(descr) + "' " + what);
  };
  if (descr.size() < 2) return problem("is not a NumPy type string");
  const char order = descr[0], kind = descr[1];
  const std::string size_text = descr.substr(2);
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return problem("is not a NumPy type string");
  const bool numbers = elements == NpyElements::kNumbers;
  if (kind != 'i' && kind != 'u' && !(numbers && kind == 'f')) {
    const std::string name = KindName(kind);
    return problem(
        std::string(numbers ? "is not a number dtype" : "is not an integer dtype") +
        (name.empty() ? "" : " (" + name + ")") +
        (numbers ? "; an integer or float array is required" : "; an integer array is required"));
  }
  int size = 0;
  if (size_text == "1" || size_text == "2" || size_text == "4" || size_text == "8")
    size = size_text[0] - '0';
  else
    return problem("has an unsupported item size (expected 1, 2, 4 or 8 bytes)");
  // Byte order only matters past one byte; numpy writes '<' (or '|' for one byte).
  if (size > 1 && order == '>')
    return problem(
        "is big-endian; only little-endian arrays are supported (convert with "
        "a.astype(a.dtype.newbyteorder('<')))");
  if (size > 1 && order != '<') return problem("has no explicit little-endian byte order ('<')");
  if (kind == 'f') return FloatDType(size, problem);
  const bool is_signed = kind == 'i';
  switch (size) {
    case 1:
      return is_signed ? DType::kI8 : DType::kU8;
    case 2:
      return is_signed ? DType::kI16 : DType::kU16;
    case 4:
      return is_signed ? DType::kI32 : DType::kU32;
    default:
      return is_signed ? DType::kI64 : DType::kU64;
  }
}

// The fixed-size start of a .npy file: the format version and where the
// header text lies.
struct Preamble {
  int major_version;
  uint64_t header_start;
  uint64_t header_length;
};

Result<Preamble> ReadPreamble(std::span<const std::byte> bytes) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return Status::BadInput("not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<int>(bytes[6]), minor = static_cast<int>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return Status::BadInput("unsupported .npy format version " + std::to_string(major) + "." +
                            std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  // Version 1.0 has a 2-byte header length, 2.0 and 3.0 a 4-byte one.
  const uint64_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes)
    return Status::BadInput("file ends inside the header length");
  uint64_t header_length = 0;
  for (uint64_t i = 0; i < length_bytes; ++i)
    header_length |= static_cast<uint64_t>(bytes[8 + i]) << (8 * i);
  if (8 + length_bytes + header_length > bytes.size())
    return Status::BadInput("header length " + std::to_string(header_length) +
                            " runs past the end of the " + std::to_string(bytes.size()) +
                            "-byte file");
  return Preamble{major, 8 + length_bytes, header_length};
}

// The header dict, with all three keys present.
Result<Header> ReadHeader(std::string_view text) {
  Header h;
  if (std::optional<std::string> problem = HeaderParser(text).Parse(&h))
    return Status::BadInput(*problem);
  if (!h.descr) return Status::BadInput("header dict has no 'descr'");
  if (!h.fortran_order) return Status::BadInput("header dict has no 'fortran_order'");
  if (!h.shape) return Status::BadInput("header dict has no 'shape'");
  return h;
}

// The number of elements of `shape`, whose data must fill exactly the
// `available` bytes after the header.
Result<uint64_t> ElementCount(const std::vector<uint64_t>& shape, DType dtype, uint64_t available) {
  const uint64_t itemsize = ItemSize(dtype);
  const std::string what = "shape " + NpyShapeText(shape) + " of " + std::string(DTypeName(dtype));
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  uint64_t size = empty ? 0 : 1;
  for (uint64_t dim : shape) {
    if (empty) break;
    if (size > std::numeric_limits<uint64_t>::max() / itemsize / dim)
      return Status::BadInput(what + " has more than 2^64 bytes; the file has " +
                              std::to_string(available) + " data bytes");
    size *= dim;
  }
  const uint64_t needed = size * itemsize;
  if (needed != available)
    return Status::BadInput(what + " needs " + std::to_string(needed) +
                            " data bytes but the file has " + std::to_string(available) +
                            (needed > available ? " (truncated?)" : " (trailing bytes)"));
  return size;
}

// What a valid .npy file holds besides its data.
struct Layout {
  int major_version = 1;
  uint64_t data_offset = 0;
  DType dtype = DType::kU8;
  std::vector<uint64_t> shape;
  uint64_t size = 0;
};

// The layout of `bytes`, all of it checked; errors do not name the file yet.
Result<Layout> ReadLayout(std::span<const std::byte> bytes, NpyElements elements) {
  DSA_ASSIGN_OR_RETURN(const Preamble preamble, ReadPreamble(bytes));
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()) + preamble.header_start,
                              preamble.header_length);
  DSA_ASSIGN_OR_RETURN(Header h, ReadHeader(text));
  Layout layout;
  layout.major_version = preamble.major_version;
  layout.data_offset = preamble.header_start + preamble.header_length;
  DSA_ASSIGN_OR_RETURN(layout.dtype, DTypeOfDescr(*h.descr, elements));
  if (*h.fortran_order)
    return Status::BadInput(
        "fortran_order is True; only C-order arrays are supported (save "
        "numpy.ascontiguousarray(a))");
  layout.shape = std::move(*h.shape);
  DSA_ASSIGN_OR_RETURN(layout.size,
                       ElementCount(layout.shape, layout.dtype, bytes.size() - layout.data_offset));
  return layout;
}

}  // namespace

std::string NpyShapeText(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string NpyArray::shape_string() const { return NpyShapeText(shape_); }

Result<NpyArray> NpyArray::Open(const std::string& path, NpyElements elements) {
  NpyArray a;
  DSA_ASSIGN_OR_RETURN(a.file_, MappedFile::Open(path));
  const std::span<const std::byte> bytes = a.file_.bytes();
  Result<Layout> layout = ReadLayout(bytes, elements);
  if (!layout.ok()) return layout.status().WithPrefix(path);
  a.major_version_ = layout->major_version;
  a.data_offset_ = layout->data_offset;
  a.dtype_ = layout->dtype;
  a.shape_ = std::move(layout->shape);
  a.size_ = layout->size;
  a.data_ = bytes.data() + a.data_offset_;
  return a;
}

}  // namespace dsanalyze
