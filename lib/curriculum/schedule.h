// DeepSpeed's curriculum difficulty schedule as a pure model: what
// CurriculumScheduler (deepspeed/runtime/data_pipeline/curriculum_scheduler.py,
// DeepSpeed commit 38327e07f) returns at each training step, and the keys of a
// curriculum_metrics entry that describe it (its constants.py). The analysis's
// proposed config (report/curriculum_config.cc) writes a Schedule with
// WriteScheduleKeys and `dsanalyze curriculum` replays one with
// UpdateDifficulty, so both share this one model.
//
// The model, for step s >= 1:
//  - fixed_linear is fixed_root with root_degree 1;
//  - fixed_root: d = floor((s / total_curriculum_step) ^ (1 / root_degree)
//    * (max - min) + min) in double arithmetic, then d -= d mod difficulty_step
//    (floor modulo, as Python's %), then d = min(d, max);
//  - fixed_discrete: difficulty[i] for the first i with s <= max_step[i], or
//    the last difficulty once s > max_step.back();
//  - update_difficulty: the current difficulty starts at min and is replaced
//    by the schedule's value only while it is below max; once current >= max
//    it never changes again (so a fixed_discrete schedule may also go down
//    while below max).
// DeepSpeed's "custom" type (a Python function) cannot be modelled.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

namespace dsanalyze {

// Keys of a curriculum_metrics entry and of its schedule_config.
inline constexpr std::string_view kMinDifficultyKey = "min_difficulty";
inline constexpr std::string_view kMaxDifficultyKey = "max_difficulty";
inline constexpr std::string_view kScheduleTypeKey = "schedule_type";
inline constexpr std::string_view kScheduleConfigKey = "schedule_config";
inline constexpr std::string_view kTotalCurriculumStepKey = "total_curriculum_step";
inline constexpr std::string_view kDifficultyStepKey = "difficulty_step";
inline constexpr std::string_view kRootDegreeKey = "root_degree";
inline constexpr std::string_view kDiscreteDifficultyKey = "difficulty";
inline constexpr std::string_view kDiscreteMaxStepKey = "max_step";

// DeepSpeed's total_curriculum_step in its GPT-3 data-efficiency example: a
// run's curriculum_config.json holds it as a placeholder when the run was
// given no output.total_curriculum_step (report/curriculum_config.h), and
// the curriculum page calls it out.
inline constexpr int64_t kPlaceholderCurriculumStep = 110000;

enum class ScheduleType { kFixedLinear, kFixedRoot, kFixedDiscrete };

// "fixed_linear", "fixed_root", "fixed_discrete".
std::string_view ScheduleTypeName(ScheduleType type);
// The type named `name`; nullopt for any other name (including "custom").
std::optional<ScheduleType> ParseScheduleType(std::string_view name);

struct Schedule {
  ScheduleType type = ScheduleType::kFixedRoot;
  int64_t min_difficulty = 0;
  int64_t max_difficulty = 0;
  // fixed_linear and fixed_root: both >= 1.
  int64_t total_curriculum_step = 1;
  int64_t difficulty_step = 1;
  double root_degree = 2;  // fixed_root only, > 0
  // fixed_discrete: difficulties.size() == max_steps.size() + 1, max_steps non-empty.
  std::vector<int64_t> difficulties;
  std::vector<int64_t> max_steps;
};

// CurriculumScheduler.get_difficulty(step) for a valid schedule.
int64_t DifficultyAt(const Schedule& schedule, int64_t step);

// CurriculumScheduler.update_difficulty(step) from difficulty `current`: the
// difficulty after the call.
int64_t UpdateDifficulty(const Schedule& schedule, int64_t current, int64_t step);

// True when no step after `step` changes the difficulty `current` (reached
// after UpdateDifficulty(step)): it is at max, or a fixed_discrete schedule
// is past its last max_step (its last difficulty holds from then on).
bool Settled(const Schedule& schedule, int64_t current, int64_t step);

// The first step from which the schedule's difficulty no longer changes:
// total_curriculum_step (fixed_linear, fixed_root: max is reached there), or
// the last max_step + 1 (fixed_discrete).
int64_t ScheduleEnd(const Schedule& schedule);

// Writes min_difficulty, max_difficulty, schedule_type and schedule_config
// (only the keys DeepSpeed reads for the type) into the object `entry`.
void WriteScheduleKeys(const Schedule& schedule, nlohmann::ordered_json* entry);

}  // namespace dsanalyze
