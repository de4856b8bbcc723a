// Runs the out-of-core sort (sort/out_of_core_sort.h) on its own under
// mpiexec -n k. Each case gives every rank its share of a global list of
// values (a function of the position, so the list is the same for any k),
// stores them in a ValueStore of tiny blocks that spills to a scratch
// directory, and sorts them in passes of a few thousand keys into a sink that
// checks what it is handed. Checked: the slices, pass after pass and rank
// after rank, are the global (value, id) key order computed here from the
// list; no rank's slice of a pass holds more than the pass's keys; the sort
// took several passes (and, for the skewed case, refined its plan); the store
// spilled; nothing is left in the scratch directory. For consecutive ids and
// at most 2^16 values, the grouped out-of-core run (CountValues, GroupPasses,
// GroupOutOfCore) too: each rank's count of each value, and its ids of each
// value, ascending, handed over range by range in value order, in several
// passes; none planned when a value alone is bigger than a pass. Cases: many
// values, one value, a heavy value among 40-bit values, wide keys with
// explicit ids above 2^32, no samples, fewer samples than ranks.
// Exits non-zero if any check failed, naming each failure.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "sort/local_sort.h"
#include "sort/out_of_core_sort.h"
#include "sort/sort_key.h"
#include "sort/value_store.h"
#include "support/mpi_suite.h"
#include "support/shared_temp_dir.h"
#include "util/work_split.h"

namespace dsanalyze::out_of_core_sort_test {
namespace {

using test::Check;

struct Case {
  std::string name;
  uint64_t n = 0;
  std::function<int64_t(uint64_t)> value;  // of global position i
  std::function<int64_t(uint64_t)> id;     // null: the position
  uint64_t pass_keys = 2000;
  bool expect_refined = false;  // the plan needs a second histogram
  bool expect_too_big = false;  // a value has more ids than a grouped pass holds
};

int64_t IdOf(const Case& c, uint64_t i) { return c.id ? c.id(i) : static_cast<int64_t>(i); }

struct Local {
  std::vector<int64_t> values, ids;
  LocalIds local_ids;
  KeyLayout layout;
};

Local MakeLocal(const Comm& comm, const Case& c) {
  Local l;
  const SampleRange r = SplitRange({0, c.n}, comm.size(), comm.rank());
  for (uint64_t i = r.begin; i < r.end; ++i) {
    l.values.push_back(c.value(i));
    if (c.id) l.ids.push_back(c.id(i));
  }
  l.local_ids.first_id = static_cast<int64_t>(r.begin);
  l.local_ids.explicit_ids = l.ids;
  int64_t vmin = INT64_MAX, vmax = INT64_MIN, imin = INT64_MAX, imax = INT64_MIN;
  for (uint64_t i = 0; i < c.n; ++i) {
    vmin = std::min(vmin, c.value(i));
    vmax = std::max(vmax, c.value(i));
    imin = std::min(imin, IdOf(c, i));
    imax = std::max(imax, IdOf(c, i));
  }
  if (c.n == 0) vmin = vmax = imin = imax = 0;
  l.layout = MakeKeyLayout({vmin, vmax}, {imin, imax});
  return l;
}

// The global order: every (value, id) pair of the list as a key, sorted.
template <class Key>
std::vector<Key> ExpectedKeys(const Case& c, const KeyCodec<Key>& codec) {
  std::vector<Key> keys;
  for (uint64_t i = 0; i < c.n; ++i) keys.push_back(codec.Encode(c.value(i), IdOf(c, i)));
  std::sort(keys.begin(), keys.end());
  return keys;
}

// The rank's values in a store that keeps a few blocks of 700 in memory and
// spills the rest, appended in pieces that do not line up with the blocks.
void FillStore(const Comm& comm, const Case& c, const Local& l, ValueStore* store) {
  Status appended;
  for (size_t at = 0; appended.ok() && at < l.values.size(); at += 1234)
    appended = store->Append(
        std::span(l.values).subspan(at, std::min<size_t>(1234, l.values.size() - at)));
  if (appended.ok()) appended = store->Seal();
  Check(comm, appended.ok(), c.name + ": append: " + appended.message());
}

// What a sink saw that it should not have; empty if nothing.
struct SinkLog {
  uint64_t handed = 0;  // keys (or ids) handed to the sink on every rank so far
  std::string error;
  void Fail(const std::string& what) {
    if (error.empty()) error = what;
  }
};

// Sorts out of core into a sink that checks each pass's slice against the
// expected global order: this rank's slice starts after every earlier pass's
// keys and the lower ranks' keys of this pass.
template <class Key>
OutOfCoreSortStats RunOutOfCore(const Comm& comm, const Case& c, const Local& l,
                                const std::string& scratch, uint64_t* spilled) {
  ValueStore store(2000, scratch, 700);
  FillStore(comm, c, l, &store);
  *spilled = store.spilled_bytes();
  const KeyCodec<Key> codec{l.layout};
  const std::vector<Key> expected = ExpectedKeys(c, codec);
  SinkLog log;
  const SortedKeysSink<Key> check = [&](const std::vector<Key>& slice) {
    const std::vector<uint64_t> sizes = comm.Allgather<uint64_t>(slice.size());
    uint64_t at = log.handed;
    for (int r = 0; r < comm.rank(); ++r) at += sizes[r];
    for (uint64_t s : sizes) log.handed += s;
    if (slice.size() > c.pass_keys)
      log.Fail("a slice of " + std::to_string(slice.size()) + " keys, more than a pass");
    if (log.handed > expected.size() ||
        !std::equal(slice.begin(), slice.end(), expected.begin() + static_cast<ptrdiff_t>(at)))
      log.Fail("a slice is not its part of the global order (at " + std::to_string(at) + ")");
    return Status::OK();
  };
  Result<OutOfCoreSortStats> stats =
      OutOfCoreSort(comm, store, l.local_ids, codec, {c.pass_keys, 2}, check);
  Check(comm, stats.ok(), c.name + ": out of core: " + stats.status().message());
  Check(comm, log.error.empty(), c.name + ": out of core: " + log.error);
  Check(
      comm, log.handed == c.n,
      c.name + ": the sink got " + std::to_string(log.handed) + " keys of " + std::to_string(c.n));
  return stats.ok() ? *stats : OutOfCoreSortStats{};
}

// This rank's ids of each value offset v, ascending.
std::vector<std::vector<uint64_t>> LocalGroups(const Local& l, size_t buckets) {
  std::vector<std::vector<uint64_t>> groups(buckets);
  for (size_t i = 0; i < l.values.size(); ++i)
    groups[static_cast<size_t>(l.values[i] - l.layout.value_min)].push_back(
        static_cast<uint64_t>(l.local_ids.first_id) + i);
  return groups;
}

// Checks one handed range [first, end) of grouped ids against `groups`.
void CheckGroups(const std::vector<std::vector<uint64_t>>& groups, size_t first, size_t end,
                 const std::byte* ids, size_t id_bytes, SinkLog* log) {
  if (first != log->handed) log->Fail("a range starts at " + std::to_string(first));
  log->handed = end;
  for (size_t v = first; v < end && v < groups.size(); ++v) {
    for (uint64_t want : groups[v]) {
      uint64_t got = 0;
      std::memcpy(&got, ids, id_bytes);  // little-endian: the low bytes
      ids += id_bytes;
      if (got != want)
        log->Fail("value offset " + std::to_string(v) + ": id " + std::to_string(got) +
                  ", expected " + std::to_string(want));
    }
  }
}

// The grouped out-of-core run, for consecutive ids and at most 2^16 values,
// in passes of at most c.pass_keys ids. Returns the number of passes; 0 when
// GroupPasses found a value too big for a pass (then nothing is grouped).
size_t RunGroupedOutOfCore(const Comm& comm, const Case& c, const Local& l,
                           const std::string& scratch) {
  ValueStore store(2000, scratch, 700);
  FillStore(comm, c, l, &store);
  const size_t buckets = size_t{1} << l.layout.value_bits;
  const std::vector<std::vector<uint64_t>> groups = LocalGroups(l, buckets);
  Result<std::vector<uint64_t>> counts = CountValues(store, l.layout.value_min, buckets);
  Check(comm, counts.ok(), c.name + ": grouped: count: " + counts.status().message());
  if (!counts.ok()) return 0;
  bool counted = counts->size() == buckets;
  for (size_t v = 0; counted && v < buckets; ++v) counted = (*counts)[v] == groups[v].size();
  Check(comm, counted, c.name + ": grouped: CountValues miscounted");
  const std::vector<ValuePass> passes = GroupPasses(comm, *counts, c.pass_keys);
  if (passes.empty()) return 0;
  const size_t id_bytes = 4;
  SinkLog log;
  const GroupedIdsSink check = [&](size_t first, size_t end, const std::byte* ids) {
    CheckGroups(groups, first, end, ids, id_bytes, &log);
    return Status::OK();
  };
  const GroupLayout layout{l.local_ids.first_id, l.layout.value_min, *counts, id_bytes};
  const Result<OutOfCoreSortStats> stats = GroupOutOfCore(comm, store, layout, passes, check);
  Check(comm, stats.ok(), c.name + ": grouped: " + stats.status().message());
  Check(comm, log.error.empty(), c.name + ": grouped: " + log.error);
  Check(comm, log.handed == buckets, c.name + ": grouped: not every value was handed over");
  Check(comm, stats.ok() && stats->passes == passes.size(),
        c.name + ": grouped: stats count another number of passes");
  return passes.size();
}

template <class Key>
void RunCase(const Comm& comm, const std::string& root, const Case& c) {
  const Local l = MakeLocal(comm, c);
  Check(comm, l.layout.fits_u64() == std::is_same_v<Key, uint64_t>,
        c.name + ": the layout needs this key type");
  const std::string scratch = root + "/scratch-" + std::to_string(comm.rank());
  std::filesystem::create_directories(scratch);
  uint64_t spilled = 0;
  const OutOfCoreSortStats stats = RunOutOfCore<Key>(comm, c, l, scratch, &spilled);
  const uint64_t most = comm.Allreduce<uint64_t>(l.values.size(), MPI_MAX);
  Check(comm, most <= 2000 || spilled > 0, c.name + ": the store spilled nothing");
  const uint64_t min_passes = c.n / comm.size() / c.pass_keys;
  Check(comm, stats.passes >= min_passes,
        c.name + ": " + std::to_string(stats.passes) + " passes, expected at least " +
            std::to_string(min_passes));
  if (c.expect_refined)
    Check(comm, stats.plan_scans > 1, c.name + ": the skewed plan was not refined");
  Check(comm, std::filesystem::is_empty(scratch), c.name + ": the scratch directory is not empty");
  if (c.id || l.layout.value_bits > 16) return;  // not grouped
  const size_t passes = RunGroupedOutOfCore(comm, c, l, scratch);
  if (c.expect_too_big) {
    Check(comm, passes == 0,
          c.name + ": grouped: planned " + std::to_string(passes) +
              " passes for a value bigger than a pass");
    return;
  }
  Check(comm, passes >= std::max<uint64_t>(min_passes, 1),
        c.name + ": grouped: " + std::to_string(passes) + " passes, expected at least " +
            std::to_string(min_passes));
  Check(comm, std::filesystem::is_empty(scratch), c.name + ": grouped: the scratch is not empty");
}

uint64_t Mix(uint64_t i) { return (i * 0x9E3779B97F4A7C15ULL) >> 20; }

void RunCases(const Comm& comm, const std::string& root) {
  RunCase<uint64_t>(
      comm, root,
      {"mod 997", 60000, [](uint64_t i) { return int64_t((i * 7 + 3) % 997); }, nullptr, 3000});
  RunCase<uint64_t>(
      comm, root,
      {"one value", 30000, [](uint64_t) { return int64_t{5}; }, nullptr, 2500, false, true});
  // Few ranks hold a value's ids: groups of one value from several ranks, and
  // passes that end between any two values.
  RunCase<uint64_t>(
      comm, root,
      {"runs of 5000", 40000, [](uint64_t i) { return int64_t(i / 5000 * 3 - 7); }, nullptr, 6000});
  RunCase<uint64_t>(
      comm, root,
      {"heavy value in 40 bits", 40000,
       [](uint64_t i) { return i % 10 ? int64_t{0} : int64_t(Mix(i) % (uint64_t{1} << 40)); },
       nullptr, 2000, true});
  RunCase<WideKey>(
      comm, root,
      {"wide keys, ids above 2^32", 20000,
       [](uint64_t i) { return int64_t(Mix(i) << 18) - (int64_t{1} << 61); },
       [](uint64_t i) { return int64_t((uint64_t{1} << 33) + (i * 7919) % 20011 * 3); }, 1500});
  RunCase<uint64_t>(comm, root, {"no samples", 0, [](uint64_t) { return int64_t{1}; }, nullptr});
  RunCase<uint64_t>(comm, root, {"one sample", 1, [](uint64_t) { return int64_t{-3}; }, nullptr});
}

}  // namespace
}  // namespace dsanalyze::out_of_core_sort_test

DSA_MPI_SUITE(out_of_core_sort) {
  using namespace dsanalyze;
  using namespace dsanalyze::out_of_core_sort_test;
  const std::string root = test::MakeSharedTempDir(comm, "ooc_sort_test");
  test::Check(comm, !root.empty(), "mkdtemp");
  if (!root.empty()) RunCases(comm, root);
  comm.Barrier();
  if (comm.is_root() && !root.empty()) std::filesystem::remove_all(root);
}
