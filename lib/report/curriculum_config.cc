#include "report/curriculum_config.h"

#include <filesystem>
#include <utility>

#include "curriculum/ds_config.h"
#include "curriculum/schedule.h"
#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;

// The proposed schedule: DeepSpeed's fixed_root, square root, step 1.
Schedule ProposedSchedule(int64_t min_difficulty, int64_t max_difficulty,
                          uint64_t total_curriculum_step) {
  Schedule s;
  s.type = ScheduleType::kFixedRoot;
  s.min_difficulty = min_difficulty;
  s.max_difficulty = max_difficulty;
  s.total_curriculum_step = static_cast<int64_t>(total_curriculum_step);
  s.difficulty_step = 1;
  s.root_degree = 2;
  return s;
}

Json Entry(const std::string& index_to_sample, const std::string& index_to_metric,
           DifficultyType difficulty_type, const Schedule& schedule) {
  Json entry{{kIndexToSamplePathKey, index_to_sample},
             {kIndexToMetricPathKey, index_to_metric},
             {kDifficultyTypeKey, DifficultyTypeName(difficulty_type)},
             {kClusteringTypeKey, ClusteringTypeName(ClusteringType::kScheduleBased)}};
  WriteScheduleKeys(schedule, &entry);
  return entry;
}

// The percentile entry (active) and the value-based one of metric `m`.
std::pair<Json, Json> Entries(const std::string& save_path, const CurriculumMetric& m,
                              uint64_t steps) {
  const std::string i2m = MetricFilePrefix(save_path, m.name, kIndexToMetric);
  return {Entry(MetricFilePrefix(save_path, m.name, kIndexToSamplePercentile), i2m,
                DifficultyType::kPercentile, ProposedSchedule(1, 100, steps)),
          Entry(MetricFilePrefix(save_path, m.name, kIndexToSample), i2m, DifficultyType::kValue,
                ProposedSchedule(m.min_value, m.max_value, steps))};
}

// The metric the curriculum is proposed for: the one named, else the first.
size_t ActiveMetric(const std::vector<CurriculumMetric>& metrics, const std::string& named) {
  for (size_t i = 0; i < metrics.size(); ++i)
    if (metrics[i].name == named) return i;
  return 0;
}

// "other_metrics": every metric but the active one, as entries ready to add.
Json OtherMetrics(const std::string& save_path, const std::vector<CurriculumMetric>& metrics,
                  size_t active, uint64_t steps) {
  Json percentile = Json::object(), value = Json::object();
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (i == active) continue;
    auto [p, v] = Entries(save_path, metrics[i], steps);
    percentile[metrics[i].name] = std::move(p);
    value[metrics[i].name] = std::move(v);
  }
  return {{"_comment",
           "Ready-to-add entries for the analysis's other metrics, not part of the curriculum "
           "above. DeepSpeed trains only on the samples every metric's cluster admits (their "
           "intersection), so each metric added shrinks the clusters, often to far less than a "
           "batch: add one by copying its entry into data_efficiency's curriculum_metrics (from "
           "value_based_curriculum_metrics into value_based_alternative's for value-based "
           "difficulty), then check the result with dsanalyze curriculum before training."},
          {"curriculum_metrics", std::move(percentile)},
          {"value_based_curriculum_metrics", std::move(value)}};
}

}  // namespace

Json CurriculumConfig(const std::string& save_path, const std::vector<CurriculumMetric>& metrics,
                      uint64_t total_curriculum_step, const std::string& curriculum_metric) {
  const bool placeholder = total_curriculum_step == 0;
  const uint64_t steps = placeholder ? kPlaceholderCurriculumStep : total_curriculum_step;
  const size_t active = ActiveMetric(metrics, curriculum_metric);
  Json percentile = Json::object(), value = Json::object();
  if (!metrics.empty()) {
    auto [p, v] = Entries(save_path, metrics[active], steps);
    percentile[metrics[active].name] = std::move(p);
    value[metrics[active].name] = std::move(v);
  }
  const std::string cluster_path = (std::filesystem::path(save_path) / kDataClustersDir).string();
  Json doc;
  doc["_comment"] =
      "Paste data_efficiency into the DeepSpeed config. Active: percentile-based curriculum "
      "(difficulty 1..100 = share of samples, read from the *_index_to_sample_percentile_merged "
      "index). For value-based difficulty (metric values min..max, plain *_index_to_sample), "
      "replace curriculum_metrics with value_based_alternative.curriculum_metrics. " +
      (placeholder ? "PLACEHOLDER: schedule_config.total_curriculum_step is DeepSpeed's "
                     "example value " +
                         std::to_string(steps) +
                         "; set it to the training step at which the curriculum should "
                         "reach full difficulty (or give the run output.total_curriculum_step)."
                   : std::string("schedule_config.total_curriculum_step is the run's "
                                 "output.total_curriculum_step."));
  doc["data_efficiency"] = {{"enabled", true},
                            {"data_sampling",
                             {{"enabled", true},
                              {"curriculum_learning",
                               {{"enabled", true},
                                {"data_cluster_path", cluster_path},
                                {"curriculum_metrics", percentile}}}}}};
  doc["value_based_alternative"] = {{"curriculum_metrics", value}};
  if (metrics.size() > 1) doc["other_metrics"] = OtherMetrics(save_path, metrics, active, steps);
  return doc;
}

std::string PlaceholderStepWarning() {
  return "curriculum_config.json: total_curriculum_step is a placeholder (" +
         std::to_string(kPlaceholderCurriculumStep) + ", DeepSpeed's example)";
}

std::string PlaceholderStepFix() {
  return "set it to the step at which the curriculum should reach full difficulty, or give "
         "output.total_curriculum_step in the config";
}

}  // namespace dsanalyze
