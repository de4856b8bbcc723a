// ReadDeepSpeedCurriculum: a valid config in file order, and one error line
// naming the key path for each kind of bad config.
#include "curriculum/ds_config.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/test_util.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;
constexpr const char* kMetrics =
    "data_efficiency.data_sampling.curriculum_learning.curriculum_metrics";

Json Entry() {
  return {{"index_to_sample_path", "a/seqlen/seqlen_index_to_sample"},
          {"index_to_metric_path", "a/seqlen/seqlen_index_to_metric"},
          {"difficulty_type", "value"},
          {"clustering_type", "schedule_based"},
          {"min_difficulty", 8},
          {"max_difficulty", 1024},
          {"schedule_type", "fixed_linear"},
          {"schedule_config", {{"total_curriculum_step", 100}, {"difficulty_step", 8}}}};
}

Json Doc(const Json& seqlen) {
  Json metrics = {{"zeta", Entry()}, {"seqlen", seqlen}};
  return {{"train_batch_size", 32},
          {"data_efficiency",
           {{"data_sampling",
             {{"curriculum_learning", {{"enabled", true}, {"curriculum_metrics", metrics}}}}}}}};
}

Result<DeepSpeedCurriculum> Read(const test::ScratchDir& dir, const Json& doc) {
  const std::string path = dir / "ds_config.json";
  std::ofstream(path) << doc.dump();
  return ReadDeepSpeedCurriculum(path);
}

TEST_CASE("a DeepSpeed config's curriculum, in file order", "[curriculum]") {
  test::ScratchDir dir;
  Result<DeepSpeedCurriculum> c = Read(dir, Doc(Entry()));
  REQUIRE(c.ok());
  REQUIRE(c->metrics.size() == 2);
  REQUIRE(c->metrics[0].name == "zeta");  // file order, not sorted
  REQUIRE(c->metrics[1].schedule.type == ScheduleType::kFixedLinear);
  REQUIRE(c->metrics[1].schedule.difficulty_step == 8);
  REQUIRE(c->train_batch_size == 32);
  REQUIRE(!c->train_iters);
}

TEST_CASE("a bad DeepSpeed config is one line naming the key path", "[curriculum]") {
  test::ScratchDir dir;
  const std::string m = std::string(kMetrics) + ".seqlen.";
  const std::vector<std::pair<std::function<void(Json&)>, std::string>> cases = {
      {[](Json& e) { e["schedule_type"] = "custom"; }, m + "schedule_type: \"custom\""},
      {[](Json& e) { e["schedule_type"] = "fixed_cubic"; }, m + "schedule_type: unknown"},
      {[](Json& e) { e.erase("max_difficulty"); }, m + "max_difficulty: required"},
      {[](Json& e) { e["min_difficulty"] = "8"; }, m + "min_difficulty: expected an integer"},
      {[](Json& e) { e["schedule_config"]["difficulty_step"] = 0; },
       m + "schedule_config.difficulty_step: expected a positive integer"},
      {[](Json& e) { e["schedule_config"]["total_curriculum_step"] = 0; },
       m + "schedule_config.total_curriculum_step: expected a positive integer"},
      {[](Json& e) {
         e["schedule_type"] = "fixed_discrete";
         e["schedule_config"] = {{"difficulty", {1, 2}}, {"max_step", {5, 10}}};
       },
       m + "schedule_config.difficulty: must hold one more entry than max_step (3), got 2"},
      {[](Json& e) { e["schedule_type"] = "fixed_root"; },
       m + "schedule_config.root_degree: required"},
      {[](Json& e) { e["difficulty_type"] = "rank"; }, m + "difficulty_type: expected one of"},
      {[](Json& e) { e.erase("index_to_metric_path"); }, m + "index_to_metric_path: required"},
      {[](Json& e) {
         e["difficulty_type"] = "percentile";
         e["min_difficulty"] = 0;
         e["max_difficulty"] = 0;
       },
       m + "max_difficulty: must be at least 1 with difficulty_type percentile"},
      {[](Json& e) {
         e["min_difficulty"] = 50;
         e["max_difficulty"] = 10;
       },
       m + "min_difficulty: 50 is above max_difficulty 10"},
      {[](Json& e) {
         e["difficulty_typ"] = e["difficulty_type"];
         e.erase("difficulty_type");
       },
       std::string(kMetrics) +
           ".seqlen: unknown key \"difficulty_typ\" (did you mean \"difficulty_type\"?)"},
      {[](Json& e) {
         e["schedule_type"] = "fixed_root";
         e["schedule_config"]["root_degre"] = 2;
       },
       m + "schedule_config: unknown key \"root_degre\" (did you mean \"root_degree\"?)"},
      {[](Json& e) {
         e["schedule_config"]["total_curriculum_steps"] = 10;
         e["schedule_config"].erase("total_curriculum_step");
       },
       m + "schedule_config: unknown key \"total_curriculum_steps\" (did you mean "
           "\"total_curriculum_step\"?)"},
      {[](Json& e) { e["schedule_config"]["difficulty_stepp"] = 16; },
       m + "schedule_config: unknown key \"difficulty_stepp\" (did you mean \"difficulty_step\"?)"},
      // Found by fuzzing (tests/fuzz/regressions/dsconfig/min_difficulty_int64_min): rounding
      // down to a multiple of difficulty_step overflowed int64 in the replay.
      {[](Json& e) { e["min_difficulty"] = std::numeric_limits<int64_t>::min() + 6; },
       m + "min_difficulty: -9223372036854775802 is within difficulty_step (8) of the smallest "
           "64-bit integer"},
  };
  for (const auto& [mutate, expected] : cases) {
    Json entry = Entry();
    mutate(entry);
    Result<DeepSpeedCurriculum> c = Read(dir, Doc(entry));
    INFO(expected);
    REQUIRE(!c.ok());
    const std::string msg = c.status().message();
    INFO(msg);
    REQUIRE(msg.rfind(dir / "ds_config.json: ", 0) == 0);
    REQUIRE(msg.find(expected) != std::string::npos);
    REQUIRE(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("curriculum learning must be enabled and list metrics", "[curriculum]") {
  test::ScratchDir dir;
  Json off = Doc(Entry());
  off["data_efficiency"]["data_sampling"]["curriculum_learning"]["enabled"] = false;
  REQUIRE(Read(dir, off).status().message().find("curriculum_learning.enabled: is false") !=
          std::string::npos);
  Json none = Doc(Entry());
  none["data_efficiency"]["data_sampling"]["curriculum_learning"]["curriculum_metrics"] =
      Json::object();
  REQUIRE(Read(dir, none).status().message().find("curriculum_metrics: lists no metric") !=
          std::string::npos);
  REQUIRE(Read(dir, Json{{"train_batch_size", 8}})
              .status()
              .message()
              .find("data_efficiency: required key is missing") != std::string::npos);
}

TEST_CASE("unknown keys: curriculum sections only, misspelt section names named", "[curriculum]") {
  test::ScratchDir dir;
  Json doc = Doc(Entry());
  doc["optimizer"] = {{"type", "Adam"}, {"params", {{"lr", 1e-4}}}};  // not ours to judge
  doc["data_efficiency"]["data_routing"] = {{"enabled", false}};
  REQUIRE(Read(dir, doc).ok());
  doc["data_efficiency"]["data_sampling"]["curriculum_learning"]["curriculum_metric"] = 1;
  REQUIRE(Read(dir, doc).status().message().find(
              "curriculum_learning: unknown key \"curriculum_metric\" (did you mean "
              "\"curriculum_metrics\"?)") != std::string::npos);
  Json misspelt = Doc(Entry());
  misspelt["data_efficiency"]["data_samplng"] = misspelt["data_efficiency"]["data_sampling"];
  misspelt["data_efficiency"].erase("data_sampling");
  REQUIRE(Read(dir, misspelt)
              .status()
              .message()
              .find("data_efficiency.data_sampling: required key is missing (is \"data_samplng\" a "
                    "misspelling of it?)") != std::string::npos);
}

TEST_CASE("\"auto\" batch keys count as not given", "[curriculum]") {
  test::ScratchDir dir;
  Json doc = Doc(Entry());
  doc["train_batch_size"] = "auto";
  doc["gradient_accumulation_steps"] = "auto";
  Result<DeepSpeedCurriculum> c = Read(dir, doc);
  REQUIRE(c.ok());
  REQUIRE(!c->train_batch_size);
  REQUIRE(c->auto_keys ==
          std::vector<std::string>{"train_batch_size", "gradient_accumulation_steps"});
  doc["train_iters"] = "auto";  // not a Hugging Face key
  REQUIRE(Read(dir, doc).status().message().find("train_iters: expected a positive integer") !=
          std::string::npos);
}

Json Legacy() {
  return {{"enabled", true},
          {"curriculum_type", "seqlen"},
          {"min_difficulty", 8},
          {"max_difficulty", 1024},
          {"schedule_type", "fixed_linear"},
          {"schedule_config", {{"total_curriculum_step", 300}, {"difficulty_step", 8}}}};
}

TEST_CASE("the legacy top-level curriculum_learning: one single_cluster metric", "[curriculum]") {
  test::ScratchDir dir;
  Json doc = {{"train_batch_size", 8}, {"curriculum_learning", Legacy()}};
  doc["data_efficiency"] = {{"enabled", true}, {"data_routing", Json::object()}};
  Result<DeepSpeedCurriculum> c = Read(dir, doc);
  REQUIRE(c.ok());
  REQUIRE(c->legacy);
  REQUIRE(c->metrics.size() == 1);
  REQUIRE(c->metrics[0].name == "seqlen");
  REQUIRE(c->metrics[0].clustering_type == ClusteringType::kSingleCluster);
  REQUIRE(c->metrics[0].schedule.max_difficulty == 1024);
  REQUIRE(c->metrics[0].schedule.total_curriculum_step == 300);

  doc["curriculum_learning"]["curriculum_typ"] = "seqlen";
  REQUIRE(Read(dir, doc).status().message().find(
              "curriculum_learning: unknown key \"curriculum_typ\" (did you mean "
              "\"curriculum_type\"?)") != std::string::npos);
  Json both = Doc(Entry());
  both["curriculum_learning"] = Legacy();
  REQUIRE(Read(dir, both).status().message().find(
              "curriculum_learning: the legacy top-level curriculum") != std::string::npos);
  both["curriculum_learning"]["enabled"] = false;  // off: the data_efficiency one is read
  REQUIRE(Read(dir, both).ok());
}

}  // namespace
}  // namespace dsanalyze
