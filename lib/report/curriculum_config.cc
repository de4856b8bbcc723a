#include "report/curriculum_config.h"

#include <filesystem>

#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;

Json Schedule(uint64_t total_curriculum_step) {
  return Json{
      {"total_curriculum_step", total_curriculum_step}, {"difficulty_step", 1}, {"root_degree", 2}};
}

Json Entry(const std::string& index_to_sample, const std::string& index_to_metric,
           const std::string& difficulty_type, int64_t min_difficulty, int64_t max_difficulty,
           uint64_t total_curriculum_step) {
  return Json{{"index_to_sample_path", index_to_sample},
              {"index_to_metric_path", index_to_metric},
              {"difficulty_type", difficulty_type},
              {"clustering_type", "schedule_based"},
              {"min_difficulty", min_difficulty},
              {"max_difficulty", max_difficulty},
              {"schedule_type", "fixed_root"},
              {"schedule_config", Schedule(total_curriculum_step)}};
}

}  // namespace

Json CurriculumConfig(const std::string& save_path, const std::vector<CurriculumMetric>& metrics,
                      uint64_t total_curriculum_step) {
  const bool placeholder = total_curriculum_step == 0;
  const uint64_t steps = placeholder ? kPlaceholderCurriculumStep : total_curriculum_step;
  Json percentile = Json::object(), value = Json::object();
  for (const CurriculumMetric& m : metrics) {
    const std::string i2m = MetricFilePrefix(save_path, m.name, kIndexToMetric);
    percentile[m.name] = Entry(MetricFilePrefix(save_path, m.name, kIndexToSamplePercentile), i2m,
                               "percentile", 1, 100, steps);
    value[m.name] = Entry(MetricFilePrefix(save_path, m.name, kIndexToSample), i2m, "value",
                          m.min_value, m.max_value, steps);
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
  return doc;
}

}  // namespace dsanalyze
