// The replay (clusters, eligible pool) and every warning kind on tiny
// analyses written by the test fixture, through CheckCurriculum.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "curriculum/curriculum_check.h"
#include "curriculum/curriculum_svg.h"
#include "curriculum/schedule.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;

// An analysis at dir/a with one single-value metric per entry (ids 0..N-1).
std::string MakeAnalysis(const test::ScratchDir& dir,
                         const std::map<std::string, std::vector<int64_t>>& metrics) {
  const std::string save = dir / "a";
  Json summary = {{"metrics", Json::object()}};
  for (const auto& [name, values] : metrics) {
    std::vector<int64_t> ids(values.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
    test::WriteSingleValueMetric(save, name, values, ids);
    summary["metrics"][name] = {{"type", "single_value_per_sample"}, {"samples", values.size()}};
  }
  std::ofstream(save + "/summary.json") << summary.dump();
  return save;
}

Json Discrete(const std::string& save, const std::string& name, const std::string& type,
              std::vector<int64_t> difficulty, std::vector<int64_t> max_step) {
  const std::string kind =
      type == "value" ? "_index_to_sample" : "_index_to_sample_percentile_merged";
  return {{"index_to_sample_path", save + "/" + name + "/" + name + kind},
          {"index_to_metric_path", save + "/" + name + "/" + name + "_index_to_metric"},
          {"difficulty_type", type},
          {"clustering_type", "schedule_based"},
          {"min_difficulty", difficulty.front()},
          {"max_difficulty", difficulty.back()},
          {"schedule_type", "fixed_discrete"},
          {"schedule_config", {{"difficulty", difficulty}, {"max_step", max_step}}}};
}

Result<CurriculumReport> Check(const test::ScratchDir& dir, const std::string& save,
                               const Json& metrics, int64_t batch, int64_t steps) {
  const Json doc = {
      {"train_batch_size", batch},
      {"train_iters", steps},
      {"data_efficiency",
       {{"data_sampling",
         {{"curriculum_learning", {{"enabled", true}, {"curriculum_metrics", metrics}}}}}}}};
  const std::string path = dir / "ds_config.json";
  std::ofstream(path) << doc.dump();
  return CheckCurriculum({save, path, std::nullopt, 1, std::nullopt});
}

std::vector<uint64_t> Sizes(const CurriculumReport& r) {
  std::vector<uint64_t> s;
  for (const ReplayStep& step : r.replay.steps) s.push_back(step.cluster.size);
  return s;
}

std::multiset<std::string> Kinds(const CurriculumReport& r) {
  std::multiset<std::string> k;
  for (const CurriculumWarning& w : r.warnings) k.insert(w.kind);
  return k;
}

const std::vector<int64_t> kValues = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};

TEST_CASE("value-based: clusters are the samples with previous < value <= current",
          "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  auto r = Check(dir, save, {{"m", Discrete(save, "m", "value", {2, 4, 9}, {2, 4})}}, 2, 10);
  REQUIRE(r.ok());
  REQUIRE(Sizes(*r) == std::vector<uint64_t>{3, 3, 4});  // {1,1,2}, {3,4,3}, {5,9,6,5}
  REQUIRE(r->replay.steps[1].step == 3);
  REQUIRE(r->replay.steps.back().eligible == 10);
  REQUIRE(r->warnings.empty());
}

TEST_CASE("percentile-based: slices of N // max_difficulty, the last one to N", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  // per = 10 // 5 = 2: [0, 2), [2, 6), [6, 10)
  auto r = Check(dir, save, {{"m", Discrete(save, "m", "percentile", {1, 3, 5}, {1, 2})}}, 2, 4);
  REQUIRE(r.ok());
  REQUIRE(Sizes(*r) == std::vector<uint64_t>{2, 4, 4});
  REQUIRE(r->warnings.empty());
}

TEST_CASE("two metrics: intersections of cumulative sets minus earlier clusters", "[curriculum]") {
  test::ScratchDir dir;
  const std::vector<int64_t> b = {1, 1, 1, 2, 2, 2, 3, 3, 3, 3};
  const std::string save = MakeAnalysis(dir, {{"a", kValues}, {"b", b}});
  auto r = Check(dir, save,
                 {{"a", Discrete(save, "a", "value", {3, 5, 9}, {2, 4})},
                  {"b", Discrete(save, "b", "value", {2, 2, 3}, {3, 5})}},
                 1, 10);
  REQUIRE(r.ok());
  // Brute force over the steps where a difficulty changes: 1, 3, 5, 6.
  std::set<size_t> taken;
  std::vector<uint64_t> expected;
  for (auto [da, db] : {std::pair{3, 2}, {5, 2}, {9, 2}, {9, 3}}) {
    uint64_t n = 0;
    for (size_t i = 0; i < b.size(); ++i)
      if (kValues[i] <= da && b[i] <= db && taken.insert(i).second) ++n;
    expected.push_back(n);
  }
  REQUIRE(Sizes(*r) == expected);
  REQUIRE(r->replay.covered == 10);
}

TEST_CASE("warnings: below_min_value, empty and small clusters, never_eligible", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  // Difficulty 0 < smallest value 1: the first cluster is empty; then 3
  // samples < batch 4; the last difficulty (9) comes after step 3.
  auto r = Check(dir, save, {{"m", Discrete(save, "m", "value", {0, 2, 9}, {1, 5})}}, 4, 3);
  REQUIRE(r.ok());
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"below_min_value", "empty_cluster",
                                                  "small_cluster", "never_eligible"});
  REQUIRE(r->warnings.front().step == 1);
  REQUIRE(r->warnings.back().kind == "never_eligible");
  REQUIRE(r->warnings.back().message.find("7 of 10 samples") != std::string::npos);
  for (const CurriculumWarning& w : r->warnings) REQUIRE(!w.fix.empty());
  REQUIRE(r->warnings.front().fix.find("min_difficulty to 1") != std::string::npos);
}

TEST_CASE("warnings: index_mismatch, missing_file, other_analysis", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  Json value_on_merged = Discrete(save, "m", "value", {1, 9}, {1});
  value_on_merged["index_to_sample_path"] = save + "/m/m_index_to_sample_percentile_merged";
  auto r = Check(dir, save, {{"m", value_on_merged}}, 1, 5);
  REQUIRE(r.ok());
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"index_mismatch"});

  Json missing = Discrete(save, "m", "value", {1, 9}, {1});
  missing["index_to_metric_path"] = save + "/m/nothing";
  r = Check(dir, save, {{"m", missing}}, 1, 5);
  REQUIRE(r.ok());
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"missing_file"});
  REQUIRE(r->replay.steps.empty());

  const std::string other = MakeAnalysis(dir, {{"m", {1, 2, 3}}});  // dir/a again, N = 3
  std::filesystem::rename(other, dir / "b");
  MakeAnalysis(dir, {{"m", kValues}});
  r = Check(dir, save, {{"m", Discrete(dir / "b", "m", "value", {1, 9}, {1})}}, 1, 5);
  REQUIRE(r.ok());
  // Two files in another folder, 3 samples instead of 10 (so 7 are never eligible).
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"other_analysis", "other_analysis",
                                                  "other_analysis", "never_eligible"});
}

TEST_CASE("index_mismatch: a value metric on rows that group several values", "[curriculum]") {
  test::ScratchDir dir;
  std::vector<int64_t> values(250);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
  const std::string save = MakeAnalysis(dir, {{"m", values}});  // merged: 125 rows of 2 values
  Json e = Discrete(save, "m", "value", {0, 249}, {1});
  e["index_to_sample_path"] = save + "/m/m_index_to_sample_percentile_merged";
  auto r = Check(dir, save, {{"m", e}}, 1, 5);
  REQUIRE(r.ok());
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"index_mismatch"});
  REQUIRE(r->warnings[0].message.find("125 rows group the 250 values") != std::string::npos);
  REQUIRE(r->warnings[0].fix == "set index_to_sample_path to " + save + "/m/m_index_to_sample");
  // DeepSpeed pairs row r (values 2r, 2r+1) with value r: at difficulty 0 it
  // takes row 0, at 249 rows 1..124.
  REQUIRE(Sizes(*r) == std::vector<uint64_t>{2, 248});
}

TEST_CASE("Settled: at max, or past a fixed_discrete schedule's last max_step", "[curriculum]") {
  Schedule s;
  s.type = ScheduleType::kFixedDiscrete;
  s.max_difficulty = 100;
  s.difficulties = {1, 50};
  s.max_steps = {10};
  REQUIRE(!Settled(s, 1, 10));
  REQUIRE(Settled(s, 50, 11));
  s.type = ScheduleType::kFixedLinear;
  REQUIRE(!Settled(s, 50, 1000000));
  REQUIRE(Settled(s, 100, 3));
}

TEST_CASE("warnings: empty_intersection", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"a", {1, 1, 2, 2}}, {"b", {2, 2, 1, 1}}});
  auto r = Check(dir, save,
                 {{"a", Discrete(save, "a", "value", {1, 2}, {3})},
                  {"b", Discrete(save, "b", "value", {1, 2}, {3})}},
                 1, 5);
  REQUIRE(r.ok());
  REQUIRE(Sizes(*r) == std::vector<uint64_t>{0, 4});
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"empty_intersection"});
  REQUIRE(r->warnings[0].step == 1);
}

TEST_CASE("global batch: flag, train_batch_size, or micro x accumulation x data-parallel",
          "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  const Json metrics = {{"m", Discrete(save, "m", "value", {2, 9}, {2})}};
  Json doc = {
      {"train_micro_batch_size_per_gpu", 2},
      {"gradient_accumulation_steps", 3},
      {"train_iters", 4},
      {"data_efficiency",
       {{"data_sampling",
         {{"curriculum_learning", {{"enabled", true}, {"curriculum_metrics", metrics}}}}}}}};
  const std::string path = dir / "ds_config.json";
  std::ofstream(path) << doc.dump();
  REQUIRE(CheckCurriculum({save, path, std::nullopt, 5, std::nullopt})->global_batch_size == 30);
  REQUIRE(CheckCurriculum({save, path, 7, 5, std::nullopt})->global_batch_size == 7);
  doc["train_batch_size"] = 64;
  std::ofstream(path) << doc.dump();
  auto r = CheckCurriculum({save, path, std::nullopt, 5, 2});
  REQUIRE(r->global_batch_size == 64);
  REQUIRE(r->train_steps == 2);
}

TEST_CASE("the --json report and the SVG chart", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"a&b", kValues}});
  auto r = Check(dir, save, {{"a&b", Discrete(save, "a&b", "value", {0, 2, 9}, {1, 5})}}, 4, 3);
  REQUIRE(r.ok());
  const Json j = CurriculumReportJson(*r);
  REQUIRE(j.size() == 2);
  REQUIRE(j["steps"][1].dump() ==
          R"({"step":2,"difficulty":{"a&b":2},"new_cluster_size":3,"eligible":3})");
  for (const auto& w : j["warnings"]) {
    REQUIRE(w.size() == 4);
    for (const char* key : {"step", "kind", "message", "fix"}) REQUIRE(w.contains(key));
  }
  const std::string svg = CurriculumSvg(*r);
  REQUIRE(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=", 0) == 0);
  REQUIRE(svg.size() > 7);
  REQUIRE(svg.substr(svg.size() - 7) == "</svg>\n");
  REQUIRE(svg.find("a&amp;b difficulty (0 .. 9)") != std::string::npos);
  REQUIRE(svg.find("a&b") == std::string::npos);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1))
    ++lines;
  REQUIRE(lines == 2);  // the metric's difficulty and the eligible pool
}

}  // namespace
}  // namespace dsanalyze
