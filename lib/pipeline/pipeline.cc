#include "pipeline/pipeline.h"

#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "config/byte_size.h"
#include "config/json_fields.h"
#include "config/memory_budget.h"
#include "dataset/open_dataset.h"
#include "dataset/sample_ids.h"
#include "metrics/registry.h"
#include "output/analysis_layout.h"
#include "output/finish_analysis.h"
#include "pipeline/dependencies.h"
#include "pipeline/map.h"
#include "pipeline/metric_jobs.h"
#include "pipeline/metric_plan.h"
#include "pipeline/rank_sums.h"
#include "pipeline/run_state.h"
#include "report/report.h"
#include "util/checked_add.h"
#include "util/exception_status.h"
#include "util/fault_point.h"
#include "util/interrupt.h"
#include "util/memory_usage.h"

namespace dsanalyze {
namespace {

// What the run reads: the dataset, its sample ids, and the metric plan.
struct Inputs {
  std::unique_ptr<Dataset> dataset;
  std::optional<SampleIds> sample_ids;
  SampleRange positions;  // the iteration positions analysed
  MetricPlan plan;
};

// The config's sample_range, or every position; BadInput when the range ends
// past the dataset.
Result<SampleRange> PositionsOf(const DatasetConfig& config, uint64_t samples) {
  if (!config.sample_range) return SampleRange{0, samples};
  if (config.sample_range->end > samples)
    return Status::BadInput("config: dataset.sample_range: end " +
                            std::to_string(config.sample_range->end) + " is past the dataset, " +
                            "which has " + std::to_string(samples) + " samples");
  return *config.sample_range;
}

// output.curriculum_metric (config.cc checked the name) must have a value
// per sample: only such a metric has a curriculum.
Status CheckCurriculumMetricType(const OutputConfig& output, const MetricPlan& plan) {
  for (const PlannedMetric& m : plan)
    if (m.name() == output.curriculum_metric && !TraitsOf(m.type()).per_sample)
      return ConfigError("output.curriculum_metric",
                         "\"" + m.name() + "\" is an " + std::string(MetricTypeName(m.type())) +
                             " metric; a curriculum needs a " +
                             std::string(MetricTypeName(MetricType::kSingleValuePerSample)) +
                             " one");
  return Status::OK();
}

Status OpenInputs(const Config& config, Inputs* in) {
  DSA_RETURN_IF_ERROR(CheckMemoryConfig(config));  // memory.scratch, on this rank's node
  DSA_ASSIGN_OR_RETURN(in->dataset, OpenDataset(config.dataset));
  if (!config.dataset.sample_indices.empty()) {
    DSA_ASSIGN_OR_RETURN(SampleIds ids,
                         SampleIds::Open(config.dataset.sample_indices, in->dataset->size()));
    in->sample_ids.emplace(std::move(ids));
  }
  DSA_ASSIGN_OR_RETURN(in->positions, PositionsOf(config.dataset, in->dataset->size()));
  if (!config.dataset.sample_range) in->dataset->WillReadEverySample();
  DSA_ASSIGN_OR_RETURN(in->plan, PlanMetrics(config.metrics, *in->dataset));
  return CheckCurriculumMetricType(config.output, in->plan);
}

// Collective: rank 0 takes the save path and creates its staging folder.
Status StageOutput(const RunState& run, std::optional<AnalysisWriter>* staged) {
  Status st;
  if (run.comm.is_root()) {
    std::vector<std::string> names;
    for (const MetricConfig& m : run.config.metrics) names.push_back(m.name);
    auto created = AnalysisWriter::Create(run.config.output.path, names);
    st = created.status();
    if (created.ok()) staged->emplace(std::move(created).value());
  }
  return run.comm.AgreeOnStatus(st);
}

WriteOptions WriteOptionsOf(const OutputConfig& output, Progress& progress) {
  WriteOptions w;
  w.table = output.dtype_codes;
  w.sync = output.fsync;
  w.chunk_bytes = output.chunk_bytes;
  w.rows_done = progress.counter();
  return w;
}

// The memory plan (memory_plan.h) for the largest rank, logged by rank 0.
MemoryPlan PlanMemoryOf(const RunState& run, const MetricPlan& plan) {
  size_t single = 0;
  for (const PlannedMetric& m : plan)
    single += TraitsOf(m.type()).per_sample && WritesAnyKindOf(run.config.output.files, m.type());
  const uint64_t most = run.comm.Allreduce<uint64_t>(run.samples.range.size(), MPI_MAX);
  MemoryPlan memory = PlanMemory(run.config.memory, most, single);
  if (memory.limit > 0 && run.comm.is_root())
    spdlog::info("memory: limit {} per rank, in-memory estimate {}: {}{}",
                 FormatByteSize(memory.limit), FormatByteSizeRounded(memory.in_memory_estimate),
                 memory.name(),
                 memory.spill ? ", spilling to " + memory.scratch + " what exceeds " +
                                    FormatByteSizeRounded(memory.store_bytes) + " a metric"
                              : "");
  return memory;
}

// The in-memory plan's peak (memory_plan.h) against the budget
// (config/memory_budget.h): N samples that cannot be held are refused before
// the save path is touched, with the key that set N.
Status CheckInMemoryPlan(const RunState& run) {
  if (run.memory.spill) return Status::OK();
  const DatasetConfig& dataset = run.config.dataset;
  const std::string key(dataset.sample_range ? "dataset.sample_range"
                                             : SampleCountKey(dataset.type));
  return CheckMemoryNeed(
      {.key = "config: " + key,
       .what = std::to_string(run.samples.count) + " samples (" +
               std::to_string(run.memory.local_samples) + " on the largest rank) at " +
               std::to_string(run.memory.sample_bytes) +
               " bytes each (8 per single-value metric, 16 for the sort) and " +
               FormatByteSizeRounded(run.memory.base_bytes) + " for the process",
       .bytes = run.memory.in_memory_estimate,
       .fix = "set memory.limit_per_rank to spill what exceeds it to memory.scratch, or run on "
              "more ranks"});
}

// Why `metric` cannot be merged with the other parts (metrics/registry.h),
// for a run of a part (dataset.sample_range); nullopt for a whole run.
std::optional<std::string> NotMergeable(const RunState& run, const PlannedMetric& metric) {
  if (!run.config.dataset.sample_range) return std::nullopt;
  return NotMergeableBecause(*metric.config);
}

// A part's metrics that `dsanalyze merge` will refuse, said before the work.
void WarnNotMergeable(const RunState& run, const MetricPlan& plan) {
  if (!run.comm.is_root()) return;
  for (const PlannedMetric& m : plan)
    if (const std::optional<std::string> why = NotMergeable(run, m))
      spdlog::warn("{}", NotMergeableWarning(m.name(), *why));
}

// The dependency pass (dependencies.h), shown when there is one.
Status RunDependencyPass(RunState& run, const Dataset& dataset, MetricPlan* plan) {
  SetInterruptStage("map");
  if (std::none_of(plan->begin(), plan->end(),
                   [](const PlannedMetric& m) { return !m.metric->dependencies().empty(); }))
    return Status::OK();
  run.progress.Begin("dependency pass");
  const double start = MPI_Wtime();
  DSA_RETURN_IF_ERROR(
      ResolveDependencies(run.comm, dataset, run.samples.range, run.config.map, plan));
  run.dependency_seconds = MPI_Wtime() - start;
  return Status::OK();
}

// Where the map's results go: the metrics mapped, by kind.
struct MapTargets {
  std::vector<MapMetric> single, accumulate;
  std::vector<PlannedMetric*> single_of, accumulate_of;
};

// Every planned metric but those the dependency pass computed and those none
// of whose files is chosen.
MapTargets MapTargetsOf(const RunState& run, MetricPlan& plan) {
  MapTargets t;
  for (PlannedMetric& m : plan) {
    if (m.dependency.total) {
      if (run.comm.is_root()) spdlog::info("metric {}: taken from the dependency pass", m.name());
      continue;
    }
    if (!WritesAnyKindOf(run.config.output.files, m.type())) continue;  // output.files
    const bool single_value = TraitsOf(m.type()).per_sample;
    (single_value ? t.single : t.accumulate).push_back({m.metric.get(), m.name()});
    (single_value ? t.single_of : t.accumulate_of).push_back(&m);
  }
  return t;
}

// Keeps one window's map results: values appended to each metric's store (a
// metric binned by rank keeps them in memory), sums added exactly.
Status KeepWindow(MapResult& window, const MapTargets& t) {
  for (size_t i = 0; i < t.single_of.size(); ++i) {
    PlannedMetric& m = *t.single_of[i];
    std::vector<int64_t>& values = window.values[i];
    if (m.map.store) {
      DSA_RETURN_IF_ERROR(m.map.store->Append(values));
    } else if (m.map.values.empty()) {
      m.map.values = std::move(values);
    } else {
      m.map.values.insert(m.map.values.end(), values.begin(), values.end());
    }
  }
  for (size_t i = 0; i < t.accumulate_of.size(); ++i) {
    PlannedMetric& m = *t.accumulate_of[i];
    if (m.map.values.empty()) m.map.values.assign(window.sums[i].size(), 0);
    DSA_RETURN_IF_ERROR(AddChecked(m.map.values, window.sums[i], "metric " + m.name()));
  }
  return Status::OK();
}

// Under a spilled memory plan, each single-value metric's values go to a
// ValueStore; the windows are as many on every rank (some may be empty).
void MakeStores(const RunState& run, const MapTargets& t) {
  if (!run.memory.spill) return;
  for (PlannedMetric* m : t.single_of)
    if (!m->metric->rank_bins())
      m->map.store = std::make_unique<ValueStore>(run.memory.store_bytes, run.memory.scratch);
}

// The map stage, in one window or (under a spilled memory plan) in windows
// of run.memory.window samples, with job-wide progress on rank 0. The
// windows reuse one array per metric (values a store has taken), so the map
// touches its memory once.
Status MapMetrics(RunState& run, const Dataset& dataset, MetricPlan& plan) {
  MapTargets t = MapTargetsOf(run, plan);
  const MapConfig& map = run.config.map;
  DSA_RETURN_IF_ERROR(
      run.comm.AgreeOnStatus(CheckMapMemory(t.accumulate, map.threads, map.batch_size)));
  MakeStores(run, t);
  const SampleRange range = run.samples.range;
  const uint64_t most = run.comm.Allreduce<uint64_t>(range.size(), MPI_MAX);
  const uint64_t window = run.memory.spill ? run.memory.window : std::max<uint64_t>(most, 1);
  run.Begin("map", "map", run.samples.count, "samples");
  uint64_t done = 0;
  std::vector<std::vector<int64_t>> buffers;
  for (uint64_t off = 0; off == 0 || off < most; off += window) {
    const uint64_t begin = std::min(range.end, range.begin + off);
    // The job allocates the window's values: agreed on before the ranks
    // wait together in WaitForMap.
    std::optional<MapJob> job;
    DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(CatchAsStatus("map", [&] {
      job.emplace(dataset, t.single, t.accumulate,
                  SampleRange{begin, std::min(range.end, begin + window)}, map.threads,
                  map.batch_size, std::move(buffers));
      return Status::OK();
    })));
    job->Start();
    done += WaitForMap(run.comm, *job, &run.progress, run.progress_interval, done);
    DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(CatchAsStatus("map", [&] {
      DSA_ASSIGN_OR_RETURN(MapResult mapped, job->Finish());
      DSA_RETURN_IF_ERROR(KeepWindow(mapped, t));
      buffers = std::move(mapped.values);
      return Status::OK();
    })));
  }
  for (PlannedMetric* m : t.single_of) {
    if (!m->map.store) continue;
    DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(m->map.store->Seal()));
    m->map.spilled_bytes = m->map.store->spilled_bytes();
  }
  run.clock.Lap(kStageMap);
  return Status::OK();
}

// Collective: summary.json's "memory" block (memory_plan.h): the limit, the
// plan, and under a spilled plan the scratch directory, the bytes the
// largest rank spilled and each metric's sort passes. Null without a limit.
nlohmann::json MemoryReport(const RunState& run, const MetricPlan& plan) {
  if (run.memory.limit == 0) return nullptr;
  uint64_t spilled = 0;
  for (const PlannedMetric& m : plan) spilled += m.map.spilled_bytes;
  spilled = run.comm.Allreduce<uint64_t>(spilled, MPI_MAX);
  nlohmann::json j = {{"limit_per_rank", FormatByteSize(run.memory.limit)},
                      {"in_memory_estimate_bytes", run.memory.in_memory_estimate},
                      {"plan", run.memory.name()}};
  if (!run.memory.spill) return j;
  j["scratch"] = run.memory.scratch;
  j["spilled_bytes_max_rank"] = spilled;
  if (run.comm.is_root())
    spdlog::info("memory: the largest rank spilled {} to {}", FormatByteSizeRounded(spilled),
                 run.memory.scratch);
  nlohmann::json passes = nlohmann::json::object();
  for (const PlannedMetric& m : plan)
    if (m.job.sort_passes > 0) passes[m.name()] = m.job.sort_passes;
  j["sort_passes"] = std::move(passes);
  return j;
}

// Every metric's bins and range (PrepareValues), then each metric's job; the
// rank sums of summary.json's "spearman" from the values that then hold what
// the files will, begun before the jobs and finished after them, since one
// job's sample_to_metric write may carry them (rank_sums.h). Each metric's
// steps timed per stage (RunState::metric_seconds).
Status RunMetricJobs(RunState& run, MetricPlan& plan, std::optional<RankSums>* sums) {
  run.metric_seconds.assign(plan.size(), std::vector<double>(kNumStages, 0));
  const auto timed = [&](size_t i, const auto& step) {
    const std::vector<double> before = run.clock.seconds();
    const Status st = step(plan[i]);
    for (int s = 0; s < kNumStages; ++s)
      run.metric_seconds[i][s] += run.clock.seconds()[s] - before[s];
    return st;
  };
  const std::vector<bool> counted = CountedForRankSums(run, plan);
  for (size_t i = 0; i < plan.size(); ++i)
    DSA_RETURN_IF_ERROR(
        timed(i, [&](PlannedMetric& m) { return PrepareValues(run, m, counted[i]); }));
  RankSumsPass pass;
  DSA_RETURN_IF_ERROR(pass.Begin(run, plan));
  run.clock.Lap(kStageRankSums);
  for (size_t i = 0; i < plan.size(); ++i)
    DSA_RETURN_IF_ERROR(timed(i, [&](PlannedMetric& m) { return RunMetricJob(run, m); }));
  DSA_ASSIGN_OR_RETURN(*sums, pass.Finish(run));
  run.clock.Lap(kStageRankSums);
  return Status::OK();
}

// Collective: --timings' detail (RunSummary): the dependency pass, and each
// metric's stages where some rank spent time in them.
void MeasureDetail(const RunState& run, const MetricPlan& plan, RunSummary* summary) {
  if (run.dependency_seconds >= 0)
    summary->dependency_pass = {"dependency pass", run.dependency_seconds,
                                run.comm.Allreduce<double>(run.dependency_seconds, MPI_MAX)};
  std::vector<double> rank0;
  for (const std::vector<double>& spent : run.metric_seconds)
    rank0.insert(rank0.end(), spent.begin(), spent.end());
  const std::vector<double> slowest = run.comm.Allreduce<double>(rank0, MPI_MAX);
  summary->metric_stages.clear();
  for (size_t i = 0; i < rank0.size(); ++i)
    if (slowest[i] > 0)
      summary->metric_stages.push_back(
          {plan[i / kNumStages].name(), {kStageNames[i % kNumStages], rank0[i], slowest[i]}});
}

// Stage times of rank 0 and the slowest rank, and every rank's peak memory.
void MeasureRun(const RunState& run, const MetricPlan& plan, RunSummary* summary) {
  const std::vector<double> slowest = run.comm.Allreduce<double>(run.clock.seconds(), MPI_MAX);
  summary->samples = run.samples.count;
  summary->stages = run.clock.Times(slowest);
  MeasureDetail(run, plan, summary);
  summary->peak_rss_bytes = run.comm.Allgather<int64_t>(PeakRssBytes());
  summary->peak_anon_bytes = run.comm.Allgather<int64_t>(run.clock.peak_anon_bytes());
}

RunInfo RunInfoOf(const RunState& run, const RunContext& context, const RunSummary& summary) {
  RunInfo info = ConfigRunInfo(run.config);
  info.ranks = run.comm.size();
  info.threads = run.config.map.threads;
  info.config_hash = context.config_hash;
  // Not report_commit: it is still running while summary.json is written,
  // so only --timings (RunSummary) can show it.
  for (const StageTime& t : summary.stages)
    if (t.stage != kStageNames[kStageCommit]) info.timings.push_back(t);
  info.peak_rss_bytes = summary.peak_rss_bytes;
  info.peak_anon_bytes = summary.peak_anon_bytes;
  info.files = run.config.output.files;
  info.warnings = context.warnings;
  return info;
}

// A blend's components for the per-component statistics. Sample ids are
// positions unless sample_indices gives others; then there are none.
void SetComponents(const Dataset& dataset, const Config& config, RunInfo* info) {
  if (!config.dataset.sample_indices.empty()) return;
  info->component_prefixes = dataset.ComponentPrefixes();
  info->components_of = [&dataset](std::span<const int64_t> ids, std::span<uint32_t> out) {
    dataset.ComponentsOf(ids, out);
  };
}

// Tells the kernel that the pages holding the first `count` elements of
// `tokens` are read at random. They are usually in the dataset's mapping of
// its .bin, and a fault there otherwise reads the device's whole read-ahead
// window around it (8 MiB on the VMs of docs/benchmarks.md): for the 10
// extremes of a seqlen run, which reads no other token, most of a small .bin.
void AdviseRandomRead(const ElementView& tokens, uint64_t count) {
  if (count == 0) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(tokens.data);
  const uintptr_t first = begin & ~(page - 1);
  const uintptr_t end = begin + count * ItemSize(tokens.dtype);
  madvise(reinterpret_cast<void*>(first), end - first, MADV_RANDOM);
}

// The extremes' token preview (report.h RunInfo::sample_tokens), for a
// dataset of tokens (cut from documents) whose sample ids are positions: the
// sample is read through a reader of its own, only when asked for, and only
// the pages of its first tokens (AdviseRandomRead).
void SetTokenPreview(const Dataset& dataset, const Config& config, RunInfo* info) {
  if (!config.dataset.sample_indices.empty() || dataset.num_documents() == 0) return;
  info->sample_tokens = [&dataset](uint64_t id) -> Result<TokenPreview> {
    const std::unique_ptr<SampleReader> reader = dataset.NewReader();
    SampleBatch batch;
    DSA_RETURN_IF_ERROR(reader->Read(id, id + 1, true, &batch));
    const ElementView tokens = batch.sample(0);
    TokenPreview preview{std::vector<int64_t>(std::min<uint64_t>(tokens.count, kPreviewTokens)),
                         tokens.count};
    AdviseRandomRead(tokens, preview.first.size());
    WidenElements(tokens, 0, preview.first);
    return preview;
  };
}

// Collective: rank 0 writes the reports into the staged analysis; its
// Status, which FinishAnalysis agrees on. They and the commit are timed as
// one stage, report_commit.
Status WriteRunReports(RunState& run, const MetricPlan& plan, const Dataset& dataset,
                       const RunContext& context, std::optional<RankSums> sums,
                       RunSummary* summary) {
  run.Begin("commit", "report");
  run.clock.Begin(kStageNames[kStageCommit]);
  MeasureRun(run, plan, summary);
  const nlohmann::json memory = MemoryReport(run, plan);
  std::vector<uint64_t> nan_scores;
  for (const PlannedMetric& m : plan) nan_scores.push_back(m.metric->nan_scores());
  nan_scores = run.comm.Allreduce<uint64_t>(nan_scores, MPI_SUM);
  Status st;
  if (run.comm.is_root()) {
    std::vector<MetricEntry> entries;
    for (size_t i = 0; i < plan.size(); ++i) {
      const std::optional<IndexPath>& path = plan[i].job.index_path;
      entries.push_back({.name = plan[i].name(),
                         .type = plan[i].type(),
                         .score = plan[i].metric->score_meaning(),
                         .bin_ranges = plan[i].job.bin_ranges,
                         .not_mergeable = NotMergeable(run, plan[i]),
                         .nan_scores = nan_scores[i],
                         .index_path = path ? std::string(IndexPathName(*path)) : ""});
    }
    RunInfo info = RunInfoOf(run, context, *summary);
    info.memory = memory;
    info.dataset = dataset.DescribeJson();
    info.rank_sums = std::move(sums);
    SetComponents(dataset, run.config, &info);
    SetTokenPreview(dataset, run.config, &info);
    st = WriteReports(run.staged->dir(), entries, info);
    FaultPoint("report");  // test-only (util/fault_point.h)
  }
  return st;
}

}  // namespace

Status RunPipeline(const Config& config, const RunContext& context, const Comm& comm,
                   RunSummary* summary) {
  const double start = MPI_Wtime();
  Progress progress(context.progress, comm.is_root());
  RunState run(config, comm, progress);
  run.progress_interval = context.progress.interval;

  SetMemoryLimitPerRank(config.memory.limit_per_rank);  // the budget of every memory check
  Inputs in;
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(OpenInputs(config, &in)));
  run.samples = DescribeSamples(in.positions, in.sample_ids ? &*in.sample_ids : nullptr, comm);
  run.memory = PlanMemoryOf(run, in.plan);
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(CheckInMemoryPlan(run)));
  std::optional<AnalysisWriter> staged;
  DSA_RETURN_IF_ERROR(StageOutput(run, &staged));
  run.staged = staged ? &*staged : nullptr;
  run.write = WriteOptionsOf(config.output, progress);
  if (comm.is_root())
    spdlog::info("{}: {} samples on {} rank(s) x {} thread(s), {} metric(s)",
                 in.dataset->Describe(), run.samples.count, comm.size(), config.map.threads,
                 config.metrics.size());
  WarnNotMergeable(run, in.plan);
  run.clock.Lap(kStageOpen);

  DSA_RETURN_IF_ERROR(RunDependencyPass(run, *in.dataset, &in.plan));
  DSA_RETURN_IF_ERROR(OpenFirstSampleToMetric(run, in.plan));
  DSA_RETURN_IF_ERROR(MapMetrics(run, *in.dataset, in.plan));
  std::optional<RankSums> sums;
  DSA_RETURN_IF_ERROR(RunMetricJobs(run, in.plan, &sums));

  const Status reports =
      WriteRunReports(run, in.plan, *in.dataset, context, std::move(sums), summary);
  DSA_RETURN_IF_ERROR(FinishAnalysis(reports, {&comm, run.staged, &run.clock, &progress}));
  // Measured after the summary was written: only the log shows it (rank 0's work).
  summary->stages.back().rank0 = summary->stages.back().slowest = run.clock.seconds()[kStageCommit];
  summary->total_seconds = MPI_Wtime() - start;
  return Status::OK();
}

}  // namespace dsanalyze
