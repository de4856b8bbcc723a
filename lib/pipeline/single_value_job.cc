// The single-value metric job (metric_jobs.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "index/group_write.h"
#include "index/scalar_rows.h"
#include "output/analysis_layout.h"
#include "pipeline/global_reduce.h"
#include "pipeline/index_path.h"
#include "pipeline/metric_jobs.h"
#include "pipeline/rank_bins.h"
#include "pipeline/rank_sums.h"
#include "sort/local_sort.h"
#include "sort/out_of_core_sort.h"
#include "sort/sample_sort.h"
#include "util/exception_status.h"
#include "util/fault_point.h"
#include "util/interrupt.h"

namespace dsanalyze {
namespace {

// The prefix of a chosen file (output.files), else "" (not written).
std::string ChosenPrefix(const RunState& run, const PlannedMetric& m, std::string_view kind) {
  return WritesKind(run.config.output.files, kind) ? run.FilePrefix(m.name(), kind) : "";
}

// Collective.
IdOrder IdOrderOf(const Comm& comm, const LocalIds& ids, uint64_t count) {
  struct IdSpan {
    uint64_t count;
    int64_t min, max;
    bool consecutive;
  } local{count, 0, 0, ids.consecutive()};
  if (count > 0 && ids.consecutive()) {
    local.min = ids.first_id;
    local.max = ids.first_id + static_cast<int64_t>(count) - 1;
  } else if (count > 0) {
    const auto [mn, mx] = std::minmax_element(ids.explicit_ids.begin(), ids.explicit_ids.end());
    local.min = *mn;
    local.max = *mx;
  }
  IdOrder order{true, true};
  std::optional<int64_t> below;  // the previous non-empty rank's largest id
  for (const IdSpan& s : comm.Allgather(local)) {
    order.consecutive = order.consecutive && s.consecutive;
    if (s.count == 0) continue;
    if (below && s.min <= *below) order.ascending_by_rank = false;
    below = s.max;
  }
  order.consecutive = order.consecutive && order.ascending_by_rank;
  return order;
}

// The grouped out-of-core passes (sort/out_of_core_sort.h GroupPasses) and
// the counts they were planned on.
struct GroupPlan {
  std::vector<uint64_t> counts;
  std::vector<ValuePass> passes;  // empty: a value has more ids than a pass holds
};

// What the index writing of one metric works from, the same on every rank.
struct IndexJob {
  IndexPath path = IndexPath::kSampleSort;
  ValueRange values{};
  KeyLayout layout;
  IndexFilesSpec files;
  GroupPlan grouped;  // IndexPath::kGroupedOutOfCore only
};

// What a failure of the metric's local sort reports itself as.
std::string SortStage(const PlannedMetric& m) { return "sort of metric " + m.name(); }

// Times the sort measured itself, onto the run's clock; the clock then
// starts anew.
void AddSortTimes(StageClock& clock, double local_sort, const SampleSortTimes& times) {
  clock.Add(kStageLocalSort, local_sort);
  clock.Add(kStageSplitters, times.splitters);
  clock.Add(kStageExchange, times.exchange);
  clock.Add(kStageMerge, times.merge);
  clock.Restart();
}

// IndexPath::kGrouped: groups each rank's ids by value and has every rank
// write its own groups (index/group_write.h).
Status GroupAndIndex(RunState& run, PlannedMetric& m, const IndexJob& job) {
  run.Begin("sort", m.name() + ": sort");
  IdGroups groups;
  // Also the interruption checkpoint after the sort.
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(CatchAsStatus(SortStage(m), [&] {
    FaultPoint("sort");  // test-only (util/fault_point.h)
    groups =
        GroupIdsByValue(std::move(m.map.values), run.samples.local_ids.first_id, job.values.min,
                        static_cast<size_t>(job.values.max - job.values.min) + 1,
                        ItemSize(run.samples.id_dtype), run.config.map.threads);
    return Status::OK();
  })));
  run.clock.Lap(kStageLocalSort);
  run.Begin("write", m.name() + ": write", run.samples.count, "keys");
  Status st = WriteIndexFilesFromGroups(run.comm, groups, job.files);
  run.clock.Lap(kStageWrite);
  return st;
}

// IndexPath::kRankOrdered and kSampleSort: sorts the metric's (value, id)
// pairs on each rank, across the ranks unless rank ordered, and writes its
// index files from rank 0.
template <class Key>
Status SortAndIndex(RunState& run, PlannedMetric& m, const IndexJob& job) {
  const KeyCodec<Key> codec{job.layout};
  run.Begin("sort", m.name() + ": sort");
  std::vector<Key> keys;
  // Also the interruption checkpoint after the sort.
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(CatchAsStatus(SortStage(m), [&] {
    FaultPoint("sort");  // test-only (util/fault_point.h)
    keys = SortPairs(std::move(m.map.values), run.samples.local_ids, codec, run.config.map.threads);
    return Status::OK();
  })));
  run.clock.Lap(kStageLocalSort);

  if (job.path == IndexPath::kSampleSort) {
    run.Begin("exchange", m.name() + ": exchange");
    SampleSortTimes times;
    // Collective, with its own interruption checkpoint (sample_sort.h).
    DSA_ASSIGN_OR_RETURN(keys,
                         SampleSort(run.comm, std::move(keys), job.layout.key_bits(), &times));
    AddSortTimes(run.clock, 0, times);
  }
  run.Begin("write", m.name() + ": write", run.samples.count, "keys");
  Status st = job.path == IndexPath::kSampleSort
                  ? WriteIndexFiles(run.comm, keys, codec, job.files)
                  : WriteIndexFilesRankOrdered(run.comm, keys, codec, job.files);
  run.clock.Lap(kStageWrite);
  return st;
}

// IndexPath::kSortedOutOfCore: the out-of-core sort (sort/out_of_core_sort.h)
// of the metric's stored values, straight into its index files.
template <class Key>
Status SortOutOfCoreAndIndex(RunState& run, PlannedMetric& m, const IndexJob& job) {
  const KeyCodec<Key> codec{job.layout};
  run.Begin("sort", m.name() + ": sort and write", run.samples.count, "keys");
  FaultPoint("sort");  // test-only (util/fault_point.h)
  IndexGather<Key> gather(run.comm, codec, job.files.options);
  DSA_RETURN_IF_ERROR(gather.Open(job.files.prefixes, job.files.metric_dtype,
                                  job.files.sample_dtype, std::nullopt, run.memory.scratch));
  const OutOfCoreSortOptions options{run.memory.pass_keys, run.config.map.threads};
  run.clock.Lap(kStageLocalSort);
  const SortedKeysSink<Key> append = [&](const std::vector<Key>& slice) {
    run.clock.Restart();  // the sort's own time is in its stats
    const Status st = gather.Add(slice);
    run.clock.Lap(kStageWrite);
    return st;
  };
  DSA_ASSIGN_OR_RETURN(
      const OutOfCoreSortStats stats,
      OutOfCoreSort(run.comm, *m.map.store, run.samples.local_ids, codec, options, append));
  AddSortTimes(run.clock, stats.local_sort, stats.sample_sort);
  m.job.sort_passes = stats.passes;
  m.map.store.reset();  // frees its memory and scratch file before the next metric
  Status st = gather.Finish();
  run.clock.Lap(kStageWrite);
  if (run.comm.is_root())
    spdlog::info("metric {}: sorted out of core in {} pass(es), {} histogram scan(s)", m.name(),
                 stats.passes, stats.plan_scans);
  return st;
}

// The passes of IndexPath::kGroupedOutOfCore, from one count of the stored
// values. A keyed pass holds two 8-byte keys per pass key; a grouped one, one id.
Result<GroupPlan> PlanGroupedPasses(RunState& run, PlannedMetric& m, const ValueRange& values) {
  run.Begin("sort", m.name() + ": sort and write", run.samples.count, "keys");
  FaultPoint("sort");  // test-only (util/fault_point.h)
  const size_t buckets = static_cast<size_t>(values.max - values.min) + 1;
  Result<std::vector<uint64_t>> counts = CountValues(*m.map.store, values.min, buckets);
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(counts.status()));
  const uint64_t pass_ids = run.memory.pass_keys * 16 / ItemSize(run.samples.id_dtype);
  GroupPlan plan{std::move(counts).value(), {}};
  plan.passes = GroupPasses(run.comm, plan.counts, pass_ids);
  return plan;
}

// IndexPath::kGroupedOutOfCore: the out-of-core grouping (GroupOutOfCore) of
// the metric's stored values into its index files, every rank writing its
// own groups.
Status GroupOutOfCoreAndIndex(RunState& run, PlannedMetric& m, const IndexJob& job) {
  const size_t id_bytes = ItemSize(run.samples.id_dtype);
  run.clock.Lap(kStageLocalSort);
  GroupedIndexWriter writer(run.comm, job.files.options);
  DSA_RETURN_IF_ERROR(
      writer.Open(job.files.prefixes, job.values.min, job.grouped.counts, id_bytes));
  const GroupLayout layout{run.samples.local_ids.first_id, job.values.min, job.grouped.counts,
                           id_bytes};
  const GroupedIdsSink write = [&](size_t first, size_t end, const std::byte* ids) {
    run.clock.Restart();  // the grouping's own time is in its stats
    const Status st = writer.Write(first, end, ids);
    run.clock.Lap(kStageWrite);
    return st;
  };
  DSA_ASSIGN_OR_RETURN(const OutOfCoreSortStats stats,
                       GroupOutOfCore(run.comm, *m.map.store, layout, job.grouped.passes, write));
  AddSortTimes(run.clock, stats.local_sort, {});
  m.job.sort_passes = stats.passes;
  m.map.store.reset();  // frees its memory and scratch file before the next metric
  const Status st = writer.Finish(job.files.metric_dtype, job.files.sample_dtype);
  run.clock.Lap(kStageWrite);
  if (run.comm.is_root())
    spdlog::info("metric {}: grouped by value out of core in {} pass(es)", m.name(), stats.passes);
  return st;
}

// Runs the job's path, with the key type its layout needs.
Status WriteIndex(RunState& run, PlannedMetric& m, const IndexJob& job) {
  const bool u64 = job.layout.fits_u64();
  switch (job.path) {
    case IndexPath::kGrouped:
      return GroupAndIndex(run, m, job);
    case IndexPath::kRankOrdered:
    case IndexPath::kSampleSort:
      return u64 ? SortAndIndex<uint64_t>(run, m, job) : SortAndIndex<WideKey>(run, m, job);
    case IndexPath::kGroupedOutOfCore:
      return GroupOutOfCoreAndIndex(run, m, job);
    case IndexPath::kSortedOutOfCore:
      return u64 ? SortOutOfCoreAndIndex<uint64_t>(run, m, job)
                 : SortOutOfCoreAndIndex<WideKey>(run, m, job);
  }
  return Status::Internal("metric " + m.name() + ": no index path");
}

// Collective: sample_to_metric's writer on one node (index/scalar_rows.h),
// its .idx's sizes begun.
Status OpenSampleToMetric(RunState& run, PlannedMetric& m, bool idx_now = true) {
  DSA_RETURN_IF_ERROR(run.MakeMetricDir(m.name()));
  m.job.sample_to_metric = std::make_unique<ScalarRowsWriter>(run.comm, run.write);
  return m.job.sample_to_metric->Open(run.FilePrefix(m.name(), kSampleToMetric), run.samples.count,
                                      idx_now);
}

// This rank's values of `m` a chunk at a time, where the map left them.
ScalarReader ValuesOf(PlannedMetric& m) {
  return m.map.store ? ReaderOf(*m.map.store) : ReaderOf(m.map.values);
}

uint64_t LocalCountOf(const PlannedMetric& m) {
  return m.map.store ? m.map.store->size() : m.map.values.size();
}

// The rows of the metrics `pass` is of, begun on their writers: a chunk of
// each read and written, then summed while in cache (kRankSumsCachedChunk;
// from spilled stores, a read's worth: kRankSumsChunk).
Status WriteAndSumRows(RunState& run, RankSumsPass& pass) {
  const std::vector<PlannedMetric*>& ms = pass.metrics();
  std::vector<ScalarReader> reads;
  for (PlannedMetric* m : ms) reads.push_back(ValuesOf(*m));
  std::vector<std::span<const int64_t>> parts(ms.size());
  const uint64_t count = LocalCountOf(*ms[0]);
  const bool stored = std::any_of(ms.begin(), ms.end(),
                                  [](const PlannedMetric* m) { return m->map.store != nullptr; });
  const uint64_t rows = stored ? kRankSumsChunk : kRankSumsCachedChunk;
  const uint64_t chunk = std::min(rows, ms[0]->job.sample_to_metric->chunk_rows());
  for (uint64_t off = 0; off < count; off += chunk) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    const uint64_t n = std::min(chunk, count - off);
    for (size_t a = 0; a < ms.size(); ++a) {
      DSA_ASSIGN_OR_RETURN(parts[a], reads[a](off, n));
      DSA_RETURN_IF_ERROR(ms[a]->job.sample_to_metric->Write(off, parts[a]));
    }
    DSA_RETURN_IF_ERROR(pass.Add(run, off, parts));
  }
  return Status::OK();
}

// Collective, on one node, in the job of the metric whose job.rank_sums is
// set: the sample_to_metric rows of every metric the sums are of, written in
// one loop with the sums (rank_sums.h), so that no metric's values are read
// from memory twice. Each .idx waits for its own metric's job (one at a time,
// as without the sums), which also finishes the writer.
Status WriteSampleToMetricWithSums(RunState& run, RankSumsPass& pass) {
  std::string names;
  for (const PlannedMetric* m : pass.metrics()) names += (names.empty() ? "" : ", ") + m->name();
  run.Begin("write", names + ": sample_to_metric", pass.metrics().size() * run.samples.count,
            "rows");
  for (PlannedMetric* m : pass.metrics()) {
    if (!m->job.sample_to_metric) DSA_RETURN_IF_ERROR(OpenSampleToMetric(run, *m, false));
    DSA_RETURN_IF_ERROR(m->job.sample_to_metric->Begin(
        FitIntDType(m->job.range.min, m->job.range.max), LocalCountOf(*m)));
    m->job.sample_to_metric_started = true;
  }
  const Status written = WriteAndSumRows(run, pass);
  for (PlannedMetric* m : pass.metrics())
    DSA_RETURN_IF_ERROR(m->job.sample_to_metric->End(written));
  return Status::OK();
}

// Collective: writes sample_to_metric. On one node every rank writes its own
// rows and the .idx goes on behind the index files' work until the writer
// finishes (index/scalar_rows.h), with the rank sums' metrics' rows when
// they are set to (WriteSampleToMetricWithSums); across nodes rank 0 writes
// it all here.
Status StartSampleToMetric(RunState& run, PlannedMetric& m, DType dtype) {
  if (!run.comm.OnOneNode()) {
    const std::string prefix = run.FilePrefix(m.name(), kSampleToMetric);
    return m.map.store ? WriteOrderedScalars(run.comm, *m.map.store, prefix, dtype, run.write)
                       : WriteOrderedScalars(run.comm, m.map.values, prefix, dtype, run.write);
  }
  if (m.job.rank_sums) DSA_RETURN_IF_ERROR(WriteSampleToMetricWithSums(run, *m.job.rank_sums));
  if (m.job.sample_to_metric_started) {  // with the rank sums'
    m.job.sample_to_metric->WriteIdx();
    return Status::OK();
  }
  if (!m.job.sample_to_metric) DSA_RETURN_IF_ERROR(OpenSampleToMetric(run, m));
  return m.job.sample_to_metric->Start(dtype, LocalCountOf(m), ValuesOf(m));
}

// Collective: the metric's index path (index_path.h) and what it works from.
Result<IndexJob> PlanIndexJob(RunState& run, PlannedMetric& m, const ValueRange& values,
                              DType metric_dtype) {
  IndexJob job;
  job.values = values;
  job.layout = MakeKeyLayout({values.min, values.max}, {run.samples.id_min, run.samples.id_max});
  job.files = {{ChosenPrefix(run, m, kIndexToMetric), ChosenPrefix(run, m, kIndexToSample),
                ChosenPrefix(run, m, kIndexToSamplePercentile)},
               metric_dtype,
               run.samples.id_dtype,
               run.write};
  const IdOrder order = IdOrderOf(run.comm, run.samples.local_ids,
                                  m.map.store ? m.map.store->size() : m.map.values.size());
  job.path = ChooseIndexPath(order, job.layout,
                             {.spilled = m.map.store != nullptr, .one_node = run.comm.OnOneNode()});
  if (job.path == IndexPath::kGroupedOutOfCore) {
    DSA_ASSIGN_OR_RETURN(job.grouped, PlanGroupedPasses(run, m, values));
    if (job.grouped.passes.empty()) job.path = kGroupedOutOfCoreFallback;
  }
  return job;
}

// This rank's counts of a spilled metric's values (PrepareValues), over its
// global range when that is narrow enough for the rank sums: one more pass
// over the store.
Status CountStored(PlannedMetric& m) {
  const ValueRange r = m.job.range;
  if (static_cast<unsigned __int128>(static_cast<__int128>(r.max) - r.min) > kRankSumsMaxRange)
    return Status::OK();
  m.job.counts = ValueCounts(r.min, static_cast<size_t>(r.max - r.min) + 1);
  std::vector<int64_t> chunk;
  for (uint64_t from = 0; from < m.map.store->size(); from += kRankSumsChunk) {
    chunk.resize(static_cast<size_t>(std::min(kRankSumsChunk, m.map.store->size() - from)));
    DSA_RETURN_IF_ERROR(m.map.store->Read(from, chunk));
    for (const int64_t v : chunk) m.job.counts.Add(v);
  }
  return Status::OK();
}

}  // namespace

Status PrepareValues(RunState& run, PlannedMetric& m, bool count) {
  if (!TraitsOf(m.type()).per_sample || !WritesAnyKindOf(run.config.output.files, m.type()))
    return Status::OK();
  if (const std::optional<RankBins> bins = m.metric->rank_bins()) {
    run.Begin("sort", m.name() + ": bins");
    m.job.bin_ranges = RankIntoBins(run.comm, *bins, run.samples.local_ids, run.samples.id_min,
                                    run.samples.id_max, run.config.map.threads, &m.map.values);
    run.clock.Lap(kStageRankBins);
  }
  run.Begin("write", m.name() + ": range");
  Status st;
  if (m.map.store) {
    m.job.range = GlobalMinMax(run.comm, {m.map.store->min(), m.map.store->max()});
    if (count) st = CountStored(m);
  } else if (count) {
    // A table kRankSumsMaxRange either side of the first value holds every
    // value when the range is narrow enough for the sums to use the counts.
    const int64_t first = m.map.values.empty() ? 0 : m.map.values[0];
    const __int128 base = std::max<__int128>(static_cast<__int128>(first) - kRankSumsMaxRange,
                                             std::numeric_limits<int64_t>::min());
    m.job.counts = ValueCounts(static_cast<int64_t>(base), 2 * kRankSumsMaxRange + 1);
    m.job.range = GlobalMinMax(run.comm, m.map.values, &m.job.counts);
  } else {
    m.job.range = GlobalMinMax(run.comm, m.map.values);
  }
  run.clock.Lap(kStageMinMax);
  return run.comm.AgreeOnStatus(st);
}

Status RunSingleValueJob(RunState& run, PlannedMetric& m) {
  run.Begin("write", m.name() + ": sample_to_metric", run.samples.count, "rows");
  const ValueRange values = m.job.range;
  const DType metric_dtype = FitIntDType(values.min, values.max);
  DSA_RETURN_IF_ERROR(run.MakeMetricDir(m.name()));
  const std::vector<std::string>& files = run.config.output.files;
  if (WritesKind(files, kSampleToMetric)) {
    DSA_RETURN_IF_ERROR(StartSampleToMetric(run, m, metric_dtype));
    run.clock.Lap(kStageSampleToMetric);
  }
  // No index file chosen: no sort, no exchange.
  if (WritesKind(files, kIndexToMetric) || WritesKind(files, kIndexToSample)) {
    DSA_ASSIGN_OR_RETURN(const IndexJob job, PlanIndexJob(run, m, values, metric_dtype));
    m.job.index_path = job.path;
    DSA_RETURN_IF_ERROR(WriteIndex(run, m, job));
  }
  if (!m.job.sample_to_metric) return Status::OK();
  const Status st = m.job.sample_to_metric->Finish();  // the wait for the .idx's tail
  m.job.sample_to_metric.reset();
  run.clock.Lap(kStageSampleToMetric);
  return st;
}

Status OpenFirstSampleToMetric(RunState& run, MetricPlan& plan) {
  if (!run.comm.OnOneNode() || !WritesKind(run.config.output.files, kSampleToMetric))
    return Status::OK();
  for (PlannedMetric& m : plan)
    if (TraitsOf(m.type()).per_sample) return OpenSampleToMetric(run, m);
  return Status::OK();
}

}  // namespace dsanalyze
