#include "curriculum/curriculum_check.h"

#include <algorithm>
#include <filesystem>

#include "curriculum/batch_size.h"
#include "output/analysis_files.h"
#include "output/analysis_folder.h"

namespace dsanalyze {
namespace {

Result<int64_t> GlobalBatchSize(const CurriculumRequest& r, const DeepSpeedCurriculum& c,
                                const std::string& file) {
  if (r.global_batch_size) return *r.global_batch_size;
  return DeepSpeedGlobalBatch(c, r.data_parallel_size, file);
}

// The steps to replay and where the number comes from.
void SetTrainSteps(const CurriculumRequest& r, const DeepSpeedCurriculum& c,
                   CurriculumReport* report) {
  if (r.train_steps) {
    report->train_steps = *r.train_steps;
    report->train_steps_from = TrainStepsFrom::kFlag;
  } else if (c.train_iters) {
    report->train_steps = *c.train_iters;
    report->train_steps_from = TrainStepsFrom::kTrainIters;
  } else {
    report->train_steps = 1;
    for (const CurriculumMetricConfig& m : c.metrics)
      report->train_steps = std::max(report->train_steps, ScheduleEnd(m.schedule));
    report->train_steps_from = TrainStepsFrom::kScheduleEnd;
  }
}

// N from summary.json: the first single-value metric's samples.
std::optional<uint64_t> AnalysisSamples(const AnalysisFolder& analysis) {
  for (const ListedMetric& m : analysis.listed)
    if (m.samples) return m.samples;
  return std::nullopt;
}

Result<std::vector<std::optional<MetricFiles>>> OpenIndexes(
    const std::vector<CurriculumMetricConfig>& metrics, std::optional<CodeTable> table) {
  std::vector<std::optional<MetricFiles>> indexes;
  for (const CurriculumMetricConfig& m : metrics) {
    indexes.emplace_back();
    if (m.clustering_type == ClusteringType::kSingleCluster) continue;
    DSA_ASSIGN_OR_RETURN(MetricFiles index, OpenMetricIndex(m, table));
    indexes.back() = std::move(index);
  }
  return indexes;
}

}  // namespace

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
  SetTrainSteps(request, config, &report);
  report.legacy = config.legacy;
  report.metrics = std::move(config.metrics);
  bool missing = false;
  report.warnings = CheckMetricPaths(report.metrics, request.analysis, &missing);
  report.samples = AnalysisSamples(analysis).value_or(0);
  if (!missing) DSA_RETURN_IF_ERROR(ReplayInto(&report, analysis.table));
  return report;
}

std::string_view TrainStepsFromName(TrainStepsFrom from) {
  switch (from) {
    case TrainStepsFrom::kFlag:
      return "--train-steps";
    case TrainStepsFrom::kTrainIters:
      return "train_iters";
    case TrainStepsFrom::kScheduleEnd:
      return "largest total_curriculum_step";
  }
  return "";
}

namespace {

using Json = nlohmann::ordered_json;

Json MetricJson(const std::string& metric) { return metric.empty() ? Json() : Json(metric); }

Json StepsJson(const CurriculumReport& report) {
  Json steps = Json::array();
  for (const ReplayStep& s : report.replay.steps) {
    Json difficulty = Json::object();
    for (size_t m = 0; m < report.metrics.size(); ++m)
      difficulty[report.metrics[m].name] = s.difficulty[m];
    steps.push_back({{"step", s.step},
                     {"difficulty", std::move(difficulty)},
                     {"new_cluster_size", s.cluster.size},
                     {"eligible", s.eligible}});
  }
  return steps;
}

Json GroupsJson(const CurriculumReport& report) {
  Json groups = Json::array();
  for (const WarningGroup& g : GroupWarnings(report.warnings))
    groups.push_back({{"kind", KindName(g.kind)},
                      {"severity", SeverityName(SeverityOf(g.kind))},
                      {"metric", MetricJson(g.metric)},
                      {"count", g.count},
                      {"first_step", g.first_step},
                      {"last_step", g.last_step},
                      {"message", g.message},
                      {"fix", g.fix}});
  return groups;
}

}  // namespace

nlohmann::ordered_json CurriculumReportJson(const CurriculumReport& report) {
  Json warnings = Json::array();
  for (const CurriculumWarning& w : report.warnings)
    warnings.push_back({{"step", w.step},
                        {"kind", KindName(w.kind)},
                        {"severity", SeverityName(SeverityOf(w.kind))},
                        {"metric", MetricJson(w.metric)},
                        {"message", w.message},
                        {"fix", w.fix}});
  return Json{{"train_steps", report.train_steps},
              {"train_steps_from", TrainStepsFromName(report.train_steps_from)},
              {"steps", StepsJson(report)},
              {"warnings", std::move(warnings)},
              {"groups", GroupsJson(report)}};
}

}  // namespace dsanalyze
