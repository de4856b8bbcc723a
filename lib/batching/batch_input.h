// What `dsanalyze batches` reads: one single-value metric of an analysis,
// opened through output/metric_files.h (the reader and checks every command
// shares), and the optional filter ids; and the three picking orders of
// DeepSpeed's batch_by_seqlens as sample sources (batching/planner.h).
//
// A sample's id is its row in sample_to_metric, as DeepSpeed numbers them;
// filter ids (DeepSpeed's dataset_filter_ids) select and order rows.
//  - dataloader: the rows in order (or the filter ids in their order), read
//    from sample_to_metric as they are asked for;
//  - seqlen: ascending by (value, id), which is index_to_sample's order
//    (index_to_metric gives each row's value), so nothing is sorted; with
//    filter ids, the ids not in the filter are skipped;
//  - random: the dataloader list shuffled as random.Random(seed).shuffle
//    shuffles it (batching/python_random.h), held in memory (16 bytes a
//    sample).
// DeepSpeed reads only sample_to_metric, and so do the dataloader and random
// orders: an analysis whose output.files left out the index files serves
// them. Only seqlen opens index_to_sample and index_to_metric.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "batching/planner.h"
#include "curriculum/order_inputs.h"
#include "format/indexed_dataset.h"
#include "format/npy.h"
#include "output/metric_files.h"
#include "util/status.h"

namespace dsanalyze {

enum class PickingOrder { kDataloader, kSeqlen, kRandom };

struct BatchInput {
  IndexedDataset sample_to_metric;   // N rows of one value (rule 1 checked)
  std::optional<MetricFiles> index;  // the seqlen order's index files (sample_to_metric counted)
  uint64_t samples = 0;              // N
};

// Opens `metric` of `analysis` for `order`: sample_to_metric, and for seqlen
// the index files (output/metric_files.h OpenMetricFiles). BadInput, in one
// line, for an unknown or accumulate metric (FindSingleValueMetric); what
// OpenMetricFiles refuses (a file the analysis chose not to write, unreadable
// or breaking a rule); a negative value among those the order reads, or one
// past int64 (token counts are not negative; the planner relies on it); and
// an analysis made with dataset.sample_indices, whose index_to_sample ids are
// not the rows of sample_to_metric that DeepSpeed takes as ids.
Result<BatchInput> OpenBatchInput(const std::string& analysis, const std::string& metric,
                                  PickingOrder order);

// DeepSpeed's dataset_filter_ids: a 1-D integer .npy of distinct row numbers
// of an N-sample analysis. BadInput naming the file and the first bad entry.
struct FilterIds {
  NpyArray array;
  std::vector<bool> member;  // N flags
};
Result<FilterIds> ReadFilterIds(const std::string& path, uint64_t samples);

// The samples of `input` (all, or `filter`'s) in `order`; `seed` for random.
// `input` and `filter` must outlive the source.
Result<std::unique_ptr<SampleSource>> MakeSampleSource(const BatchInput& input,
                                                       const FilterIds* filter, PickingOrder order,
                                                       int64_t seed);

}  // namespace dsanalyze
