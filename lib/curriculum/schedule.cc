#include "curriculum/schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace dsanalyze {
namespace {

// Python's a % b for b > 0: the result has b's sign.
int64_t FloorMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r < 0 ? r + b : r;
}

// __fixed_root_get_difficulty: float math, floor, then down to a multiple of
// difficulty_step, capped at max.
int64_t FixedRoot(const Schedule& s, int64_t step, double root_degree) {
  const double progress = std::pow(
      static_cast<double>(step) / static_cast<double>(s.total_curriculum_step), 1.0 / root_degree);
  // Python converts the exact integer max - min to float once.
  const double range = static_cast<double>(static_cast<__int128>(s.max_difficulty) -
                                           static_cast<__int128>(s.min_difficulty));
  const double value = std::floor(progress * range + static_cast<double>(s.min_difficulty));
  // Far beyond int64 the result is capped at max anyway (steps past total).
  if (value >= 9.2e18) return s.max_difficulty;
  int64_t next = static_cast<int64_t>(value);
  next -= FloorMod(next, s.difficulty_step);
  return std::min(next, s.max_difficulty);
}

// __fixed_discrete_get_difficulty: the first max_step at or above the step
// picks its difficulty; past the last one, the last difficulty.
// (Past the last max_step is tested first, which matters for lists that are
// not ascending.)
int64_t FixedDiscrete(const Schedule& s, int64_t step) {
  if (step > s.max_steps.back()) return s.difficulties.back();
  size_t i = 0;
  while (step > s.max_steps[i]) ++i;  // stops at the last max_step at the latest
  return s.difficulties[i];
}

}  // namespace

std::string_view ScheduleTypeName(ScheduleType type) {
  switch (type) {
    case ScheduleType::kFixedLinear:
      return "fixed_linear";
    case ScheduleType::kFixedRoot:
      return "fixed_root";
    case ScheduleType::kFixedDiscrete:
      return "fixed_discrete";
  }
  return "";
}

std::optional<ScheduleType> ParseScheduleType(std::string_view name) {
  for (ScheduleType t :
       {ScheduleType::kFixedLinear, ScheduleType::kFixedRoot, ScheduleType::kFixedDiscrete})
    if (ScheduleTypeName(t) == name) return t;
  return std::nullopt;
}

int64_t DifficultyAt(const Schedule& schedule, int64_t step) {
  switch (schedule.type) {
    case ScheduleType::kFixedLinear:
      return FixedRoot(schedule, step, 1.0);
    case ScheduleType::kFixedRoot:
      return FixedRoot(schedule, step, schedule.root_degree);
    case ScheduleType::kFixedDiscrete:
      return FixedDiscrete(schedule, step);
  }
  return schedule.max_difficulty;
}

int64_t UpdateDifficulty(const Schedule& schedule, int64_t current, int64_t step) {
  return current < schedule.max_difficulty ? DifficultyAt(schedule, step) : current;
}

bool Settled(const Schedule& schedule, int64_t current, int64_t step) {
  return current >= schedule.max_difficulty ||
         (schedule.type == ScheduleType::kFixedDiscrete && step > schedule.max_steps.back());
}

int64_t ScheduleEnd(const Schedule& schedule) {
  if (schedule.type != ScheduleType::kFixedDiscrete) return schedule.total_curriculum_step;
  const int64_t last = schedule.max_steps.back();
  return last < std::numeric_limits<int64_t>::max() ? last + 1 : last;
}

void WriteScheduleKeys(const Schedule& schedule, nlohmann::ordered_json* entry) {
  using Json = nlohmann::ordered_json;
  Json config = Json::object();
  if (schedule.type == ScheduleType::kFixedDiscrete) {
    config[std::string(kDiscreteDifficultyKey)] = schedule.difficulties;
    config[std::string(kDiscreteMaxStepKey)] = schedule.max_steps;
  } else {
    config[std::string(kTotalCurriculumStepKey)] = schedule.total_curriculum_step;
    config[std::string(kDifficultyStepKey)] = schedule.difficulty_step;
  }
  if (schedule.type == ScheduleType::kFixedRoot) {
    const double d = schedule.root_degree;
    config[std::string(kRootDegreeKey)] =
        d == std::floor(d) && std::abs(d) < 1e15 ? Json(static_cast<int64_t>(d)) : Json(d);
  }
  (*entry)[std::string(kMinDifficultyKey)] = schedule.min_difficulty;
  (*entry)[std::string(kMaxDifficultyKey)] = schedule.max_difficulty;
  (*entry)[std::string(kScheduleTypeKey)] = std::string(ScheduleTypeName(schedule.type));
  (*entry)[std::string(kScheduleConfigKey)] = std::move(config);
}

}  // namespace dsanalyze
