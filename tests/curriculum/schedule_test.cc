// The schedule model against DeepSpeed's own CurriculumScheduler: every case
// of deepspeed_schedules.json (made by record_deepspeed_schedules.py from
// DeepSpeed 38327e07f) is read through ReadDeepSpeedCurriculum as one metric's
// entry and replayed with UpdateDifficulty, step by step.
#include "curriculum/schedule.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "curriculum/ds_config.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

nlohmann::json Recorded() {
  std::ifstream in(std::string(DSANALYZE_SOURCE_DIR) +
                   "/tests/curriculum/deepspeed_schedules.json");
  return nlohmann::json::parse(in);
}

// A DeepSpeed config whose only metric is `entry` (single_cluster, value).
std::string ConfigWith(const test::ScratchDir& dir, nlohmann::json entry) {
  entry["difficulty_type"] = "value";
  entry["clustering_type"] = "single_cluster";
  const nlohmann::json doc = {
      {"data_efficiency",
       {{"data_sampling",
         {{"curriculum_learning", {{"enabled", true}, {"curriculum_metrics", {{"m", entry}}}}}}}}}};
  const std::string path = dir / "ds_config.json";
  std::ofstream(path) << doc.dump();
  return path;
}

TEST_CASE("every schedule type matches DeepSpeed's CurriculumScheduler step by step",
          "[curriculum]") {
  const nlohmann::json recorded = Recorded();
  REQUIRE(recorded["deepspeed_commit"] == "38327e07f6cd39b63418f60cedd1651b0be3e7c3");
  REQUIRE(recorded["cases"].size() >= 10);
  test::ScratchDir dir;
  for (const auto& c : recorded["cases"]) {
    const std::string name = c["name"];
    INFO(name);
    Result<DeepSpeedCurriculum> config = ReadDeepSpeedCurriculum(ConfigWith(dir, c["config"]));
    REQUIRE(config.ok());
    const Schedule& s = config->metrics.at(0).schedule;
    int64_t current = s.min_difficulty;
    int64_t step = 1;
    for (const auto& expected : c["difficulties"]) {
      INFO("step " << step);
      current = UpdateDifficulty(s, current, step++);
      REQUIRE(current == expected.get<int64_t>());
    }
  }
}

TEST_CASE("update_difficulty stops once the difficulty reaches max", "[curriculum]") {
  Schedule s;
  s.type = ScheduleType::kFixedDiscrete;
  s.min_difficulty = 1;
  s.max_difficulty = 10;
  s.difficulties = {1, 10, 3};
  s.max_steps = {2, 4};
  REQUIRE(DifficultyAt(s, 5) == 3);
  REQUIRE(UpdateDifficulty(s, 10, 5) == 10);  // at max: stays
  REQUIRE(UpdateDifficulty(s, 1, 5) == 3);    // below max: follows the schedule
}

TEST_CASE("WriteScheduleKeys writes what the reader reads back", "[curriculum]") {
  Schedule s;
  s.type = ScheduleType::kFixedRoot;
  s.min_difficulty = 1;
  s.max_difficulty = 100;
  s.total_curriculum_step = 5000;
  s.difficulty_step = 8;
  s.root_degree = 3;
  nlohmann::ordered_json entry = nlohmann::ordered_json::object();
  WriteScheduleKeys(s, &entry);
  REQUIRE(
      entry.dump() ==
      R"({"min_difficulty":1,"max_difficulty":100,"schedule_type":"fixed_root",)"
      R"("schedule_config":{"total_curriculum_step":5000,"difficulty_step":8,"root_degree":3}})");
  test::ScratchDir dir;
  Result<DeepSpeedCurriculum> back =
      ReadDeepSpeedCurriculum(ConfigWith(dir, nlohmann::json::parse(entry.dump())));
  REQUIRE(back.ok());
  for (int64_t step : {1, 17, 400, 4999, 5000, 9000})
    REQUIRE(DifficultyAt(back->metrics[0].schedule, step) == DifficultyAt(s, step));
}

}  // namespace
}  // namespace dsanalyze
