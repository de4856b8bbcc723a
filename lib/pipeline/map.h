// The map stage: runs every metric over one rank's samples.
//
// The rank's range is split among `threads` threads exactly as format.md §2
// says; each thread reads batches of `batch_size` consecutive samples through
// its own SampleReader and calls each metric once per batch. Single-value
// metrics write straight into the rank's value arrays (each thread owns a
// disjoint slice); accumulate metrics sum into per-thread vectors that are
// added in thread order with overflow checks. The result never depends on the
// thread count. `progress` (may be null) is advanced by each finished batch.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "dataset/dataset.h"
#include "metrics/metric.h"
#include "pipeline/work_split.h"
#include "util/status.h"

namespace dsanalyze {

struct MapResult {
  // Per single-value metric (in the order given), one value per local sample.
  std::vector<std::vector<int64_t>> values;
  // Per accumulate metric, the element-wise sum over local samples.
  std::vector<std::vector<int64_t>> sums;
};

Result<MapResult> RunMap(const Dataset& dataset, std::span<const Metric* const> single,
                         std::span<const Metric* const> accumulate, SampleRange range,
                         unsigned threads, uint64_t batch_size,
                         std::atomic<uint64_t>* progress);

// acc += add, element-wise, reporting int64 overflow naming `what`.
Status AddChecked(std::span<int64_t> acc, std::span<const int64_t> add, const std::string& what);

}  // namespace dsanalyze
