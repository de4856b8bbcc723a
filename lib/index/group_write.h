// Index files from ids grouped by value (local_sort.h IdGroups), each rank
// writing its own groups into the one element file.
//
// When every rank holds a consecutive range of sample ids, ranges ascending
// with the rank (the default split of a dataset's samples), a value's row of
// index_to_sample is rank 0's group of that value, then rank 1's, and so on.
// The global count of each value and, per rank, the count of the ranks below
// (one reduction and one exclusive scan of the value histograms) then give
// every group its place in the file, so each rank writes its groups there
// itself: no key leaves its rank, and rank 0 neither receives nor converts the
// others' ids (a local file system may still take one file's writes one at a
// time: ext4 does, under the inode's lock). Rank 0 then writes everything else
// (the .idx files, index_to_metric, the percentile-merged grouping) from the
// global counts alone, through IndexFilesWriter, so the files are byte for byte
// those of WriteIndexFiles (gather_write.h) over the same pairs.
//
// Needs every rank to be able to write into the file rank 0 creates, at the
// same path, with the others' bytes beside its own: ranks on one node
// (Comm::OnOneNode). The caller checks that; across nodes,
// WriteIndexFilesRankOrdered gathers the keys to rank 0 instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "format/dtype.h"
#include "index/gather_write.h"
#include "output/index_files_writer.h"
#include "sort/local_sort.h"
#include "util/file_util.h"
#include "util/status.h"

namespace dsanalyze {

// One metric's index files from grouped ids, given in one call of Write (the
// in-memory run) or in several, each for a range of values in ascending order
// (the out-of-core passes, sort/out_of_core_sort.h). Every call is collective and
// returns the same Status on every rank; after an error, later calls do
// nothing but return it. `prefixes` is meaningful on rank 0 only. The ids go
// to a temporary element file beside index_to_sample (PREFIX.ids.bin), which
// index_to_sample's .bin becomes by a link, and which rank 0 removes when the
// writer is destroyed, however the run went. A rank that fails to write, or
// catches a signal (checked before every piece it writes), ends the write on
// every rank with its error, and nothing is left under a final name.
// options.rows_done counts rank 0's ids as it writes them, and the others' at
// Finish.
class GroupedIndexWriter {
 public:
  GroupedIndexWriter(const Comm& comm, const WriteOptions& options);
  ~GroupedIndexWriter();
  GroupedIndexWriter(const GroupedIndexWriter&) = delete;
  GroupedIndexWriter& operator=(const GroupedIndexWriter&) = delete;

  // local_counts[v]: this rank's ids of the value value_min + v, over the
  // whole metric (the same length on every rank); ids are unsigned integers
  // of id_bytes bytes.
  Status Open(const IndexFilePrefixes& prefixes, int64_t value_min,
              std::vector<uint64_t> local_counts, size_t id_bytes);
  // This rank's ids of the values [first, end) (offsets from value_min), in
  // value order, local_counts[v] of each, at `ids`. Ranges follow each other.
  Status Write(size_t first, size_t end, const std::byte* ids);
  // Closes the element file; rank 0 writes index_to_metric, the .idx files
  // and the percentile-merged grouping from the global counts.
  Status Finish(DType metric_dtype, DType sample_dtype);

 private:
  Status WritePieces(size_t first, size_t end, const std::byte* ids);

  const Comm& comm_;
  WriteOptions options_;
  IndexFilePrefixes prefixes_;
  int64_t value_min_ = 0;
  size_t id_bytes_ = 8;
  std::vector<uint64_t> local_, global_;
  std::vector<uint64_t> below_;      // the ranks below this one: their ids of each value
  std::vector<uint64_t> row_start_;  // each value's first element in the file
  std::string path_;                 // the element file, on every rank; empty: not written
  OutputFile file_;
  Status agreed_;
};

// The whole of a rank's groups at once (local_sort.h GroupIdsByValue):
// Open, one Write, Finish.
Status WriteIndexFilesFromGroups(const Comm& comm, const IdGroups& groups,
                                 const IndexFilesSpec& files);

}  // namespace dsanalyze
