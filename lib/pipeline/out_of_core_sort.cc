#include "pipeline/out_of_core_sort.h"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "pipeline/sample_sort.h"
#include "util/huge_pages.h"

namespace dsanalyze {
namespace {

constexpr unsigned kHistogramBits = 16;

// A range [lo, hi] of key ordinals (inclusive: the full 128-bit space has no
// end past it), and how many of this rank's keys fall in it.
struct KeyRange {
  u128 lo = 0;
  u128 hi = 0;
  uint64_t local = 0;
};

unsigned BitWidth(u128 x) {
  const auto high = static_cast<uint64_t>(x >> 64);
  return high ? 64 + std::bit_width(high) : std::bit_width(static_cast<uint64_t>(x));
}

// Calls fn(key) for each of this rank's keys, block by block of the store.
template <class Key, class F>
Status ForEachKey(ValueStore& store, const LocalIds& ids, const KeyCodec<Key>& codec, F&& fn) {
  std::vector<int64_t> values;
  for (size_t b = 0; b < store.num_blocks(); ++b) {
    DSA_RETURN_IF_ERROR(store.ReadBlock(b, &values));
    const uint64_t first = store.block_begin(b);
    for (size_t i = 0; i < values.size(); ++i) fn(codec.Encode(values[i], ids[first + i]));
  }
  return Status::OK();
}

// The keys of `range` counted in equal sub-ranges of 2^shift ordinals: this
// rank's counts, the sums over ranks, and the largest count on any one rank.
struct Histogram {
  unsigned shift = 0;
  std::vector<uint64_t> local, sum, max;
};

template <class Key>
Result<Histogram> HistogramOf(const Comm& comm, ValueStore& store, const LocalIds& ids,
                              const KeyCodec<Key>& codec, const KeyRange& range) {
  Histogram h;
  const unsigned width = BitWidth(range.hi - range.lo);
  h.shift = width > kHistogramBits ? width - kHistogramBits : 0;
  h.local.assign(static_cast<size_t>(((range.hi - range.lo) >> h.shift) + 1), 0);
  const Status st = ForEachKey(store, ids, codec, [&](const Key& k) {
    const u128 o = KeyCodec<Key>::Ordinal(k);
    if (o >= range.lo && o <= range.hi) ++h.local[static_cast<size_t>((o - range.lo) >> h.shift)];
  });
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));
  h.sum = comm.Allreduce<uint64_t>(h.local, MPI_SUM);
  h.max = comm.Allreduce<uint64_t>(h.local, MPI_MAX);
  return h;
}

// Splits `range` into passes of at most `cap` keys per rank (before the
// exchange: bounded by the sum of per-range maxima; after it: the global
// count / p), appended to `passes` in key order. Collective: every decision
// is taken on global counts, so every rank makes the same ones.
template <class Key>
Status PlanPasses(const Comm& comm, ValueStore& store, const LocalIds& ids,
                  const KeyCodec<Key>& codec, const KeyRange& range, uint64_t cap,
                  std::vector<KeyRange>* passes, OutOfCoreSortStats* stats) {
  DSA_ASSIGN_OR_RETURN(Histogram h, HistogramOf(comm, store, ids, codec, range));
  ++stats->plan_scans;
  const uint64_t p = static_cast<uint64_t>(comm.size());
  auto need = [p](uint64_t sum, uint64_t max) { return std::max(max, (sum + p - 1) / p); };
  KeyRange cur;
  uint64_t cur_sum = 0, cur_max = 0;
  bool open = false;
  auto close = [&] {
    if (open && cur_sum > 0) passes->push_back(cur);
    open = false;
    cur_sum = cur_max = 0;
  };
  for (size_t b = 0; b < h.sum.size(); ++b) {
    const u128 lo = range.lo + (u128{b} << h.shift);
    const u128 hi = std::min(range.hi, lo + ((u128{1} << h.shift) - 1));
    if (need(h.sum[b], h.max[b]) > cap && h.shift > 0) {
      close();
      DSA_RETURN_IF_ERROR(PlanPasses(comm, store, ids, codec, {lo, hi, 0}, cap, passes, stats));
      continue;
    }
    if (open && need(cur_sum + h.sum[b], cur_max + h.max[b]) > cap) close();
    if (!open) cur = {lo, hi, 0};
    open = true;
    cur.hi = hi;
    cur.local += h.local[b];
    cur_sum += h.sum[b];
    cur_max += h.max[b];
  }
  close();
  return Status::OK();
}

// This rank's keys in `pass`, sorted.
template <class Key>
Result<std::vector<Key>> SelectSorted(ValueStore& store, const LocalIds& ids,
                                      const KeyCodec<Key>& codec, const KeyRange& pass,
                                      unsigned threads) {
  std::vector<Key> keys;
  ReserveOnHugePages(keys, pass.local);
  DSA_RETURN_IF_ERROR(ForEachKey(store, ids, codec, [&](const Key& k) {
    const u128 o = KeyCodec<Key>::Ordinal(k);
    if (o >= pass.lo && o <= pass.hi) keys.push_back(k);
  }));
  SortKeys(&keys, KeyCodec<Key>::FromOrdinal(pass.lo), BitWidth(pass.hi - pass.lo), threads);
  return keys;
}

}  // namespace

template <class Key>
Status OutOfCoreSort(const Comm& comm, ValueStore& store, const LocalIds& ids,
                     const KeyCodec<Key>& codec, const OutOfCoreSortOptions& options,
                     IndexGather<Key>& gather, StageClock& clock, OutOfCoreSortStats* stats) {
  const unsigned key_bits = codec.layout.key_bits();
  const u128 top = key_bits >= 128 ? ~u128{0} : (u128{1} << key_bits) - 1;
  std::vector<KeyRange> passes;
  DSA_RETURN_IF_ERROR(
      PlanPasses(comm, store, ids, codec, {0, top, 0}, options.pass_keys, &passes, stats));
  stats->passes = passes.size();
  clock.Lap(kStageLocalSort);
  for (const KeyRange& pass : passes) {
    Result<std::vector<Key>> keys = SelectSorted(store, ids, codec, pass, options.threads);
    // Also the interruption checkpoint of each pass.
    DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(keys.status()));
    clock.Lap(kStageLocalSort);
    SampleSortTimes times;
    std::vector<Key> slice = SampleSort(comm, std::move(keys).value(), key_bits, &times);
    clock.Add(kStageSplitters, times.splitters);
    clock.Add(kStageExchange, times.exchange);
    clock.Add(kStageMerge, times.merge);
    clock.Restart();
    DSA_RETURN_IF_ERROR(gather.Add(slice));
    clock.Lap(kStageWrite);
  }
  return Status::OK();
}

template Status OutOfCoreSort(const Comm&, ValueStore&, const LocalIds&, const KeyCodec<uint64_t>&,
                              const OutOfCoreSortOptions&, IndexGather<uint64_t>&, StageClock&,
                              OutOfCoreSortStats*);
template Status OutOfCoreSort(const Comm&, ValueStore&, const LocalIds&, const KeyCodec<WideKey>&,
                              const OutOfCoreSortOptions&, IndexGather<WideKey>&, StageClock&,
                              OutOfCoreSortStats*);

}  // namespace dsanalyze
