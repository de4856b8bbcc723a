#include "report/report.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "page/histogram_svg.h"
#include "page/numbers.h"
#include "report/chart_svg.h"
#include "report/distribution.h"
#include "report/metric_stats.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using ReportJson = nlohmann::json;

std::string ReadText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A small XML well-formedness check: balanced and properly nested tags, quoted
// attributes, known entities only, one root element. Returns "" or the problem.
std::string XmlProblem(const std::string& xml) {
  std::vector<std::string> stack;
  int roots = 0;
  size_t i = 0;
  auto entity_ok = [&](size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (xml.compare(at, std::strlen(e), e) == 0) return true;
    return false;
  };
  while (i < xml.size()) {
    if (xml[i] == '&') {
      if (!entity_ok(i)) return "bad entity at " + std::to_string(i);
      ++i;
      continue;
    }
    if (xml[i] != '<') {
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(xml[i])))
        return "text outside the root element at " + std::to_string(i);
      ++i;
      continue;
    }
    if (xml.compare(i, 5, "<?xml") == 0) {
      if (i != 0) return "XML declaration not at the start";
      i = xml.find("?>", i);
      if (i == std::string::npos) return "unterminated declaration";
      i += 2;
      continue;
    }
    const size_t end = xml.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (!tag.empty() && tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1))
        return "mismatched </" + tag.substr(1) + ">";
      stack.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    const size_t name_end = std::min(tag.find_first_of(" \n\t"), tag.size());
    const std::string name = tag.substr(0, name_end);
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
      return "bad tag name in <" + tag + ">";
    // Attributes: name="value" pairs, values without '<'.
    size_t a = name_end;
    while (true) {
      a = tag.find_first_not_of(" \n\t", a);
      if (a == std::string::npos) break;
      const size_t eq = tag.find('=', a);
      if (eq == std::string::npos || eq + 1 >= tag.size() || tag[eq + 1] != '"')
        return "unquoted attribute in <" + tag + ">";
      const size_t close = tag.find('"', eq + 2);
      if (close == std::string::npos) return "unterminated attribute in <" + tag + ">";
      if (tag.substr(eq + 2, close - eq - 2).find('<') != std::string::npos)
        return "'<' in an attribute of <" + tag + ">";
      a = close + 1;
    }
    if (stack.empty()) ++roots;
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

TEST_CASE("the XML checker catches malformed documents", "[report]") {
  CHECK(XmlProblem("<svg xmlns=\"x\"><g><rect/></g></svg>") == "");
  CHECK(XmlProblem("<svg><g></svg>") != "");
  CHECK(XmlProblem("<svg><g></g>") != "");
  CHECK(XmlProblem("<svg a=b></svg>") != "");
  CHECK(XmlProblem("<svg>a & b</svg>") != "");
  CHECK(XmlProblem("<svg></svg><svg></svg>") != "");
}

// Per-sample values of a single-value metric, read from sample_to_metric.
std::vector<int64_t> SampleValues(const fs::path& save_path, const std::string& metric) {
  std::vector<int64_t> v;
  for (const auto& row :
       test::ReadRows((save_path / metric / (metric + "_sample_to_metric")).string()))
    v.push_back(row.at(0));
  return v;
}

// "p50"; appended, since `"p" + temporary` trips GCC 12's -Wrestrict false positive.
std::string PercentileKey(int p) {
  std::string key = "p";
  key += std::to_string(p);
  return key;
}

size_t Distinct(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return static_cast<size_t>(std::unique(v.begin(), v.end()) - v.begin());
}

// Checks summary.json's entry for a metric against statistics computed here
// from the per-sample values: a sort and the nearest-rank definition.
void CheckSingleValueSummary(const ReportJson& m, std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  CHECK(m["distinct_values"] == Distinct(values));
  const size_t n = values.size();
  CHECK(m["type"] == "single_value_per_sample");
  CHECK(m["samples"] == n);
  CHECK(m["min"] == values.front());
  CHECK(m["max"] == values.back());
  int64_t sum = 0;
  for (int64_t v : values) sum += v;
  CHECK(m["sum"] == sum);
  CHECK(m["mean"].get<double>() == Approx(static_cast<double>(sum) / n).epsilon(1e-12));
  REQUIRE(m["percentiles"].size() == 21);
  for (int k = 0; k <= 20; ++k) {
    const int p = 5 * k;
    const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(p * n / 100.0L)));
    const std::string key = PercentileKey(p);
    INFO(key);
    CHECK(m["percentiles"][key] == values[rank - 1]);
  }
}

RunInfo SampleRunInfo(const std::string& save_path) {
  RunInfo info;
  info.tool_version = "9.9.9";
  info.ranks = 3;
  info.threads = 2;
  info.config_hash = "abc123";
  info.config = {{"dataset", {{"type", "synthetic_mod"}}}, {"save_path", save_path}};
  info.timings = {{"map", 1.5, 2.0}, {"sort", 0.25, 0.5}};
  info.peak_rss_bytes = {100, 200, 300};
  info.peak_anon_bytes = {10, 20, 30};
  info.save_path = save_path;
  return info;
}

TEST_CASE("ComponentsSvg draws each component of a blend on one axis", "[report][blend]") {
  const nlohmann::ordered_json per_component = nlohmann::ordered_json::parse(R"([
      {"prefix": "data/web_text_document", "samples": 3, "min": 1, "max": 9, "mean": 4.5,
       "percentiles": {"p5": 1, "p25": 2, "p50": 4, "p75": 6, "p95": 9}},
      {"prefix": "data/books", "samples": 0, "distinct_values": 0}])");
  const std::string svg = ComponentsSvg("m<1>", per_component);
  CHECK(XmlProblem(svg).empty());
  CHECK(svg.find("web_text_document (3)") != std::string::npos);  // file name, samples
  CHECK(svg.find("data/web") == std::string::npos);
  CHECK(svg.find("books (0)") != std::string::npos);
  CHECK(svg.find("no samples") != std::string::npos);
  CHECK(svg.find("m&lt;1&gt; per component") != std::string::npos);
  CHECK(svg.find("web_text_document: p25 2, p75 6") != std::string::npos);
}

TEST_CASE("WriteReports on DeepSpeed's seedmod output", "[report]") {
  test::ScratchDir scratch;
  const fs::path d = scratch.path() / "out";
  test::CopyGolden("seedmod-100k/dda", d);
  const std::string final_path = (scratch.path() / "final").string();
  REQUIRE(WriteReports(d.string(),
                       {{"mod", MetricType::kSingleValuePerSample},
                        {"batch_sum", MetricType::kAccumulateValueOverSamples}},
                       SampleRunInfo(final_path))
              .ok());
  for (const char* f : {"curriculum_config.json", "report.html", "summary.json"})
    CHECK(fs::exists(d / f));

  const ReportJson s = ReportJson::parse(ReadText(d / "summary.json"));
  CHECK(s["tool_version"] == "9.9.9");
  CHECK(s["config_hash"] == "abc123");
  CHECK(s["ranks"] == 3);
  CHECK(s["threads"] == 2);
  CHECK(s["peak_rss_bytes"] == ReportJson::array({100, 200, 300}));
  CHECK(s["peak_anon_bytes"] == ReportJson::array({10, 20, 30}));
  CHECK(s["timings"][1]["stage"] == "sort");
  CHECK(s["timings"][1]["max_seconds"] == 0.5);
  CHECK(s["config"]["dataset"]["type"] == "synthetic_mod");

  // Sample x has value (x + 7) % 10000: every value 0..9999 ten times.
  const ReportJson& mod = s["metrics"]["mod"];
  CHECK(mod["samples"] == 100000);
  CHECK(mod["distinct_values"] == 10000);
  CHECK(mod["min"] == 0);
  CHECK(mod["max"] == 9999);
  CHECK(mod["mean"] == 4999.5);
  CHECK(mod["metric_dtype"] == "uint16");
  CHECK(mod["sample_dtype"] == "uint32");
  std::vector<int64_t> formula;
  for (int64_t x = 0; x < 100000; ++x) formula.push_back((x + 7) % 10000);
  CheckSingleValueSummary(mod, formula);

  const ReportJson& sum = s["metrics"]["batch_sum"];
  CHECK(sum["type"] == "accumulate_value_over_samples");
  CHECK(sum["length"] == 1);
  CHECK(sum["sum"] == 499950000);
  CHECK(sum["min"] == 499950000);
  CHECK(sum["max"] == 499950000);
  CHECK(sum["dtype"] == "uint32");

  SECTION("histogram") {
    const std::string svg = ReadText(d / "mod" / "mod_histogram.svg");
    CHECK(XmlProblem(svg) == "");
    CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(svg.find("mod: N = 100,000 samples, 10,000 distinct values") != std::string::npos);
    CHECK(svg.find(">mod value (bin width 200)</text>") != std::string::npos);
    CHECK(svg.find(">samples</text>") != std::string::npos);
    for (int p : {10, 50, 90}) {
      const int64_t v = mod["percentiles"][PercentileKey(p)];
      CHECK(svg.find(">p" + std::to_string(p) + " = " + Count(v) + "</text>") != std::string::npos);
    }
    // 10000 values in bins of 200: 50 bars of 2000 samples each.
    size_t bars = 0;
    for (size_t at = 0; (at = svg.find("<rect x=", at)) != std::string::npos; ++at) ++bars;
    CHECK(bars == 50);
    CHECK(svg.find("<title>0..199: 2,000 samples</title>") != std::string::npos);
    CHECK_FALSE(fs::exists(d / "batch_sum" / "batch_sum_histogram.svg"));
  }

  SECTION("curriculum config") {
    const ReportJson c = ReportJson::parse(ReadText(d / "curriculum_config.json"));
    const ReportJson& cl = c["data_efficiency"]["data_sampling"]["curriculum_learning"];
    CHECK(c["data_efficiency"]["enabled"] == true);
    CHECK(c["data_efficiency"]["data_sampling"]["enabled"] == true);
    CHECK(cl["enabled"] == true);
    CHECK(cl["data_cluster_path"] == final_path + "/data_clusters");
    REQUIRE(cl["curriculum_metrics"].size() == 1);  // batch_sum is no curriculum metric
    const ReportJson& pct = cl["curriculum_metrics"]["mod"];
    CHECK(pct["index_to_sample_path"] == final_path + "/mod/mod_index_to_sample_percentile_merged");
    CHECK(pct["index_to_metric_path"] == final_path + "/mod/mod_index_to_metric");
    CHECK(pct["difficulty_type"] == "percentile");
    CHECK(pct["clustering_type"] == "schedule_based");
    CHECK(pct["min_difficulty"] == 1);
    CHECK(pct["max_difficulty"] == 100);
    CHECK(pct["schedule_type"] == "fixed_root");
    CHECK(pct["schedule_config"]["root_degree"] == 2);
    // No output.total_curriculum_step: DeepSpeed's example value, marked as a placeholder.
    CHECK(pct["schedule_config"]["total_curriculum_step"] == 110000);
    CHECK(c["_comment"].get<std::string>().find("PLACEHOLDER: schedule_config."
                                                "total_curriculum_step") != std::string::npos);
    CHECK(pct["schedule_config"].contains("difficulty_step"));
    const ReportJson& value = c["value_based_alternative"]["curriculum_metrics"]["mod"];
    CHECK(value["index_to_sample_path"] == final_path + "/mod/mod_index_to_sample");
    CHECK(value["difficulty_type"] == "value");
    CHECK(value["min_difficulty"] == 0);
    CHECK(value["max_difficulty"] == 9999);
  }
}

TEST_CASE("WriteReports on DeepSpeed's token output", "[report]") {
  test::ScratchDir scratch;
  const fs::path d = scratch.path() / "out";
  test::CopyGolden("tokens/dda", d);
  REQUIRE(WriteReports(d.string(),
                       {{"seqlen", MetricType::kSingleValuePerSample},
                        {"vocab_rarity", MetricType::kSingleValuePerSample},
                        {"total_vocab_freq", MetricType::kAccumulateValueOverSamples}},
                       SampleRunInfo(""))
              .ok());
  const ReportJson s = ReportJson::parse(ReadText(d / "summary.json"));
  const std::vector<int64_t> seqlen = SampleValues(d, "seqlen");
  CheckSingleValueSummary(s["metrics"]["seqlen"], seqlen);
  CheckSingleValueSummary(s["metrics"]["vocab_rarity"], SampleValues(d, "vocab_rarity"));
  // Every token is counted once in total_vocab_freq and once in its document's seqlen.
  const ReportJson& freq = s["metrics"]["total_vocab_freq"];
  CHECK(freq["length"] == 50001);
  CHECK(freq["sum"] == 5256782);
  CHECK(s["metrics"]["seqlen"]["sum"] == 5256782);
  CHECK(freq["min"] == 0);
  for (const char* m : {"seqlen", "vocab_rarity"})
    CHECK(XmlProblem(ReadText(d / m / (std::string(m) + "_histogram.svg"))) == "");
  // Without a save path the paths point into the output directory itself.
  const ReportJson c = ReportJson::parse(ReadText(d / "curriculum_config.json"));
  const std::string path = c["data_efficiency"]["data_sampling"]["curriculum_learning"]
                            ["curriculum_metrics"]["seqlen"]["index_to_sample_path"];
  CHECK(fs::exists(path + ".bin"));
  CHECK(fs::exists(path + ".idx"));
}

TEST_CASE("curriculum_config.json takes the run's total_curriculum_step", "[report]") {
  test::ScratchDir scratch;
  const fs::path d = scratch.path() / "out";
  test::CopyGolden("seedmod-100k/dda", d);
  RunInfo info = SampleRunInfo("");
  info.total_curriculum_step = 55000;
  REQUIRE(WriteReports(d.string(), {{"mod", MetricType::kSingleValuePerSample}}, info).ok());
  const ReportJson c = ReportJson::parse(ReadText(d / "curriculum_config.json"));
  const ReportJson& active =
      c["data_efficiency"]["data_sampling"]["curriculum_learning"]["curriculum_metrics"]["mod"];
  CHECK(active["schedule_config"]["total_curriculum_step"] == 55000);
  CHECK(c["value_based_alternative"]["curriculum_metrics"]["mod"]["schedule_config"]
         ["total_curriculum_step"] == 55000);
  CHECK(c["_comment"].get<std::string>().find("PLACEHOLDER") == std::string::npos);
}

TEST_CASE("WriteReports writes no curriculum_config.json when no metric has a curriculum",
          "[report]") {
  test::ScratchDir scratch;
  const fs::path d = scratch.path() / "out";
  test::CopyGolden("seedmod-100k/dda", d);
  REQUIRE(WriteReports(d.string(), {{"batch_sum", MetricType::kAccumulateValueOverSamples}},
                       SampleRunInfo(""))
              .ok());
  CHECK(fs::exists(d / "summary.json"));
  CHECK_FALSE(fs::exists(d / "curriculum_config.json"));
  CHECK(fs::exists(d / "report.html"));
}

TEST_CASE("WriteReports names the file it cannot read", "[report]") {
  test::ScratchDir scratch;
  const fs::path d = scratch.path() / "out";
  test::CopyGolden("seedmod-100k/dda", d);
  fs::remove(d / "mod" / "mod_index_to_sample.idx");
  Status st = WriteReports(d.string(), {{"mod", MetricType::kSingleValuePerSample}}, RunInfo{});
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message().find("mod_index_to_sample.idx: file not found") != std::string::npos);
}

using test::Distribution;

TEST_CASE("nearest-rank percentiles", "[report]") {
  const ValueDistribution d = Distribution({1, 2, 3}, {1, 1, 2});  // samples 1 2 3 3
  CHECK(NearestRankPercentile(d, 0) == 1);
  CHECK(NearestRankPercentile(d, 25) == 1);
  CHECK(NearestRankPercentile(d, 26) == 2);
  CHECK(NearestRankPercentile(d, 50) == 2);
  CHECK(NearestRankPercentile(d, 51) == 3);
  CHECK(NearestRankPercentile(d, 100) == 3);
  CHECK(SumOfValues(d) == 9);
}

TEST_CASE("histograms of small, wide and empty distributions", "[report]") {
  SECTION("one bar per value for a small range") {
    const std::string svg =
        HistogramSvg("len<&>", Distribution({-2, 0, 3}, {5, 1, 2}), IntegerAxis("len<&>"));
    CHECK(XmlProblem(svg) == "");
    CHECK(svg.find("len&lt;&amp;&gt;: N = 8 samples, 3 distinct values") != std::string::npos);
    CHECK(svg.find("<title>-2: 5 samples</title>") != std::string::npos);
    CHECK(svg.find(">len&lt;&amp;&gt; value</text>") != std::string::npos);
    CHECK(svg.find(">p50 = -2</text>") != std::string::npos);
  }
  SECTION("the bins start at the data's minimum, not at a round value below it") {
    // 7..1006 in bins of 20: a bin 0..19 would hold only 7..19 and look half empty.
    const std::string svg =
        HistogramSvg("m", Distribution({7, 500, 1006}, {1, 1, 1}), IntegerAxis("m"));
    CHECK(svg.find("<title>7..26: 1 samples</title>") != std::string::npos);
    CHECK(svg.find("<title>987..1,006: 1 samples</title>") != std::string::npos);
  }
  SECTION("values over orders of magnitude get a log axis, from the smallest value") {
    const std::string svg = HistogramSvg(
        "m", Distribution({3, 10, 100, 1000, 10000, 100000}, {5, 5, 5, 5, 5, 5}), IntegerAxis("m"));
    CHECK(XmlProblem(svg) == "");
    CHECK(svg.find(">m value (log scale: bins of equal ratio)</text>") != std::string::npos);
    CHECK(svg.find("<title>3..3: 5 samples</title>") != std::string::npos);
    CHECK(svg.find(">10,000</text>") != std::string::npos);
    // 1 .. 1383 but spread evenly (p90 / p10 = 13): linear bins.
    std::vector<int64_t> even = {1};
    for (int64_t v = 100; v <= 1300; v += 100) even.push_back(v);
    even.push_back(1383);
    CHECK(HistogramSvg("m", Distribution(even, std::vector<uint64_t>(even.size(), 1)),
                       IntegerAxis("m"))
              .find("log scale") == std::string::npos);
  }
  SECTION("a log axis up to the int64 limit") {
    const int64_t big = std::numeric_limits<int64_t>::max();
    const std::string svg =
        HistogramSvg("m", Distribution({1, 1000, big}, {3, 3, 3}), IntegerAxis("m"));
    CHECK(XmlProblem(svg) == "");
    CHECK(svg.find("log scale") != std::string::npos);
  }
  SECTION("round bins over a range near the int64 limits") {
    const int64_t big = std::numeric_limits<int64_t>::max();
    const std::string svg =
        HistogramSvg("m", Distribution({-big, 0, big}, {1, 1, 1}), IntegerAxis("m"));
    CHECK(XmlProblem(svg) == "");
    CHECK(svg.find("(bin width 5e+17)") != std::string::npos);
  }
  SECTION("no samples") {
    const std::string svg = HistogramSvg("m", ValueDistribution{}, IntegerAxis("m"));
    CHECK(XmlProblem(svg) == "");
    CHECK(svg.find(">no samples</text>") != std::string::npos);
  }
}

}  // namespace
}  // namespace dsanalyze
