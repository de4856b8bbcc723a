// The writer of one metric's index files from its (value, ids) rows in
// ascending value order: index_to_metric (one row per value), index_to_sample
// (the ids of each value) and index_to_sample_percentile_merged (the same ids
// in groups of PercentileStep(distinct) values, analysis_layout.h; its .bin is
// index_to_sample's, linked, not written twice). The run (pipeline/
// gather_write.cc) and `dsanalyze merge` (merge/merge_metric.cc) both write
// through it, so the grouping rule is applied in one place.
//
// Ids may be appended ahead of the row ends that claim them (a chunk of keys
// at once), as IndexedWriter allows. Not thread-safe; one writer per file set.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/indexed_writer.h"
#include "util/status.h"

namespace dsanalyze {

// An empty prefix: that file is not written (output.files). The
// percentile-merged file needs index_to_sample (its .bin is a link to it).
struct IndexFilePrefixes {
  std::string index_to_metric;
  std::string index_to_sample;
  std::string percentile_merged;
};

class IndexFilesWriter {
 public:
  // Creates the files whose prefix is set, for `distinct` values. `base`
  // gives the code table and sync; the row counts are set here.
  Status Open(const IndexFilePrefixes& prefixes, DType metric_dtype, DType sample_dtype,
              IndexedWriter::Options base, uint64_t distinct);
  // Whether index_to_sample is written: else AppendIds need not be called.
  bool writes_ids() const { return sample_ != nullptr; }
  // Appends ids of the current and following values, in order.
  Status AppendIds(std::span<const int64_t> ids);
  // Ends the row of `value`, which holds the next `ids` ids appended.
  Status EndValue(int64_t value, uint64_t ids);
  Status Finish();

 private:
  Status FlushValues();

  std::unique_ptr<IndexedWriter> metric_, sample_, percentile_;
  std::vector<int64_t> values_;  // index_to_metric rows not yet handed to metric_
  uint64_t step_ = 1;
  uint64_t group_rows_ = 0, group_ids_ = 0;
};

}  // namespace dsanalyze
