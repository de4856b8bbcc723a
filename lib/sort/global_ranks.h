// Exact global ranks over keys sorted on each rank: the key at a given
// position of the global order, and where each rank's keys would be cut to
// cut the global order there, found by bisection over the key space (one
// Allreduce of counts per key bit, for all positions together) without
// moving a key. The sample sort's splitters (sample_sort.h), the bins by rank
// (pipeline/rank_bins.h) and the rank-ordered index writer's windows
// (index/gather_write.h) are such positions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/comm.h"
#include "sort/sort_key.h"

namespace dsanalyze {

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

}  // namespace dsanalyze
