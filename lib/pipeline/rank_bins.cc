#include "pipeline/rank_bins.h"

#include <algorithm>

#include "sort/global_ranks.h"

namespace dsanalyze {
namespace {

// The global ranks at which bins 1..B-1 start among n ranked samples; ranks
// past the last sample (more bins than samples) are left out.
std::vector<uint64_t> BinStarts(uint64_t bins, uint64_t n) {
  std::vector<uint64_t> starts;
  for (uint64_t k = 1; k < bins; ++k) {
    const uint64_t r = static_cast<uint64_t>((u128{k} * n + bins - 1) / bins);  // ceil(k·n/B)
    if (r >= n) break;
    starts.push_back(r);
  }
  return starts;
}

template <class Key>
std::vector<int64_t> BinsOf(const Comm& comm, const RankBins& spec, const LocalIds& ids,
                            const KeyLayout& layout, unsigned threads,
                            const std::vector<int64_t>& values) {
  const KeyCodec<Key> codec{layout};
  std::vector<int64_t> copy = values;
  const std::vector<Key> sorted = SortPairs(std::move(copy), ids, codec, threads);
  // {all keys, ranked keys} over every rank, in one Allreduce.
  std::vector<uint64_t> counts = {sorted.size(), 0};
  for (int64_t v : values) counts[1] += v != RankBins::kUnranked;
  counts = comm.Allreduce<uint64_t>(counts, MPI_SUM);
  const uint64_t total = counts[0], ranked = counts[1];
  // Unranked samples sort after every ranked one, so ranks among the ranked
  // are ranks among all keys.
  const std::vector<uint64_t> starts = BinStarts(spec.bins, ranked);
  std::vector<Key> edges;
  for (u128 ordinal : KeysAtGlobalRanks(comm, sorted, layout.key_bits(), starts, total))
    edges.push_back(KeyCodec<Key>::FromOrdinal(ordinal));
  std::vector<int64_t> bins(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == RankBins::kUnranked) {
      bins[i] = spec.unranked_value;
      continue;
    }
    const Key key = codec.Encode(values[i], ids[i]);
    bins[i] = std::upper_bound(edges.begin(), edges.end(), key) - edges.begin();
  }
  return bins;
}

// Each bin's smallest and largest original value, over all ranks.
std::vector<std::array<int64_t, 2>> BinRanges(const Comm& comm, uint64_t bins,
                                              const std::vector<int64_t>& values,
                                              const std::vector<int64_t>& binned) {
  std::vector<int64_t> mins(bins, INT64_MAX), maxs(bins, INT64_MIN);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == RankBins::kUnranked) continue;
    const size_t b = static_cast<size_t>(binned[i]);
    mins[b] = std::min(mins[b], values[i]);
    maxs[b] = std::max(maxs[b], values[i]);
  }
  mins = comm.Allreduce<int64_t>(mins, MPI_MIN);
  maxs = comm.Allreduce<int64_t>(maxs, MPI_MAX);
  std::vector<std::array<int64_t, 2>> ranges(bins);
  for (size_t b = 0; b < bins; ++b) ranges[b] = {mins[b], maxs[b]};
  return ranges;
}

}  // namespace

std::vector<std::array<int64_t, 2>> RankIntoBins(const Comm& comm, const RankBins& spec,
                                                 const LocalIds& ids, int64_t id_min,
                                                 int64_t id_max, unsigned threads,
                                                 std::vector<int64_t>* values) {
  const ValueRange range = GlobalMinMax(comm, *values);
  const KeyLayout layout = MakeKeyLayout({range.min, range.max}, {id_min, id_max});
  std::vector<int64_t> binned = layout.fits_u64()
                                    ? BinsOf<uint64_t>(comm, spec, ids, layout, threads, *values)
                                    : BinsOf<WideKey>(comm, spec, ids, layout, threads, *values);
  std::vector<std::array<int64_t, 2>> ranges = BinRanges(comm, spec.bins, *values, binned);
  *values = std::move(binned);
  return ranges;
}

}  // namespace dsanalyze
