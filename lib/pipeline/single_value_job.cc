// The single-value metric job (metric_jobs.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "index/group_write.h"
#include "output/analysis_layout.h"
#include "pipeline/global_reduce.h"
#include "pipeline/metric_jobs.h"
#include "pipeline/rank_bins.h"
#include "sort/local_sort.h"
#include "sort/out_of_core_sort.h"
#include "sort/sample_sort.h"
#include "util/fault_point.h"

namespace dsanalyze {
namespace {

// The prefix of a chosen file (output.files), else "" (not written).
std::string ChosenPrefix(const RunState& run, const PlannedMetric& m, std::string_view kind) {
  return WritesKind(run.config.output.files, kind) ? run.FilePrefix(m.name(), kind) : "";
}

IndexFilePrefixes ChosenPrefixes(const RunState& run, const PlannedMetric& m) {
  return {ChosenPrefix(run, m, kIndexToMetric), ChosenPrefix(run, m, kIndexToSample),
          ChosenPrefix(run, m, kIndexToSamplePercentile)};
}

// How the ranks' ids lie, as the index writers need to know.
struct IdOrder {
  bool ascending_by_rank = false;  // every id on a rank below every id on the next non-empty rank
  bool consecutive = false;        // and each rank's ids are first_id, first_id + 1, ...
};

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

// Groups each rank's ids by value and has every rank write its own groups
// (group_write.h): consecutive ids ascending by rank, at most kMaxIdGroups
// values, ranks on one node.
Status GroupAndIndex(RunState& run, PlannedMetric& m, const ValueRange& values,
                     DType metric_dtype) {
  run.Begin("sort", m.name() + ": sort");
  FaultPoint("sort");  // test-only (util/fault_point.h)
  const IdGroups groups =
      GroupIdsByValue(std::move(m.mapped), run.samples.local_ids.first_id, values.min,
                      static_cast<size_t>(values.max - values.min) + 1,
                      ItemSize(run.samples.id_dtype), run.config.map.threads);
  run.clock.Lap(kStageLocalSort);
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(Status::OK()));  // interruption checkpoint
  run.Begin("write", m.name() + ": write", run.samples.count, "keys");
  Status st = WriteIndexFilesFromGroups(run.comm, groups, ChosenPrefixes(run, m), metric_dtype,
                                        run.samples.id_dtype, run.write);
  run.clock.Lap(kStageWrite);
  return st;
}

// Times the sort measured itself, onto the run's clock; the clock then
// starts anew.
void AddSortTimes(StageClock& clock, double local_sort, const SampleSortTimes& times) {
  clock.Add(kStageLocalSort, local_sort);
  clock.Add(kStageSplitters, times.splitters);
  clock.Add(kStageExchange, times.exchange);
  clock.Add(kStageMerge, times.merge);
  clock.Restart();
}

// Sorts the metric's (value, id) pairs across ranks and writes its index
// files. When the ranks hold ascending id ranges and the values are few
// enough, rank 0 takes the pairs from each rank in order, without the exchange.
template <class Key>
Status SortAndIndex(RunState& run, PlannedMetric& m, const KeyLayout& layout, DType metric_dtype,
                    bool ascending_by_rank) {
  const KeyCodec<Key> codec{layout};
  const bool rank_ordered = layout.value_bits <= kRankOrderedMaxValueBits && ascending_by_rank;
  run.Begin("sort", m.name() + ": sort");
  FaultPoint("sort");  // test-only (util/fault_point.h)
  std::vector<Key> keys =
      SortPairs(std::move(m.mapped), run.samples.local_ids, codec, run.config.map.threads);
  run.clock.Lap(kStageLocalSort);
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(Status::OK()));  // interruption checkpoint

  if (!rank_ordered) {
    run.Begin("exchange", m.name() + ": exchange");
    SampleSortTimes times;
    keys = SampleSort(run.comm, std::move(keys), layout.key_bits(), &times);
    AddSortTimes(run.clock, 0, times);
    DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(Status::OK()));  // interruption checkpoint
  }
  run.Begin("write", m.name() + ": write", run.samples.count, "keys");
  const auto write = rank_ordered ? WriteIndexFilesRankOrdered<Key> : WriteIndexFiles<Key>;
  Status st = write(run.comm, keys, codec, ChosenPrefixes(run, m), metric_dtype,
                    run.samples.id_dtype, run.write);
  run.clock.Lap(kStageWrite);
  return st;
}

// The out-of-core sort (out_of_core_sort.h) of the metric's stored values,
// straight into its index files.
template <class Key>
Status SortOutOfCoreAndIndex(RunState& run, PlannedMetric& m, const KeyLayout& layout,
                             DType metric_dtype) {
  const KeyCodec<Key> codec{layout};
  run.Begin("sort", m.name() + ": sort and write", run.samples.count, "keys");
  FaultPoint("sort");  // test-only (util/fault_point.h)
  IndexGather<Key> gather(run.comm, codec, run.write);
  DSA_RETURN_IF_ERROR(gather.Open(ChosenPrefixes(run, m), metric_dtype, run.samples.id_dtype,
                                  std::nullopt, run.memory.scratch));
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
      OutOfCoreSort(run.comm, *m.store, run.samples.local_ids, codec, options, append));
  AddSortTimes(run.clock, stats.local_sort, stats.sample_sort);
  m.sort_passes = stats.passes;
  m.store.reset();  // frees its memory and scratch file before the next metric
  Status st = gather.Finish();
  run.clock.Lap(kStageWrite);
  if (run.comm.is_root())
    spdlog::info("metric {}: sorted out of core in {} pass(es), {} histogram scan(s)", m.name(),
                 stats.passes, stats.plan_scans);
  return st;
}

// The out-of-core grouping (out_of_core_sort.h GroupOutOfCore) of the
// metric's stored values into its index files; nullopt, having written
// nothing, when one value has more ids than a pass holds (the keyed sort
// then splits it).
std::optional<Status> GroupOutOfCoreAndIndex(RunState& run, PlannedMetric& m,
                                             const ValueRange& values, DType metric_dtype) {
  run.Begin("sort", m.name() + ": sort and write", run.samples.count, "keys");
  FaultPoint("sort");  // test-only (util/fault_point.h)
  const size_t buckets = static_cast<size_t>(values.max - values.min) + 1;
  const size_t id_bytes = ItemSize(run.samples.id_dtype);
  Result<std::vector<uint64_t>> counts = CountValues(*m.store, values.min, buckets);
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(counts.status()));
  // A keyed pass holds two 8-byte keys per pass key; a grouped one, one id.
  const uint64_t pass_ids = run.memory.pass_keys * 16 / id_bytes;
  const std::vector<ValuePass> passes = GroupPasses(run.comm, *counts, pass_ids);
  if (passes.empty()) return std::nullopt;
  run.clock.Lap(kStageLocalSort);
  GroupedIndexWriter writer(run.comm, run.write);
  DSA_RETURN_IF_ERROR(writer.Open(ChosenPrefixes(run, m), values.min, *counts, id_bytes));
  const GroupLayout layout{run.samples.local_ids.first_id, values.min, *counts, id_bytes};
  const GroupedIdsSink write = [&](size_t first, size_t end, const std::byte* ids) {
    run.clock.Restart();  // the grouping's own time is in its stats
    const Status st = writer.Write(first, end, ids);
    run.clock.Lap(kStageWrite);
    return st;
  };
  DSA_ASSIGN_OR_RETURN(const OutOfCoreSortStats stats,
                       GroupOutOfCore(run.comm, *m.store, layout, passes, write));
  AddSortTimes(run.clock, stats.local_sort, stats.sample_sort);
  m.sort_passes = stats.passes;
  m.store.reset();  // frees its memory and scratch file before the next metric
  const Status st = writer.Finish(metric_dtype, run.samples.id_dtype);
  run.clock.Lap(kStageWrite);
  if (run.comm.is_root())
    spdlog::info("metric {}: grouped by value out of core in {} pass(es)", m.name(), passes.size());
  return st;
}

}  // namespace

Status RunSingleValueJob(RunState& run, PlannedMetric& m) {
  if (const std::optional<RankBins> bins = m.metric->rank_bins()) {
    run.Begin("sort", m.name() + ": bins");
    m.bin_ranges = RankIntoBins(run.comm, *bins, run.samples.local_ids, run.samples.id_min,
                                run.samples.id_max, run.config.map.threads, &m.mapped);
    run.clock.Lap(kStageRankBins);
  }
  run.Begin("write", m.name() + ": sample_to_metric", run.samples.count, "rows");
  const ValueRange values = m.store ? GlobalMinMax(run.comm, {m.store->min(), m.store->max()})
                                    : GlobalMinMax(run.comm, m.mapped);
  const DType metric_dtype = FitIntDType(values.min, values.max);
  run.clock.Lap(kStageMinMax);

  DSA_RETURN_IF_ERROR(run.MakeMetricDir(m.name()));
  const std::vector<std::string>& files = run.config.output.files;
  if (WritesKind(files, kSampleToMetric)) {
    const std::string prefix = run.FilePrefix(m.name(), kSampleToMetric);
    DSA_RETURN_IF_ERROR(
        m.store ? WriteOrderedScalars(run.comm, *m.store, prefix, metric_dtype, run.write)
                : WriteOrderedScalars(run.comm, m.mapped, prefix, metric_dtype, run.write));
    run.clock.Lap(kStageSampleToMetric);
  }
  // No index file chosen: no sort, no exchange.
  if (!WritesKind(files, kIndexToMetric) && !WritesKind(files, kIndexToSample)) return Status::OK();

  const KeyLayout layout =
      MakeKeyLayout(values.min, values.max, run.samples.id_min, run.samples.id_max);
  const IdOrder order =
      IdOrderOf(run.comm, run.samples.local_ids, m.store ? m.store->size() : m.mapped.size());
  const bool groups = order.consecutive && (uint64_t{1} << layout.value_bits) <= kMaxIdGroups &&
                      run.comm.OnOneNode();
  if (m.store && groups) {
    if (std::optional<Status> st = GroupOutOfCoreAndIndex(run, m, values, metric_dtype)) return *st;
  }
  if (m.store) {
    if (layout.fits_u64()) return SortOutOfCoreAndIndex<uint64_t>(run, m, layout, metric_dtype);
    return SortOutOfCoreAndIndex<WideKey>(run, m, layout, metric_dtype);
  }
  if (groups) return GroupAndIndex(run, m, values, metric_dtype);
  if (layout.fits_u64())
    return SortAndIndex<uint64_t>(run, m, layout, metric_dtype, order.ascending_by_rank);
  return SortAndIndex<WideKey>(run, m, layout, metric_dtype, order.ascending_by_rank);
}

}  // namespace dsanalyze
