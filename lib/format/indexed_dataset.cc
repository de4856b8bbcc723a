#include "format/indexed_dataset.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <span>
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
  const IdxHeader header = ParseIdxHeader(idx);
  if (header.rows > (idx.size() - kIdxHeaderSize) / kIdxSizeBytes) return std::nullopt;
  uint64_t elements = 0;  // < 2^62 rows of < 2^31: no overflow
  for (uint64_t i = 0; i < header.rows; ++i) {
    const int32_t size = LoadAt<int32_t>(idx, IdxSizesOffset() + kIdxSizeBytes * i);
    if (size < 0) return std::nullopt;
    elements += static_cast<uint64_t>(size);
  }
  return std::make_pair(header.dtype_code, elements);
}

// The steps of IndexedDataset::Open, in the order it runs them. Each names
// PREFIX.idx (or .bin) in its error.

Status IdxError(const std::string& prefix, const std::string& what) {
  return Status::BadInput(prefix + ".idx: " + what);
}

// The header, once the file is long enough and its magic and version are right.
Result<IdxHeader> ReadHeader(const std::string& prefix, std::span<const std::byte> idx) {
  if (idx.size() < kIdxHeaderSize)
    return IdxError(prefix, "file is " + std::to_string(idx.size()) + " bytes, shorter than the " +
                                std::to_string(kIdxHeaderSize) + "-byte header");
  if (!HasIdxMagic(idx)) return IdxError(prefix, "bad magic (not an MMapIndexedDataset index)");
  const IdxHeader header = ParseIdxHeader(idx);
  if (header.version != kIdxVersion)
    return IdxError(prefix, "unsupported version " + std::to_string(header.version) +
                                " (expected " + std::to_string(kIdxVersion) + ")");
  return header;
}

// The dtype `code` names in options.table, if it is one the caller accepts.
Result<DType> DTypeOfCode(const std::string& prefix, uint8_t code,
                          const IndexedDataset::Options& options) {
  const std::optional<DType> dt = DTypeFromCode(options.table, code);
  const std::string table = std::string(CodeTableName(options.table));
  if (!dt)
    return IdxError(prefix, "unknown dtype code " + std::to_string(code) + " in the " + table +
                                " table" + OtherTableHint(options, code, 0));
  if (options.require_integer && !IsInteger(*dt))
    return IdxError(prefix, "dtype code " + std::to_string(code) + " is " +
                                std::string(DTypeName(*dt)) + " in the " + table +
                                " table; an integer dtype is required" +
                                OtherTableHint(options, code, 0));
  return *dt;
}

// The file holds exactly the header and the arrays it announces.
Status CheckIdxSize(const std::string& prefix, uint64_t idx_size, const IdxHeader& header) {
  const uint64_t rows = header.rows, docs = header.doc_count;
  const uint64_t body = idx_size - kIdxHeaderSize;
  // Compare without overflow: body must equal 12*rows + 8*doc_count exactly.
  if (rows <= body / kIdxRowBytes && docs <= (body - kIdxRowBytes * rows) / kIdxDocIdxBytes &&
      body == kIdxRowBytes * rows + kIdxDocIdxBytes * docs)
    return Status::OK();
  return IdxError(prefix, "size mismatch: header says " + std::to_string(rows) + " rows and " +
                              std::to_string(docs) + " doc_idx entries, which needs " +
                              (rows <= body && docs <= body
                                   ? std::to_string(IdxDocIdxOffset(rows) + kIdxDocIdxBytes * docs)
                                   : std::string("more")) +
                              " bytes, but the file has " + std::to_string(idx_size));
}

// Row i's pointer is `pointer`, not the running byte offset `offset`. The
// usual cause is a file read with the wrong code table (Megatron's uint16 code
// 8 is uint64 to DeepSpeed): then the pointers fit another element size
// exactly. Say so, since the numbers alone do not.
Status PointerError(const IndexedDataset& ds, const IndexedDataset::Options& options, uint64_t i,
                    int64_t pointer, uint64_t offset) {
  const size_t itemsize = ItemSize(ds.dtype());
  const std::string hint = ElementSizeHint(
      options, ds.dtype_code(), offset / itemsize, static_cast<uint64_t>(pointer), itemsize,
      "they fit",
      " (code " + std::to_string(ds.dtype_code()) + " is " + std::string(DTypeName(ds.dtype())) +
          " in the " + std::string(CodeTableName(options.table)) + " table)");
  return IdxError(ds.prefix(), "pointer of row " + std::to_string(i) + " is " +
                                   std::to_string(pointer) + " but the sizes before it give " +
                                   std::to_string(offset) + hint);
}

// Rows [first, first + sizes.size()), whose sizes and pointers are given,
// with row `first` at byte `*offset`: sizes non-negative and pointers exactly
// the running offset, which is advanced past them.
Status CheckRowBlock(const IndexedDataset& ds, const IndexedDataset::Options& options,
                     uint64_t first, std::span<const int32_t> sizes,
                     std::span<const int64_t> pointers, uint64_t* offset) {
  const uint64_t itemsize = ItemSize(ds.dtype());
  const uint64_t max_bytes = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (size_t k = 0; k < sizes.size(); ++k) {
    const uint64_t i = first + k;
    if (sizes[k] < 0)
      return IdxError(ds.prefix(), "row " + std::to_string(i) + " has negative size " +
                                       std::to_string(sizes[k]));
    if (pointers[k] < 0 || static_cast<uint64_t>(pointers[k]) != *offset)
      return PointerError(ds, options, i, pointers[k], *offset);
    const uint64_t row_bytes = static_cast<uint64_t>(sizes[k]) * itemsize;
    if (*offset > max_bytes - row_bytes)
      return IdxError(ds.prefix(),
                      "row sizes overflow the 64-bit byte offset at row " + std::to_string(i));
    *offset += row_bytes;
  }
  return Status::OK();
}

// Every row (CheckRowBlock). Returns the total: the .bin size the .idx
// describes. The rows are read from `idx` a block at a time, not through the
// mapping: one pass over a large .idx is faster that way (util/file_util.h).
Result<uint64_t> CheckSizesAndPointers(const IndexedDataset& ds, const InputFile& idx,
                                       const IndexedDataset::Options& options) {
  constexpr uint64_t kRowsPerRead = uint64_t{1} << 16;
  const uint64_t rows = ds.num_rows();
  std::vector<int32_t> sizes(std::min(rows, kRowsPerRead));
  std::vector<int64_t> pointers(sizes.size());
  uint64_t offset = 0;  // bytes
  for (uint64_t first = 0; first < rows; first += kRowsPerRead) {
    const uint64_t n = std::min(rows - first, kRowsPerRead);
    DSA_RETURN_IF_ERROR(
        idx.ReadAt(IdxSizesOffset() + kIdxSizeBytes * first, sizes.data(), kIdxSizeBytes * n));
    DSA_RETURN_IF_ERROR(idx.ReadAt(IdxPointersOffset(rows) + kIdxPointerBytes * first,
                                   pointers.data(), kIdxPointerBytes * n));
    DSA_RETURN_IF_ERROR(CheckRowBlock(ds, options, first, std::span(sizes).first(n),
                                      std::span(pointers).first(n), &offset));
  }
  return offset;
}

// doc_idx starts at 0, stays within [0, rows] and never decreases. Read from
// `idx` a block at a time, as CheckSizesAndPointers reads the rows.
Status CheckDocIdx(const IndexedDataset& ds, const InputFile& idx) {
  constexpr uint64_t kDocsPerRead = uint64_t{1} << 16;
  const uint64_t rows = ds.num_rows();
  std::vector<int64_t> docs(std::min(ds.doc_count(), kDocsPerRead));
  int64_t previous = 0;
  for (uint64_t first = 0; first < ds.doc_count(); first += kDocsPerRead) {
    const uint64_t n = std::min(ds.doc_count() - first, kDocsPerRead);
    DSA_RETURN_IF_ERROR(idx.ReadAt(IdxDocIdxOffset(rows) + kIdxDocIdxBytes * first, docs.data(),
                                   kIdxDocIdxBytes * n));
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t i = first + k;
      const int64_t d = docs[k];
      if (i == 0 && d != 0)
        return IdxError(ds.prefix(), "doc_idx[0] is " + std::to_string(d) + ", expected 0");
      if (d < 0 || static_cast<uint64_t>(d) > rows)
        return IdxError(ds.prefix(), "doc_idx[" + std::to_string(i) + "] = " + std::to_string(d) +
                                         " is out of range [0, " + std::to_string(rows) + "]");
      if (d < previous)
        return IdxError(ds.prefix(), "doc_idx decreases at entry " + std::to_string(i) + " (" +
                                         std::to_string(previous) + " then " + std::to_string(d) +
                                         ")");
      previous = d;
    }
  }
  return Status::OK();
}

// Every row, then doc_idx (in that order, so that of several errors the same
// one is reported first). Returns the .bin size the .idx describes.
Result<uint64_t> CheckRowsAndDocIdx(const IndexedDataset& ds, const InputFile& idx,
                                    const IndexedDataset::Options& options) {
  DSA_ASSIGN_OR_RETURN(const uint64_t described_bytes, CheckSizesAndPointers(ds, idx, options));
  DSA_RETURN_IF_ERROR(CheckDocIdx(ds, idx));
  return described_bytes;
}

// The .bin is exactly the `described` bytes the .idx gives its rows.
Status CheckBinSize(const IndexedDataset& ds, const IndexedDataset::Options& options,
                    uint64_t bin_size, uint64_t described) {
  if (bin_size == described) return Status::OK();
  const std::string& prefix = ds.prefix();
  const uint64_t elements = ds.num_elements();
  return Status::BadInput(prefix + ".bin: file is " + std::to_string(bin_size) + " bytes but " +
                          prefix + ".idx describes " + std::to_string(described) + " (" +
                          std::to_string(elements) + " " + std::string(DTypeName(ds.dtype())) +
                          " elements); .bin is too " + (bin_size < described ? "short" : "long") +
                          ElementSizeHint(options, ds.dtype_code(), elements, bin_size,
                                          ItemSize(ds.dtype()), "it fits", ""));
}

}  // namespace

Result<IdxHeader> ReadIdxHeader(const std::string& prefix) {
  DSA_ASSIGN_OR_RETURN(const MappedFile idx, MappedFile::Open(prefix + ".idx"));
  DSA_ASSIGN_OR_RETURN(const IdxHeader header, ReadHeader(prefix, idx.bytes()));
  DSA_RETURN_IF_ERROR(CheckIdxSize(prefix, idx.bytes().size(), header));
  return header;
}

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

Result<IndexedDataset> IndexedDataset::OpenIdx(const std::string& prefix, const InputFile& idx_file,
                                               const Options& options) {
  IndexedDataset ds;
  ds.prefix_ = prefix;
  DSA_ASSIGN_OR_RETURN(ds.idx_, idx_file.Map());
  const std::span<const std::byte> idx = ds.idx_.bytes();

  DSA_ASSIGN_OR_RETURN(const IdxHeader header, ReadHeader(prefix, idx));
  DSA_ASSIGN_OR_RETURN(ds.dtype_, DTypeOfCode(prefix, header.dtype_code, options));
  ds.code_ = header.dtype_code;
  ds.itemsize_ = ItemSize(ds.dtype_);
  ds.rows_ = header.rows;
  ds.doc_count_ = header.doc_count;
  DSA_RETURN_IF_ERROR(CheckIdxSize(prefix, idx.size(), header));
  ds.sizes_ = idx.data() + IdxSizesOffset();
  ds.pointers_ = idx.data() + IdxPointersOffset(ds.rows_);
  ds.doc_idx_ = idx.data() + IdxDocIdxOffset(ds.rows_);
  return ds;
}

Result<IndexedDataset> IndexedDataset::Open(const std::string& prefix, const Options& options) {
  DSA_ASSIGN_OR_RETURN(const InputFile idx_file, InputFile::Open(prefix + ".idx"));
  DSA_ASSIGN_OR_RETURN(IndexedDataset ds, OpenIdx(prefix, idx_file, options));
  DSA_ASSIGN_OR_RETURN(const uint64_t described_bytes, CheckRowsAndDocIdx(ds, idx_file, options));
  ds.elements_ = described_bytes / ds.itemsize_;

  DSA_ASSIGN_OR_RETURN(ds.bin_, MappedFile::Open(prefix + ".bin"));
  DSA_RETURN_IF_ERROR(CheckBinSize(ds, options, ds.bin_.bytes().size(), described_bytes));
  return ds;
}

Result<IndexedDataset> IndexedDataset::OpenScalarRows(const std::string& prefix,
                                                      const Options& options) {
  DSA_ASSIGN_OR_RETURN(const InputFile idx_file, InputFile::Open(prefix + ".idx"));
  DSA_ASSIGN_OR_RETURN(IndexedDataset ds, OpenIdx(prefix, idx_file, options));
  ds.elements_ = ds.rows_;  // rows <= the .idx's size / 12: no overflow below
  DSA_ASSIGN_OR_RETURN(ds.bin_, MappedFile::Open(prefix + ".bin"));
  DSA_RETURN_IF_ERROR(CheckBinSize(ds, options, ds.bin_.bytes().size(), ds.rows_ * ds.itemsize_));
  return ds;
}

Status IndexedDataset::CheckRows(const Options& options) const {
  DSA_ASSIGN_OR_RETURN(const InputFile idx_file, InputFile::Open(prefix_ + ".idx"));
  if (idx_file.size() != idx_.bytes().size())
    return IdxError(prefix_, "changed while it was read (" + std::to_string(idx_.bytes().size()) +
                                 " bytes, now " + std::to_string(idx_file.size()) + ")");
  DSA_ASSIGN_OR_RETURN(const uint64_t described_bytes,
                       CheckRowsAndDocIdx(*this, idx_file, options));
  return CheckBinSize(*this, options, bin_.bytes().size(), described_bytes);
}

void WidenElements(const ElementView& view, uint64_t from, std::span<int64_t> out) {
  VisitIntDType(view.dtype, [&](auto tag) {
    const auto* in = view.as<decltype(tag)>().data() + from;
    for (size_t k = 0; k < out.size(); ++k) out[k] = static_cast<int64_t>(in[k]);
  });
}

}  // namespace dsanalyze
