// Runs the out-of-core sort (sort/out_of_core_sort.h) on its own under
// mpiexec -n k. Each case gives every rank its share of a global list of
// values (a function of the position, so the list is the same for any k),
// stores them in a ValueStore of tiny blocks that spills to a scratch
// directory, sorts them in passes of a few thousand keys and writes the
// index files through IndexGather with the distinct count deferred. The same
// values also go the in-memory way (SortPairs, SampleSort, WriteIndexFiles).
// Checked: the two runs' files are byte-identical; the files hold the rows
// docs/format.md §2.2-2.3 define, computed here from the global list; the
// sort took several passes (and, for the skewed case, refined its plan); the
// store spilled; sample_to_metric from the store equals the one from memory;
// nothing is left in the scratch directory. For consecutive ids and at most
// 2^16 values, the grouped out-of-core run (GroupOutOfCore) too: its files
// byte-identical to the in-memory run's, in several passes, and none planned
// when a value alone is bigger than a pass. Cases: many values, one value,
// a heavy value among 40-bit values, wide keys with explicit ids above 2^32,
// no samples, fewer samples than ranks.
// Exits non-zero if any check failed, naming each failure.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "comm/oversubscription.h"
#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "index/gather_write.h"
#include "index/group_write.h"
#include "sort/local_sort.h"
#include "sort/out_of_core_sort.h"
#include "sort/sample_sort.h"
#include "sort/sort_key.h"
#include "sort/value_store.h"
#include "support/mpi_check.h"
#include "support/shared_temp_dir.h"
#include "util/work_split.h"

namespace dsanalyze {
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

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The names of the files in `dir` (rank 0).
std::vector<std::string> FileNames(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Rows of PREFIX as int64 (rank 0).
std::vector<std::vector<int64_t>> Rows(const std::string& prefix) {
  std::vector<std::vector<int64_t>> rows;
  Result<IndexedDataset> ds = IndexedDataset::Open(prefix);
  if (!ds.ok()) return rows;
  for (uint64_t i = 0; i < ds->num_rows(); ++i) {
    const ElementView view = ds->row(i);
    std::vector<int64_t>& row = rows.emplace_back();
    VisitIntDType(view.dtype, [&](auto t) {
      for (auto x : view.as<decltype(t)>()) row.push_back(static_cast<int64_t>(x));
    });
  }
  return rows;
}

// The index_to_sample rows docs/format.md §2.2 defines, from the global list.
std::vector<std::vector<int64_t>> ExpectedSampleRows(const Case& c) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (uint64_t i = 0; i < c.n; ++i)
    pairs.emplace_back(c.value(i), c.id ? c.id(i) : static_cast<int64_t>(i));
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::vector<int64_t>> rows;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || pairs[i].first != pairs[i - 1].first) rows.emplace_back();
    rows.back().push_back(pairs[i].second);
  }
  return rows;
}

struct Local {
  std::vector<int64_t> values, ids;
  LocalIds local_ids;
  KeyLayout layout;
  DType metric_dtype = DType::kU8, sample_dtype = DType::kU8;
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
    const int64_t id = c.id ? c.id(i) : static_cast<int64_t>(i);
    imin = std::min(imin, id);
    imax = std::max(imax, id);
  }
  if (c.n == 0) vmin = vmax = imin = imax = 0;
  l.layout = MakeKeyLayout(vmin, vmax, imin, imax);
  l.metric_dtype = FitIntDType(vmin, vmax);
  l.sample_dtype = FitIntDType(std::min<int64_t>(0, imin), imax);
  return l;
}

IndexFilePrefixes Prefixes(const std::string& dir) {
  return {dir + "/index_to_metric", dir + "/index_to_sample",
          dir + "/index_to_sample_percentile_merged"};
}

template <class Key>
void RunInMemory(const Comm& comm, const Local& l, const std::string& dir) {
  const KeyCodec<Key> codec{l.layout};
  std::vector<Key> keys = SortPairs(std::vector<int64_t>(l.values), l.local_ids, codec, 1);
  keys = SampleSort(comm, std::move(keys), l.layout.key_bits(), nullptr);
  const Status st = WriteIndexFiles(comm, keys, codec, Prefixes(dir), l.metric_dtype,
                                    l.sample_dtype, WriteOptions{});
  Check(comm, st.ok(), "in memory: " + st.message());
  const Status s2 =
      WriteOrderedScalars(comm, l.values, dir + "/sample_to_metric", l.metric_dtype, {});
  Check(comm, s2.ok(), "in memory sample_to_metric: " + s2.message());
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

template <class Key>
OutOfCoreSortStats RunOutOfCore(const Comm& comm, const Case& c, const Local& l,
                                const std::string& dir, const std::string& scratch,
                                uint64_t* spilled) {
  ValueStore store(2000, scratch, 700);
  FillStore(comm, c, l, &store);
  *spilled = store.spilled_bytes();
  const KeyCodec<Key> codec{l.layout};
  WriteOptions options;
  options.chunk_bytes = 512;
  IndexGather<Key> gather(comm, codec, options);
  Status st = gather.Open(Prefixes(dir), l.metric_dtype, l.sample_dtype, std::nullopt, scratch);
  StageClock clock;
  clock.Start();
  OutOfCoreSortStats stats;
  if (st.ok())
    st = OutOfCoreSort(comm, store, l.local_ids, codec, {c.pass_keys, 2}, gather, clock, &stats);
  if (st.ok()) st = gather.Finish();
  Check(comm, st.ok(), c.name + ": out of core: " + st.message());
  st = WriteOrderedScalars(comm, store, dir + "/sample_to_metric", l.metric_dtype, options);
  Check(comm, st.ok(), c.name + ": sample_to_metric from the store: " + st.message());
  return stats;
}

// The grouped out-of-core run (CountValues, GroupPasses, GroupOutOfCore) into
// `dir`, for consecutive ids and at most 2^16 values, in passes of at most
// c.pass_keys ids. Returns the number of passes; 0 when GroupPasses found a
// value too big for a pass (then nothing is written).
size_t RunGroupedOutOfCore(const Comm& comm, const Case& c, const Local& l, const std::string& dir,
                           const std::string& scratch) {
  ValueStore store(2000, scratch, 700);
  FillStore(comm, c, l, &store);
  const int64_t vmin = l.layout.value_min;
  const size_t buckets = (size_t{1} << l.layout.value_bits);
  Result<std::vector<uint64_t>> counts = CountValues(store, vmin, buckets);
  Status st = comm.AgreeOnStatus(counts.status());
  Check(comm, st.ok(), c.name + ": grouped: count: " + st.message());
  if (!st.ok()) return 0;
  const std::vector<ValuePass> passes = GroupPasses(comm, *counts, c.pass_keys);
  if (passes.empty()) return 0;
  WriteOptions options;
  GroupedIndexWriter writer(comm, options);
  const size_t id_bytes = ItemSize(l.sample_dtype);
  st = writer.Open(Prefixes(dir), vmin, *counts, id_bytes);
  StageClock clock;
  clock.Start();
  if (st.ok())
    st = GroupOutOfCore(comm, store, l.local_ids.first_id, vmin, *counts, passes, id_bytes, writer,
                        clock);
  if (st.ok()) st = writer.Finish(l.metric_dtype, l.sample_dtype);
  Check(comm, st.ok(), c.name + ": grouped out of core: " + st.message());
  st = WriteOrderedScalars(comm, store, dir + "/sample_to_metric", l.metric_dtype, options);
  Check(comm, st.ok(), c.name + ": grouped: sample_to_metric: " + st.message());
  return passes.size();
}

// Rank 0's comparison of the two runs' folders; an error text, empty if none.
std::string CompareFolders(const Case& c, const std::string& a, const std::string& b) {
  if (FileNames(a) != FileNames(b)) return "the folders hold different files";
  for (const std::string& name : FileNames(a))
    if (ReadFile(a + "/" + name) != ReadFile(b + "/" + name)) return name + " differs";
  if (Rows(b + "/index_to_sample") != ExpectedSampleRows(c))
    return "index_to_sample's rows are not the sorted (value, id) list's";
  return "";
}

template <class Key>
void RunCase(const Comm& comm, const std::string& root, const Case& c) {
  const Local l = MakeLocal(comm, c);
  Check(comm, l.layout.fits_u64() == std::is_same_v<Key, uint64_t>,
        c.name + ": the layout needs this key type");
  const std::string a = root + "/" + c.name + "-memory", b = root + "/" + c.name + "-ooc";
  const std::string scratch = root + "/scratch-" + std::to_string(comm.rank());
  std::filesystem::create_directories(scratch);
  if (comm.is_root()) {
    std::filesystem::create_directories(a);
    std::filesystem::create_directories(b);
  }
  comm.Barrier();
  RunInMemory<Key>(comm, l, a);
  uint64_t spilled = 0;
  const OutOfCoreSortStats stats = RunOutOfCore<Key>(comm, c, l, b, scratch, &spilled);
  const uint64_t most = comm.Allreduce<uint64_t>(l.values.size(), MPI_MAX);
  Check(comm, most <= 2000 || spilled > 0, c.name + ": the store spilled nothing");
  const uint64_t min_passes = c.n / comm.size() / c.pass_keys;
  Check(comm, stats.passes >= min_passes,
        c.name + ": " + std::to_string(stats.passes) + " passes, expected at least " +
            std::to_string(min_passes));
  if (c.expect_refined)
    Check(comm, stats.plan_scans > 1, c.name + ": the skewed plan was not refined");
  Check(comm, std::filesystem::is_empty(scratch), c.name + ": the scratch directory is not empty");
  const std::string err = comm.is_root() ? CompareFolders(c, a, b) : "";
  Check(comm, err.empty(), c.name + ": " + err);
  if (c.id || l.layout.value_bits > 16) return;  // not grouped
  const std::string g = root + "/" + c.name + "-grouped";
  if (comm.is_root()) std::filesystem::create_directories(g);
  comm.Barrier();
  const size_t passes = RunGroupedOutOfCore(comm, c, l, g, scratch);
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
  const std::string gerr = comm.is_root() ? CompareFolders(c, a, g) : "";
  Check(comm, gerr.empty(), c.name + ": grouped: " + gerr);
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
}  // namespace dsanalyze

int main(int argc, char** argv) {
  using namespace dsanalyze;
  MpiEnvironment env(&argc, &argv);
  const Comm comm;
  HandleOversubscription(comm, false);  // as the tool does: waiting ranks yield
  const std::string root = test::MakeSharedTempDir(comm, "ooc_sort_test");
  test::Check(comm, !root.empty(), "mkdtemp");
  if (!root.empty()) RunCases(comm, root);
  comm.Barrier();
  if (comm.is_root() && !root.empty()) std::filesystem::remove_all(root);
  if (comm.is_root())
    std::printf("out_of_core_sort_mpi_test on %d ranks: %s\n", comm.size(),
                test::mpi_check_failures ? "FAILED" : "all checks passed");
  return test::mpi_check_failures ? 1 : 0;
}
