// Writes .npy files for tests, well-formed or deliberately not: the version,
// header dict text and alignment are the caller's to choose. Header-only so
// that helper executables can use it without the unit-test support library.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace dsanalyze::test {

// The bytes of a .npy file: magic, version major.0, the header length, `dict`
// padded with spaces and ended by '\n' so the data starts at a multiple of
// `align`, then `data`.
inline std::vector<uint8_t> NpyBytes(int major, const std::string& dict,
                                     std::span<const uint8_t> data, size_t align = 64) {
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t prefix = 8 + length_bytes;
  std::string header = dict;
  while ((prefix + header.size() + 1) % align != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < length_bytes; ++i) out.push_back((header.size() >> (8 * i)) & 0xff);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// numpy's descr for T: "<i8", "<u4", "|u1", "<f4", ...
template <class T>
std::string DescrOf() {
  static_assert(std::is_arithmetic_v<T>);
  const char* kind = std::is_floating_point_v<T> ? "f" : std::is_signed_v<T> ? "i" : "u";
  return std::string(sizeof(T) == 1 ? "|" : "<") + kind + std::to_string(sizeof(T));
}

// The shape as numpy writes it: "(5,)", "(3, 2)", "()".
inline std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The header dict numpy writes for a C-order array.
inline std::string NpyDict(const std::string& descr, const std::vector<uint64_t>& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + ShapeText(shape) + ", }";
}

template <class T>
std::vector<uint8_t> RawBytes(const std::vector<T>& values) {
  std::vector<uint8_t> raw(values.size() * sizeof(T));
  if (!raw.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  return raw;
}

inline void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Writes `values` as a C-order array of `shape` (1-D by default), as numpy.save does.
template <class T>
void WriteNpy(const std::string& path, const std::vector<T>& values,
              std::vector<uint64_t> shape = {}, int major = 1) {
  if (shape.empty()) shape = {values.size()};
  WriteFile(path, NpyBytes(major, NpyDict(DescrOf<T>(), shape), RawBytes(values)));
}

}  // namespace dsanalyze::test
