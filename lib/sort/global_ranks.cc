#include "sort/global_ranks.h"

#include <mpi.h>

#include <algorithm>

namespace dsanalyze {
namespace {

template <class Key>
uint64_t CountAtMost(const std::vector<Key>& sorted, u128 ordinal) {
  const Key k = KeyCodec<Key>::FromOrdinal(ordinal);
  return static_cast<uint64_t>(std::upper_bound(sorted.begin(), sorted.end(), k) - sorted.begin());
}

}  // namespace

template <class Key>
std::vector<u128> KeysAtGlobalRanks(const Comm& comm, const std::vector<Key>& sorted,
                                    unsigned key_bits, std::span<const uint64_t> ranks,
                                    uint64_t total) {
  // The key of global rank t is the smallest key K with (number of keys <= K)
  // > t: bisect for all ranks at once, one Allreduce of counts per key bit.
  const size_t n = ranks.size();
  const u128 max_ordinal = key_bits >= 128 ? ~u128{0} : (u128{1} << key_bits) - 1;
  std::vector<u128> lo(n, 0), hi(n, max_ordinal);
  std::vector<uint64_t> counts(n);
  for (unsigned step = 0; step <= key_bits; ++step) {
    for (size_t j = 0; j < n; ++j) {
      const u128 mid = lo[j] + (hi[j] - lo[j]) / 2;
      counts[j] = ranks[j] >= total ? 0 : CountAtMost(sorted, mid);
    }
    std::vector<uint64_t> global = comm.Allreduce<uint64_t>(counts, MPI_SUM);
    for (size_t j = 0; j < n; ++j) {
      if (lo[j] == hi[j]) continue;
      const u128 mid = lo[j] + (hi[j] - lo[j]) / 2;
      if (global[j] > ranks[j])
        hi[j] = mid;
      else
        lo[j] = mid + 1;
    }
  }
  return lo;
}

template <class Key>
std::vector<uint64_t> LocalCutsAtGlobalRanks(const Comm& comm, const std::vector<Key>& sorted,
                                             unsigned key_bits, std::span<const uint64_t> targets,
                                             uint64_t total) {
  if (targets.empty()) return {};  // the same on every rank: no collective skipped by one
  const std::vector<u128> keys = KeysAtGlobalRanks(comm, sorted, key_bits, targets, total);
  std::vector<uint64_t> cuts(targets.size(), sorted.size());
  for (size_t j = 0; j < targets.size(); ++j) {
    if (targets[j] >= total) continue;
    const Key k = KeyCodec<Key>::FromOrdinal(keys[j]);
    cuts[j] =
        static_cast<uint64_t>(std::lower_bound(sorted.begin(), sorted.end(), k) - sorted.begin());
  }
  return cuts;
}

template std::vector<u128> KeysAtGlobalRanks(const Comm&, const std::vector<uint64_t>&, unsigned,
                                             std::span<const uint64_t>, uint64_t);
template std::vector<u128> KeysAtGlobalRanks(const Comm&, const std::vector<WideKey>&, unsigned,
                                             std::span<const uint64_t>, uint64_t);
template std::vector<uint64_t> LocalCutsAtGlobalRanks(const Comm&, const std::vector<uint64_t>&,
                                                      unsigned, std::span<const uint64_t>,
                                                      uint64_t);
template std::vector<uint64_t> LocalCutsAtGlobalRanks(const Comm&, const std::vector<WideKey>&,
                                                      unsigned, std::span<const uint64_t>,
                                                      uint64_t);

}  // namespace dsanalyze
