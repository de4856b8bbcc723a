// The curriculum section of a DeepSpeed config, read as DeepSpeed's
// DeepSpeedDataSampler and CurriculumScheduler read it (deepspeed/runtime/
// data_pipeline/{data_sampling/data_sampler.py,curriculum_scheduler.py,
// constants.py} at commit 38327e07f), plus the top-level keys that fix the
// global batch size and the number of training steps.
//
// Read: data_efficiency.data_sampling.curriculum_learning, whose "enabled"
// must be true and whose curriculum_metrics is a non-empty object; per metric
// M (in the file's order, which is DeepSpeed's order too):
//   difficulty_type   "value" or "percentile"             required
//   clustering_type   "schedule_based" or "single_cluster" required
//   index_to_sample_path                                  required unless single_cluster
//   index_to_metric_path                                  required for schedule_based value
//   min_difficulty, max_difficulty  integers, min <= max   required
//   schedule_type     fixed_linear, fixed_root or fixed_discrete ("custom" is
//                     refused: it is a Python function)
//   schedule_config   total_curriculum_step >= 1 and difficulty_step >= 1
//                     (fixed_linear, fixed_root), root_degree > 0 (fixed_root);
//                     difficulty (n + 1 integers) and max_step (n >= 1
//                     integers) for fixed_discrete.
// Percentile difficulties must be >= 0 and max_difficulty >= 1 (DeepSpeed
// divides by it). min_difficulty > max_difficulty is refused: DeepSpeed's
// scheduler then never moves and the first cluster takes every sample.
// Within curriculum_learning, its metric entries and their schedule_config, a
// key DeepSpeed does not read is an error with the closest known key (a typo
// there silently changes the curriculum); the rest of the config is not ours
// to judge.
//
// DeepSpeed's older curriculum, a top-level curriculum_learning section
// (constants.py CURRICULUM_LEARNING_LEGACY: enabled, curriculum_type,
// min_difficulty, max_difficulty, schedule_type, schedule_config), is read when
// the config has no data_efficiency curriculum: the engine truncates each
// batch to its difficulty (curriculum_seqlen) and samples as usual, which is
// one single_cluster value metric named after curriculum_type. Both enabled
// at once is refused (DeepSpeed would run both; check them one at a time).
//
// The file is read by curriculum/ds_json.h (hjson comments, no key twice);
// every "enabled" is DeepSpeed's truth of it (DeepSpeedEnabled: 1 is true).
//
// Top level, each optional: train_batch_size, train_micro_batch_size_per_gpu,
// gradient_accumulation_steps (positive integers, or "auto" as the Hugging
// Face Trainer writes them: not given), train_iters (a positive integer).
//
// Every error is one BadInput line "FILE: key.path: problem".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/json_fields.h"
#include "curriculum/schedule.h"
#include "util/status.h"

namespace dsanalyze {

// Keys and values of a curriculum_metrics entry besides the schedule's.
inline constexpr std::string_view kIndexToSamplePathKey = "index_to_sample_path";
inline constexpr std::string_view kIndexToMetricPathKey = "index_to_metric_path";
inline constexpr std::string_view kDifficultyTypeKey = "difficulty_type";
inline constexpr std::string_view kClusteringTypeKey = "clustering_type";

enum class DifficultyType { kValue, kPercentile };
enum class ClusteringType { kScheduleBased, kSingleCluster };
std::string_view DifficultyTypeName(DifficultyType type);  // "value", "percentile"
std::string_view ClusteringTypeName(ClusteringType type);  // "schedule_based", "single_cluster"

struct CurriculumMetricConfig {
  std::string name;
  DifficultyType difficulty_type = DifficultyType::kPercentile;
  ClusteringType clustering_type = ClusteringType::kScheduleBased;
  std::string index_to_sample_path;  // .bin/.idx prefix; empty when not given
  std::string index_to_metric_path;  // .bin/.idx prefix; empty when not given
  Schedule schedule;
};

// The top-level keys of a DeepSpeed config that fix the batch size and the
// number of training steps (also read by `dsanalyze batches`); the global
// batch size they give is DeepSpeedGlobalBatch (curriculum/batch_size.h).
struct DeepSpeedTrainKeys {
  std::optional<int64_t> train_batch_size;
  std::optional<int64_t> train_micro_batch_size_per_gpu;
  std::optional<int64_t> gradient_accumulation_steps;
  std::optional<int64_t> train_iters;
  std::vector<std::string> auto_keys;  // batch keys given as "auto", in the order above
};

struct DeepSpeedCurriculum : DeepSpeedTrainKeys {
  std::vector<CurriculumMetricConfig> metrics;  // the config's order
  bool legacy = false;                          // from the top-level curriculum_learning
};

// Reads the DeepSpeed config file at `path`.
Result<DeepSpeedCurriculum> ReadDeepSpeedCurriculum(const std::string& path);

// DeepSpeed's truth of an "enabled" value, Python's bool() of it: null,
// false and 0 are false, true and every other number true.
bool DeepSpeedFalse(const nlohmann::json& value);
// The "enabled" `key` of `f` as DeepSpeed takes it (DeepSpeedFalse); *out is
// untouched when the key is absent. BadInput for a string (to DeepSpeed
// "false" is true, as any non-empty string), an array or an object.
Status DeepSpeedEnabled(const JsonFields& f, std::string_view key, bool* out);
// The DeepSpeedTrainKeys of the config `doc` read from `file`; the batch
// keys may be "auto" (listed in auto_keys, left unset).
Result<DeepSpeedTrainKeys> ReadTrainKeys(const nlohmann::json& doc, const std::string& file);
// A JsonFields error ("config: key: problem") reworded for the DeepSpeed
// config `file` ("FILE: key: problem"); other statuses unchanged.
Status InDeepSpeedConfig(const Status& s, const std::string& file);

}  // namespace dsanalyze
