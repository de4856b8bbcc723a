#include "sort/out_of_core_sort.h"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <numeric>
#include <vector>

#include "util/exception_status.h"
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

// Calls fn(key) for each of this rank's keys in `range`, block by block of
// the store. Every pass (and every finer histogram) scans the whole store,
// and most values lie outside the range's value offsets: they are passed
// over on the value alone, without building their keys.
template <class Key, class F>
Status ForEachKeyIn(ValueStore& store, const LocalIds& ids, const KeyCodec<Key>& codec,
                    const KeyRange& range, F&& fn) {
  const uint64_t value_min = static_cast<uint64_t>(codec.layout.value_min);
  const uint64_t lo = codec.ValueOffset(KeyCodec<Key>::FromOrdinal(range.lo));
  const uint64_t hi = codec.ValueOffset(KeyCodec<Key>::FromOrdinal(range.hi));
  std::vector<int64_t> values;
  for (size_t b = 0; b < store.num_blocks(); ++b) {
    DSA_RETURN_IF_ERROR(store.ReadBlock(b, &values));
    const uint64_t first = store.block_begin(b);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint64_t v = static_cast<uint64_t>(values[i]) - value_min;
      if (v < lo || v > hi) continue;
      const Key k = codec.Encode(values[i], ids[first + i]);
      const u128 o = KeyCodec<Key>::Ordinal(k);  // the range may end inside a value
      if (o >= range.lo && o <= range.hi) fn(k);
    }
  }
  return Status::OK();
}

// The keys of `range` counted in equal sub-ranges of 2^shift ordinals: this
// rank's counts and the sums over ranks.
struct Histogram {
  unsigned shift = 0;
  std::vector<uint64_t> local, sum;
};

template <class Key>
Result<Histogram> HistogramOf(const Comm& comm, ValueStore& store, const LocalIds& ids,
                              const KeyCodec<Key>& codec, const KeyRange& range) {
  Histogram h;
  const unsigned width = BitWidth(range.hi - range.lo);
  h.shift = width > kHistogramBits ? width - kHistogramBits : 0;
  h.local.assign(static_cast<size_t>(((range.hi - range.lo) >> h.shift) + 1), 0);
  const Status st = ForEachKeyIn(store, ids, codec, range, [&](const Key& k) {
    ++h.local[static_cast<size_t>((KeyCodec<Key>::Ordinal(k) - range.lo) >> h.shift)];
  });
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));
  h.sum = comm.Allreduce<uint64_t>(h.local, MPI_SUM);
  return h;
}

// Consecutive histogram buckets [first, last] planned as one pass; or, with
// `refine`, one bucket too big on its own, to be histogrammed 16 bits finer.
struct BucketGroup {
  size_t first = 0, last = 0;
  bool refine = false;
};

// Groups the buckets greedily by their global count: at most cap · p keys a
// group, so at most `cap` on each rank after the exchange. A bucket above
// that on its own is to be refined. Groups are filled to 15/16 of that: the
// ranks' shares of a group are rarely exactly equal, and a group one rank
// holds more than `cap` of is halved (SplitToLocalCap), which costs a pass.
std::vector<BucketGroup> GroupByGlobalCount(const Histogram& h, uint64_t cap, uint64_t p) {
  const uint64_t fill = cap * p - cap * p / 16;
  std::vector<BucketGroup> groups;
  uint64_t sum = 0;
  bool open = false;
  for (size_t b = 0; b < h.sum.size(); ++b) {
    if ((h.sum[b] + p - 1) / p > cap && h.shift > 0) {
      groups.push_back({b, b, true});
      open = false;
      continue;
    }
    if (open && sum + h.sum[b] <= fill) {
      groups.back().last = b;
      sum += h.sum[b];
      continue;
    }
    groups.push_back({b, b, false});
    sum = h.sum[b];
    open = true;
  }
  return groups;
}

// Halves every group of which some rank holds more than `cap` keys (before
// the exchange), until no rank does; a single bucket that does is to be
// refined. One Allreduce of the groups' counts per round; every rank takes
// the same decisions.
void SplitToLocalCap(const Comm& comm, const Histogram& h, uint64_t cap,
                     std::vector<BucketGroup>* groups) {
  std::vector<uint64_t> before(h.local.size() + 1, 0);  // prefix sums of h.local
  for (size_t b = 0; b < h.local.size(); ++b) before[b + 1] = before[b] + h.local[b];
  for (bool split = true; split;) {
    std::vector<uint64_t> local;
    for (const BucketGroup& g : *groups) local.push_back(before[g.last + 1] - before[g.first]);
    const std::vector<uint64_t> most = comm.Allreduce<uint64_t>(local, MPI_MAX);
    std::vector<BucketGroup> next;
    split = false;
    for (size_t i = 0; i < groups->size(); ++i) {
      BucketGroup g = (*groups)[i];
      if (g.refine || most[i] <= cap || (g.first == g.last && h.shift == 0)) {
        next.push_back(g);
      } else if (g.first == g.last) {
        next.push_back({g.first, g.last, true});
      } else {
        const size_t mid = g.first + (g.last - g.first) / 2;
        next.push_back({g.first, mid, false});
        next.push_back({mid + 1, g.last, false});
        split = true;
      }
    }
    *groups = std::move(next);
  }
}

// Splits `range` into passes of at most `cap` keys on every rank, before the
// exchange and after it, appended to `passes` in key order. Collective: every
// decision is taken on global counts, so every rank makes the same ones.
template <class Key>
Status PlanPasses(const Comm& comm, ValueStore& store, const LocalIds& ids,
                  const KeyCodec<Key>& codec, const KeyRange& range, uint64_t cap,
                  std::vector<KeyRange>* passes, OutOfCoreSortStats* stats) {
  DSA_ASSIGN_OR_RETURN(Histogram h, HistogramOf(comm, store, ids, codec, range));
  ++stats->plan_scans;
  std::vector<BucketGroup> groups = GroupByGlobalCount(h, cap, comm.size());
  SplitToLocalCap(comm, h, cap, &groups);
  for (const BucketGroup& g : groups) {
    const u128 lo = range.lo + (u128{g.first} << h.shift);
    const u128 last = range.lo + (u128{g.last} << h.shift);  // the last bucket's first key
    const u128 hi = std::min(range.hi, last + ((u128{1} << h.shift) - 1));
    uint64_t global = 0, local = 0;
    for (size_t b = g.first; b <= g.last; ++b) {
      global += h.sum[b];
      local += h.local[b];
    }
    if (global == 0) continue;
    if (g.refine) {
      DSA_RETURN_IF_ERROR(PlanPasses(comm, store, ids, codec, {lo, hi, 0}, cap, passes, stats));
    } else {
      passes->push_back({lo, hi, local});
    }
  }
  return Status::OK();
}

// The buffers every pass reuses: memory whose pages are already faulted in.
// Fresh buffers each pass made the kernel zero pages for a fifth of F's time.
template <class Key>
struct PassBuffers {
  std::vector<Key> keys;   // the pass's keys, then its slice of the global order
  std::vector<Key> spare;  // the radix scratch, then the received keys
};

// This rank's keys in `pass`, sorted, into buffers->keys; a failed
// allocation is its Status (util/exception_status.h), which the ranks agree on.
template <class Key>
Status SelectSorted(ValueStore& store, const LocalIds& ids, const KeyCodec<Key>& codec,
                    const KeyRange& pass, unsigned threads, PassBuffers<Key>* buffers) {
  return CatchAsStatus("sort", [&] {
    std::vector<Key>& keys = buffers->keys;
    keys.clear();
    ReserveReusing(keys, pass.local);
    DSA_RETURN_IF_ERROR(
        ForEachKeyIn(store, ids, codec, pass, [&](const Key& k) { keys.push_back(k); }));
    // Scanned in store order, keys of consecutive ids ascend in id.
    const unsigned sorted_low_bits = ids.consecutive() ? codec.layout.id_bits : 0;
    SortKeys(&keys, KeyCodec<Key>::FromOrdinal(pass.lo), KeyCodec<Key>::FromOrdinal(pass.hi),
             sorted_low_bits, threads, &buffers->spare);
    return Status::OK();
  });
}

}  // namespace

template <class Key>
Result<OutOfCoreSortStats> OutOfCoreSort(const Comm& comm, ValueStore& store, const LocalIds& ids,
                                         const KeyCodec<Key>& codec,
                                         const OutOfCoreSortOptions& options,
                                         const SortedKeysSink<Key>& sink) {
  OutOfCoreSortStats stats;
  double t0 = MPI_Wtime();
  const unsigned key_bits = codec.layout.key_bits();
  const u128 top = key_bits >= 128 ? ~u128{0} : (u128{1} << key_bits) - 1;
  std::vector<KeyRange> passes;
  DSA_RETURN_IF_ERROR(
      PlanPasses(comm, store, ids, codec, {0, top, 0}, options.pass_keys, &passes, &stats));
  stats.passes = passes.size();
  PassBuffers<Key> buffers;
  for (const KeyRange& pass : passes) {
    const Status selected = SelectSorted(store, ids, codec, pass, options.threads, &buffers);
    // Also the interruption checkpoint of each pass.
    DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(selected));
    stats.local_sort += MPI_Wtime() - t0;
    DSA_ASSIGN_OR_RETURN(std::vector<Key> slice, SampleSort(comm, std::move(buffers.keys), key_bits,
                                                            &stats.sample_sort, &buffers.spare));
    DSA_RETURN_IF_ERROR(sink(slice));
    buffers.keys = std::move(slice);  // the next pass's keys buffer
    t0 = MPI_Wtime();
  }
  stats.local_sort += MPI_Wtime() - t0;
  return stats;
}

Result<std::vector<uint64_t>> CountValues(ValueStore& store, int64_t value_min, size_t buckets) {
  std::vector<uint64_t> counts(buckets, 0);
  std::vector<uint16_t> offsets;
  for (size_t b = 0; b < store.num_blocks(); ++b) {
    DSA_RETURN_IF_ERROR(store.ReadBlockOffsets(b, value_min, &offsets));
    for (uint16_t o : offsets) ++counts[o];
  }
  return counts;
}

std::vector<ValuePass> GroupPasses(const Comm& comm, const std::vector<uint64_t>& local_counts,
                                   uint64_t pass_ids) {
  const std::vector<uint64_t> most = comm.Allreduce<uint64_t>(local_counts, MPI_MAX);
  std::vector<ValuePass> passes;
  uint64_t in_pass = 0;
  for (size_t v = 0; v < most.size(); ++v) {
    if (most[v] > pass_ids) return {};
    if (passes.empty() || in_pass + most[v] > pass_ids) {
      passes.push_back({v, v});
      in_pass = 0;
    }
    passes.back().second = v + 1;
    in_pass += most[v];
  }
  return passes;
}

namespace {

// This rank's ids of the values [pass.first, pass.second), grouped by value
// into `ids` (sized for them), from one scan of the store. A block whose
// values all lie in the pass is scattered whole; of another, the positions
// of the pass's values are picked out first, without a branch (values in
// and out of a pass alternate unpredictably).
Status GroupPass(ValueStore& store, const GroupLayout& layout, const ValuePass& pass,
                 std::byte* ids) {
  const std::span<const uint64_t> local_counts = layout.local_counts;
  const int64_t value_min = layout.value_min;
  const size_t width = pass.second - pass.first;
  std::vector<uint64_t> pos(width);
  for (size_t v = 1; v < width; ++v) pos[v] = pos[v - 1] + local_counts[pass.first + v - 1];
  const int64_t lo = value_min + static_cast<int64_t>(pass.first);
  const int64_t hi = value_min + static_cast<int64_t>(pass.second - 1);
  const auto first_offset = static_cast<uint16_t>(pass.first);
  std::vector<uint16_t> offsets, picked;
  std::vector<uint32_t> at;
  for (size_t b = 0; b < store.num_blocks(); ++b) {
    if (store.block_max(b) < lo || store.block_min(b) > hi) continue;
    DSA_RETURN_IF_ERROR(store.ReadBlockOffsets(b, value_min, &offsets));
    const int64_t first = layout.first_id + static_cast<int64_t>(store.block_begin(b));
    if (store.block_min(b) >= lo && store.block_max(b) <= hi) {
      ScatterIds(offsets, {}, first_offset, first, layout.id_bytes, &pos, ids);
      continue;
    }
    picked.resize(offsets.size());
    at.resize(offsets.size());
    size_t n = 0;
    for (size_t i = 0; i < offsets.size(); ++i) {
      picked[n] = offsets[i];
      at[n] = static_cast<uint32_t>(i);
      n += static_cast<uint16_t>(offsets[i] - first_offset) < width;  // below wraps high
    }
    ScatterIds(std::span(picked).first(n), std::span(at).first(n), first_offset, first,
               layout.id_bytes, &pos, ids);
  }
  return Status::OK();
}

}  // namespace

Result<OutOfCoreSortStats> GroupOutOfCore(const Comm& comm, ValueStore& store,
                                          const GroupLayout& layout,
                                          const std::vector<ValuePass>& passes,
                                          const GroupedIdsSink& sink) {
  OutOfCoreSortStats stats;
  stats.passes = passes.size();
  double t0 = MPI_Wtime();
  const std::span<const uint64_t> counts = layout.local_counts;
  uint64_t most = 0;  // this rank's most ids in one pass
  for (const ValuePass& p : passes)
    most = std::max(
        most, std::accumulate(counts.begin() + p.first, counts.begin() + p.second, uint64_t{0}));
  std::vector<int64_t> buffer;
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(CatchAsStatus("sort", [&] {
    buffer = HugePageVector<int64_t>((most * layout.id_bytes + 7) / 8);
    return Status::OK();
  })));
  auto* ids = reinterpret_cast<std::byte*>(buffer.data());
  for (const ValuePass& pass : passes) {
    const Status grouped =
        CatchAsStatus("sort", [&] { return GroupPass(store, layout, pass, ids); });
    DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(grouped));  // also each pass's interruption checkpoint
    stats.local_sort += MPI_Wtime() - t0;
    DSA_RETURN_IF_ERROR(sink(pass.first, pass.second, ids));
    t0 = MPI_Wtime();
  }
  stats.local_sort += MPI_Wtime() - t0;
  return stats;
}

template Result<OutOfCoreSortStats> OutOfCoreSort(const Comm&, ValueStore&, const LocalIds&,
                                                  const KeyCodec<uint64_t>&,
                                                  const OutOfCoreSortOptions&,
                                                  const SortedKeysSink<uint64_t>&);
template Result<OutOfCoreSortStats> OutOfCoreSort(const Comm&, ValueStore&, const LocalIds&,
                                                  const KeyCodec<WideKey>&,
                                                  const OutOfCoreSortOptions&,
                                                  const SortedKeysSink<WideKey>&);

}  // namespace dsanalyze
