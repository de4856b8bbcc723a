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

#include "pipeline/sort_key.h"

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

}  // namespace dsanalyze
