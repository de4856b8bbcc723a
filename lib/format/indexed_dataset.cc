#include "format/indexed_dataset.h"

#include <limits>

namespace dsanalyze {
namespace {

template <class T>
T LoadAt(std::span<const std::byte> b, uint64_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

}  // namespace

Result<IndexedDataset> IndexedDataset::Open(const std::string& prefix, const Options& options) {
  IndexedDataset ds;
  ds.prefix_ = prefix;
  const std::string idx_path = prefix + ".idx";
  const std::string bin_path = prefix + ".bin";

  DSA_ASSIGN_OR_RETURN(ds.idx_, MappedFile::Open(idx_path));
  std::span<const std::byte> idx = ds.idx_.bytes();
  auto bad = [&](const std::string& what) { return Status::BadInput(idx_path + ": " + what); };

  if (idx.size() < kIdxHeaderSize)
    return bad("file is " + std::to_string(idx.size()) + " bytes, shorter than the " +
               std::to_string(kIdxHeaderSize) + "-byte header");
  if (std::memcmp(idx.data(), kIdxMagic, sizeof(kIdxMagic)) != 0)
    return bad("bad magic (not an MMapIndexedDataset index)");
  const uint64_t version = LoadAt<uint64_t>(idx, 9);
  if (version != 1) return bad("unsupported version " + std::to_string(version) + " (expected 1)");

  ds.code_ = static_cast<uint8_t>(idx[17]);
  std::optional<DType> dt = DTypeFromCode(options.table, ds.code_);
  if (!dt)
    return bad("unknown dtype code " + std::to_string(ds.code_) + " in the " +
               std::string(CodeTableName(options.table)) + " table");
  if (options.require_integer && !IsInteger(*dt))
    return bad("dtype code " + std::to_string(ds.code_) + " is " + std::string(DTypeName(*dt)) +
               " in the " + std::string(CodeTableName(options.table)) +
               " table; an integer dtype is required");
  ds.dtype_ = *dt;
  ds.itemsize_ = ItemSize(*dt);

  ds.rows_ = LoadAt<uint64_t>(idx, 18);
  ds.doc_count_ = LoadAt<uint64_t>(idx, 26);
  const uint64_t body = idx.size() - kIdxHeaderSize;
  // Compare without overflow: body must equal 12*rows + 8*doc_count exactly.
  if (ds.rows_ > body / 12 || ds.doc_count_ > (body - 12 * ds.rows_) / 8 ||
      body != 12 * ds.rows_ + 8 * ds.doc_count_) {
    return bad("size mismatch: header says " + std::to_string(ds.rows_) + " rows and " +
               std::to_string(ds.doc_count_) + " doc_idx entries, which needs " +
               (ds.rows_ <= body && ds.doc_count_ <= body
                    ? std::to_string(kIdxHeaderSize + 12 * ds.rows_ + 8 * ds.doc_count_)
                    : std::string("more")) +
               " bytes, but the file has " + std::to_string(idx.size()));
  }
  ds.sizes_ = idx.data() + kIdxHeaderSize;
  ds.pointers_ = ds.sizes_ + 4 * ds.rows_;
  ds.doc_idx_ = ds.pointers_ + 8 * ds.rows_;

  // Sizes non-negative, pointers exactly the running byte offset.
  uint64_t offset = 0;  // bytes
  const uint64_t max_bytes = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (uint64_t i = 0; i < ds.rows_; ++i) {
    const int32_t size = ds.row_size(i);
    if (size < 0)
      return bad("row " + std::to_string(i) + " has negative size " + std::to_string(size));
    const int64_t ptr = ds.row_pointer(i);
    if (ptr < 0 || static_cast<uint64_t>(ptr) != offset) {
      // The usual cause is a file read with the wrong code table (Megatron's
      // uint16 code 8 is uint64 to DeepSpeed): then the pointers fit another
      // element size exactly. Say so, since the numbers alone do not.
      std::string hint;
      const uint64_t before = offset / ds.itemsize_;
      for (uint64_t size : {1, 2, 4, 8})
        if (size != ds.itemsize_ && before > 0 && static_cast<uint64_t>(ptr) == before * size)
          hint = "; they fit " + std::to_string(size) +
                 "-byte elements, so the dtype code table is probably wrong (code " +
                 std::to_string(ds.code_) + " is " + std::string(DTypeName(ds.dtype_)) +
                 " in the " + std::string(CodeTableName(options.table)) + " table)";
      return bad("pointer of row " + std::to_string(i) + " is " + std::to_string(ptr) +
                 " but the sizes before it give " + std::to_string(offset) + hint);
    }
    const uint64_t row_bytes = static_cast<uint64_t>(size) * ds.itemsize_;
    if (offset > max_bytes - row_bytes)
      return bad("row sizes overflow the 64-bit byte offset at row " + std::to_string(i));
    offset += row_bytes;
  }
  ds.elements_ = offset / ds.itemsize_;

  for (uint64_t i = 0; i < ds.doc_count_; ++i) {
    const int64_t d = ds.doc_idx(i);
    if (i == 0 && d != 0) return bad("doc_idx[0] is " + std::to_string(d) + ", expected 0");
    if (d < 0 || static_cast<uint64_t>(d) > ds.rows_)
      return bad("doc_idx[" + std::to_string(i) + "] = " + std::to_string(d) +
                 " is out of range [0, " + std::to_string(ds.rows_) + "]");
    if (i > 0 && d < ds.doc_idx(i - 1))
      return bad("doc_idx decreases at entry " + std::to_string(i) + " (" +
                 std::to_string(ds.doc_idx(i - 1)) + " then " + std::to_string(d) + ")");
  }

  DSA_ASSIGN_OR_RETURN(ds.bin_, MappedFile::Open(bin_path));
  const uint64_t bin_size = ds.bin_.bytes().size();
  if (bin_size != offset)
    return Status::BadInput(bin_path + ": file is " + std::to_string(bin_size) + " bytes but " +
                            idx_path + " describes " + std::to_string(offset) + " (" +
                            std::to_string(ds.elements_) + " " + std::string(DTypeName(ds.dtype_)) +
                            " elements); .bin is too " + (bin_size < offset ? "short" : "long"));
  return ds;
}

}  // namespace dsanalyze
