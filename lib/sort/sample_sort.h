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
#include <vector>

#include "comm/comm.h"
#include "sort/global_ranks.h"
#include "sort/sort_key.h"

namespace dsanalyze {

struct SampleSortTimes {
  double splitters = 0;
  double exchange = 0;
  double merge = 0;
};

// Returns, on every rank, the local split points: split[r] .. split[r+1] of
// `sorted` go to rank r (split.size() == p + 1).
template <class Key>
std::vector<uint64_t> SelectExactSplits(const Comm& comm, const std::vector<Key>& sorted,
                                        unsigned key_bits);

// `spare` (optional): a buffer to receive into, left holding the memory the
// result is not in, so that a caller sorting round after round (the
// out-of-core passes) reuses memory whose pages are already faulted in.
// Collective, and so is its Status: an allocation that fails on any rank
// (the received keys, the merge's buffer) is every rank's IoError, agreed on
// (Comm::AgreeOnStatus) before the ranks go on; so is a caught signal (the
// sort ends with an interruption checkpoint).
template <class Key>
Result<std::vector<Key>> SampleSort(const Comm& comm, std::vector<Key> sorted, unsigned key_bits,
                                    SampleSortTimes* times, std::vector<Key>* spare = nullptr);

}  // namespace dsanalyze
