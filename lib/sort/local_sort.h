// Sorting one rank's (value, id) pairs into keys, in memory.
//
// SortPairs turns the rank's values (in iteration order) and their sample ids
// into sorted keys (sort_key.h). Packed keys use a stable LSD radix sort whose
// first pass reads the values directly and writes encoded keys, so no unsorted
// key array is ever built; the values' storage is then reused as the radix
// scratch buffer (values are consumed). When ids ascend with position (default
// ids), a stable sort on the value bits alone already gives (value, id) order:
// for value ranges up to 2^16 that is a single counting pass, from the values
// shrunk to 16-bit offsets and freed first, so the keys reuse the values'
// pages (local_sort.cc). Passes use `threads` threads over contiguous chunks
// with per-thread histograms, so the result does not depend on the thread
// count. Each pass stages a bucket's keys in a cache line of their own and
// streams whole lines to memory (local_sort.cc says why). Wide keys fall back
// to comparison sorting.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sort/sort_key.h"

namespace dsanalyze {

// The ids of a rank's samples: explicit (one per value), or first_id + i.
struct LocalIds {
  int64_t first_id = 0;
  std::span<const int64_t> explicit_ids;  // empty: consecutive from first_id
  bool consecutive() const { return explicit_ids.empty(); }
  int64_t operator[](size_t i) const {
    return consecutive() ? first_id + static_cast<int64_t>(i) : explicit_ids[i];
  }
};

std::vector<uint64_t> SortPairs(std::vector<int64_t>&& values, const LocalIds& ids,
                                const KeyCodec<uint64_t>& codec, unsigned threads);
std::vector<WideKey> SortPairs(std::vector<int64_t>&& values, const LocalIds& ids,
                               const KeyCodec<WideKey>& codec, unsigned threads);

// Sorts keys that all lie in [lo, hi] (a pass of the out-of-core sort,
// out_of_core_sort.h). Packed keys: a stable radix sort over the bits below
// the highest bit in which lo and hi differ (every key agrees with them
// above it), and of those only the bits from `sorted_low_bits` up: pass the
// id bits when the keys arrive in ascending id order (consecutive ids, kept
// in store order), as SortPairs does. `scratch` (any contents) is the radix
// sort's second buffer, kept by the caller so that pass after pass reuses its
// memory; it is left holding the buffer the keys are not in. Wide keys: a
// comparison sort, no scratch.
void SortKeys(std::vector<uint64_t>* keys, uint64_t lo, uint64_t hi, unsigned sorted_low_bits,
              unsigned threads, std::vector<uint64_t>* scratch);
void SortKeys(std::vector<WideKey>* keys, const WideKey& lo, const WideKey& hi,
              unsigned sorted_low_bits, unsigned threads, std::vector<WideKey>* scratch);

// The widest value range GroupIdsByValue takes.
inline constexpr uint64_t kMaxIdGroups = uint64_t{1} << 16;

// A rank's sample ids grouped by value: group v (the value value_min + v)
// holds counts[v] ids, ascending, and the groups follow each other in value
// order at bytes(), each id an unsigned integer of id_bytes bytes in native
// byte order, as index_to_sample's .bin holds them.
struct IdGroups {
  int64_t value_min = 0;
  std::vector<uint64_t> counts;  // one per value of the range
  size_t id_bytes = 8;
  // The values' memory: their 16-bit offsets, then (from byte ids_at) the
  // ids, unless they did not fit there and are in wide_ids.
  std::vector<int64_t> storage;
  std::vector<int64_t> wide_ids;
  size_t ids_at = 0;
  const std::byte* bytes() const {
    const std::vector<int64_t>& v = wide_ids.empty() ? storage : wide_ids;
    return reinterpret_cast<const std::byte*>(v.data()) + ids_at;
  }
};

// Groups the ids first_id + i of values[i] by value, for values in
// [value_min, value_min + buckets) with buckets <= kMaxIdGroups, in one
// counting pass (stable, so each group's ids ascend), and ids that fit
// id_bytes (1, 2, 4 or 8) bytes unsigned. The values shrink to 16-bit
// offsets in their own memory, and ids of up to 4 bytes go there too: no new
// pages at all, 8 bytes a value at the peak (16 with 8-byte ids). Threads as
// SortPairs.
IdGroups GroupIdsByValue(std::vector<int64_t>&& values, int64_t first_id, int64_t value_min,
                         size_t buckets, size_t id_bytes, unsigned threads);

// One batch of a grouping built a batch at a time (the passes of
// out_of_core_sort.h GroupOutOfCore): the id first_id + at[i] (first_id + i
// when `at` is empty) goes to element pos[offsets[i] - lo]++ of `dst`, in
// order, as an unsigned integer of id_bytes bytes; staged by cache line as
// the counting passes are. Every offset must lie in [lo, lo + pos->size()).
void ScatterIds(std::span<const uint16_t> offsets, std::span<const uint32_t> at, uint16_t lo,
                int64_t first_id, size_t id_bytes, std::vector<uint64_t>* pos, std::byte* dst);

}  // namespace dsanalyze
