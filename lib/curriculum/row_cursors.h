// The positions of a one-metric training order (curriculum/training_order.h,
// before its buckets' shuffle) found by a pass over the sample ids in id
// order, for `order --megatron-core-cache`, which moves an entry a sample
// (Megatron-Core's blend index) to its sample's position in the order.
//
// Why: gathering the entries by the sorted ids reads one value's ids at a
// time, each value's spread over the whole index, so an index of N entries
// is swept once per distinct value (26 times over 1 GB at 1e8 samples for
// the bench's metric, docs/benchmarks.md case OC). Place reads the entries
// once, front to back, and writes them through one cursor per distinct
// value, each moving forward through the output.
//
// The rule: sample `id` of value v goes to position start(v) + (the number
// of ids below `id` of value v), where start(v) counts the samples whose
// value comes first in the order (smaller values ascending, larger ones
// descending). This is SortedIds's order with one metric, which reads each
// index_to_sample row front to back, its ids ascending, either way.
//
// Applies when the order is by one metric whose values span fewer than
// kMaxSpan integers (the cursors are a table indexed by value − smallest);
// Open returns nullopt otherwise, and the caller gathers instead.
// Requires an analysis made without dataset.sample_indices, where row k of
// sample_to_metric is sample k's value (order_inputs.h CheckIndexedById): the
// caller checks it. That file's .bin is read as the values, its 12-byte-a-
// sample .idx left unread (IndexedDataset::OpenScalarRows).
//
// Memory: 16 bytes × the span (≤ 1 MiB), and a copy of the cursors and a
// block of 4,096 values during Place. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "curriculum/training_order.h"
#include "format/indexed_dataset.h"
#include "util/status.h"

namespace dsanalyze {

class RowCursors {
 public:
  static constexpr uint64_t kMaxSpan = uint64_t{1} << 16;

  // nullopt for several metrics, no samples, or values spanning kMaxSpan or
  // more. BadInput, one line naming the file, for an analysis or metric that
  // OpenOrderMetrics refuses, or a sample_to_metric whose .bin does not hold
  // N values.
  static Result<std::optional<RowCursors>> Open(const OrderOptions& options);

  uint64_t size() const { return values_.num_elements(); }  // N

  // An array of N entries, one a sample id, and where to put `count` of
  // them.
  template <class T>
  struct Placement {
    const T* entries;
    T* stage;
  };

  // For each placement: stage[k] = entries[the id at position begin + k of
  // the order], for every k < count (begin + count ≤ N). Reads
  // sample_to_metric and the entries once, front to back, the placements
  // together. BadInput when sample_to_metric disagrees with index_to_sample:
  // a value it has no row for, or another number of samples of a value than
  // the row's ids.
  template <class... T>
  Status Place(uint64_t begin, uint64_t count, Placement<T>... placements) const;

 private:
  RowCursors(IndexedDataset values, int64_t lowest, std::vector<uint64_t> starts,
             std::vector<uint64_t> counts)
      : values_(std::move(values)),
        lowest_(lowest),
        starts_(std::move(starts)),
        counts_(std::move(counts)) {}

  Status CheckCounts(const std::vector<uint64_t>& cursors) const;

  // Values widened at a time by Place (32 KiB: stays in the closest cache).
  static constexpr uint64_t kBlockValues = 4096;

  IndexedDataset values_;  // sample_to_metric
  int64_t lowest_;         // the smallest value: slot 0
  // Slot v − lowest: start(v) (beyond every position for a value without a
  // row) and v's samples (its index_to_sample row's size); one slot more,
  // with no samples, takes the values outside the span.
  std::vector<uint64_t> starts_;
  std::vector<uint64_t> counts_;
};

template <class... T>
Status RowCursors::Place(uint64_t begin, uint64_t count, Placement<T>... placements) const {
  std::vector<uint64_t> cursors = starts_;
  const ElementView values = values_.elements();
  const uint64_t outside = cursors.size() - 1;
  const auto lowest = static_cast<uint64_t>(lowest_);
  int64_t block[kBlockValues];
  for (uint64_t first = 0; first < values.count; first += kBlockValues) {
    const uint64_t n = std::min(kBlockValues, values.count - first);
    WidenElements(values, first, {block, n});
    for (uint64_t k = 0; k < n; ++k) {
      // A value below the smallest wraps, and takes the outside slot too.
      const uint64_t slot = std::min(static_cast<uint64_t>(block[k]) - lowest, outside);
      const uint64_t at = cursors[slot]++ - begin;  // wraps when before the stage
      if (at < count) ((placements.stage[at] = placements.entries[first + k]), ...);
    }
  }
  return CheckCounts(cursors);
}

}  // namespace dsanalyze
