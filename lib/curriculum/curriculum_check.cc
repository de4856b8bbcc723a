#include "curriculum/curriculum_check.h"

#include <filesystem>

#include "output/analysis_files.h"
#include "output/analysis_folder.h"

namespace dsanalyze {
namespace {

Result<int64_t> GlobalBatchSize(const CurriculumRequest& r, const DeepSpeedCurriculum& c,
                                const std::string& file) {
  if (r.global_batch_size) return *r.global_batch_size;
  if (c.train_batch_size) return *c.train_batch_size;
  if (c.train_micro_batch_size_per_gpu)
    return *c.train_micro_batch_size_per_gpu * c.gradient_accumulation_steps.value_or(1) *
           r.data_parallel_size;
  return Status::BadInput("no global batch size: give --global-batch-size (" + file +
                          " has neither train_batch_size nor train_micro_batch_size_per_gpu)");
}

Result<int64_t> TrainSteps(const CurriculumRequest& r, const DeepSpeedCurriculum& c,
                           const std::string& file) {
  if (r.train_steps) return *r.train_steps;
  if (c.train_iters) return *c.train_iters;
  return Status::BadInput("no number of training steps: give --train-steps (" + file +
                          " has no train_iters)");
}

// N from summary.json: the first single-value metric's samples.
std::optional<uint64_t> AnalysisSamples(const AnalysisFolder& analysis) {
  for (const ListedMetric& m : analysis.listed)
    if (m.samples) return m.samples;
  return std::nullopt;
}

Result<std::vector<std::optional<MetricIndex>>> OpenIndexes(
    const std::vector<CurriculumMetricConfig>& metrics, std::optional<CodeTable> table) {
  std::vector<std::optional<MetricIndex>> indexes;
  for (const CurriculumMetricConfig& m : metrics) {
    indexes.emplace_back();
    if (m.clustering_type == ClusteringType::kSingleCluster) continue;
    DSA_ASSIGN_OR_RETURN(MetricIndex index, OpenMetricIndex(m, table));
    indexes.back() = std::move(index);
  }
  return indexes;
}

// Opens the files, replays and adds the warnings (when no file is missing).
// report->samples 0 (no summary.json) is taken from the first index.
Status ReplayInto(CurriculumReport* report, std::optional<CodeTable> table) {
  DSA_ASSIGN_OR_RETURN(auto indexes, OpenIndexes(report->metrics, table));
  for (const auto& index : indexes)
    if (index && report->samples == 0) report->samples = index->samples();
  for (CurriculumWarning& w : CheckMetricIndexes(report->metrics, indexes, report->samples))
    report->warnings.push_back(std::move(w));
  DSA_ASSIGN_OR_RETURN(report->replay, ReplayCurriculum(report->metrics, indexes, report->samples,
                                                        report->train_steps));
  const ReplayContext context{report->metrics, indexes, report->samples, report->global_batch_size,
                              report->train_steps};
  for (CurriculumWarning& w : CheckReplay(context, report->replay))
    report->warnings.push_back(std::move(w));
  return Status::OK();
}

}  // namespace

Result<CurriculumReport> CheckCurriculum(const CurriculumRequest& request) {
  DSA_ASSIGN_OR_RETURN(AnalysisFolder analysis, ReadAnalysisFolder(request.analysis));
  CurriculumReport report;
  report.ds_config =
      request.ds_config.empty()
          ? (std::filesystem::path(request.analysis) / kCurriculumConfigFile).string()
          : request.ds_config;
  if (request.ds_config.empty())  // the analysis's own proposal needs its index files
    DSA_RETURN_IF_ERROR(
        CheckNotLeftOut(report.ds_config, LeftOutKinds(analysis.files, kCurriculumEntryKinds)));
  DSA_ASSIGN_OR_RETURN(DeepSpeedCurriculum config, ReadDeepSpeedCurriculum(report.ds_config));
  DSA_ASSIGN_OR_RETURN(report.global_batch_size,
                       GlobalBatchSize(request, config, report.ds_config));
  DSA_ASSIGN_OR_RETURN(report.train_steps, TrainSteps(request, config, report.ds_config));
  report.metrics = std::move(config.metrics);
  bool missing = false;
  report.warnings = CheckMetricPaths(report.metrics, request.analysis, &missing);
  report.samples = AnalysisSamples(analysis).value_or(0);
  if (!missing) DSA_RETURN_IF_ERROR(ReplayInto(&report, analysis.table));
  return report;
}

nlohmann::ordered_json CurriculumReportJson(const CurriculumReport& report) {
  using Json = nlohmann::ordered_json;
  Json steps = Json::array(), warnings = Json::array();
  for (const ReplayStep& s : report.replay.steps) {
    Json difficulty = Json::object();
    for (size_t m = 0; m < report.metrics.size(); ++m)
      difficulty[report.metrics[m].name] = s.difficulty[m];
    steps.push_back({{"step", s.step},
                     {"difficulty", std::move(difficulty)},
                     {"new_cluster_size", s.cluster.size},
                     {"eligible", s.eligible}});
  }
  for (const CurriculumWarning& w : report.warnings)
    warnings.push_back(
        {{"step", w.step}, {"kind", w.kind}, {"message", w.message}, {"fix", w.fix}});
  return Json{{"steps", std::move(steps)}, {"warnings", std::move(warnings)}};
}

}  // namespace dsanalyze
