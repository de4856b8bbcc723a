#include "format/npy.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "support/npy_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using test::NpyBytes;
using test::NpyDict;
using test::RawBytes;

// The values of every element of `a` through at().
std::vector<int64_t> Values(const NpyArray& a) {
  std::vector<int64_t> v;
  for (uint64_t i = 0; i < a.size(); ++i) v.push_back(a.at(i));
  return v;
}

// Extremes and a few ordinary values of T, as T.
template <class T>
std::vector<T> Samples() {
  return {
      std::numeric_limits<T>::min(), 0, 1, 42, static_cast<T>(std::numeric_limits<T>::max() - 1),
      std::numeric_limits<T>::max()};
}

template <class T>
void CheckRoundTrip(DType expected, int major) {
  test::ScratchDir dir;
  const std::vector<T> values = Samples<T>();
  const std::string path = dir / "a.npy";
  test::WriteNpy(path, values, {3, 2}, major);
  Result<NpyArray> a = NpyArray::Open(path);
  INFO(test::DescrOf<T>() << " version " << major);
  REQUIRE(a.ok());
  CHECK(a->dtype() == expected);
  CHECK(a->major_version() == major);
  CHECK(a->shape() == std::vector<uint64_t>{3, 2});
  CHECK(a->shape_string() == "(3, 2)");
  CHECK(a->size() == 6);
  CHECK(a->data_offset() % 64 == 0);
  std::vector<int64_t> expected_values;
  for (T v : values) {
    const bool too_big = std::is_same_v<T, uint64_t> &&
                         static_cast<uint64_t>(v) > uint64_t(std::numeric_limits<int64_t>::max());
    expected_values.push_back(too_big ? std::numeric_limits<int64_t>::max()
                                      : static_cast<int64_t>(v));
  }
  CHECK(Values(*a) == expected_values);
  // The raw view is the file's bytes.
  CHECK(a->elements().count == 6);
  CHECK(std::vector<T>(a->elements().as<T>().begin(), a->elements().as<T>().end()) == values);
}

TEST_CASE("npy: every integer descr in versions 1.0, 2.0 and 3.0", "[npy]") {
  for (int major : {1, 2, 3}) {
    CheckRoundTrip<uint8_t>(DType::kU8, major);
    CheckRoundTrip<int8_t>(DType::kI8, major);
    CheckRoundTrip<int16_t>(DType::kI16, major);
    CheckRoundTrip<uint16_t>(DType::kU16, major);
    CheckRoundTrip<int32_t>(DType::kI32, major);
    CheckRoundTrip<uint32_t>(DType::kU32, major);
    CheckRoundTrip<int64_t>(DType::kI64, major);
    CheckRoundTrip<uint64_t>(DType::kU64, major);
  }
}

TEST_CASE("npy: shapes, spellings and alignments numpy has written", "[npy]") {
  test::ScratchDir dir;
  const std::string path = dir / "a.npy";
  const std::vector<int32_t> five = {5, -4, 3, -2, 1};
  auto open = [&](int major, const std::string& dict, std::span<const uint8_t> data, size_t align) {
    test::WriteFile(path, NpyBytes(major, dict, data, align));
    Result<NpyArray> a = NpyArray::Open(path);
    INFO(dict);
    REQUIRE(a.ok());
    return std::move(a).value();
  };
  // Old numpy aligned the data to 16 bytes; an odd alignment still reads (unaligned loads).
  for (size_t align : {16, 64, 1, 3}) {
    NpyArray a = open(1, NpyDict("<i4", {5}), RawBytes(five), align);
    CHECK(Values(a) == std::vector<int64_t>{5, -4, 3, -2, 1});
    CHECK(a.shape_string() == "(5,)");
  }
  // Python 2's long suffix, double quotes, other key order, no trailing comma, no spaces.
  CHECK(open(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (5L,), }", RawBytes(five), 16)
            .size() == 5);
  CHECK(open(1, R"({"shape": (5,), "fortran_order": False, "descr": "<i4"})", RawBytes(five), 64)
            .size() == 5);
  CHECK(open(1, "{'descr':'<i4','fortran_order':False,'shape':(5,)}", RawBytes(five), 64).size() ==
        5);
  CHECK(open(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 5, ), }", RawBytes(five), 64)
            .shape() == std::vector<uint64_t>{1, 5});
  // A 0-d array has one element; an empty one none.
  NpyArray scalar = open(1, NpyDict("<i4", {}), RawBytes(std::vector<int32_t>{7}), 64);
  CHECK(scalar.shape().empty());
  CHECK(scalar.shape_string() == "()");
  CHECK(Values(scalar) == std::vector<int64_t>{7});
  NpyArray empty = open(2, NpyDict("<i8", {0}), {}, 64);
  CHECK(empty.size() == 0);
  CHECK(empty.shape_string() == "(0,)");
  CHECK(open(1, NpyDict("<i8", {4, 0}), {}, 64).size() == 0);
  // Byte order does not matter for one byte.
  CHECK(open(1, NpyDict(">u1", {1}), RawBytes(std::vector<uint8_t>{9}), 64).dtype() == DType::kU8);
  CHECK(open(1, NpyDict("<i1", {1}), RawBytes(std::vector<int8_t>{-9}), 64).at(0) == -9);
}

TEST_CASE("npy: every malformed file gets one line naming it and the problem", "[npy]") {
  test::ScratchDir dir;
  const std::string path = dir / "bad.npy";
  const std::vector<uint8_t> eight = RawBytes(std::vector<int64_t>{1});
  auto error = [&](const std::vector<uint8_t>& bytes) {
    test::WriteFile(path, bytes);
    Result<NpyArray> a = NpyArray::Open(path);
    REQUIRE_FALSE(a.ok());
    CHECK(a.status().code() == Status::Code::kBadInput);
    const std::string m = a.status().message();
    CHECK(m.find('\n') == std::string::npos);
    REQUIRE(m.rfind(path + ": ", 0) == 0);
    return m.substr(path.size() + 2);
  };
  auto with_dict = [&](const std::string& dict, const std::vector<uint8_t>& data) {
    return error(NpyBytes(1, dict, data));
  };

  CHECK(error({}) == "not a .npy file (no \\x93NUMPY magic)");
  CHECK(error({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}) == "not a .npy file (no \\x93NUMPY magic)");
  std::vector<uint8_t> v4 = NpyBytes(1, NpyDict("<i8", {1}), eight);
  v4[6] = 4;
  CHECK(error(v4) == "unsupported .npy format version 4.0 (supported: 1.0, 2.0, 3.0)");
  v4[6] = 1;
  v4[7] = 1;
  CHECK(error(v4) == "unsupported .npy format version 1.1 (supported: 1.0, 2.0, 3.0)");
  CHECK(error({0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 10, 0}) ==
        "file ends inside the header length");
  std::vector<uint8_t> long_header = NpyBytes(1, NpyDict("<i8", {1}), eight);
  long_header[9] = 0x40;  // header length 0x4076, far past the end
  CHECK(error(long_header) == "header length 16502 runs past the end of the 136-byte file");

  CHECK(with_dict("['descr', '<i8']", eight) == "header is not a Python dict");
  CHECK(with_dict("{descr: '<i8'}", eight) == "header dict has a key that is not a quoted string");
  CHECK(with_dict("{'descr' '<i8'}", eight) == "header dict: expected ':' after 'descr'");
  CHECK(with_dict("{'descr': '<i8' 'shape': (1,)}", eight) ==
        "header dict: expected ',' or '}' after 'descr'");
  CHECK(with_dict("{'descr': '<i8', 'fortran_order': False, 'shape': (1,)} x", eight) ==
        "header has text after the dict");
  CHECK(with_dict("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), 'x': 1}", eight) ==
        "header dict has an unexpected key 'x' (expected descr, fortran_order, shape)");
  CHECK(with_dict("{'fortran_order': False, 'shape': (1,)}", eight) ==
        "header dict has no 'descr'");
  CHECK(with_dict("{'descr': '<i8', 'shape': (1,)}", eight) ==
        "header dict has no 'fortran_order'");
  CHECK(with_dict("{'descr': '<i8', 'fortran_order': False}", eight) ==
        "header dict has no 'shape'");
  CHECK(with_dict("{'descr': 8, 'fortran_order': False, 'shape': (1,)}", eight) ==
        "header dict: 'descr' is not a string");
  CHECK(with_dict("{'descr': '<i8', 'fortran_order': 0, 'shape': (1,)}", eight) ==
        "header dict: 'fortran_order' is not True or False");
  for (const char* shape : {"(1)", "[1]", "(-1,)", "(1.5,)", "(1,,)", "(99999999999999999999,)"})
    CHECK(with_dict("{'descr': '<i8', 'fortran_order': False, 'shape': " + std::string(shape) + "}",
                    eight) == "header dict: 'shape' is not a tuple of non-negative integers");
  CHECK(with_dict("{'descr': [('a', '<i4'), ('b', '<i4')], 'fortran_order': False, 'shape': "
                  "(1,)}",
                  eight) == "descr is a structured dtype; only plain integer arrays are supported");

  CHECK(with_dict(NpyDict(">i4", {2}), eight) ==
        "dtype '>i4' is big-endian; only little-endian arrays are supported (convert with "
        "a.astype(a.dtype.newbyteorder('<')))");
  CHECK(with_dict(NpyDict("<f8", {1}), eight) ==
        "dtype '<f8' is not an integer dtype (floating point); an integer array is required");
  CHECK(with_dict(NpyDict("|b1", {8}), eight) ==
        "dtype '|b1' is not an integer dtype (boolean); an integer array is required");
  CHECK(with_dict(NpyDict("<U8", {1}), eight) ==
        "dtype '<U8' is not an integer dtype (string); an integer array is required");
  CHECK(with_dict(NpyDict("<x8", {1}), eight) ==
        "dtype '<x8' is not an integer dtype; an integer array is required");
  CHECK(with_dict(NpyDict("<i3", {1}), eight) ==
        "dtype '<i3' has an unsupported item size (expected 1, 2, 4 or 8 bytes)");
  CHECK(with_dict(NpyDict("<i16", {1}), eight) ==
        "dtype '<i16' has an unsupported item size (expected 1, 2, 4 or 8 bytes)");
  CHECK(with_dict(NpyDict("=i8", {1}), eight) ==
        "dtype '=i8' has no explicit little-endian byte order ('<')");
  CHECK(with_dict(NpyDict("i8", {1}), eight) == "dtype 'i8' is not a NumPy type string");
  CHECK(with_dict(NpyDict("O", {1}), eight) == "dtype 'O' is not a NumPy type string");
  CHECK(with_dict(NpyDict("|O", {1}), eight) ==
        "dtype '|O' is not an integer dtype (Python object); an integer array is required");
  CHECK(with_dict("{'descr': '<i8', 'fortran_order': True, 'shape': (1,)}", eight) ==
        "fortran_order is True; only C-order arrays are supported (save "
        "numpy.ascontiguousarray(a))");

  CHECK(with_dict(NpyDict("<i8", {2}), eight) ==
        "shape (2,) of int64 needs 16 data bytes but the file has 8 (truncated?)");
  CHECK(with_dict(NpyDict("<i4", {1}), eight) ==
        "shape (1,) of int32 needs 4 data bytes but the file has 8 (trailing bytes)");
  CHECK(with_dict(NpyDict("<i8", {1u << 31, 1u << 31, 1u << 31}), eight) ==
        "shape (2147483648, 2147483648, 2147483648) of int64 has more than 2^64 bytes; the file "
        "has 8 data bytes");

  Result<NpyArray> missing = NpyArray::Open(dir / "none.npy");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message() == dir / "none.npy" + ": file not found");
}

TEST_CASE("npy: number arrays (the score metric's) read floats and integers as doubles", "[npy]") {
  test::ScratchDir dir;
  const std::vector<double> f8 = {-1.5, 0.0, 3.25, 1e300, std::numeric_limits<double>::quiet_NaN()};
  const std::vector<float> f4 = {-0.1f, 2.5f, std::numeric_limits<float>::infinity()};
  const std::vector<int16_t> i2 = {-32768, 7, 32767};
  const std::vector<uint64_t> u8 = {0, uint64_t{1} << 63};
  test::WriteNpy(dir / "f8.npy", f8, {f8.size()}, 1);
  test::WriteNpy(dir / "f4.npy", f4, {f4.size()}, 2);
  test::WriteNpy(dir / "i2.npy", i2, {i2.size()}, 1);
  test::WriteNpy(dir / "u8.npy", u8, {u8.size()}, 1);

  Result<NpyArray> a = NpyArray::Open(dir / "f8.npy", NpyElements::kNumbers);
  REQUIRE(a.ok());
  CHECK(a->dtype() == DType::kF64);
  for (size_t i = 0; i + 1 < f8.size(); ++i) CHECK(a->AtDouble(i) == f8[i]);
  CHECK(std::isnan(a->AtDouble(4)));
  Result<NpyArray> b = NpyArray::Open(dir / "f4.npy", NpyElements::kNumbers);
  REQUIRE(b.ok());
  CHECK(b->dtype() == DType::kF32);
  for (size_t i = 0; i < f4.size(); ++i) CHECK(b->AtDouble(i) == static_cast<double>(f4[i]));
  Result<NpyArray> c = NpyArray::Open(dir / "i2.npy", NpyElements::kNumbers);
  REQUIRE(c.ok());
  for (size_t i = 0; i < i2.size(); ++i) CHECK(c->AtDouble(i) == i2[i]);
  Result<NpyArray> d = NpyArray::Open(dir / "u8.npy", NpyElements::kNumbers);
  REQUIRE(d.ok());
  CHECK(d->AtDouble(1) == 0x1p63);  // not clamped to INT64_MAX as at() is

  // Integer-only readers still refuse floats, and float16 is refused with a fix.
  Result<NpyArray> ints = NpyArray::Open(dir / "f8.npy");
  REQUIRE(!ints.ok());
  CHECK_THAT(ints.status().message(), Catch::Contains("not an integer dtype (floating point)"));
  test::WriteFile(dir / "f2.npy", NpyBytes(1, NpyDict("<f2", {2}), std::vector<uint8_t>(4)));
  Result<NpyArray> half = NpyArray::Open(dir / "f2.npy", NpyElements::kNumbers);
  REQUIRE(!half.ok());
  CHECK_THAT(half.status().message(), Catch::Contains("f2.npy") &&
                                          Catch::Contains("float32 or float64") &&
                                          Catch::Contains("astype('float32')"));
  test::WriteFile(dir / "c8.npy", NpyBytes(1, NpyDict("<c8", {1}), std::vector<uint8_t>(8)));
  Result<NpyArray> complex = NpyArray::Open(dir / "c8.npy", NpyElements::kNumbers);
  REQUIRE(!complex.ok());
  CHECK_THAT(complex.status().message(), Catch::Contains("is not a number dtype (complex)"));
}

}  // namespace
}  // namespace dsanalyze
