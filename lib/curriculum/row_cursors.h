// The positions of a one-metric training order (curriculum/training_order.h,
// before its buckets' shuffle) found by a pass over the sample ids in id
// order, for `order --megatron-core-cache`, which moves an entry a sample
// (Megatron-Core's blend index) to its sample's position in the order.
//
// Why: gathering the entries by the sorted ids reads one value's ids at a
// time, each value's spread over the whole index, so an index of N entries
// is swept once per distinct value (26 times over 1 GB at 1e8 samples for
// the bench's metric, docs/benchmarks.md case OC). Place reads the entries
// once, in order, and writes them through one cursor per distinct value,
// each moving through the output: two halves at once, on two cores, the
// first from the front of each value's positions forward, the second from
// the back of each backward (the mirror of the rule below), so neither half
// needs a count of the other's values first.
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
// Memory: 16 bytes × the span (≤ 1 MiB), and during Place a copy of the
// cursors and a block of 4,096 values a lane. Not thread-safe.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "curriculum/training_order.h"
#include "format/indexed_dataset.h"
#include "util/status.h"
#include "util/worker_thread.h"

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

  // Place's ids are cut in this many ranges, placed at once (the first on
  // the calling thread, the others on worker threads).
  static constexpr size_t kLanes = 2;

  // Calls put(at, id) for every position begin + at of the order (at <
  // count; begin + count ≤ N), with the id the order puts there: at most once
  // each, and never for the others. The ids are read in kLanes ranges at
  // once, range r's calls made on copy r of `put` (from a thread of its own):
  // put writes only what its `at` names, or the state of its own copy.
  // Returns the copies, for the state they gathered (e.g. an OR of the
  // entries placed). Reads sample_to_metric once: the first half of the ids
  // front to back, each value's positions from its first on, and the second
  // half back to front, each value's from its last down, so that neither
  // range waits for a count of the other. BadInput when sample_to_metric
  // disagrees with index_to_sample: a value it has no row for, or another
  // number of samples of a value than the row's ids.
  template <class Put>
  Result<std::array<Put, kLanes>> Place(uint64_t begin, uint64_t count, const Put& put) const;

 private:
  RowCursors(IndexedDataset values, int64_t lowest, std::vector<uint64_t> starts,
             std::vector<uint64_t> counts)
      : values_(std::move(values)),
        lowest_(lowest),
        starts_(std::move(starts)),
        counts_(std::move(counts)) {}

  // Place over the ids [first, end) with `put`, front to back from `cursors`
  // (each slot's next position), which it moves past them, or (kForward
  // false) back to front from `cursors` (each slot's end), which it moves
  // down to them. Returns put after its calls.
  template <bool kForward, class Put>
  Put Sweep(uint64_t first, uint64_t end, uint64_t begin, uint64_t count,
            std::vector<uint64_t>& cursors, Put put) const;
  // OK when the two ranges' cursors met: each value's samples are its row's.
  Status CheckCounts(const std::vector<uint64_t>& up, const std::vector<uint64_t>& down) const;

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

template <bool kForward, class Put>
Put RowCursors::Sweep(uint64_t first, uint64_t end, uint64_t begin, uint64_t count,
                      std::vector<uint64_t>& cursors, Put put) const {
  const ElementView values = values_.elements();
  const uint64_t outside = cursors.size() - 1;
  const auto lowest = static_cast<uint64_t>(lowest_);
  // A copy whose address is not taken, so that its state stays in registers
  // (put's stores could alias the members of a Put in memory).
  Put local = std::move(put);
  int64_t block[kBlockValues];
  for (uint64_t swept = 0; swept < end - first;) {
    const uint64_t n = std::min(kBlockValues, end - first - swept);
    const uint64_t from = kForward ? first + swept : end - swept - n;
    WidenElements(values, from, {block, n});
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t k = kForward ? i : n - 1 - i;
      // A value below the smallest wraps, and takes the outside slot too.
      const uint64_t slot = std::min(static_cast<uint64_t>(block[k]) - lowest, outside);
      // Wraps when before the stage.
      const uint64_t at = (kForward ? cursors[slot]++ : --cursors[slot]) - begin;
      if (at < count) local(at, from + k);
    }
    swept += n;
  }
  return local;
}

template <class Put>
Result<std::array<Put, RowCursors::kLanes>> RowCursors::Place(uint64_t begin, uint64_t count,
                                                              const Put& put) const {
  static_assert(kLanes == 2, "one worker thread below");
  const uint64_t n = size(), half = n / 2;
  std::vector<uint64_t> up = starts_, down = starts_;
  for (size_t slot = 0; slot < down.size(); ++slot) down[slot] += counts_[slot];
  std::optional<Put> second;
  WorkerThread helper =
      StartWorkerThread([&] { second.emplace(Sweep<false>(half, n, begin, count, down, put)); });
  Put first = Sweep<true>(0, half, begin, count, up, put);
  helper.join();
  DSA_RETURN_IF_ERROR(CheckCounts(up, down));
  return std::array<Put, kLanes>{std::move(first), std::move(*second)};
}

}  // namespace dsanalyze
