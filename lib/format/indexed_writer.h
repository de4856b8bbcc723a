// Writer for the MMapIndexedDataset pair PREFIX.idx + PREFIX.bin.
//
// Rows are streamed: elements go through a large buffer into PREFIX.bin, and the
// .idx is completed by Finish(). When the number of rows is given up front the
// writer keeps no per-row arrays: each row's size and pointer are written
// straight to their final offsets in the .idx (through small buffers), so memory
// stays bounded however many rows there are. Without a row count the sizes are
// kept (4 bytes a row) and the .idx is written at the end.
//
// Elements are passed as int64, or as an ElementView of any integer dtype, and
// converted to the output dtype (a plain copy when they are in it already);
// the caller guarantees they fit (FitIntDType). Both files are written under
// temporary names (PREFIX.bin.tmp, PREFIX.idx.tmp) and renamed into place only
// by a successful Finish(); a writer destroyed without Finish() removes them.
//
// doc_idx is [0, rows] (one document spanning all rows), as DeepSpeed's
// DistributedDataAnalyzer writes; with Options::doc_idx_per_row it is
// [0, 1, ..., rows] (every row its own document), as Megatron's builder writes
// when each document is one row. Either way it costs no per-row memory.
// File writes happen on a background thread (WriteBehind), so filling the next
// buffer overlaps the kernel's copy of the last one; at most a few buffers are
// in flight. Not thread-safe: one writer is used by one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "format/idx_header.h"
#include "format/indexed_dataset.h"
#include "util/file_util.h"
#include "util/status.h"
#include "util/write_behind.h"

namespace dsanalyze {

// The code `table` gives `dtype` in the .idx of the files at `prefix`;
// BadInput naming them when the table has none. Every writer of those files
// asks before it creates anything.
Result<uint8_t> DTypeCodeFor(const std::string& prefix, CodeTable table, DType dtype);

// `n` elements of dtype `from` at `in` as dtype `to` at `out` (the caller
// guarantees they fit): a copy when the dtypes match, else each through int64.
// The one conversion every element a writer writes goes through.
void ConvertElements(DType from, const std::byte* in, size_t n, DType to, std::byte* out);

// The bytes [at, at + out.size()) of the .idx an IndexedWriter writes for
// header.rows rows of one element of `itemsize` bytes each (AddScalarRows:
// sample_to_metric), doc_idx [0, rows]; header gives the dtype code and the
// rows. The file is a function of these alone, so a writer may compute any
// block of it, in any order (index/scalar_rows.h).
void ScalarIdxBytes(const IdxHeader& header, size_t itemsize, uint64_t at,
                    std::span<std::byte> out);

// Which blocks of that .idx WriteScalarIdx writes. kRowsOnly: the 16 MiB
// blocks that hold nothing but sizes (all 1), a function of header.rows alone
// (not of the dtype code, nor of itemsize): about a third of the file, which
// a writer may start before it knows the dtype (index/scalar_rows.h). kRest:
// every other block. The two together write what kAll does.
enum class IdxBlocks { kAll, kRowsOnly, kRest };

// Writes that .idx, or the `blocks` of it, into `idx` (created under its
// path): 16 MiB blocks computed from their offsets (the sizes-only ones once),
// written past the page cache through a second descriptor opened with
// O_DIRECT; the unaligned tail, and every block where the file system refuses
// O_DIRECT, through `idx`. The .idx is six times its .bin at 2 bytes a value,
// and nobody reads it back soon: the kernel's copy into the page cache and its
// writeback took CPU from the work beside it. Meant for a thread of its own
// while the .bin is written (index/scalar_rows.h, merge/merge_metric.h). A
// caught signal (util/interrupt.h) is noticed before every block; so is
// `*stop` turning true (the caller gave up on the file: Internal); IoError
// when a write fails.
Status WriteScalarIdx(OutputFile* idx, const IdxHeader& header, size_t itemsize,
                      IdxBlocks blocks = IdxBlocks::kAll, const std::atomic<bool>* stop = nullptr);

// Runs write_bin() on this thread while WriteScalarIdx(idx, header, itemsize)
// writes the whole .idx on a thread of its own, so that the two files go to
// the disk side by side (merge/merge_metric.h). When write_bin fails or
// throws, the .idx is abandoned before its next block: at 10^9 rows it is
// 12 GB, which a failed command must not wait for. Returns write_bin's
// Status, else the .idx's (an exception on its thread becomes an Internal
// one); write_bin's exception leaves as it came.
Status WriteBesideScalarIdx(OutputFile* idx, const IdxHeader& header, size_t itemsize,
                            const std::function<Status()>& write_bin);

class IndexedWriter {
 public:
  struct Options {
    CodeTable table = CodeTable::kDeepSpeed;
    std::optional<uint64_t> rows;   // exact row count, if known up front
    bool sync = false;              // fdatasync before renaming into place
    size_t buffer_bytes = 1 << 20;  // per .bin buffer (a few are in flight)
    bool doc_idx_per_row = false;   // doc_idx [0, 1, ..., rows] instead of [0, rows]
    // When set, this writer writes no .bin of its own: its elements are the
    // bytes of this finished file (declared with AppendElsewhere), and Finish()
    // hard-links it (or copies it) as PREFIX.bin. For files whose elements
    // repeat another file's, as the percentile-merged index repeats
    // index_to_sample's.
    std::string bin_from;
  };

  // The options every analysis file is written with: its code table, its row
  // count and whether it is synced; the rest as default.
  static Options OptionsFor(CodeTable table, uint64_t rows, bool sync) {
    Options o;
    o.table = table;
    o.rows = rows;
    o.sync = sync;
    return o;
  }

  static Result<std::unique_ptr<IndexedWriter>> Create(const std::string& prefix, DType dtype,
                                                       const Options& options);
  static Result<std::unique_ptr<IndexedWriter>> Create(const std::string& prefix, DType dtype) {
    return Create(prefix, dtype, Options{});
  }

  IndexedWriter(const IndexedWriter&) = delete;
  IndexedWriter& operator=(const IndexedWriter&) = delete;
  ~IndexedWriter();

  // Appends elements to the row being built.
  Status Append(const ElementView& elements);
  Status Append(std::span<const int64_t> elements) { return Append(ViewOf(elements)); }
  // Counts `count` elements whose bytes are in Options::bin_from.
  Status AppendElsewhere(uint64_t count);
  // Ends the row being built (which may be empty).
  Status EndRow();
  // Append(elements) then EndRow().
  Status AddRow(std::span<const int64_t> elements);
  // Adds one row of one element per value (sample_to_metric, index_to_metric).
  Status AddScalarRows(const ElementView& values);
  Status AddScalarRows(std::span<const int64_t> values) { return AddScalarRows(ViewOf(values)); }
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
  Status FlushMeta();
  Status StartRow(uint64_t size);
  Status WriteSizesAndPointers();
  Status WriteDocIdx();
  Status WriteBuffered(OutputFile* file, uint64_t offset, const void* data, size_t size);

  std::string prefix_;
  DType dtype_ = DType::kU8;
  Options options_;
  size_t itemsize_ = 1;
  OutputFile bin_;
  OutputFile idx_;
  // Performs the file writes in the background; reset before the files close.
  std::unique_ptr<WriteBehind> io_;
  bool finished_ = false;
  bool open_ = false;  // files exist under temporary names

  WriteBuffer bin_buf_;
  uint64_t bin_offset_ = 0;  // bytes handed to io_ for the .bin

  uint64_t rows_ = 0;
  uint64_t elements_ = 0;           // total elements appended
  uint64_t row_start_element_ = 0;  // first element of the open row

  // With a known row count, the sizes and pointers of rows
  // [meta_first_row_, meta_first_row_ + meta_rows_) wait in these buffers and
  // go to their final .idx offsets when full. Without one, every size is kept
  // in all_sizes_ until Finish().
  WriteBuffer sizes_buf_;
  WriteBuffer pointers_buf_;
  uint64_t meta_rows_ = 0;
  uint64_t meta_first_row_ = 0;
  std::vector<int32_t> all_sizes_;
};

}  // namespace dsanalyze
