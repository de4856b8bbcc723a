// The layout of an MMapIndexedDataset .idx file (docs/format.md §1): the one
// place its offsets are written down, for the reader, the code-table detection
// and the writer alike.
//
//   offset          bytes   field
//   0               9       magic "MMIDIDX\0\0"
//   9               8       version (uint64, always 1)
//   17              1       dtype code (format/dtype.h's code tables)
//   18              8       rows (uint64)
//   26              8       doc_count (uint64): doc_idx entries
//   34              4·rows  sizes, int32
//   34 + 4·rows     8·rows  pointers, int64
//   34 + 12·rows    8·dc    doc_idx, int64
//
// All numbers are little-endian, like the machines dsanalyze runs on.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace dsanalyze {

inline constexpr char kIdxMagic[9] = {'M', 'M', 'I', 'D', 'I', 'D', 'X', 0, 0};
inline constexpr uint64_t kIdxVersion = 1;
inline constexpr uint64_t kIdxHeaderSize = 34;

// Byte offsets of the header fields after the magic.
inline constexpr uint64_t kIdxVersionOffset = 9;
inline constexpr uint64_t kIdxDTypeCodeOffset = 17;
inline constexpr uint64_t kIdxRowsOffset = 18;
inline constexpr uint64_t kIdxDocCountOffset = 26;

// Bytes per entry of the three arrays after the header.
inline constexpr uint64_t kIdxSizeBytes = 4;     // int32 sizes[rows]
inline constexpr uint64_t kIdxPointerBytes = 8;  // int64 pointers[rows]
inline constexpr uint64_t kIdxDocIdxBytes = 8;   // int64 doc_idx[doc_count]
inline constexpr uint64_t kIdxRowBytes = kIdxSizeBytes + kIdxPointerBytes;

// Where each array starts in a file of `rows` rows.
constexpr uint64_t IdxSizesOffset() { return kIdxHeaderSize; }
constexpr uint64_t IdxPointersOffset(uint64_t rows) {
  return kIdxHeaderSize + kIdxSizeBytes * rows;
}
constexpr uint64_t IdxDocIdxOffset(uint64_t rows) { return kIdxHeaderSize + kIdxRowBytes * rows; }

// The header's fields after the magic.
struct IdxHeader {
  uint64_t version = kIdxVersion;
  uint8_t dtype_code = 0;
  uint64_t rows = 0;
  uint64_t doc_count = 0;
};

// Whether `idx` starts with the magic. Requires idx.size() >= kIdxHeaderSize.
inline bool HasIdxMagic(std::span<const std::byte> idx) {
  return std::memcmp(idx.data(), kIdxMagic, sizeof(kIdxMagic)) == 0;
}

// The fields of the header `idx` starts with, checking nothing (not even the
// magic). Requires idx.size() >= kIdxHeaderSize.
inline IdxHeader ParseIdxHeader(std::span<const std::byte> idx) {
  IdxHeader h;
  std::memcpy(&h.version, idx.data() + kIdxVersionOffset, 8);
  h.dtype_code = static_cast<uint8_t>(idx[kIdxDTypeCodeOffset]);
  std::memcpy(&h.rows, idx.data() + kIdxRowsOffset, 8);
  std::memcpy(&h.doc_count, idx.data() + kIdxDocCountOffset, 8);
  return h;
}

// The header bytes for `h`, magic included.
inline std::array<std::byte, kIdxHeaderSize> SerializeIdxHeader(const IdxHeader& h) {
  std::array<std::byte, kIdxHeaderSize> out{};
  std::memcpy(out.data(), kIdxMagic, sizeof(kIdxMagic));
  std::memcpy(out.data() + kIdxVersionOffset, &h.version, 8);
  out[kIdxDTypeCodeOffset] = static_cast<std::byte>(h.dtype_code);
  std::memcpy(out.data() + kIdxRowsOffset, &h.rows, 8);
  std::memcpy(out.data() + kIdxDocCountOffset, &h.doc_count, 8);
  return out;
}

}  // namespace dsanalyze
