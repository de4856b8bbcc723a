#include "format/indexed_dataset.h"

#include <filesystem>
#include <limits>
#include <vector>

namespace dsanalyze {
namespace {

template <class T>
T LoadAt(std::span<const std::byte> b, uint64_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

constexpr CodeTable kAllTables[] = {CodeTable::kMegatron, CodeTable::kDeepSpeed,
                                    CodeTable::kDeepSpeedLegacy};

// The dtype `table` gives `code`, if it is one `o` accepts.
std::optional<DType> Accepted(CodeTable table, uint8_t code, const IndexedDataset::Options& o) {
  std::optional<DType> dt = DTypeFromCode(table, code);
  if (dt && o.require_integer && !IsInteger(*dt)) return std::nullopt;
  return dt;
}

// "; --dtype-codes megatron reads it as uint16": the first other table whose
// dtype for `code` is `itemsize` bytes long (any size when 0). Empty when the
// caller named no setting or no other table fits.
std::string OtherTableHint(const IndexedDataset::Options& o, uint8_t code, size_t itemsize) {
  if (o.table_setting.empty()) return "";
  for (CodeTable t : kAllTables) {
    std::optional<DType> dt = Accepted(t, code, o);
    if (t != o.table && dt && (itemsize == 0 || ItemSize(*dt) == itemsize))
      return "; " + o.table_setting + " " + std::string(CodeTableName(t)) + " reads it as " +
             std::string(DTypeName(*dt));
  }
  return "";
}

// "; SUBJECT N-byte elements, so the dtype code table is probably wrong" +
// `detail` + the other table's hint, when `bytes` is exactly `elements` items
// of a size other than the table's `itemsize` (the usual sign of a file read
// with the wrong code table); "" otherwise.
std::string ElementSizeHint(const IndexedDataset::Options& o, uint8_t code, uint64_t elements,
                            uint64_t bytes, size_t itemsize, const char* subject,
                            const std::string& detail) {
  for (uint64_t size : {1, 2, 4, 8})
    if (size != itemsize && elements > 0 && bytes == elements * size)
      return std::string("; ") + subject + " " + std::to_string(size) +
             "-byte elements, so the dtype code table is probably wrong" + detail +
             OtherTableHint(o, code, size);
  return "";
}

// The dtype code and element count (sum of row sizes) of a .idx, or nullopt
// when the header or sizes are malformed (Open then says how).
std::optional<std::pair<uint8_t, uint64_t>> CodeAndElements(std::span<const std::byte> idx) {
  if (idx.size() < kIdxHeaderSize) return std::nullopt;
  const uint64_t rows = LoadAt<uint64_t>(idx, 18);
  if (rows > (idx.size() - kIdxHeaderSize) / 4) return std::nullopt;
  uint64_t elements = 0;  // < 2^62 rows of < 2^31: no overflow
  for (uint64_t i = 0; i < rows; ++i) {
    const int32_t size = LoadAt<int32_t>(idx, kIdxHeaderSize + 4 * i);
    if (size < 0) return std::nullopt;
    elements += static_cast<uint64_t>(size);
  }
  return std::make_pair(static_cast<uint8_t>(idx[17]), elements);
}

}  // namespace

Result<DetectedTable> DetectCodeTable(const std::string& prefix, CodeTable fallback,
                                      const IndexedDataset::Options& options) {
  DetectedTable out{fallback, false};
  Result<MappedFile> idx = MappedFile::Open(prefix + ".idx");
  if (!idx.ok()) return out;
  const auto header = CodeAndElements(idx->bytes());
  std::error_code ec;
  const uint64_t bin_bytes = std::filesystem::file_size(prefix + ".bin", ec);
  if (!header || ec) return out;
  const auto [code, elements] = *header;

  std::vector<CodeTable> order = {fallback};
  for (CodeTable t : kAllTables)
    if (t != fallback) order.push_back(t);
  std::optional<DType> chosen;
  std::string needs;  // what each table would need, for the error
  for (CodeTable t : order) {
    const std::optional<DType> dt = Accepted(t, code, options);
    if (!dt) continue;
    const uint64_t item = ItemSize(*dt);
    if (elements <= bin_bytes / item && elements * item == bin_bytes) {
      if (!chosen) out.table = t;
      out.ambiguous |= chosen && *chosen != *dt;
      if (!chosen) chosen = dt;
    } else {
      needs +=
          std::string(needs.empty() ? "" : ", ") + std::string(CodeTableName(t)) + " " +
          std::string(DTypeName(*dt)) + " " +
          (elements <= std::numeric_limits<uint64_t>::max() / item ? std::to_string(elements * item)
                                                                   : "more");
    }
  }
  if (chosen || needs.empty()) return out;  // no table knows the code: Open says so
  return Status::BadInput(prefix + ".bin: file is " + std::to_string(bin_bytes) +
                          " bytes, but the " + std::to_string(elements) + " elements of " + prefix +
                          ".idx (dtype code " + std::to_string(code) + ") need " + needs +
                          "; no dtype-code table fits" +
                          (options.table_setting.empty()
                               ? ""
                               : " (" + options.table_setting + " names one to read anyway)"));
}

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
               std::string(CodeTableName(options.table)) + " table" +
               OtherTableHint(options, ds.code_, 0));
  if (options.require_integer && !IsInteger(*dt))
    return bad("dtype code " + std::to_string(ds.code_) + " is " + std::string(DTypeName(*dt)) +
               " in the " + std::string(CodeTableName(options.table)) +
               " table; an integer dtype is required" + OtherTableHint(options, ds.code_, 0));
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
      const std::string hint = ElementSizeHint(
          options, ds.code_, offset / ds.itemsize_, static_cast<uint64_t>(ptr), ds.itemsize_,
          "they fit",
          " (code " + std::to_string(ds.code_) + " is " + std::string(DTypeName(ds.dtype_)) +
              " in the " + std::string(CodeTableName(options.table)) + " table)");
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
    return Status::BadInput(
        bin_path + ": file is " + std::to_string(bin_size) + " bytes but " + idx_path +
        " describes " + std::to_string(offset) + " (" + std::to_string(ds.elements_) + " " +
        std::string(DTypeName(ds.dtype_)) + " elements); .bin is too " +
        (bin_size < offset ? "short" : "long") +
        ElementSizeHint(options, ds.code_, ds.elements_, bin_size, ds.itemsize_, "it fits", ""));
  return ds;
}

}  // namespace dsanalyze
