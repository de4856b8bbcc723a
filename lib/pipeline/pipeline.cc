#include "pipeline/pipeline.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "dataset/open_dataset.h"
#include "dataset/sample_ids.h"
#include "output/analysis_layout.h"
#include "pipeline/dependencies.h"
#include "pipeline/map.h"
#include "pipeline/metric_plan.h"
#include "pipeline/run_state.h"
#include "report/report.h"
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

Status OpenInputs(const Config& config, Inputs* in) {
  DSA_RETURN_IF_ERROR(CheckMemoryConfig(config));  // memory.scratch, on this rank's node
  DSA_ASSIGN_OR_RETURN(in->dataset, OpenDataset(config.dataset));
  if (!config.dataset.sample_indices.empty()) {
    DSA_ASSIGN_OR_RETURN(SampleIds ids,
                         SampleIds::Open(config.dataset.sample_indices, in->dataset->size()));
    in->sample_ids.emplace(std::move(ids));
  }
  DSA_ASSIGN_OR_RETURN(in->positions, PositionsOf(config.dataset, in->dataset->size()));
  DSA_ASSIGN_OR_RETURN(in->plan, PlanMetrics(config.metrics, *in->dataset));
  return Status::OK();
}

// Collective: rank 0 takes the save path and creates its staging folder.
Status StageOutput(const RunState& run, std::optional<StagedOutput>* staged) {
  Status st;
  if (run.comm.is_root()) {
    std::vector<std::string> names;
    for (const MetricConfig& m : run.config.metrics) names.push_back(m.name);
    auto created = StagedOutput::Create(run.config.output.path, names);
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

// The dependency pass (dependencies.h), shown when there is one.
Status RunDependencyPass(RunState& run, const Dataset& dataset, MetricPlan* plan) {
  SetInterruptStage("map");
  if (std::any_of(plan->begin(), plan->end(),
                  [](const PlannedMetric& m) { return !m.metric->dependencies().empty(); }))
    run.progress.Begin("dependency pass");
  return ResolveDependencies(run.comm, dataset, run.samples.range, run.config.map, plan);
}

// The map stage: every planned metric over this rank's samples (but those
// the dependency pass computed, and those none of whose files is chosen),
// with job-wide progress on rank 0.
Status MapMetrics(RunState& run, const Dataset& dataset, MetricPlan& plan) {
  std::vector<MapMetric> single, accumulate;
  std::vector<PlannedMetric*> single_of, accumulate_of;  // where the results go
  for (PlannedMetric& m : plan) {
    if (m.precomputed) {
      if (run.comm.is_root()) spdlog::info("metric {}: taken from the dependency pass", m.name());
      continue;
    }
    if (!WritesAnyKindOf(run.config.output.files, m.type())) continue;  // output.files
    const bool single_value = m.type() == MetricType::kSingleValuePerSample;
    (single_value ? single : accumulate).push_back({m.metric.get(), m.name()});
    (single_value ? single_of : accumulate_of).push_back(&m);
  }
  MapJob job(dataset, single, accumulate, run.samples.range, run.config.map.threads,
             run.config.map.batch_size);
  run.Begin("map", "map", run.samples.count, "samples");
  job.Start();
  WaitForMap(run.comm, job, &run.progress, run.progress_interval);
  Result<MapResult> mapped = job.Finish();
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(mapped.status()));
  for (size_t i = 0; i < single_of.size(); ++i) single_of[i]->mapped = std::move(mapped->values[i]);
  for (size_t i = 0; i < accumulate_of.size(); ++i)
    accumulate_of[i]->mapped = std::move(mapped->sums[i]);
  run.clock.Lap(kStageMap);
  return Status::OK();
}

// Stage times of rank 0 and the slowest rank, and every rank's peak memory.
void MeasureRun(const RunState& run, RunSummary* summary) {
  const std::vector<double> slowest = run.comm.Allreduce<double>(run.clock.seconds, MPI_MAX);
  summary->samples = run.samples.count;
  summary->stages.clear();
  for (int s = 0; s < kNumStages; ++s)
    summary->stages.push_back({kStageNames[s], run.clock.seconds[s], slowest[s]});
  summary->peak_rss_bytes = run.comm.Allgather<int64_t>(PeakRssBytes());
  summary->peak_anon_bytes = run.comm.Allgather<int64_t>(run.clock.peak_anon_bytes);
}

RunInfo RunInfoOf(const RunState& run, const RunContext& context, const RunSummary& summary) {
  RunInfo info;
  info.tool_version = DSANALYZE_VERSION;
  info.ranks = run.comm.size();
  info.threads = run.config.map.threads;
  info.config_hash = context.config_hash;
  info.config = ConfigToJson(run.config);
  // Not report_commit: it is still running while summary.json is written,
  // so only --timings (RunSummary) can show it.
  for (const StageTime& t : summary.stages)
    if (t.stage != kStageNames[kStageCommit]) info.timings.push_back({t.stage, t.rank0, t.slowest});
  info.peak_rss_bytes = summary.peak_rss_bytes;
  info.peak_anon_bytes = summary.peak_anon_bytes;
  info.save_path = run.config.output.path;
  info.total_curriculum_step = run.config.output.total_curriculum_step;
  info.files = run.config.output.files;
  return info;
}

// Collective: rank 0 writes the reports into the staging folder. Returns the
// top-level files written, in commit order (rank 0's; empty elsewhere).
Result<std::vector<std::string>> WriteRunReports(RunState& run, const MetricPlan& plan,
                                                 const RunContext& context, RunSummary* summary) {
  run.Begin("commit", "report");
  MeasureRun(run, summary);
  Result<std::vector<std::string>> files = std::vector<std::string>();
  if (run.comm.is_root()) {
    std::vector<MetricEntry> entries;
    for (const PlannedMetric& m : plan)
      entries.push_back({m.name(), m.type(), m.metric->score_meaning(), m.bin_ranges});
    files = WriteReports(run.staged->staging_dir(), entries, RunInfoOf(run, context, *summary));
    FaultPoint("report");  // test-only (util/fault_point.h)
  }
  // The last interruption checkpoint: past it the commit always completes.
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(files.status()));
  return files;
}

// Collective: rank 0 moves the metric folders and `files` into the save path.
Status Commit(RunState& run, const MetricPlan& plan, const std::vector<std::string>& files) {
  DisarmInterrupts();
  Status st;
  if (run.comm.is_root()) {
    std::vector<std::string> metrics;
    for (const PlannedMetric& m : plan) metrics.push_back(m.name());
    st = run.staged->Commit(metrics, files);
  }
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(st));
  if (const int late = run.comm.Allreduce(CaughtSignal(), MPI_MAX); late != 0 && run.comm.is_root())
    spdlog::warn("{} arrived during the commit, which was completed", SignalName(late));
  return Status::OK();
}

}  // namespace

Status RunPipeline(const Config& config, const RunContext& context, const Comm& comm,
                   RunSummary* summary) {
  const double start = MPI_Wtime();
  Progress progress(context.progress, comm.is_root());
  RunState run(config, comm, progress);
  run.progress_interval = context.progress.interval;
  run.clock.Start();

  Inputs in;
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(OpenInputs(config, &in)));
  std::optional<StagedOutput> staged;
  DSA_RETURN_IF_ERROR(StageOutput(run, &staged));
  run.staged = staged ? &*staged : nullptr;
  run.samples = DescribeSamples(in.positions, in.sample_ids ? &*in.sample_ids : nullptr, comm);
  run.write = WriteOptionsOf(config.output, progress);
  if (comm.is_root())
    spdlog::info("{}: {} samples on {} rank(s) x {} thread(s), {} metric(s)",
                 in.dataset->Describe(), run.samples.count, comm.size(), config.map.threads,
                 config.metrics.size());
  run.clock.Lap(kStageOpen);

  DSA_RETURN_IF_ERROR(RunDependencyPass(run, *in.dataset, &in.plan));
  DSA_RETURN_IF_ERROR(MapMetrics(run, *in.dataset, in.plan));
  for (PlannedMetric& metric : in.plan) DSA_RETURN_IF_ERROR(RunMetricJob(run, metric));

  DSA_ASSIGN_OR_RETURN(std::vector<std::string> files,
                       WriteRunReports(run, in.plan, context, summary));
  DSA_RETURN_IF_ERROR(Commit(run, in.plan, files));
  run.clock.Lap(kStageCommit);
  // Measured after the summary was written: only the log shows it (rank 0's work).
  summary->stages.back().rank0 = summary->stages.back().slowest = run.clock.seconds[kStageCommit];
  summary->total_seconds = MPI_Wtime() - start;
  progress.End();
  return Status::OK();
}

}  // namespace dsanalyze
