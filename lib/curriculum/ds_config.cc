#include "curriculum/ds_config.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "config/json_fields.h"
#include "curriculum/ds_json.h"
#include "util/closest_name.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace {

using nlohmann::json;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr std::string_view kSection = "curriculum_learning";  // also the legacy top-level key
constexpr std::string_view kEnabledKey = "enabled";
constexpr std::string_view kMetricsKey = "curriculum_metrics";
constexpr std::string_view kCurriculumTypeKey = "curriculum_type";  // legacy only

// The keys DeepSpeed reads in each section (data_pipeline/constants.py).
constexpr std::string_view kSectionKeys[] = {kEnabledKey, "data_cluster_path", kMetricsKey};
constexpr std::string_view kMetricKeys[] = {
    kIndexToSamplePathKey, kIndexToMetricPathKey, kDifficultyTypeKey, kClusteringTypeKey,
    kMinDifficultyKey,     kMaxDifficultyKey,     kScheduleTypeKey,   kScheduleConfigKey};
constexpr std::string_view kLegacyKeys[] = {kEnabledKey,       kCurriculumTypeKey,
                                            kMinDifficultyKey, kMaxDifficultyKey,
                                            kScheduleTypeKey,  kScheduleConfigKey};
constexpr std::string_view kScheduleConfigKeys[] = {kTotalCurriculumStepKey, kDifficultyStepKey,
                                                    kRootDegreeKey, kDiscreteDifficultyKey,
                                                    kDiscreteMaxStepKey};

// The value of `key`, which must be one of `names`, as its index in `names`.
Result<size_t> Choice(const JsonFields& f, std::string_view key,
                      std::initializer_list<std::string_view> names) {
  DSA_RETURN_IF_ERROR(f.Require(key));
  std::string value, list;
  DSA_RETURN_IF_ERROR(f.String(key, &value));
  size_t i = 0;
  for (std::string_view n : names) {
    if (n == value) return i;
    list += (i++ ? ", " : "") + std::string(n);
  }
  return ConfigError(f.KeyPath(key), "expected one of " + list + ", got " + json(value).dump());
}

Status ParseFixedDiscrete(const JsonFields& c, Schedule* s) {
  for (std::string_view key : {kDiscreteDifficultyKey, kDiscreteMaxStepKey})
    DSA_RETURN_IF_ERROR(c.Require(key));
  DSA_RETURN_IF_ERROR(c.IntArray(kDiscreteMaxStepKey, &s->max_steps));
  DSA_RETURN_IF_ERROR(c.IntArray(kDiscreteDifficultyKey, &s->difficulties));
  if (s->max_steps.empty())
    return ConfigError(c.KeyPath(kDiscreteMaxStepKey), "must hold at least one step");
  if (s->difficulties.size() != s->max_steps.size() + 1)
    return ConfigError(c.KeyPath(kDiscreteDifficultyKey),
                       "must hold one more entry than max_step (" +
                           std::to_string(s->max_steps.size() + 1) + "), got " +
                           std::to_string(s->difficulties.size()));
  return Status::OK();
}

// fixed_linear and fixed_root round a difficulty down to a multiple of
// difficulty_step, by up to difficulty_step - 1: from a min_difficulty that
// close to the smallest int64, DeepSpeed's Python integers go below it, where
// the replay's int64 cannot follow (found by tests/fuzz/dsconfig_fuzz.cc).
Status CheckRoundingFits(const JsonFields& e, const Schedule& s) {
  if (s.min_difficulty >= kMin + (s.difficulty_step - 1)) return Status::OK();
  return ConfigError(e.KeyPath(kMinDifficultyKey),
                     std::to_string(s.min_difficulty) + " is within difficulty_step (" +
                         std::to_string(s.difficulty_step) +
                         ") of the smallest 64-bit integer: DeepSpeed's rounding down to a "
                         "multiple of difficulty_step could go below it");
}

// schedule_type and schedule_config of the entry `e`.
Status ParseSchedule(const JsonFields& e, Schedule* s) {
  DSA_RETURN_IF_ERROR(e.Require(kScheduleTypeKey));
  std::string type;
  DSA_RETURN_IF_ERROR(e.String(kScheduleTypeKey, &type));
  if (type == "custom")
    return ConfigError(e.KeyPath(kScheduleTypeKey),
                       "\"custom\" schedules are Python functions "
                       "(set_custom_curriculum_learning_schedule) and cannot be replayed; use "
                       "fixed_linear, fixed_root or fixed_discrete");
  const std::optional<ScheduleType> t = ParseScheduleType(type);
  if (!t)
    return ConfigError(e.KeyPath(kScheduleTypeKey),
                       "unknown schedule type " + json(type).dump() +
                           ": expected fixed_linear, fixed_root or fixed_discrete");
  s->type = *t;
  DSA_RETURN_IF_ERROR(e.Require(kScheduleConfigKey));
  DSA_ASSIGN_OR_RETURN(JsonFields c,
                       JsonFields::Of(e.at(kScheduleConfigKey), e.KeyPath(kScheduleConfigKey)));
  DSA_RETURN_IF_ERROR(c.CheckKnown(kScheduleConfigKeys));
  if (s->type == ScheduleType::kFixedDiscrete) return ParseFixedDiscrete(c, s);
  std::vector<std::string_view> keys = {kTotalCurriculumStepKey, kDifficultyStepKey};
  if (s->type == ScheduleType::kFixedRoot) keys.push_back(kRootDegreeKey);
  for (std::string_view key : keys) DSA_RETURN_IF_ERROR(c.Require(key));
  DSA_RETURN_IF_ERROR(c.Int(kTotalCurriculumStepKey, 1, kMax, &s->total_curriculum_step));
  DSA_RETURN_IF_ERROR(c.Int(kDifficultyStepKey, 1, kMax, &s->difficulty_step));
  DSA_RETURN_IF_ERROR(c.PositiveNumber(kRootDegreeKey, &s->root_degree));
  return CheckRoundingFits(e, *s);
}

// Percentile difficulties count shares of the samples: DeepSpeed divides by
// max_difficulty, and a negative share would slice from the end.
Status CheckPercentile(const JsonFields& e, const Schedule& s) {
  if (s.max_difficulty < 1)
    return ConfigError(e.KeyPath(kMaxDifficultyKey),
                       "must be at least 1 with difficulty_type percentile, got " +
                           std::to_string(s.max_difficulty));
  if (s.min_difficulty < 0)
    return ConfigError(e.KeyPath(kMinDifficultyKey),
                       "must be at least 0 with difficulty_type percentile, got " +
                           std::to_string(s.min_difficulty));
  for (size_t i = 0; i < s.difficulties.size(); ++i)
    if (s.difficulties[i] < 0)
      return ConfigError(e.KeyPath(kScheduleConfigKey) + "." + std::string(kDiscreteDifficultyKey) +
                             "[" + std::to_string(i) + "]",
                         "must be at least 0 with difficulty_type percentile, got " +
                             std::to_string(s.difficulties[i]));
  return Status::OK();
}

// min_difficulty and max_difficulty of the entry `e`. DeepSpeed takes
// min > max without a word, and its scheduler never moves from min: refused.
Status ParseDifficulties(const JsonFields& e, Schedule* s) {
  for (std::string_view key : {kMinDifficultyKey, kMaxDifficultyKey})
    DSA_RETURN_IF_ERROR(e.Require(key));
  DSA_RETURN_IF_ERROR(e.Int(kMinDifficultyKey, kMin, kMax, &s->min_difficulty));
  DSA_RETURN_IF_ERROR(e.Int(kMaxDifficultyKey, kMin, kMax, &s->max_difficulty));
  if (s->min_difficulty <= s->max_difficulty) return Status::OK();
  return ConfigError(e.KeyPath(kMinDifficultyKey),
                     std::to_string(s->min_difficulty) + " is above max_difficulty " +
                         std::to_string(s->max_difficulty) +
                         ": DeepSpeed would start at its maximum difficulty and never change "
                         "it, so the first cluster takes every sample (no curriculum)");
}

Result<CurriculumMetricConfig> ParseMetric(const json& j, const std::string& path,
                                           const std::string& name) {
  DSA_ASSIGN_OR_RETURN(JsonFields e, JsonFields::Of(j, path));
  DSA_RETURN_IF_ERROR(e.CheckKnown(kMetricKeys));
  CurriculumMetricConfig m;
  m.name = name;
  DSA_ASSIGN_OR_RETURN(size_t difficulty, Choice(e, kDifficultyTypeKey, {"value", "percentile"}));
  m.difficulty_type = difficulty == 0 ? DifficultyType::kValue : DifficultyType::kPercentile;
  DSA_ASSIGN_OR_RETURN(size_t clustering,
                       Choice(e, kClusteringTypeKey, {"schedule_based", "single_cluster"}));
  m.clustering_type =
      clustering == 0 ? ClusteringType::kScheduleBased : ClusteringType::kSingleCluster;
  if (m.clustering_type == ClusteringType::kScheduleBased) {
    DSA_RETURN_IF_ERROR(e.Require(kIndexToSamplePathKey));
    if (m.difficulty_type == DifficultyType::kValue)
      DSA_RETURN_IF_ERROR(e.Require(kIndexToMetricPathKey));
  }
  DSA_RETURN_IF_ERROR(e.String(kIndexToSamplePathKey, &m.index_to_sample_path));
  DSA_RETURN_IF_ERROR(e.String(kIndexToMetricPathKey, &m.index_to_metric_path));
  DSA_RETURN_IF_ERROR(ParseDifficulties(e, &m.schedule));
  DSA_RETURN_IF_ERROR(ParseSchedule(e, &m.schedule));
  if (m.difficulty_type == DifficultyType::kPercentile)
    DSA_RETURN_IF_ERROR(CheckPercentile(e, m.schedule));
  return m;
}

// Require(key) of `f`, the object `j`, that names a present key close to
// `key` ("data_efficency"), since these sections are not checked for unknown
// keys.
Status RequireNear(const json& j, const JsonFields& f, std::string_view key) {
  if (f.has(key)) return Status::OK();
  const std::string_view choices[] = {key};
  for (const auto& [present, value] : j.items())
    if (!ClosestName(present, choices).empty())
      return ConfigError(f.KeyPath(key), "required key is missing (is " + json(present).dump() +
                                             " a misspelling of it?)");
  return f.Require(key);
}

// f's "enabled", which must be true to DeepSpeed (DeepSpeedEnabled).
Status RequireEnabled(const JsonFields& f) {
  bool enabled = false;
  DSA_RETURN_IF_ERROR(f.Require(kEnabledKey));
  DSA_RETURN_IF_ERROR(DeepSpeedEnabled(f, kEnabledKey, &enabled));
  if (!enabled) return ConfigError(f.KeyPath(kEnabledKey), "is false: no curriculum to replay");
  return Status::OK();
}

// The curriculum_learning object of `doc`, enabled, with its metrics.
Result<std::vector<CurriculumMetricConfig>> ParseSection(const json& plain,
                                                         const nlohmann::ordered_json& doc) {
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(plain, ""));
  const json* j = &plain;
  for (std::string_view key : {"data_efficiency", "data_sampling", "curriculum_learning"}) {
    DSA_RETURN_IF_ERROR(RequireNear(*j, f, key));
    j = &f.at(key);
    DSA_ASSIGN_OR_RETURN(f, JsonFields::Of(*j, f.KeyPath(key)));
  }
  DSA_RETURN_IF_ERROR(f.CheckKnown(kSectionKeys));
  DSA_RETURN_IF_ERROR(RequireEnabled(f));
  DSA_RETURN_IF_ERROR(f.Require(kMetricsKey));
  DSA_ASSIGN_OR_RETURN(JsonFields metrics,
                       JsonFields::Of(f.at(kMetricsKey), f.KeyPath(kMetricsKey)));
  const auto& ordered = doc["data_efficiency"]["data_sampling"]["curriculum_learning"][kMetricsKey];
  if (ordered.empty()) return ConfigError(metrics.path(), "lists no metric");
  std::vector<CurriculumMetricConfig> out;
  for (const auto& [name, entry] : ordered.items()) {
    DSA_ASSIGN_OR_RETURN(CurriculumMetricConfig m,
                         ParseMetric(metrics.at(name), metrics.KeyPath(name), name));
    out.push_back(std::move(m));
  }
  return out;
}

// The legacy top-level curriculum_learning section as one single_cluster
// value metric (ds_config.h).
Result<CurriculumMetricConfig> ParseLegacy(const json& plain) {
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(plain.at(kSection), std::string(kSection)));
  DSA_RETURN_IF_ERROR(f.CheckKnown(kLegacyKeys));
  DSA_RETURN_IF_ERROR(RequireEnabled(f));
  CurriculumMetricConfig m;
  DSA_RETURN_IF_ERROR(f.Require(kCurriculumTypeKey));
  DSA_RETURN_IF_ERROR(f.String(kCurriculumTypeKey, &m.name));
  m.difficulty_type = DifficultyType::kValue;
  m.clustering_type = ClusteringType::kSingleCluster;
  DSA_RETURN_IF_ERROR(ParseDifficulties(f, &m.schedule));
  DSA_RETURN_IF_ERROR(ParseSchedule(f, &m.schedule));
  return m;
}

// True when the legacy section is there and not disabled (a value of
// "enabled" DeepSpeedEnabled refuses is for ParseLegacy to word).
bool LegacyEnabled(const json& plain) {
  if (!plain.contains(kSection)) return false;
  const json& legacy = plain.at(kSection);
  return !legacy.is_object() || !legacy.contains(kEnabledKey) ||
         !DeepSpeedFalse(legacy.at(kEnabledKey));
}

// The metrics of the data_efficiency curriculum, else of the legacy one.
Status ParseMetrics(const json& plain, const nlohmann::ordered_json& doc, DeepSpeedCurriculum* c) {
  const json::json_pointer modern("/data_efficiency/data_sampling/curriculum_learning");
  if (!plain.contains(modern) && plain.contains(kSection)) {
    DSA_ASSIGN_OR_RETURN(CurriculumMetricConfig m, ParseLegacy(plain));
    c->metrics.push_back(std::move(m));
    c->legacy = true;
    return Status::OK();
  }
  if (plain.contains(modern) && LegacyEnabled(plain))
    return ConfigError(kSection,
                       "the legacy top-level curriculum (sequence truncation in the engine) and "
                       "data_efficiency.data_sampling.curriculum_learning are both enabled; "
                       "DeepSpeed would run both: check them one at a time");
  DSA_ASSIGN_OR_RETURN(c->metrics, ParseSection(plain, doc));
  return Status::OK();
}

Result<DeepSpeedCurriculum> Parse(const nlohmann::ordered_json& doc, const std::string& file) {
  const json plain(doc);
  if (!plain.is_object()) return ConfigError("", "expected a JSON object {...}");
  DeepSpeedCurriculum c;
  DSA_RETURN_IF_ERROR(ParseMetrics(plain, doc, &c));
  DSA_ASSIGN_OR_RETURN(static_cast<DeepSpeedTrainKeys&>(c), ReadTrainKeys(plain, file));
  return c;
}

}  // namespace

std::string_view DifficultyTypeName(DifficultyType type) {
  return type == DifficultyType::kValue ? "value" : "percentile";
}

std::string_view ClusteringTypeName(ClusteringType type) {
  return type == ClusteringType::kScheduleBased ? "schedule_based" : "single_cluster";
}

bool DeepSpeedFalse(const nlohmann::json& value) {
  return value.is_null() || value == false || (value.is_number() && value == 0);
}

Status DeepSpeedEnabled(const JsonFields& f, std::string_view key, bool* out) {
  if (!f.has(key)) return Status::OK();
  const json& value = f.at(key);
  if (value.is_string())
    return ConfigError(f.KeyPath(key), "expected true or false, got " + ShortJson(value) +
                                           " (DeepSpeed takes any non-empty string as true)");
  if (!value.is_null() && !value.is_boolean() && !value.is_number())
    return ConfigError(f.KeyPath(key), "expected true or false, got " + ShortJson(value));
  *out = !DeepSpeedFalse(value);
  return Status::OK();
}

Status InDeepSpeedConfig(const Status& s, const std::string& file) {
  constexpr std::string_view kLabel = "config: ";
  if (s.ok() || s.message().rfind(kLabel, 0) != 0) return s;
  return Status::BadInput(file + ": " + s.message().substr(kLabel.size()));
}

Result<DeepSpeedTrainKeys> ReadTrainKeys(const nlohmann::json& doc, const std::string& file) {
  Result<JsonFields> top = JsonFields::Of(doc, "");
  if (!top.ok()) return InDeepSpeedConfig(top.status(), file);
  DeepSpeedTrainKeys c;
  const std::pair<std::string_view, std::optional<int64_t>*> keys[] = {
      {"train_batch_size", &c.train_batch_size},
      {"train_micro_batch_size_per_gpu", &c.train_micro_batch_size_per_gpu},
      {"gradient_accumulation_steps", &c.gradient_accumulation_steps},
      {"train_iters", &c.train_iters}};
  for (const auto& [key, out] : keys) {
    if (!top->has(key)) continue;
    if (top->at(key) == "auto" && out != &c.train_iters) {
      c.auto_keys.emplace_back(key);
      continue;
    }
    int64_t v = 0;
    DSA_RETURN_IF_ERROR(InDeepSpeedConfig(top->Int(key, 1, kMax, &v), file));
    *out = v;
  }
  return c;
}

Result<DeepSpeedCurriculum> ReadDeepSpeedCurriculum(const std::string& path) {
  DSA_ASSIGN_OR_RETURN(const nlohmann::ordered_json doc, ReadDeepSpeedJson(path));
  Result<DeepSpeedCurriculum> c = Parse(doc, path);
  if (!c.ok()) return InDeepSpeedConfig(c.status(), path);
  return c;
}

}  // namespace dsanalyze
