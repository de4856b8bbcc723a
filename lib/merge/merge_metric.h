// Merging one metric's files: the inputs' files (merge_inputs.h, sorted by
// position) become the files one run over the union would write, byte for
// byte. The rules are output/analysis_layout.h's, applied to the union:
//  - the metric dtype is refitted to the union's smallest and largest value
//    (the first and last rows of the inputs' index_to_metric), the sample
//    dtype to the union's N and its smallest and largest id (the first and
//    last ids of the inputs' index_to_sample rows, each ascending);
//  - sample_to_metric is the inputs' rows in position order;
//  - index_to_metric and index_to_sample are a k-way merge of the inputs'
//    (value, ids) rows: equal values become one row whose ids, each input's
//    ascending, are merged ascending; the percentile-merged grouping is
//    regrouped for the union's number of distinct values (a first pass over
//    the values counts them);
//  - metric_value is the element-wise exact sum (an int64 overflow is an
//    error), its dtype refitted to the sum.
// Memory is bounded: rows stream through fixed buffers, never O(N). A caught
// signal (util/interrupt.h CheckInterrupt) stops the writes within a value of
// the index merge or a chunk of sample_to_metric.
// Shards of consecutive ids (sample_range) hold id runs that do not
// interleave; those are appended whole instead of merged id by id.
// Errors: BadInput for inputs whose files do not match (missing, different
// lengths, an overflow), IoError for writes.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "output/metric_files.h"
#include "util/status.h"

namespace dsanalyze {

struct MetricMergeJob {
  std::string name;
  std::vector<std::string> inputs;  // the inputs' save paths, in position order
  std::string out_dir;              // the staging folder: writes out_dir/name/name_<kind>
  CodeTable table = CodeTable::kDeepSpeed;
  bool sync = false;
  // The progress display's count (util/progress.h): the ids written to
  // index_to_sample are added to it; nullptr when nothing is shown.
  std::atomic<uint64_t>* ids_done = nullptr;
};

// A single-value metric's inputs: their files, opened (mapped) and checked
// (output/metric_files.h), in position order; each input's sample_to_metric
// is opened.
using SingleValueFiles = std::vector<MetricFiles>;

// The union's number of samples (of sample_to_metric rows).
uint64_t UnionSamples(const SingleValueFiles& files);

// Opens every input's files: BadInput when one is missing, invalid or breaks
// a rule of output/metric_files.h (rules 1-5). Writes nothing, so a merge can refuse bad inputs
// before it touches its output. Every check is made but one: the rows of sample_to_metric (a pass
// over 12 bytes a sample, the inputs' largest files) are opened with IndexedDataset::OpenScalarRows
// and left to CheckSampleToMetricRows.
Result<SingleValueFiles> OpenSingleValueInputs(const MetricMergeJob& job);

// The sample_to_metric rows OpenSingleValueInputs left unchecked, input by
// input: BadInput naming the file and row. Safe to run while
// MergeSingleValueMetric reads the same files.
Status CheckSampleToMetricRows(const MetricMergeJob& job, const SingleValueFiles& files);

// Writes the metric's merged files. sample_to_metric is written on a thread
// of its own (its .idx on another, format/indexed_writer.h WriteScalarIdx)
// while the calling thread merges the index files.
Status MergeSingleValueMetric(const MetricMergeJob& job, const SingleValueFiles& files);

// An accumulate metric: the element-wise exact sum of the inputs' rows
// (out_dir unused; each input's row read by output/metric_files.h
// ReadMetricValueRow, so an empty row is refused), then its file
// (output/metric_value_file.h).
Result<std::vector<int64_t>> SumMetricValues(const MetricMergeJob& job);
Status WriteMergedMetricValue(const MetricMergeJob& job, std::span<const int64_t> sum);

}  // namespace dsanalyze
