#include "format/npy_writer.h"

#include "format/npy.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace {

// numpy's descr: "<i4", "<u4", "|u1", "<f8", ...
std::string Descr(DType t) {
  const size_t size = ItemSize(t);
  const char* kind = !IsInteger(t) ? "f" : IsSigned(t) ? "i" : "u";
  return std::string(size == 1 ? "|" : "<") + kind + std::to_string(size);
}

}  // namespace

std::string NpyHeader(DType dtype, const std::vector<uint64_t>& shape) {
  constexpr size_t kPrefix = 10;  // magic, version 1.0, 2-byte header length
  constexpr size_t kAlign = 64;
  std::string header = "{'descr': '" + Descr(dtype) +
                       "', 'fortran_order': False, 'shape': " + NpyShapeText(shape) + ", }";
  while ((kPrefix + header.size() + 1) % kAlign != 0) header += ' ';
  header += '\n';
  std::string bytes = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header;
}

Status WriteNpy(const std::string& path, DType dtype, std::span<const std::byte> data,
                const std::vector<uint64_t>& shape) {
  std::string bytes = NpyHeader(dtype, shape);
  bytes.append(reinterpret_cast<const char*>(data.data()), data.size());
  return WriteFileAtomic(path, bytes);
}

}  // namespace dsanalyze
