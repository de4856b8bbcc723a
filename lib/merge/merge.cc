#include "merge/merge.h"

#include <cstdio>
#include <memory>
#include <thread>

#include "dataset/open_dataset.h"
#include "merge/merge_inputs.h"
#include "merge/merge_metric.h"
#include "metrics/registry.h"
#include "output/analysis_layout.h"
#include "output/analysis_writer.h"
#include "output/finish_analysis.h"
#include "output/output_paths.h"
#include "report/report.h"
#include "util/interrupt.h"
#include "util/memory_usage.h"
#include "util/stage_clock.h"
#include "util/worker_thread.h"

namespace dsanalyze {
namespace {

// The type summary.json lists for `name` (every input lists the same metrics).
Result<MetricType> TypeOf(const MergeInput& input, const std::string& name) {
  for (const ListedMetric& m : input.listed)
    if (m.name == name && m.type) return *m.type;
  return Status::BadInput("merge: " + input.path + ": summary.json lists no type for metric " +
                          name);
}

// The report entries in analysis order (metrics/metric.h). A score metric's
// meaning comes from its recorded params (only scale: merge refuses bins, whose
// per-bin score ranges summary.json does not record).
Result<std::vector<MetricEntry>> EntriesOf(const MergeInput& input) {
  std::vector<MetricEntry> entries;
  for (const MetricConfig& m : input.config.metrics) {
    DSA_ASSIGN_OR_RETURN(MetricType type, TypeOf(input, m.name));
    Result<std::optional<ScoreMeaning>> score = ScoreMeaningOf(m);
    if (!score.ok())
      return Status::BadInput("merge: " + input.path + ": summary.json: recorded " +
                              score.status().message());
    entries.push_back({.name = m.name, .type = type, .score = *score});
  }
  PutInAnalysisOrder(entries, [](const MetricEntry& e) { return e.type; });
  return entries;
}

// The union's NaN scores of each score metric: the sum of its parts'.
void SumNanScores(const std::vector<MergeInput>& inputs, std::vector<MetricEntry>* entries) {
  for (MetricEntry& e : *entries)
    for (const MergeInput& input : inputs)
      for (const ListedMetric& m : input.listed)
        if (m.name == e.name) e.nan_scores += m.nan_scores;
}

MetricMergeJob JobOf(const std::vector<MergeInput>& inputs) {
  MetricMergeJob job;
  for (const MergeInput& input : inputs) job.inputs.push_back(input.path);
  job.table = inputs.front().config.output.dtype_codes;
  job.sync = inputs.front().config.output.fsync;
  return job;
}

// Begins the merge's stage `name`, timed for --timings and shown by the
// progress display: the stages run one after another, each ending where the
// next begins, named as they come (per metric).
void BeginStage(const std::string& name, StageClock* clock, Progress& progress, uint64_t total = 0,
                const char* unit = "") {
  clock->Begin(name);
  progress.Begin(name, total, unit);
}

// Each metric's inputs, checked: a single-value metric's opened files, an
// accumulate metric's exact sum (the other member of each entry stays empty).
struct CheckedInputs {
  std::vector<SingleValueFiles> files;
  std::vector<std::vector<int64_t>> sums;
};

// What can fail on the inputs' files, before the output is touched: every
// file opens, and the accumulate sums do not overflow. The rows of
// sample_to_metric are left to CheckDeferred.
Result<CheckedInputs> CheckAndSum(MetricMergeJob job, const std::vector<MetricEntry>& entries) {
  CheckedInputs checked;
  checked.files.resize(entries.size());
  checked.sums.resize(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    job.name = entries[i].name;
    if (TraitsOf(entries[i].type).per_sample) {
      DSA_ASSIGN_OR_RETURN(checked.files[i], OpenSingleValueInputs(job));
    } else {
      DSA_ASSIGN_OR_RETURN(checked.sums[i], SumMetricValues(job));
    }
  }
  return checked;
}

// The checks CheckAndSum left for later (merge_metric.h CheckSampleToMetricRows).
Status CheckDeferred(MetricMergeJob job, const std::vector<MetricEntry>& entries,
                     const CheckedInputs& checked) {
  for (size_t i = 0; i < entries.size(); ++i) {
    job.name = entries[i].name;
    if (TraitsOf(entries[i].type).per_sample)
      DSA_RETURN_IF_ERROR(CheckSampleToMetricRows(job, checked.files[i]));
  }
  return Status::OK();
}

// One stage per metric ("M: merge", "M: metric_value"), a single-value
// metric's progress counted in the union's samples.
Status WriteMetrics(MetricMergeJob job, const std::vector<MetricEntry>& entries,
                    const CheckedInputs& checked, AnalysisWriter* staged, StageClock* clock,
                    Progress& progress) {
  job.out_dir = staged->dir();
  for (size_t i = 0; i < entries.size(); ++i) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    const bool single = TraitsOf(entries[i].type).per_sample;
    BeginStage(entries[i].name + (single ? ": merge" : ": metric_value"), clock, progress,
               single ? UnionSamples(checked.files[i]) : 0, "samples");
    DSA_RETURN_IF_ERROR(staged->MakeMetricDir(entries[i].name).status());
    job.name = entries[i].name;
    job.ids_done = progress.counter();
    DSA_RETURN_IF_ERROR(single ? MergeSingleValueMetric(job, checked.files[i])
                               : WriteMergedMetricValue(job, checked.sums[i]));
  }
  return Status::OK();
}

RunInfo MergeInfo(const std::vector<MergeInput>& inputs, const std::string& out, double seconds) {
  RunInfo info = ConfigRunInfo(MergedConfig(inputs, out));
  // The block describes the whole dataset, not a part's range: the same in every part.
  info.dataset = inputs.front().dataset;
  info.timings.push_back({"merge_analyses", seconds, seconds});
  info.peak_rss_bytes = {PeakRssBytes()};
  info.peak_anon_bytes = {AnonRssBytes()};
  for (const MergeInput& input : inputs) info.merged_from.push_back(input.path);
  return info;
}

// A blend's dataset (its "dataset" block lists components), opened from the
// merged config so that the report computes its per-component statistics
// over the union, as a run over it would; `info` then names its components.
// Null for other datasets, with sample_indices (ids that are not positions),
// or when the blend's files cannot be opened here (a warning: the merged
// summary then has no per-component statistics, the rest is exact).
std::unique_ptr<Dataset> OpenBlend(const std::vector<MergeInput>& inputs, const std::string& out,
                                   RunInfo* info) {
  const nlohmann::json& block = inputs.front().dataset;
  const Config config = MergedConfig(inputs, out);
  if (!block.is_object() || !block.contains("components") || !config.dataset.sample_indices.empty())
    return nullptr;
  Result<std::unique_ptr<Dataset>> blend = OpenDataset(config.dataset);
  if (!blend.ok()) {
    // One line on stderr, as every warning of a command (merge sets up no log).
    std::fprintf(stderr,
                 "dsanalyze: warning: merge: no per-component statistics in summary.json (the "
                 "rest is exact): the blend does not open here: %s\n",
                 blend.status().message().c_str());
    return nullptr;
  }
  const Dataset* d = blend->get();
  info->component_prefixes = d->ComponentPrefixes();
  info->components_of = [d](std::span<const int64_t> ids, std::span<uint32_t> out) {
    d->ComponentsOf(ids, out);
  };
  return std::move(blend).value();
}

// The inputs, read and checked, with what the output needs of them.
struct Prepared {
  std::vector<MergeInput> inputs;
  std::vector<MetricEntry> entries;
  std::vector<std::string> names;
  MetricMergeJob job;
  CheckedInputs checked;
};

Result<Prepared> Prepare(const std::vector<std::string>& paths, const std::string& out) {
  Prepared p;
  DSA_RETURN_IF_ERROR(CheckOutsideAnalyses("--out", out, paths, OutputKind::kSavePath));
  DSA_ASSIGN_OR_RETURN(p.inputs, ReadMergeInputs(paths));
  DSA_ASSIGN_OR_RETURN(p.entries, EntriesOf(p.inputs.front()));
  SumNanScores(p.inputs, &p.entries);
  for (const MetricEntry& m : p.entries) p.names.push_back(m.name);
  p.job = JobOf(p.inputs);
  DSA_ASSIGN_OR_RETURN(p.checked, CheckAndSum(p.job, p.entries));
  return p;
}

// The metric files, written while a thread finishes checking the inputs (an
// error there is reported first), then the reports; FinishAnalysis's
// checkpoint for a signal is after them, as in a run.
Status WriteStaged(const Prepared& p, const std::string& out, AnalysisWriter* staged,
                   StageClock* clock, Progress& progress) {
  SetInterruptStage("merge");
  Status deferred;
  WorkerThread checker =
      StartWorkerThread([&] { deferred = CheckDeferred(p.job, p.entries, p.checked); });
  const Status written = WriteMetrics(p.job, p.entries, p.checked, staged, clock, progress);
  checker.join();
  DSA_RETURN_IF_ERROR(deferred);
  DSA_RETURN_IF_ERROR(written);
  SetInterruptStage("report");
  BeginStage("report", clock, progress);
  RunInfo info = MergeInfo(p.inputs, out, clock->Elapsed());
  const std::unique_ptr<Dataset> blend = OpenBlend(p.inputs, out, &info);
  return WriteReports(staged->dir(), p.entries, info);
}

}  // namespace

Result<MergeResult> MergeAnalyses(const std::vector<std::string>& paths, const std::string& out,
                                  Progress& progress) {
  StageClock clock;
  SetInterruptStage("open");
  BeginStage("open", &clock, progress);
  DSA_ASSIGN_OR_RETURN(const Prepared p, Prepare(paths, out));
  DSA_ASSIGN_OR_RETURN(AnalysisWriter staged, AnalysisWriter::Create(out, p.names, "--out"));
  const Status reports = WriteStaged(p, out, &staged, &clock, progress);
  DSA_RETURN_IF_ERROR(FinishAnalysis(reports, {nullptr, &staged, &clock, &progress, "commit"}));
  MergeResult result;
  result.metrics = p.entries.size();
  result.samples = p.inputs.back().positions.end - p.inputs.front().positions.begin;
  result.stages = clock.Times();
  result.peak_rss_bytes = PeakRssBytes();
  result.peak_anon_bytes = clock.peak_anon_bytes();
  return result;
}

}  // namespace dsanalyze
