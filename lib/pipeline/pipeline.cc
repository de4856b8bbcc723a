#include "pipeline/pipeline.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "dataset/open_dataset.h"
#include "dataset/sample_ids.h"
#include "metrics/registry.h"
#include "output/analysis_layout.h"
#include "output/output_commit.h"
#include "pipeline/dependencies.h"
#include "pipeline/gather_write.h"
#include "pipeline/local_sort.h"
#include "pipeline/map.h"
#include "pipeline/progress.h"
#include "pipeline/sample_sort.h"
#include "pipeline/work_split.h"
#include "report/report.h"
#include "util/fault_point.h"
#include "util/interrupt.h"
#include "util/memory_usage.h"

namespace dsanalyze {
namespace {

// Stage names in report order.
enum Stage {
  kStageOpen,
  kStageMap,
  kStageMinMax,
  kStageSampleToMetric,
  kStageLocalSort,
  kStageSplitters,
  kStageExchange,
  kStageMerge,
  kStageWrite,
  kStageAccumulate,
  kStageCommit,
  kNumStages
};
constexpr const char* kStageNames[kNumStages] = {
    "open",     "map",   "minmax", "sample_to_metric", "local_sort",   "splitters",
    "exchange", "merge", "write",  "accumulate",       "report_commit"};

// Stage times, and the anonymous memory sampled at each stage end (Linux
// keeps no peak of it; see util/memory_usage.h).
class StageClock {
 public:
  void Start() { t0_ = MPI_Wtime(); }
  // Adds the time since Start (or the last Lap) to `stage`.
  void Lap(Stage stage) {
    const double t = MPI_Wtime();
    seconds[stage] += t - t0_;
    t0_ = t;
    SampleMemory();
  }
  void Add(Stage stage, double s) { seconds[stage] += s; }
  // Starts timing anew without attributing the time since the last Lap.
  void Restart() {
    t0_ = MPI_Wtime();
    SampleMemory();
  }
  std::vector<double> seconds = std::vector<double>(kNumStages, 0.0);
  int64_t peak_anon_bytes = 0;

 private:
  void SampleMemory() { peak_anon_bytes = std::max(peak_anon_bytes, AnonRssBytes()); }

  double t0_ = 0;
};

struct NamedMetric {
  std::string name;
  std::unique_ptr<Metric> metric;
  const MetricConfig* config;
};

// What SortAndIndex shows of its stages.
struct MetricProgress {
  Progress* progress;
  std::string metric;
  uint64_t samples;  // keys in the job
};

// Sorts one single-value metric's pairs across ranks and writes its index files.
template <class Key>
Status SortAndIndex(const Comm& comm, std::vector<int64_t>&& values, const LocalIds& ids,
                    const KeyLayout& layout, const IndexFilePrefixes& prefixes, DType metric_dtype,
                    DType sample_dtype, const WriteOptions& wopt, unsigned threads,
                    StageClock* clock, const MetricProgress& shown) {
  shown.progress->Begin(shown.metric + ": sort");
  KeyCodec<Key> codec{layout};
  SetInterruptStage("sort");
  FaultPoint("sort");  // test-only (util/fault_point.h)
  std::vector<Key> keys = SortPairs(std::move(values), ids, codec, threads);
  clock->Lap(kStageLocalSort);
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(Status::OK()));  // interruption checkpoint

  SetInterruptStage("exchange");

  const unsigned key_bits = layout.fits_u64() ? layout.total_bits() : 64 + layout.value_bits;
  SampleSortTimes st;
  shown.progress->Begin(shown.metric + ": exchange");
  keys = SampleSort(comm, std::move(keys), key_bits, &st);
  clock->Add(kStageSplitters, st.splitters);
  clock->Add(kStageExchange, st.exchange);
  clock->Add(kStageMerge, st.merge);
  clock->Restart();
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(Status::OK()));  // interruption checkpoint

  SetInterruptStage("write");

  uint64_t distinct = 0;
  shown.progress->Begin(shown.metric + ": write", shown.samples, "keys");
  Status s =
      WriteIndexFiles(comm, keys, codec, prefixes, metric_dtype, sample_dtype, wopt, &distinct);
  clock->Lap(kStageWrite);
  return s;
}

}  // namespace

Status RunPipeline(const Config& config, const RunContext& context, const Comm& comm,
                   RunSummary* summary) {
  const double start = MPI_Wtime();
  Progress progress(context.progress, comm.is_root());
  StageClock clock;
  clock.Start();

  // Open the dataset and create the metrics on every rank; agree before any work.
  std::unique_ptr<Dataset> dataset;
  std::optional<SampleIds> sample_ids;
  std::vector<NamedMetric> single, accumulate;
  Status st = [&]() -> Status {
    DSA_ASSIGN_OR_RETURN(dataset, OpenDataset(config.dataset));
    if (!config.dataset.sample_indices.empty()) {
      DSA_ASSIGN_OR_RETURN(SampleIds ids,
                           SampleIds::Open(config.dataset.sample_indices, dataset->size()));
      sample_ids.emplace(std::move(ids));
    }
    for (size_t i = 0; i < config.metrics.size(); ++i) {
      DSA_ASSIGN_OR_RETURN(auto metric, CreateMetric(config.metrics[i], *dataset));
      auto& list = metric->type() == MetricType::kSingleValuePerSample ? single : accumulate;
      list.push_back({config.metrics[i].name, std::move(metric), &config.metrics[i]});
    }
    return Status::OK();
  }();
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));

  std::optional<StagedOutput> staged;
  if (comm.is_root()) {
    std::vector<std::string> names;
    for (const MetricConfig& m : config.metrics) names.push_back(m.name);
    auto created = StagedOutput::Create(config.output.path, names);
    st = created.status();
    if (created.ok()) staged.emplace(std::move(created).value());
  }
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));

  const uint64_t n = dataset->size();
  const SampleRange range =
      SplitRange({0, n}, static_cast<uint64_t>(comm.size()), static_cast<uint64_t>(comm.rank()));
  if (comm.is_root())
    spdlog::info("{}: {} samples on {} rank(s) x {} thread(s), {} metric(s)", dataset->Describe(),
                 n, comm.size(), config.map.threads, config.metrics.size());
  clock.Lap(kStageOpen);

  SetInterruptStage("map");
  // Results over the whole dataset that metrics need first (a pass of its own).
  std::vector<Metric*> metric_ptrs;
  for (auto& m : single) metric_ptrs.push_back(m.metric.get());
  for (auto& m : accumulate) metric_ptrs.push_back(m.metric.get());
  // An accumulate output that is also a dependency comes out of that pass
  // (precomputed[a]) and is left out of the main map.
  std::vector<const MetricConfig*> accumulate_configs;
  for (auto& m : accumulate) accumulate_configs.push_back(m.config);
  std::vector<std::optional<std::vector<int64_t>>> precomputed;
  if (std::any_of(metric_ptrs.begin(), metric_ptrs.end(),
                  [](const Metric* m) { return !m->dependencies().empty(); }))
    progress.Begin("dependency pass");
  DSA_RETURN_IF_ERROR(ResolveDependencies(comm, *dataset, range, metric_ptrs, config.map.threads,
                                          config.map.batch_size, accumulate_configs, &precomputed));

  // Map, with job-wide progress on rank 0.
  std::vector<MapMetric> single_map, accumulate_map;
  for (auto& m : single) single_map.push_back({m.metric.get(), m.name});
  for (size_t a = 0; a < accumulate.size(); ++a) {
    if (!precomputed[a])
      accumulate_map.push_back({accumulate[a].metric.get(), accumulate[a].name});
    else if (comm.is_root())
      spdlog::info("metric {}: taken from the dependency pass", accumulate[a].name);
  }
  MapJob job(*dataset, single_map, accumulate_map, range, config.map.threads,
             config.map.batch_size);
  progress.Begin("map", n, "samples");
  job.Start();
  WaitForMap(comm, job, &progress, context.progress.interval);
  auto mapped = job.Finish();
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(mapped.status()));
  MapResult map = std::move(mapped).value();
  clock.Lap(kStageMap);

  WriteOptions wopt;
  wopt.table = config.output.dtype_codes;
  wopt.sync = config.output.fsync;
  wopt.chunk_bytes = config.output.chunk_bytes;
  wopt.rows_done = progress.counter();

  // Sample ids: the iteration positions 0..N-1, or the config's sample_indices.
  LocalIds local_ids;
  local_ids.first_id = static_cast<int64_t>(range.begin);
  int64_t id_min = 0, id_max = static_cast<int64_t>(n) - 1;
  if (sample_ids) {
    local_ids.explicit_ids = sample_ids->ids().subspan(range.begin, range.size());
    id_min = sample_ids->min();
    id_max = sample_ids->max();
  }
  const DType sample_dtype =
      FitIntDType(std::min<int64_t>(0, id_min), std::max(static_cast<int64_t>(n) - 1, id_max));

  std::vector<std::string> committed;
  for (size_t m = 0; m < single.size(); ++m) {
    SetInterruptStage("write");
    const std::string& name = single[m].name;
    std::vector<int64_t>& values = map.values[m];
    int64_t local_mm[2] = {INT64_MAX, INT64_MIN};
    if (!values.empty()) {
      const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
      local_mm[0] = *mn;
      local_mm[1] = *mx;
    }
    const int64_t vmin = comm.Allreduce(local_mm[0], MPI_MIN);
    const int64_t vmax = comm.Allreduce(local_mm[1], MPI_MAX);
    const DType metric_dtype = FitIntDType(vmin, vmax);
    clock.Lap(kStageMinMax);
    progress.Begin(name + ": sample_to_metric", n, "rows");

    if (comm.is_root()) st = staged->MakeMetricDir(name).status();
    DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));
    auto prefix = [&](std::string_view kind) {
      return comm.is_root() ? MetricFilePrefix(staged->staging_dir(), name, kind) : std::string();
    };
    DSA_RETURN_IF_ERROR(
        WriteOrderedScalars(comm, values, prefix(kSampleToMetric), metric_dtype, wopt));
    clock.Lap(kStageSampleToMetric);

    KeyLayout layout;
    layout.value_min = vmin;
    layout.id_min = id_min;
    layout.value_bits = BitsFor(static_cast<uint64_t>(vmax) - static_cast<uint64_t>(vmin));
    layout.id_bits = BitsFor(static_cast<uint64_t>(id_max) - static_cast<uint64_t>(id_min));
    const IndexFilePrefixes prefixes{prefix(kIndexToMetric), prefix(kIndexToSample),
                                     prefix(kIndexToSamplePercentile)};
    if (layout.fits_u64()) {
      st = SortAndIndex<uint64_t>(comm, std::move(values), local_ids, layout, prefixes,
                                  metric_dtype, sample_dtype, wopt, config.map.threads, &clock,
                                  {&progress, name, n});
    } else {
      st = SortAndIndex<WideKey>(comm, std::move(values), local_ids, layout, prefixes, metric_dtype,
                                 sample_dtype, wopt, config.map.threads, &clock,
                                 {&progress, name, n});
    }
    DSA_RETURN_IF_ERROR(st);
    committed.push_back(name);
  }

  SetInterruptStage("write");
  size_t mapped_sums = 0;  // index into map.sums of the next mapped accumulate metric
  for (size_t a = 0; a < accumulate.size(); ++a) {
    const std::string& name = accumulate[a].name;
    progress.Begin(name + ": metric_value");
    std::string prefix;
    if (comm.is_root()) {
      st = staged->MakeMetricDir(name).status();
      prefix = MetricFilePrefix(staged->staging_dir(), name, kMetricValue);
    }
    DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));
    if (precomputed[a]) {
      DSA_RETURN_IF_ERROR(WriteGlobalVector(comm, *precomputed[a], prefix, wopt));
    } else {
      DSA_RETURN_IF_ERROR(WriteSummedVector(comm, map.sums[mapped_sums++], prefix, name, wopt));
    }
    committed.push_back(name);
  }
  clock.Lap(kStageAccumulate);

  // Timings of rank 0 and the slowest rank, every rank's peak RSS; then the
  // reports and the commit on rank 0.
  progress.Begin("report");
  SetInterruptStage("commit");
  const std::vector<double> slowest = comm.Allreduce<double>(clock.seconds, MPI_MAX);
  summary->samples = n;
  summary->stages.clear();
  for (int s = 0; s < kNumStages; ++s)
    summary->stages.push_back({kStageNames[s], clock.seconds[s], slowest[s]});
  summary->peak_rss_bytes = comm.Allgather<int64_t>(PeakRssBytes());
  summary->peak_anon_bytes = comm.Allgather<int64_t>(clock.peak_anon_bytes);
  if (comm.is_root()) {
    RunInfo info;
    info.tool_version = DSANALYZE_VERSION;
    info.ranks = comm.size();
    info.threads = config.map.threads;
    info.config_hash = context.config_hash;
    info.config = ConfigToJson(config);
    // Not report_commit: it is still running while summary.json is written,
    // so only --timings (RunSummary) can show it.
    for (const StageTime& t : summary->stages)
      if (t.stage != kStageNames[kStageCommit])
        info.timings.push_back({t.stage, t.rank0, t.slowest});
    info.peak_rss_bytes = summary->peak_rss_bytes;
    info.peak_anon_bytes = summary->peak_anon_bytes;
    info.save_path = config.output.path;
    info.total_curriculum_step = config.output.total_curriculum_step;
    std::vector<MetricEntry> entries;
    for (const auto& m : single) entries.push_back({m.name, MetricType::kSingleValuePerSample});
    for (const auto& m : accumulate)
      entries.push_back({m.name, MetricType::kAccumulateValueOverSamples});
    st = WriteReports(staged->staging_dir(), entries, info);
    FaultPoint("report");  // test-only (util/fault_point.h)
  }
  // The last interruption checkpoint: past it the commit always completes.
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));
  DisarmInterrupts();
  if (comm.is_root()) {
    std::vector<std::string> files;
    for (std::string_view f : {kCurriculumConfigFile, kSummaryFile})  // summary.json last
      if (std::filesystem::exists(std::filesystem::path(staged->staging_dir()) / f))
        files.emplace_back(f);
    st = staged->Commit(committed, files);
  }
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));
  if (const int late = comm.Allreduce(CaughtSignal(), MPI_MAX); late != 0 && comm.is_root())
    spdlog::warn("{} arrived during the commit, which was completed", SignalName(late));
  clock.Lap(kStageCommit);
  // Measured after the summary was written: only the log shows it (rank 0's work).
  summary->stages.back().rank0 = summary->stages.back().slowest = clock.seconds[kStageCommit];
  summary->total_seconds = MPI_Wtime() - start;
  progress.End();
  return Status::OK();
}

}  // namespace dsanalyze
