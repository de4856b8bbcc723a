// Gather and write: rank 0 writes a metric's files while the other ranks
// stream their parts to it in rank order, in bounded chunks. Rank 0's memory
// does not grow with the dataset. Which files, and their dtypes and
// grouping, are output/analysis_layout.h's rules; the callers (the metric
// jobs, metric_jobs.h) pick the dtypes by them. All functions are collective; the returned
// Status is the same on every rank. If rank 0 fails to write, or catches a
// signal (util/interrupt.h: checked per chunk), it stops writing but keeps
// draining the streams (so no rank blocks) and every rank returns the error.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "format/dtype.h"
#include "output/index_files_writer.h"
#include "sort/sort_key.h"
#include "util/status.h"

namespace dsanalyze {

struct WriteOptions {
  CodeTable table = CodeTable::kDeepSpeed;
  bool sync = false;
  uint64_t chunk_bytes = 4 << 20;
  // Rank 0 adds the rows (keys, for the index files) it has written, once per
  // chunk, for the progress display (progress.h). May be null.
  std::atomic<uint64_t>* rows_done = nullptr;
};

// One metric's index files: where rank 0 writes them (meaningful on rank 0
// only), their dtypes, and how they are written.
struct IndexFilesSpec {
  IndexFilePrefixes prefixes;
  DType metric_dtype = DType::kI64;
  DType sample_dtype = DType::kI64;
  WriteOptions options;
};

class ValueStore;

// Reads `n` of a rank's values from position `offset`; the view stays valid
// until the next call.
using ScalarReader = std::function<Result<std::span<const int64_t>>(uint64_t offset, uint64_t n)>;
// The reader of values in memory (which must outlive it), and of values in a
// ValueStore, read through a buffer of the reader's own.
ScalarReader ReaderOf(std::span<const int64_t> local);
ScalarReader ReaderOf(ValueStore& local);

// Rank 0 writes `prefix` (meaningful on rank 0 only) with one row per value:
// rank 0's `local` values, then rank 1's, ... (sample_to_metric).
// index/scalar_rows.h writes the same file with every rank writing its own
// rows, on one node.
Status WriteOrderedScalars(const Comm& comm, std::span<const int64_t> local,
                           const std::string& prefix, DType dtype, const WriteOptions& options);

// The same, each rank's values read in order from its ValueStore
// (value_store.h), a chunk at a time.
Status WriteOrderedScalars(const Comm& comm, ValueStore& local, const std::string& prefix,
                           DType dtype, const WriteOptions& options);

// Each rank holds a sorted slice of the global key order, slices in rank order
// (sort/sample_sort.h). Rank 0 writes index_to_metric (one row per distinct value),
// index_to_sample (the ids of each value) and the percentile-merged grouping
// (analysis_layout.h PercentileStep), each when its prefix is set. A value whose keys continue
// across a rank boundary becomes one row.
template <class Key>
Status WriteIndexFiles(const Comm& comm, const std::vector<Key>& slice, const KeyCodec<Key>& codec,
                       const IndexFilesSpec& files);

// The widest value offsets WriteIndexFilesRankOrdered takes: it counts the
// distinct values in a bitmap of 2^this bits (2 MiB) on every rank.
inline constexpr unsigned kRankOrderedMaxValueBits = 24;

// Each rank holds its own keys, sorted (local_sort.h), and every id on a rank
// lies below every id on the next non-empty rank, as the default split of a
// dataset's samples gives. Then the global key order takes each value's keys
// rank by rank, and rank 0 writes the same files as WriteIndexFiles after a
// SampleSort would, without the sort's exchange: it takes the global order a
// window at a time (windows cut at global key ranks, found as the sample
// sort's splitters are, sort/global_ranks.h), each rank's part of the window sent
// to it. Why: the exchange needs a second key array on every rank, and on a
// VM the kernel zeroing those fresh pages costs more than the exchange itself
// (docs/benchmarks.md). Needs codec.layout.value_bits <=
// kRankOrderedMaxValueBits.
template <class Key>
Status WriteIndexFilesRankOrdered(const Comm& comm, const std::vector<Key>& sorted,
                                  const KeyCodec<Key>& codec, const IndexFilesSpec& files);

template <class Key>
class IndexStreamWriter;

// The index files of one metric, open on rank 0 across several rounds of
// slices: round k's slices (one per rank, in rank order) continue the global
// key order where round k-1's ended (the out-of-core sort, sort/out_of_core_sort.h,
// writes one round per pass). A value whose keys continue across a rank or
// round boundary becomes one row. Collective: every rank calls Open, Add and
// Finish in the same order; each returns the same Status on every rank. After
// an error, later calls do nothing but return it.
template <class Key>
class IndexGather {
 public:
  IndexGather(const Comm& comm, const KeyCodec<Key>& codec, const WriteOptions& options);
  ~IndexGather();
  // `distinct` (the number of distinct values over all rounds) when known;
  // else the writer records rows in `scratch_dir` and writes the .idx files
  // at Finish (output/index_files_writer.h OpenDeferred).
  Status Open(const IndexFilePrefixes& prefixes, DType metric_dtype, DType sample_dtype,
              std::optional<uint64_t> distinct, const std::string& scratch_dir);
  Status Add(const std::vector<Key>& slice);
  // One round of keys sorted per rank, ranks holding ascending id ranges
  // (WriteIndexFilesRankOrdered).
  Status AddRankOrdered(const std::vector<Key>& sorted);
  Status Finish();

 private:
  const Comm& comm_;
  KeyCodec<Key> codec_;
  WriteOptions options_;
  // Rank 0's part of AddRankOrdered: receives the other ranks' parts of one
  // window and consumes the window in global order, run by run.
  void ConsumeWindow(std::span<const Key> own, const std::vector<uint64_t>& counts);

  std::unique_ptr<IndexStreamWriter<Key>> writer_;  // rank 0 only
  std::vector<Key> received_;                       // rank 0: a window's other parts
  Status status_;                                   // rank 0's first error
  Status agreed_;                                   // the first error every rank knows of
};

// Writes `total`, the same on every rank, from rank 0 as one row with the
// dtype fitted to its values (metric_value).
Status WriteMetricValue(const Comm& comm, std::span<const int64_t> total, const std::string& prefix,
                        const WriteOptions& options);

}  // namespace dsanalyze
