// The out-of-core sort: one metric's (value, id) keys sorted across the ranks
// when they do not fit the memory limit (pipeline/memory_plan.h), without
// ever holding more than one pass of keys. The sorted keys go, pass by pass,
// to the caller's sink (the run's is the index files' writer,
// index/gather_write.h IndexGather); the sort knows no file.
//
// Each rank's values wait in a ValueStore (value_store.h); keys are made
// from them as they are read, never all at once:
//
//  1. Plan. A histogram of every rank's keys over 2^16 equal ranges of the
//     key space (one scan of the store, one Allreduce) gives each range's
//     global count. Consecutive ranges are grouped into passes of at most
//     `pass_keys` · p keys (so at most `pass_keys` per rank after the
//     exchange); a pass that some rank holds more than `pass_keys` of before
//     the exchange (an Allreduce of the passes' local counts tells) is halved
//     until none is. A range too big on its own is histogrammed again, 16
//     bits finer; keys are unique, so this ends.
//  2. Passes, in key order. Every rank scans its store for the keys in the
//     pass's range (values outside the pass's value offsets are passed over
//     without building keys) and sorts them (local_sort.h SortKeys); the
//     sample sort (sample_sort.h) spreads them evenly over the ranks, and
//     every rank hands its slice of the pass to the sink: the slices of pass
//     after pass, rank after rank, are the global order.
//
// The sink sees the keys the in-memory sort (SortPairs, SampleSort) gives, in
// the same order, so what it writes is byte-identical. The price is one scan of the store per
// pass (from memory, or from the scratch file and so mostly from the page
// cache), instead of writing and merging sorted runs.
//
// Collective; the returned Status is the same on every rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "comm/comm.h"
#include "sort/local_sort.h"
#include "sort/sample_sort.h"
#include "sort/sort_key.h"
#include "sort/value_store.h"
#include "util/status.h"

namespace dsanalyze {

struct OutOfCoreSortOptions {
  uint64_t pass_keys = 0;  // the most keys a rank may hold in one pass
  unsigned threads = 1;    // for the local sort
};

// What the sort did, for the log, summary.json and the run's stage times.
// Seconds exclude the time spent in the sink.
struct OutOfCoreSortStats {
  uint64_t passes = 0;
  uint64_t plan_scans = 0;      // histogram scans of the store (keyed sort only)
  double local_sort = 0;        // planning, scanning the store, sorting or grouping locally
  SampleSortTimes sample_sort;  // summed over the passes (keyed sort only)
};

// Takes a rank's slice of one pass's keys, sorted; called on every rank once
// per pass, in key order. A non-OK Status ends the sort with it (the sink
// returns the same Status on every rank, as a collective writer does).
template <class Key>
using SortedKeysSink = std::function<Status(const std::vector<Key>&)>;

// Sorts the keys of every rank's `store` (its value i has id ids[i]) and
// hands them, in global order, to `sink`.
template <class Key>
Result<OutOfCoreSortStats> OutOfCoreSort(const Comm& comm, ValueStore& store, const LocalIds& ids,
                                         const KeyCodec<Key>& codec,
                                         const OutOfCoreSortOptions& options,
                                         const SortedKeysSink<Key>& sink);

// The out-of-core form of grouping ids by value (local_sort.h
// GroupIdsByValue), for the case the run writes grouped ids
// (index/group_write.h): consecutive ids ascending by rank, at most
// kMaxIdGroups values. No keys at all:
//
//  1. CountValues: this rank's count of each value, one scan of the store.
//  2. GroupPasses: consecutive value ranges whose ids fit `pass_ids` on every
//     rank (planned on the largest count of each value over the ranks, so
//     every rank plans the same). Empty when one value alone does not fit:
//     then the keyed sort above, which can split a value, must do.
//  3. GroupOutOfCore: per pass, every rank scans its store for the pass's
//     values, scatters their ids into one buffer of pass_ids ids, grouped by
//     value, and hands its groups to the sink (the run's writes them into
//     place, index/group_write.h GroupedIndexWriter::Write).
//
// The groups are the in-memory grouping's, a range of values at a time.
// Local errors in CountValues; the rest collective.
Result<std::vector<uint64_t>> CountValues(ValueStore& store, int64_t value_min, size_t buckets);

// Value ranges [first, end) over all of the counts' values.
using ValuePass = std::pair<size_t, size_t>;
std::vector<ValuePass> GroupPasses(const Comm& comm, const std::vector<uint64_t>& local_counts,
                                   uint64_t pass_ids);

// Takes this rank's ids of the values [first, end) (offsets from value_min),
// in value order, local_counts[v] of each, each an unsigned integer of
// id_bytes bytes in native byte order, at `ids`; called on every rank once
// per pass, in value order. A non-OK Status ends the grouping with it.
using GroupedIdsSink = std::function<Status(size_t first, size_t end, const std::byte* ids)>;

// What a rank's grouping needs besides the store: its value i has the id
// first_id + i; local_counts (from CountValues) start at value_min; ids are
// id_bytes (1, 2, 4 or 8) bytes.
struct GroupLayout {
  int64_t first_id = 0;
  int64_t value_min = 0;
  std::span<const uint64_t> local_counts;
  size_t id_bytes = 8;
};

// The passes' groups, in order, to `sink`. Stats: passes and local_sort.
Result<OutOfCoreSortStats> GroupOutOfCore(const Comm& comm, ValueStore& store,
                                          const GroupLayout& layout,
                                          const std::vector<ValuePass>& passes,
                                          const GroupedIdsSink& sink);

}  // namespace dsanalyze
