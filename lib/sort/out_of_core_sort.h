// The out-of-core sort: one metric's (value, id) keys sorted across the ranks
// and written to its index files when they do not fit the memory limit
// (memory_plan.h), without ever holding more than one pass of keys.
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
//     sample sort (sample_sort.h) spreads them evenly over the ranks; rank 0
//     appends them to the index files, open across passes (gather_write.h
//     IndexGather).
//
// The output is byte-identical to the in-memory sort's: the same keys reach
// the same writer in the same order. The price is one scan of the store per
// pass (from memory, or from the scratch file and so mostly from the page
// cache), instead of writing and merging sorted runs.
//
// Collective; the returned Status is the same on every rank.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "comm/comm.h"
#include "index/gather_write.h"
#include "index/group_write.h"
#include "sort/local_sort.h"
#include "sort/sort_key.h"
#include "pipeline/stage_clock.h"
#include "sort/value_store.h"
#include "util/status.h"

namespace dsanalyze {

struct OutOfCoreSortOptions {
  uint64_t pass_keys = 0;  // the most keys a rank may hold in one pass
  unsigned threads = 1;    // for the local sort
};

// What the sort did, for the log and summary.json.
struct OutOfCoreSortStats {
  uint64_t passes = 0;
  uint64_t plan_scans = 0;  // histogram scans of the store
};

// Sorts the keys of every rank's `store` (its value i has id ids[i]) and
// appends them, in global order, to `gather` (opened and finished by the
// caller). Times go to `clock`: planning, scanning and the local sort to
// local_sort; the sample sort's phases to splitters, exchange and merge; the
// appends to write.
template <class Key>
Status OutOfCoreSort(const Comm& comm, ValueStore& store, const LocalIds& ids,
                     const KeyCodec<Key>& codec, const OutOfCoreSortOptions& options,
                     IndexGather<Key>& gather, StageClock& clock, OutOfCoreSortStats* stats);

// The out-of-core form of grouping ids by value (local_sort.h
// GroupIdsByValue, group_write.h), for the same case: consecutive ids
// ascending by rank, at most kMaxIdGroups values. No keys at all:
//
//  1. CountValues: this rank's count of each value, one scan of the store.
//  2. GroupPasses: consecutive value ranges whose ids fit `pass_ids` on every
//     rank (planned on the largest count of each value over the ranks, so
//     every rank plans the same). Empty when one value alone does not fit:
//     then the keyed sort above, which can split a value, must do.
//  3. GroupOutOfCore: per pass, every rank scans its store for the pass's
//     values, scatters their ids into one buffer of pass_ids ids, grouped by
//     value, and writes its groups into place (GroupedIndexWriter::Write).
//
// The bytes are the in-memory grouping's: the same groups land at the same
// places. Local errors in CountValues; the rest collective.
Result<std::vector<uint64_t>> CountValues(ValueStore& store, int64_t value_min, size_t buckets);

// Value ranges [first, end) over all of the counts' values.
using ValuePass = std::pair<size_t, size_t>;
std::vector<ValuePass> GroupPasses(const Comm& comm, const std::vector<uint64_t>& local_counts,
                                   uint64_t pass_ids);

// The ids of value i are first_id + i; local_counts and value_min as given
// to writer.Open. Times: scanning and grouping to local_sort, writes to write.
Status GroupOutOfCore(const Comm& comm, ValueStore& store, int64_t first_id, int64_t value_min,
                      const std::vector<uint64_t>& local_counts,
                      const std::vector<ValuePass>& passes, size_t id_bytes,
                      GroupedIndexWriter& writer, StageClock& clock);

}  // namespace dsanalyze
