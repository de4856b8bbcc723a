#include "merge/merge.h"

#include <chrono>
#include <thread>

#include "merge/merge_inputs.h"
#include "merge/merge_metric.h"
#include "output/output_commit.h"
#include "report/report.h"
#include "util/interrupt.h"
#include "util/memory_usage.h"

namespace dsanalyze {
namespace {

// The type summary.json lists for `name` (every input lists the same metrics).
Result<MetricType> TypeOf(const MergeInput& input, const std::string& name) {
  for (const ListedMetric& m : input.listed)
    if (m.name == name && m.type) return *m.type;
  return Status::BadInput("merge: " + input.path + ": summary.json lists no type for metric " +
                          name);
}

// The report entries in a run's order: single-value metrics first, then
// accumulate ones, each in config order.
Result<std::vector<MetricEntry>> EntriesOf(const MergeInput& input) {
  std::vector<MetricEntry> single, accumulate;
  for (const MetricConfig& m : input.config.metrics) {
    DSA_ASSIGN_OR_RETURN(MetricType type, TypeOf(input, m.name));
    (type == MetricType::kSingleValuePerSample ? single : accumulate).push_back({m.name, type});
  }
  single.insert(single.end(), accumulate.begin(), accumulate.end());
  return single;
}

MetricMergeJob JobOf(const std::vector<MergeInput>& inputs) {
  MetricMergeJob job;
  for (const MergeInput& input : inputs) job.inputs.push_back(input.path);
  job.table = inputs.front().config.output.dtype_codes;
  job.sync = inputs.front().config.output.fsync;
  return job;
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
    job.name = entries[i].name;
    if (entries[i].type == MetricType::kSingleValuePerSample) {
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
    if (entries[i].type == MetricType::kSingleValuePerSample)
      DSA_RETURN_IF_ERROR(CheckSampleToMetricRows(job, checked.files[i]));
  }
  return Status::OK();
}

Status WriteMetrics(MetricMergeJob job, const std::vector<MetricEntry>& entries,
                    const CheckedInputs& checked, StagedOutput* staged) {
  job.out_dir = staged->staging_dir();
  for (size_t i = 0; i < entries.size(); ++i) {
    DSA_RETURN_IF_ERROR(staged->MakeMetricDir(entries[i].name).status());
    job.name = entries[i].name;
    DSA_RETURN_IF_ERROR(entries[i].type == MetricType::kSingleValuePerSample
                            ? MergeSingleValueMetric(job, checked.files[i])
                            : WriteMergedMetricValue(job, checked.sums[i]));
  }
  return Status::OK();
}

RunInfo MergeInfo(const std::vector<MergeInput>& inputs, const std::string& out, double seconds) {
  RunInfo info;
  info.tool_version = DSANALYZE_VERSION;
  info.config = ConfigToJson(MergedConfig(inputs, out));
  info.timings.push_back({"merge_analyses", seconds, seconds});
  info.peak_rss_bytes = {PeakRssBytes()};
  info.peak_anon_bytes = {AnonRssBytes()};
  info.save_path = out;
  info.total_curriculum_step = inputs.front().config.output.total_curriculum_step;
  info.curriculum_metric = inputs.front().config.output.curriculum_metric;
  for (const MergeInput& input : inputs) info.merged_from.push_back(input.path);
  return info;
}

}  // namespace

Result<MergeResult> MergeAnalyses(const std::vector<std::string>& paths, const std::string& out) {
  const auto start = std::chrono::steady_clock::now();
  DSA_ASSIGN_OR_RETURN(std::vector<MergeInput> inputs, ReadMergeInputs(paths));
  DSA_ASSIGN_OR_RETURN(std::vector<MetricEntry> entries, EntriesOf(inputs.front()));
  std::vector<std::string> names;
  for (const MetricEntry& m : entries) names.push_back(m.name);
  const MetricMergeJob job = JobOf(inputs);
  DSA_ASSIGN_OR_RETURN(const CheckedInputs checked, CheckAndSum(job, entries));
  DSA_ASSIGN_OR_RETURN(StagedOutput staged, StagedOutput::Create(out, names));
  // The output is written while a thread finishes checking the inputs; an
  // error there is reported first, and nothing is committed.
  Status deferred;
  std::thread checker = StartWorkerThread([&] { deferred = CheckDeferred(job, entries, checked); });
  const Status written = WriteMetrics(job, entries, checked, &staged);
  checker.join();
  DSA_RETURN_IF_ERROR(deferred);
  DSA_RETURN_IF_ERROR(written);
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  DSA_ASSIGN_OR_RETURN(
      std::vector<std::string> files,
      WriteReports(staged.staging_dir(), entries, MergeInfo(inputs, out, seconds.count())));
  DSA_RETURN_IF_ERROR(staged.Commit(names, files));
  const SampleRange& first = inputs.front().positions;
  return MergeResult{entries.size(), inputs.back().positions.end - first.begin};
}

}  // namespace dsanalyze
