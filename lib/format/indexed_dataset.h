// Reader for the MMapIndexedDataset pair PREFIX.idx + PREFIX.bin
// (docs/format.md §1).
//
// Open() maps both files read-only and validates every structural rule before
// returning: magic, version, dtype code, .idx size, sizes, pointers, .bin size,
// doc_idx. After a successful Open no accessor can read out of bounds, whatever
// the bytes were; errors name the file and the exact problem. The rows' sizes
// and pointers (12 bytes a row) and doc_idx are checked through read(2), not
// the mapping (util/file_util.h says why), so the check faults none of the
// .idx pages into the mapping.
//
// OpenScalarRows and CheckRows split Open in two for a caller that checks
// the rows while it already reads the elements.
//
// Ownership: IndexedDataset owns its mappings. Row views (spans) point into the
// mapping and are valid only while the IndexedDataset they came from is alive.
// It is move-only; moving keeps views valid. Const accessors are safe to call
// from several threads at once.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "format/dtype.h"
#include "format/idx_header.h"
#include "util/file_util.h"
#include "util/status.h"

namespace dsanalyze {

// An untyped view of consecutive elements of one dtype.
struct ElementView {
  DType dtype;
  const std::byte* data;
  uint64_t count;

  template <class T>
  std::span<const T> as() const {
    return {reinterpret_cast<const T*>(data), static_cast<size_t>(count)};
  }
};

// `values` as an ElementView of int64.
inline ElementView ViewOf(std::span<const int64_t> values) {
  return {DType::kI64, reinterpret_cast<const std::byte*>(values.data()), values.size()};
}

// out[k] = element from + k of `view` (an integer dtype), as int64, for every
// k < out.size(); uint64 values past INT64_MAX wrap. Requires from +
// out.size() <= view.count.
void WidenElements(const ElementView& view, uint64_t from, std::span<int64_t> out);

class IndexedDataset {
 public:
  struct Options {
    Options() = default;
    Options(CodeTable t, bool integer, std::string setting = "")
        : table(t), require_integer(integer), table_setting(std::move(setting)) {}

    CodeTable table = CodeTable::kDeepSpeed;
    bool require_integer = true;  // reject float dtypes
    // Where the user chose `table` ("--dtype-codes", "dataset.dtype_codes"):
    // errors that point at a wrong table then name this setting and a table
    // that fits the file. Empty: the errors only say the table is wrong.
    std::string table_setting;
  };

  static Result<IndexedDataset> Open(const std::string& prefix, const Options& options);
  static Result<IndexedDataset> Open(const std::string& prefix) { return Open(prefix, Options{}); }

  // Open without the pass over the rows, for a pair of one element a row
  // (sample_to_metric) whose elements a caller streams while it checks the
  // rows on another thread: the header, dtype and .idx size are checked as
  // Open checks them, and the .bin must hold one element per row. Until
  // CheckRows() has returned OK, only num_rows() and elements() may be used.
  static Result<IndexedDataset> OpenScalarRows(const std::string& prefix, const Options& options);
  // The rest of Open's checks, for a pair opened with OpenScalarRows: every
  // row's size and pointer, doc_idx, and the .bin's size against the rows,
  // with Open's messages. Reads PREFIX.idx again through a descriptor of its
  // own (held only during the call), so that many pairs can wait for their
  // check without holding one each.
  Status CheckRows(const Options& options) const;

  const std::string& prefix() const { return prefix_; }
  DType dtype() const { return dtype_; }
  uint8_t dtype_code() const { return code_; }
  uint64_t num_rows() const { return rows_; }
  uint64_t num_elements() const { return elements_; }
  uint64_t doc_count() const { return doc_count_; }

  // Per-row metadata, read from the .idx (unaligned in the file, so copied out).
  int32_t row_size(uint64_t i) const { return Load<int32_t>(sizes_ + 4 * i); }
  int64_t row_pointer(uint64_t i) const { return Load<int64_t>(pointers_ + 8 * i); }
  int64_t doc_idx(uint64_t i) const { return Load<int64_t>(doc_idx_ + 8 * i); }
  // Element offset of row i (row_pointer / itemsize); i == num_rows() gives the end.
  uint64_t row_begin(uint64_t i) const {
    return i == rows_ ? elements_ : static_cast<uint64_t>(row_pointer(i)) / itemsize_;
  }

  // The elements of row i, or of rows [begin, end) back to back.
  ElementView row(uint64_t i) const { return rows(i, i + 1); }
  ElementView rows(uint64_t begin, uint64_t end) const {
    uint64_t b = row_begin(begin), e = row_begin(end);
    return {dtype_, bin_.bytes().data() + b * itemsize_, e - b};
  }
  // All elements of the .bin.
  ElementView elements() const { return {dtype_, bin_.bytes().data(), elements_}; }

  template <class T>
  std::span<const T> typed_row(uint64_t i) const {
    return row(i).as<T>();
  }

 private:
  // Maps PREFIX.idx (opened as `idx_file`) and checks its header, dtype and
  // size: what Open and OpenScalarRows share.
  static Result<IndexedDataset> OpenIdx(const std::string& prefix, const InputFile& idx_file,
                                        const Options& options);
  template <class T>
  static T Load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }

  std::string prefix_;
  MappedFile idx_;
  MappedFile bin_;
  DType dtype_ = DType::kU8;
  uint8_t code_ = 0;
  size_t itemsize_ = 1;
  uint64_t rows_ = 0;
  uint64_t doc_count_ = 0;
  uint64_t elements_ = 0;
  const std::byte* sizes_ = nullptr;
  const std::byte* pointers_ = nullptr;
  const std::byte* doc_idx_ = nullptr;
};

// The header of PREFIX.idx alone, with rules 1, 2 and 4 of format.md §1.1
// checked (magic, version, file size) and nothing else: O(1) whatever the
// file's size, for a caller that needs the row count of a pair it never reads.
Result<IdxHeader> ReadIdxHeader(const std::string& prefix);

// The code table `DetectCodeTable` chose, and whether the files alone decided it.
struct DetectedTable {
  CodeTable table = CodeTable::kMegatron;
  bool ambiguous = false;  // several tables fit with different dtypes: `fallback` was taken
};

// Chooses the table for PREFIX's dtype byte from the files: a table fits when
// its dtype for the byte (an integer one if options.require_integer) makes
// PREFIX.bin exactly sum(row sizes) elements long. Code 8, uint16 to Megatron
// and uint64 to DeepSpeed, is told apart this way unless the file is empty.
// `fallback` wins when it fits; otherwise the first fitting table in the order
// megatron, deepspeed, deepspeed-legacy. When no table fits, BadInput naming
// the sizes and options.table_setting. A malformed .idx gives `fallback`, so
// that Open reports the exact problem.
Result<DetectedTable> DetectCodeTable(const std::string& prefix, CodeTable fallback,
                                      const IndexedDataset::Options& options);

}  // namespace dsanalyze
