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

using ReplayJson = nlohmann::ordered_json;

// An analysis at dir/a with one single-value metric per entry (ids 0..N-1).
std::string MakeAnalysis(const test::ScratchDir& dir,
                         const std::map<std::string, std::vector<int64_t>>& metrics) {
  const std::string save = dir / "a";
  ReplayJson summary = {{"metrics", ReplayJson::object()}};
  for (const auto& [name, values] : metrics) {
    std::vector<int64_t> ids(values.size());
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i);
    test::WriteSingleValueMetric(save, name, values, ids);
    summary["metrics"][name] = {{"type", "single_value_per_sample"}, {"samples", values.size()}};
  }
  std::ofstream(save + "/summary.json") << summary.dump();
  return save;
}

ReplayJson Discrete(const std::string& save, const std::string& name, const std::string& type,
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
                               const ReplayJson& metrics, int64_t batch, int64_t steps) {
  const ReplayJson doc = {
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
  for (const CurriculumWarning& w : r.warnings) k.insert(std::string(KindName(w.kind)));
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

TEST_CASE("warnings: below_min_value, empty first cluster, small pool, never_eligible",
          "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  // Difficulty 0 < smallest value 1: the first cluster is empty (DeepSpeed
  // has nothing to draw from: an error); then 3 samples < batch 4; the last
  // difficulty (9) comes after step 3.
  auto r = Check(dir, save, {{"m", Discrete(save, "m", "value", {0, 2, 9}, {1, 5})}}, 4, 3);
  REQUIRE(r.ok());
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"below_min_value", "empty_first_cluster",
                                                  "small_pool", "never_eligible"});
  REQUIRE(r->warnings.front().step == 1);
  REQUIRE(r->warnings.back().kind == WarningKind::kNeverEligible);
  REQUIRE(r->warnings.back().message.find("7 of 10 samples") != std::string::npos);
  for (const CurriculumWarning& w : r->warnings) REQUIRE(!w.fix.empty());
  REQUIRE(r->warnings.front().fix.find("min_difficulty to 1") != std::string::npos);
}

TEST_CASE("warnings: index_mismatch, missing_file, other_analysis", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  ReplayJson value_on_merged = Discrete(save, "m", "value", {1, 9}, {1});
  value_on_merged["index_to_sample_path"] = save + "/m/m_index_to_sample_percentile_merged";
  auto r = Check(dir, save, {{"m", value_on_merged}}, 1, 5);
  REQUIRE(r.ok());
  // Fewer than 200 values: one value a row, so the clusters are right.
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"index_choice"});

  ReplayJson missing = Discrete(save, "m", "value", {1, 9}, {1});
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
                                                  "other_dataset", "never_eligible"});
}

TEST_CASE("index_mismatch: a value metric on rows that group several values", "[curriculum]") {
  test::ScratchDir dir;
  std::vector<int64_t> values(250);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
  const std::string save = MakeAnalysis(dir, {{"m", values}});  // merged: 125 rows of 2 values
  ReplayJson e = Discrete(save, "m", "value", {0, 249}, {1});
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

TEST_CASE("warnings: an empty intersection at the start is an empty first cluster",
          "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"a", {1, 1, 2, 2}}, {"b", {2, 2, 1, 1}}});
  auto r = Check(dir, save,
                 {{"a", Discrete(save, "a", "value", {1, 2}, {3})},
                  {"b", Discrete(save, "b", "value", {1, 2}, {3})}},
                 1, 5);
  REQUIRE(r.ok());
  REQUIRE(Sizes(*r) == std::vector<uint64_t>{0, 4});
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"empty_first_cluster"});
  REQUIRE(r->warnings[0].step == 1);
  REQUIRE(r->warnings[0].message.find("none in common") != std::string::npos);
  REQUIRE(SeverityOf(r->warnings[0].kind) == Severity::kError);
}

TEST_CASE("global batch: flag, train_batch_size, or micro x accumulation x data-parallel",
          "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  const ReplayJson metrics = {{"m", Discrete(save, "m", "value", {2, 9}, {2})}};
  ReplayJson doc = {
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
  doc["train_batch_size"] = 30;
  std::ofstream(path) << doc.dump();
  auto r = CheckCurriculum({save, path, std::nullopt, 5, 2});
  REQUIRE(r->global_batch_size == 30);
  REQUIRE(r->train_steps == 2);
  REQUIRE(r->train_steps_from == TrainStepsFrom::kFlag);
}

TEST_CASE("global batch: DeepSpeed's _batch_assertion, and \"auto\"", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"m", kValues}});
  const ReplayJson metrics = {{"m", Discrete(save, "m", "value", {2, 9}, {2})}};
  ReplayJson doc = {
      {"train_batch_size", 64},
      {"train_micro_batch_size_per_gpu", 2},
      {"gradient_accumulation_steps", 3},
      {"data_efficiency",
       {{"data_sampling",
         {{"curriculum_learning", {{"enabled", true}, {"curriculum_metrics", metrics}}}}}}}};
  const std::string path = dir / "ds_config.json";
  const auto check = [&](std::optional<int64_t> flag, int64_t dp) {
    std::ofstream(path) << doc.dump();
    return CheckCurriculum({save, path, flag, dp, std::nullopt});
  };
  auto r = check(std::nullopt, 5);  // 64 != 2 x 3 x 5
  REQUIRE(!r.ok());
  REQUIRE(r.status().message() ==
          path +
              ": train_batch_size: 64 is not train_micro_batch_size_per_gpu 2 x "
              "gradient_accumulation_steps 3 x data-parallel size 5 (--data-parallel-size) = "
              "30, as DeepSpeed requires (_batch_assertion)");
  doc.erase("gradient_accumulation_steps");  // DeepSpeed derives 64 // 2 // 5 = 6: 60 != 64
  REQUIRE(
      check(std::nullopt, 5).status().message().find("gradient_accumulation_steps 6 (derived)") !=
      std::string::npos);
  REQUIRE(check(std::nullopt, 4)->global_batch_size == 64);  // 2 x 8 x 4
  doc["train_batch_size"] = "auto";                          // Hugging Face style: 2 x 1 x 4
  REQUIRE(check(std::nullopt, 4)->global_batch_size == 8);
  doc["train_micro_batch_size_per_gpu"] = "auto";
  r = check(std::nullopt, 4);
  REQUIRE(!r.ok());
  REQUIRE(r.status().message().find(
              "train_batch_size, train_micro_batch_size_per_gpu to \"auto\"") != std::string::npos);
  REQUIRE(r.status().message().find("give --global-batch-size") != std::string::npos);
  REQUIRE(check(512, 4)->global_batch_size == 512);
}

TEST_CASE("train steps: flag, train_iters, else the largest total_curriculum_step",
          "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"a", kValues}, {"b", kValues}});
  ReplayJson linear = Discrete(save, "a", "value", {1, 9}, {1});
  linear["schedule_type"] = "fixed_linear";
  linear["schedule_config"] = {{"total_curriculum_step", 40}, {"difficulty_step", 1}};
  const ReplayJson metrics = {{"a", linear},
                              {"b", Discrete(save, "b", "value", {1, 5, 9}, {3, 70})}};
  ReplayJson doc = {
      {"train_batch_size", 1},
      {"data_efficiency",
       {{"data_sampling",
         {{"curriculum_learning", {{"enabled", true}, {"curriculum_metrics", metrics}}}}}}}};
  const std::string path = dir / "ds_config.json";
  std::ofstream(path) << doc.dump();
  auto r = CheckCurriculum({save, path, std::nullopt, 1, std::nullopt});
  REQUIRE(r.ok());
  REQUIRE(r->train_steps == 71);  // b's last max_step + 1, beyond a's 40
  REQUIRE(r->train_steps_from == TrainStepsFrom::kScheduleEnd);
  REQUIRE(r->replay.steps.back().step == 71);
  REQUIRE(Kinds(*r).count("never_eligible") == 0);
  doc["train_iters"] = 20;
  std::ofstream(path) << doc.dump();
  r = CheckCurriculum({save, path, std::nullopt, 1, std::nullopt});
  REQUIRE((r->train_steps == 20 && r->train_steps_from == TrainStepsFrom::kTrainIters));
  r = CheckCurriculum({save, path, std::nullopt, 1, 30});
  REQUIRE((r->train_steps == 30 && r->train_steps_from == TrainStepsFrom::kFlag));
}

TEST_CASE("a single_cluster metric's changes are notes, not empty clusters", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"p", kValues}, {"t", kValues}});
  // p (percentile, 1 step in 5) clusters; t (single_cluster) changes every
  // step, which makes DeepSpeed build an empty cluster each time.
  ReplayJson truncate = Discrete(save, "t", "value", {1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5});
  truncate["clustering_type"] = "single_cluster";
  const ReplayJson metrics = {{"p", Discrete(save, "p", "percentile", {1, 5}, {3})},
                              {"t", truncate}};
  auto r = Check(dir, save, metrics, 1, 10);
  REQUIRE(r.ok());
  REQUIRE(Sizes(*r) == std::vector<uint64_t>{2, 0, 0, 8, 0, 0});  // steps 1..6
  REQUIRE(Kinds(*r) == std::multiset<std::string>{"single_cluster_change", "single_cluster_change",
                                                  "single_cluster_change",
                                                  "single_cluster_change"});
  REQUIRE(r->warnings[0].metric == "t");
  REQUIRE(r->warnings[0].fix.find("difficulty_step") == std::string::npos);
  const std::vector<WarningGroup> groups = GroupWarnings(r->warnings);
  REQUIRE(groups.size() == 1);
  REQUIRE((groups[0].count == 4 && groups[0].first_step == 2 && groups[0].last_step == 6));
  REQUIRE(SeverityOf(groups[0].kind) == Severity::kNote);
}

TEST_CASE("severities: one per kind, errors first when grouped", "[curriculum]") {
  REQUIRE(KindName(WarningKind::kEmptyFirstCluster) == "empty_first_cluster");
  REQUIRE(SeverityOf(WarningKind::kMissingFile) == Severity::kError);
  REQUIRE(SeverityOf(WarningKind::kEmptyFirstCluster) == Severity::kError);
  REQUIRE(SeverityOf(WarningKind::kEmptyCluster) == Severity::kWarning);
  REQUIRE(SeverityOf(WarningKind::kNeverEligible) == Severity::kWarning);
  REQUIRE(SeverityOf(WarningKind::kSingleClusterChange) == Severity::kNote);
  const std::vector<CurriculumWarning> w = {{3, WarningKind::kSmallCluster, "m", "a", "f"},
                                            {5, WarningKind::kEmptyCluster, "m", "b", "g"},
                                            {9, WarningKind::kEmptyCluster, "m", "c", "h"},
                                            {7, WarningKind::kEmptyCluster, "n", "d", "i"},
                                            {8, WarningKind::kEmptyFirstCluster, "", "e", "j"}};
  const std::vector<WarningGroup> g = GroupWarnings(w);
  REQUIRE(g.size() == 4);
  REQUIRE(g[0].kind == WarningKind::kEmptyFirstCluster);
  REQUIRE((g[1].metric == "m" && g[1].count == 2 && g[1].first_step == 5 && g[1].last_step == 9));
  REQUIRE((g[1].message == "b" && g[1].fix == "g"));
  REQUIRE(g[2].metric == "n");
  REQUIRE(g[3].kind == WarningKind::kSmallCluster);
  REQUIRE(CountSeverity(w, Severity::kWarning) == 3);
}

TEST_CASE("the --json report and the SVG chart", "[curriculum]") {
  test::ScratchDir dir;
  const std::string save = MakeAnalysis(dir, {{"a&b", kValues}});
  auto r = Check(dir, save, {{"a&b", Discrete(save, "a&b", "value", {0, 2, 9}, {1, 5})}}, 4, 3);
  REQUIRE(r.ok());
  const ReplayJson j = CurriculumReportJson(*r);
  REQUIRE(j.size() == 5);
  REQUIRE(j["train_steps"] == 3);
  REQUIRE(j["train_steps_from"] == "train_iters");
  REQUIRE(j["steps"][1].dump() ==
          R"({"step":2,"difficulty":{"a&b":2},"new_cluster_size":3,"eligible":3})");
  REQUIRE(j["warnings"].size() == r->warnings.size());
  for (const auto& w : j["warnings"]) {
    REQUIRE(w.size() == 6);
    for (const char* key : {"step", "kind", "severity", "metric", "message", "fix"})
      REQUIRE(w.contains(key));
  }
  REQUIRE(j["warnings"][0]["kind"] == "below_min_value");
  REQUIRE(j["warnings"][0]["severity"] == "warning");
  REQUIRE(j["warnings"][0]["metric"] == "a&b");
  REQUIRE(j["groups"][0]["kind"] == "empty_first_cluster");  // errors first
  REQUIRE(j["groups"][0]["severity"] == "error");
  REQUIRE(j["groups"][0]["count"] == 1);
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
  // The empty first cluster (an error) at step 1 is shaded until step 2; the
  // pool (0, then 3) spans orders of magnitude: a log axis; the batch line.
  REQUIRE(svg.find("<title>error at step 1</title>") != std::string::npos);
  REQUIRE(svg.find(">eligible pool (log)</text>") != std::string::npos);
  REQUIRE(svg.find(">global batch 4</text>") != std::string::npos);
}

}  // namespace
}  // namespace dsanalyze
