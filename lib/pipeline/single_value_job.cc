// The single-value metric job (metric_jobs.h).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "output/analysis_layout.h"
#include "pipeline/global_reduce.h"
#include "pipeline/local_sort.h"
#include "pipeline/metric_jobs.h"
#include "pipeline/out_of_core_sort.h"
#include "pipeline/rank_bins.h"
#include "pipeline/sample_sort.h"
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

// Collective: whether every id on each rank lies below every id on the next
// non-empty rank (gather_write.h WriteIndexFilesRankOrdered).
bool IdsAscendByRank(const Comm& comm, const LocalIds& ids, uint64_t count) {
  struct IdSpan {
    uint64_t count;
    int64_t min, max;
  } local{count, 0, 0};
  if (count > 0 && ids.consecutive()) {
    local.min = ids.first_id;
    local.max = ids.first_id + static_cast<int64_t>(count) - 1;
  } else if (count > 0) {
    const auto [mn, mx] = std::minmax_element(ids.explicit_ids.begin(), ids.explicit_ids.end());
    local.min = *mn;
    local.max = *mx;
  }
  std::optional<int64_t> below;  // the previous non-empty rank's largest id
  for (const IdSpan& s : comm.Allgather(local)) {
    if (s.count == 0) continue;
    if (below && s.min <= *below) return false;
    below = s.max;
  }
  return true;
}

// Sorts the metric's (value, id) pairs across ranks and writes its index
// files. When the ranks hold ascending id ranges and the values are few
// enough, rank 0 takes the pairs from each rank in order, without the exchange.
template <class Key>
Status SortAndIndex(RunState& run, PlannedMetric& m, const KeyLayout& layout, DType metric_dtype) {
  const KeyCodec<Key> codec{layout};
  const bool rank_ordered = layout.value_bits <= kRankOrderedMaxValueBits &&
                            IdsAscendByRank(run.comm, run.samples.local_ids, m.mapped.size());
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
    run.clock.Add(kStageSplitters, times.splitters);
    run.clock.Add(kStageExchange, times.exchange);
    run.clock.Add(kStageMerge, times.merge);
    run.clock.Restart();
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
  OutOfCoreSortStats stats;
  DSA_RETURN_IF_ERROR(OutOfCoreSort(run.comm, *m.store, run.samples.local_ids, codec, options,
                                    gather, run.clock, &stats));
  m.sort_passes = stats.passes;
  m.store.reset();  // frees its memory and scratch file before the next metric
  Status st = gather.Finish();
  run.clock.Lap(kStageWrite);
  if (run.comm.is_root())
    spdlog::info("metric {}: sorted out of core in {} pass(es), {} histogram scan(s)", m.name(),
                 stats.passes, stats.plan_scans);
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
  if (m.store) {
    if (layout.fits_u64()) return SortOutOfCoreAndIndex<uint64_t>(run, m, layout, metric_dtype);
    return SortOutOfCoreAndIndex<WideKey>(run, m, layout, metric_dtype);
  }
  if (layout.fits_u64()) return SortAndIndex<uint64_t>(run, m, layout, metric_dtype);
  return SortAndIndex<WideKey>(run, m, layout, metric_dtype);
}

}  // namespace dsanalyze
