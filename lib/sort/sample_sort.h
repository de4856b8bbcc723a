// Distributed sample sort of (value, id) keys across the ranks of a Comm.
//
// Input: each rank's keys, sorted locally (local_sort.h). Output: each rank
// holds a sorted, contiguous slice of the global order, and the slices are in
// rank order: rank r holds global positions [floor(r*M/p), floor((r+1)*M/p))
// of the M keys. Keys are unique (ids are), so this balance is exact, even when
// every sample has the same value: the splitters are full keys, not values.
//
// Splitter selection: instead of sampling candidate splitters and hoping, the
// p-1 splitters are the exact global quantile keys, found together by
// bisection over the key space. Each bisection step is one Allreduce of p-1
// counts (a binary search per splitter locally), and there are as many steps
// as the keys have bits: a few dozen tiny collectives.
//
// Exchange: one large-count Alltoallv. Merge: the p received runs are merged
// pairwise (log p passes).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/comm.h"
#include "sort/sort_key.h"

namespace dsanalyze {

struct SampleSortTimes {
  double splitters = 0;
  double exchange = 0;
  double merge = 0;
};

// Collective: the ordinals (KeyCodec::FromOrdinal) of the keys at the given
// global ranks of the M = `total` keys whose local parts are `sorted`, found
// together by the bisection above. An entry for a rank >= total is
// meaningless (there is no such key); callers leave it aside.
template <class Key>
std::vector<u128> KeysAtGlobalRanks(const Comm& comm, const std::vector<Key>& sorted,
                                    unsigned key_bits, std::span<const uint64_t> ranks,
                                    uint64_t total);

// Collective: for each of the global ranks `targets`, how many of the local
// `sorted` keys lie below the key of that global rank (a target >= total:
// all of them). Cutting every rank at these positions cuts the global order
// at the targets.
template <class Key>
std::vector<uint64_t> LocalCutsAtGlobalRanks(const Comm& comm, const std::vector<Key>& sorted,
                                             unsigned key_bits, std::span<const uint64_t> targets,
                                             uint64_t total);

// Returns, on every rank, the local split points: split[r] .. split[r+1] of
// `sorted` go to rank r (split.size() == p + 1).
template <class Key>
std::vector<uint64_t> SelectExactSplits(const Comm& comm, const std::vector<Key>& sorted,
                                        unsigned key_bits);

// `spare` (optional): a buffer to receive into, left holding the memory the
// result is not in, so that a caller sorting round after round (the
// out-of-core passes) reuses memory whose pages are already faulted in.
template <class Key>
std::vector<Key> SampleSort(const Comm& comm, std::vector<Key> sorted, unsigned key_bits,
                            SampleSortTimes* times, std::vector<Key>* spare = nullptr);

}  // namespace dsanalyze
