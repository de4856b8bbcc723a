// Reader for NumPy .npy files holding integer arrays (docs/format.md §3):
// sample_indices and Megatron's GPT index maps; and number arrays (integer
// or float32/float64) for the score metric's files.
//
// Open() maps the file read-only and validates all of it before returning: the
// magic, the version (1.0, 2.0 or 3.0), a header dict with exactly the keys
// 'descr', 'fortran_order' and 'shape', a little-endian integer descr ('<i8',
// '<u4', '|u1', ...; with NpyElements::kNumbers also '<f4' and '<f8'), fortran_order False, and a
// file size of exactly header + product(shape) * itemsize. Anything else is refused with one line
// naming the file and the problem; after a successful Open no accessor reads out of bounds. What
// shape a caller needs is the caller's to check.
//
// Ownership: NpyArray owns its mapping; element views point into it and are
// valid while the NpyArray lives. Move-only; moving keeps views valid. Const
// accessors are safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "util/file_util.h"
#include "util/status.h"

namespace dsanalyze {

// A shape as NumPy prints it: "()", "(5,)", "(5, 2)" (also the form of a
// .npy header's 'shape' entry).
std::string NpyShapeText(const std::vector<uint64_t>& shape);

// Which element types Open accepts.
enum class NpyElements { kIntegers, kNumbers };

class NpyArray {
 public:
  static Result<NpyArray> Open(const std::string& path,
                               NpyElements elements = NpyElements::kIntegers);

  const std::string& path() const { return file_.path(); }
  int major_version() const { return major_version_; }
  DType dtype() const { return dtype_; }
  const std::vector<uint64_t>& shape() const { return shape_; }
  // The shape as NumPy prints it: "()", "(5,)", "(5, 2)".
  std::string shape_string() const;
  // Number of elements: the product of shape (1 for a 0-d array).
  uint64_t size() const { return size_; }
  // Byte offset of the data in the file (header block size).
  uint64_t data_offset() const { return data_offset_; }

  // All elements in C (row-major) order.
  ElementView elements() const { return {dtype_, data_, size_}; }

  // Element i (row-major) widened to int64; uint64 values above INT64_MAX come
  // back as INT64_MAX, so range checks against any int64 bound stay correct.
  // Requires i < size() and an integer dtype.
  int64_t at(uint64_t i) const {
    switch (dtype_) {
      case DType::kU8:
        return LoadAs<uint8_t, int64_t>(i);
      case DType::kI8:
        return LoadAs<int8_t, int64_t>(i);
      case DType::kI16:
        return LoadAs<int16_t, int64_t>(i);
      case DType::kU16:
        return LoadAs<uint16_t, int64_t>(i);
      case DType::kI32:
        return LoadAs<int32_t, int64_t>(i);
      case DType::kU32:
        return LoadAs<uint32_t, int64_t>(i);
      case DType::kI64:
        return LoadAs<int64_t, int64_t>(i);
      default: {
        const uint64_t v = LoadAs<uint64_t, uint64_t>(i);
        constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
        return static_cast<int64_t>(v > kMax ? kMax : v);
      }
    }
  }

  // Element i (row-major) as a double: floats exactly, integers rounded to
  // the nearest double (exact up to 2^53). Requires i < size().
  double AtDouble(uint64_t i) const {
    switch (dtype_) {
      case DType::kF32:
        return LoadAs<float, double>(i);
      case DType::kF64:
        return LoadAs<double, double>(i);
      case DType::kU64:
        return LoadAs<uint64_t, double>(i);
      default:
        return static_cast<double>(at(i));
    }
  }

 private:
  template <class T, class To>
  To LoadAs(uint64_t i) const {
    T v;  // the data offset need not be aligned for T
    std::memcpy(&v, data_ + i * sizeof(T), sizeof(T));
    return static_cast<To>(v);
  }

  MappedFile file_;
  int major_version_ = 1;
  DType dtype_ = DType::kU8;
  std::vector<uint64_t> shape_;
  uint64_t size_ = 0;
  uint64_t data_offset_ = 0;
  const std::byte* data_ = nullptr;
};

}  // namespace dsanalyze
