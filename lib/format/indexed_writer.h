// Writer for the MMapIndexedDataset pair PREFIX.idx + PREFIX.bin.
//
// Rows are streamed: elements go through a large buffer into PREFIX.bin, and the
// .idx is completed by Finish(). When the number of rows is given up front the
// writer keeps no per-row arrays: each row's size and pointer are written
// straight to their final offsets in the .idx (through small buffers), so memory
// stays bounded however many rows there are. Without a row count the sizes are
// kept (4 bytes a row) and the .idx is written at the end.
//
// Elements are passed as int64 and narrowed to the output dtype; the caller
// guarantees they fit (FitIntDType). Both files are written under temporary
// names (PREFIX.bin.tmp, PREFIX.idx.tmp) and renamed into place only by a
// successful Finish(); a writer destroyed without Finish() removes them.
//
// doc_idx is [0, rows] (one document spanning all rows), as DeepSpeed's
// DistributedDataAnalyzer writes; with Options::doc_idx_per_row it is
// [0, 1, ..., rows] (every row its own document), as Megatron's builder writes
// when each document is one row. Either way it costs no per-row memory.
// Not thread-safe: one writer is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "util/file_util.h"
#include "util/status.h"

namespace dsanalyze {

class IndexedWriter {
 public:
  struct Options {
    CodeTable table = CodeTable::kDeepSpeed;
    std::optional<uint64_t> rows;  // exact row count, if known up front
    bool sync = false;             // fdatasync before renaming into place
    size_t buffer_bytes = 4 << 20;
    bool doc_idx_per_row = false;  // doc_idx [0, 1, ..., rows] instead of [0, rows]
  };

  static Result<std::unique_ptr<IndexedWriter>> Create(const std::string& prefix, DType dtype,
                                                       const Options& options);
  static Result<std::unique_ptr<IndexedWriter>> Create(const std::string& prefix, DType dtype) {
    return Create(prefix, dtype, Options{});
  }

  IndexedWriter(const IndexedWriter&) = delete;
  IndexedWriter& operator=(const IndexedWriter&) = delete;
  ~IndexedWriter();

  // Appends elements to the row being built.
  Status Append(std::span<const int64_t> elements);
  // Ends the row being built (which may be empty).
  Status EndRow();
  // Append(elements) then EndRow().
  Status AddRow(std::span<const int64_t> elements);
  // Adds one row of one element per value (sample_to_metric, index_to_metric).
  Status AddScalarRows(std::span<const int64_t> values);
  // Ends a row of `size` elements already passed to Append (for rows whose
  // elements and sizes arrive separately, e.g. percentile groups sharing the
  // element stream of another writer). Requires size <= pending elements.
  Status EndRowOfSize(uint64_t size);

  // Writes the .idx, closes both files and renames them into place. Fails if a
  // row count was promised and a different number of rows was added, or if
  // elements were appended after the last EndRow.
  Status Finish();

  uint64_t rows_written() const { return rows_; }
  uint64_t elements_written() const { return elements_; }

 private:
  IndexedWriter() = default;
  Status FlushBin();
  Status FlushIdx();
  Status StartRow(uint64_t size);
  Status WriteDocIdx();

  std::string prefix_;
  DType dtype_ = DType::kU8;
  Options options_;
  size_t itemsize_ = 1;
  OutputFile bin_;
  OutputFile idx_;
  bool finished_ = false;
  bool open_ = false;  // files exist under temporary names

  std::vector<std::byte> bin_buf_;
  size_t bin_used_ = 0;
  uint64_t bin_offset_ = 0;  // bytes flushed to .bin

  uint64_t rows_ = 0;
  uint64_t elements_ = 0;           // total elements appended
  uint64_t row_start_element_ = 0;  // first element of the open row

  // Row metadata waiting to be written: with a known row count these are
  // flushed to their final .idx offsets when full; otherwise sizes accumulate.
  std::vector<int32_t> sizes_;
  std::vector<int64_t> pointers_;
  uint64_t meta_first_row_ = 0;  // row index of sizes_[0]
};

}  // namespace dsanalyze
