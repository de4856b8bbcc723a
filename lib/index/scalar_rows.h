// sample_to_metric written by every rank into its own rows, its .idx behind
// the caller's back.
//
// The file holds one row of one value a sample, rank 0's values first, then
// rank 1's, ... (the bytes of gather_write.h WriteOrderedScalars). Its .idx
// (12 bytes a row: size 1, pointer) depends on nothing but the row count and
// the dtype, and is six times the size of its .bin at 2 bytes a value; its
// sizes (4 bytes a row) on the row count alone. So:
// - Open() has rank 0 create the two files (under temporary names) and start
//   a thread writing the .idx's sizes (format/indexed_writer.h
//   IdxBlocks::kRowsOnly): the run calls it before the map, whose values the
//   dtype waits for, so the disk is busy through the map;
// - Start() writes every rank's own values into the .bin at its rows' place
//   (the ranks below it hold the rows before); then a thread of rank 0 writes
//   the rest of the .idx (header, the sizes' first and last blocks, pointers,
//   doc_idx) once the sizes are written, and Start() returns;
// - the caller goes on (the index files' sort and writes), the disk busy with
//   the .idx meanwhile; the values may be freed or overwritten, since the
//   thread reads none;
// - Finish() waits for that thread and has rank 0 rename the files into place.
// A caller writing several files' rows in one loop (Begin, Write, End) defers
// each .idx to its WriteIdx(), one file at a time.
// Why: with rank 0 writing all 14 GB of a 10^9-sample sample_to_metric (the
// others' values received through MPI as 8-byte values), the disk idled
// through the map's end and the whole sort (docs/benchmarks.md). One thread
// at a time writes the .idx: ext4 takes one file's writes one at a time (the
// inode's lock), and a thread on every rank spent their CPU waiting for it.
// It writes with format/indexed_writer.h WriteScalarIdx (O_DIRECT, past the
// page cache): the kernel's copy of 12 GB into the page cache, and its
// writeback, took CPU from the sort running beside it.
//
// Needs every rank to write into the files rank 0 creates, at the same path:
// ranks on one node (Comm::OnOneNode), as group_write.h. The caller checks
// that; across nodes, WriteOrderedScalars gathers the values to rank 0.
//
// Errors: Open(), Start() and Finish() are collective and return the same
// Status on every rank; a rank that fails to read or write, or catches a
// signal (checked before every write, also in the threads), fails them on
// every rank. Unless Finish() succeeded, rank 0's destructor stops its
// threads (at their next block), waits for them, then removes the temporary
// files. options.rows_done counts rank 0's rows as it writes its .bin part,
// and the others' when Start() returns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "format/dtype.h"
#include "format/idx_header.h"
#include "index/gather_write.h"
#include "util/file_util.h"
#include "util/status.h"
#include "util/worker_thread.h"

namespace dsanalyze {

class ScalarRowsWriter {
 public:
  ScalarRowsWriter(const Comm& comm, const WriteOptions& options);
  ~ScalarRowsWriter();
  ScalarRowsWriter(const ScalarRowsWriter&) = delete;
  ScalarRowsWriter& operator=(const ScalarRowsWriter&) = delete;

  // Has rank 0 create `prefix`.bin and .idx (prefix meaningful on rank 0
  // only) for `rows` rows in all, and start the thread writing the .idx's
  // sizes. Call once, first. With idx_now false the .idx waits for
  // WriteIdx() instead: for a caller that writes several files' rows at
  // once (End), whose .idx's would otherwise all be written at once, each
  // thread with its 16 MiB block.
  Status Open(const std::string& prefix, uint64_t rows, bool idx_now = true);
  // Writes this rank's `local_count` values, read by `read` a chunk
  // (options.chunk_bytes of int64) at a time, as `dtype` (they fit) into the
  // .bin; rank 0 starts the thread writing the rest of the .idx. Internal
  // when the ranks' counts do not add up to Open()'s rows; BadInput when the
  // code table has no code for `dtype`. Call once, after Open().
  Status Start(DType dtype, uint64_t local_count, const ScalarReader& read);
  // Start() in its three steps, for a caller that writes several files'
  // rows a chunk at a time in one loop (pipeline/single_value_job.cc, the
  // rank sums): Begin() (collective) takes the dtype and this rank's row
  // count, with Start()'s errors; Write() (this rank alone) writes this
  // rank's rows [offset, offset + values.size()), values.size() at most
  // chunk_rows(); End() (collective) agrees on `written`, the status of this
  // rank's writes, and starts rank 0's .idx thread. Together they write
  // every row once, as Start() does.
  Status Begin(DType dtype, uint64_t local_count);
  Status Write(uint64_t offset, std::span<const int64_t> values);
  Status End(const Status& written);
  // The rows Start() reads and writes at a time: options.chunk_bytes of int64.
  uint64_t chunk_rows() const;
  // After Start() or End() of a writer opened with idx_now false: has rank 0
  // start the thread writing the whole .idx (a no-op where it runs already).
  void WriteIdx();
  // Waits for the .idx; rank 0 renames both files into place.
  Status Finish();

 private:
  Status CreateFiles();
  Status CheckRows(DType dtype);
  Status WriteValues(const ScalarReader& read);
  void StartIdxThread();
  Status WriteSizes();

  const Comm& comm_;
  WriteOptions options_;
  std::string prefix_;          // on every rank
  uint64_t total_ = 0;          // rows of all ranks
  uint64_t first_ = 0;          // this rank's first row
  uint64_t count_ = 0;          // this rank's rows
  DType dtype_ = DType::kI64;   // the .bin's, from Begin()
  std::vector<std::byte> out_;  // one chunk of it (Write)
  IdxHeader header_;            // rank 0
  OutputFile bin_, idx_;        // idx_ on rank 0 only
  // Rank 0's threads: the sizes (from Open), then the rest (from Start,
  // which joins the first). Each status is read after joining its thread.
  Status sizes_status_, meta_status_;
  WorkerThread sizes_thread_, meta_thread_;
  bool idx_now_ = true;            // Open()'s
  std::atomic<bool> stop_{false};  // set by the destructor of an unfinished writer
  bool finished_ = false;
};

}  // namespace dsanalyze
