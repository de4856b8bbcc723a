#include "check/verify.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "curriculum/metric_index.h"
#include "output/analysis_folder.h"
#include "output/metric_files.h"
#include "report/metric_stats.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using test::Rows;

// A writable copy of golden seedmod-100k/dda: sample x has value (x + 7) % 10000,
// so index row v holds the ten ids x ≡ v - 7 (mod 10000).
struct SeedmodCopy {
  test::ScratchDir scratch;
  fs::path out = scratch.path() / "out";
  SeedmodCopy() { test::CopyGolden("seedmod-100k/dda", out); }
  std::string prefix(const std::string& kind) const {
    return (out / "mod" / ("mod_" + kind)).string();
  }
};

std::string Describe(const VerifyReport& r) {
  std::string s;
  for (const Violation& v : r.violations) s += FormatViolation(v) + "\n";
  return s;
}

// Verifies `save_path` and requires a violation of `file` at `row` whose
// message contains `text`.
void RequireViolation(const fs::path& save_path, const std::string& file,
                      std::optional<uint64_t> row, const std::string& text) {
  Result<VerifyReport> r = VerifyOutput(save_path.string());
  REQUIRE(r.ok());
  INFO(Describe(*r));
  REQUIRE_FALSE(r->ok());
  bool found = false;
  for (const Violation& v : r->violations)
    found |= v.file == file && v.row == row && v.message.find(text) != std::string::npos;
  CHECK(found);
}

TEST_CASE("verify accepts DeepSpeed's golden outputs", "[verify]") {
  for (const char* name : {"seedmod-100k/da", "seedmod-100k/dda"}) {
    Result<VerifyReport> r = VerifyOutput((test::GoldenDir() / name).string());
    REQUIRE(r.ok());
    INFO(name << "\n" << Describe(*r));
    CHECK(r->ok());
    REQUIRE(r->metrics.size() == 2);
    CHECK(r->metrics[0].name == "batch_sum");
    CHECK(r->metrics[0].type == MetricType::kAccumulateValueOverSamples);
    CHECK(r->metrics[0].length == 1);
    CHECK(r->metrics[1].name == "mod");
    CHECK(r->metrics[1].samples == 100000);
    CHECK(r->metrics[1].distinct_values == 10000);
  }
  for (const char* name : {"tokens/da", "tokens/dda"}) {
    Result<VerifyReport> r = VerifyOutput((test::GoldenDir() / name).string());
    REQUIRE(r.ok());
    INFO(name << "\n" << Describe(*r));
    CHECK(r->ok());
    REQUIRE(r->metrics.size() == 3);
    CHECK(r->metrics[0].name == "seqlen");
    CHECK(r->metrics[0].samples == 20000);
    CHECK(r->metrics[1].name == "total_vocab_freq");
    CHECK(r->metrics[1].length == 50001);
    CHECK(r->metrics[2].name == "vocab_rarity");
    CHECK(r->metrics[2].samples == 20000);
  }
}

TEST_CASE("verify ignores reports, non-metric folders and dot-entries", "[verify]") {
  SeedmodCopy c;
  std::ofstream(c.out / "summary.json") << test::kSeedmodSummary;
  fs::create_directories(c.out / "data_clusters");
  fs::create_directories(c.out / ".tmp-run" / "mod");
  std::ofstream(c.out / ".tmp-run" / "mod" / "mod_index_to_metric.idx") << "garbage";
  std::ofstream(c.out / "mod" / "mod_histogram.svg") << "<svg/>";
  Result<VerifyReport> r = VerifyOutput(c.out.string());
  REQUIRE(r.ok());
  INFO(Describe(*r));
  CHECK(r->ok());
  CHECK(r->metrics.size() == 2);
}

TEST_CASE("verify rejects a missing save path or one without metrics as bad input", "[verify]") {
  test::ScratchDir scratch;
  Result<VerifyReport> missing = VerifyOutput(scratch / "nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Status::Code::kBadInput);
  CHECK(missing.status().message().find("no such directory") != std::string::npos);

  fs::create_directories(scratch.path() / "empty" / "not_a_metric");
  Result<VerifyReport> empty = VerifyOutput(scratch / "empty");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().code() == Status::Code::kBadInput);
  CHECK(empty.status().message().find("no metric folder") != std::string::npos);
}

TEST_CASE("verify: the metric folders must be the ones summary.json lists", "[verify]") {
  SeedmodCopy c;
  SECTION("a planted folder summary.json does not list") {
    // A rerun with only batch_sum whose old mod/ survived (issue #17).
    std::ofstream(c.out / "summary.json") << R"({"metrics": {"batch_sum": {}}})";
    RequireViolation(c.out, "mod", std::nullopt,
                     "metric folder is not listed in summary.json (left from another analysis?)");
    Result<VerifyReport> r = VerifyOutput(c.out.string());
    REQUIRE(r.ok());
    CHECK(r->violations.size() == 1);
    CHECK(r->metrics.size() == 2);
  }
  SECTION("a listed metric without a folder") {
    std::ofstream(c.out / "summary.json") << test::kSeedmodSummary;
    fs::remove_all(c.out / "batch_sum");
    RequireViolation(c.out, "batch_sum", std::nullopt,
                     "listed in summary.json, but there is no metric folder batch_sum/");
    Result<VerifyReport> r = VerifyOutput(c.out.string());
    REQUIRE(r.ok());
    REQUIRE(r->metrics.size() == 2);
    CHECK(r->metrics[0].name == "batch_sum");
    CHECK(r->metrics[0].type == MetricType::kAccumulateValueOverSamples);
  }
  SECTION("an unreadable summary.json is bad input") {
    std::ofstream(c.out / "summary.json") << "{\"metrics\": ";
    Result<VerifyReport> r = VerifyOutput(c.out.string());
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Status::Code::kBadInput);
    CHECK(r.status().message().find("summary.json: not valid JSON") != std::string::npos);
  }
}

TEST_CASE("verify: index_to_metric with two rows swapped is not ascending", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_metric"));
  std::swap(rows[3], rows[4]);
  test::WriteRows(c.prefix("index_to_metric"), DType::kU16, rows);
  RequireViolation(c.out, "mod/mod_index_to_metric", 4, "strictly ascending");
}

// Every command reads an analysis through output/metric_files.h: the rules
// verify shares with the other readers are broken with verify's message.
// VerifyMessage: the message verify lists for `file`, or "" when none.
std::string VerifyMessage(const fs::path& save_path, const std::string& file) {
  Result<VerifyReport> r = VerifyOutput(save_path.string());
  REQUIRE(r.ok());
  for (const Violation& v : r->violations)
    if (v.file == file) return (v.row ? "row " + std::to_string(*v.row) + ": " : "") + v.message;
  return "";
}

// The message each reader of `c`'s mod refuses it with.
std::vector<std::string> ReadersMessages(const SeedmodCopy& c) {
  std::vector<std::string> messages;
  CurriculumMetricConfig metric;
  metric.name = "mod";
  metric.difficulty_type = DifficultyType::kValue;
  metric.index_to_sample_path = c.prefix("index_to_sample");
  metric.index_to_metric_path = c.prefix("index_to_metric");
  messages.push_back(OpenMetricIndex(metric, std::nullopt).status().message());
  messages.push_back(
      ReadValueDistribution(c.out.string(), "mod", CodeTable::kDeepSpeed).status().message());
  Result<AnalysisFolder> folder = ReadAnalysisFolder(c.out.string());
  REQUIRE(folder.ok());
  messages.push_back(
      OpenMetricFiles(c.out.string(), *folder, "mod", SampleToMetric::kCount).status().message());
  return messages;
}

TEST_CASE("verify: every reader refuses a broken index_to_metric with verify's message",
          "[verify][metric_files]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_metric"));
  SECTION("not strictly ascending") { std::swap(rows[3], rows[4]); }
  SECTION("two values in a row") { rows[7].push_back(7); }
  test::WriteRows(c.prefix("index_to_metric"), DType::kU16, rows);
  const std::string message = VerifyMessage(c.out, "mod/mod_index_to_metric");
  REQUIRE_FALSE(message.empty());
  for (const std::string& m : ReadersMessages(c))
    CHECK(m == c.prefix("index_to_metric") + ": " + message);
}

TEST_CASE("verify: every reader refuses mismatched index files with verify's message",
          "[verify][metric_files]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_sample"));
  SECTION("a row fewer than values") {
    rows.pop_back();
    test::WriteRows(c.prefix("index_to_sample"), DType::kU32, rows);
    const std::string message = VerifyMessage(c.out, "mod/mod_index_to_sample");
    CHECK(message == "has 9999 rows but index_to_metric has 10000 (one row per distinct value)");
    const std::vector<std::string> m = ReadersMessages(c);
    CHECK(m[1] == c.prefix("index_to_sample") + ": " + message);
    CHECK(m[2] == c.prefix("index_to_sample") + ": " + message);
  }
  SECTION("an id fewer than samples") {
    rows[0].pop_back();
    test::WriteRows(c.prefix("index_to_sample"), DType::kU32, rows);
    const std::string message = VerifyMessage(c.out, "mod/mod_index_to_sample");
    CHECK(message == "holds 99999 sample ids but sample_to_metric has 100000 samples");
    CHECK(ReadersMessages(c)[2] == c.prefix("index_to_sample") + ": " + message);
  }
}

TEST_CASE("verify: a sample missing from index_to_sample", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_sample"));
  REQUIRE(rows[0].back() == 99993);  // (99993 + 7) % 10000 == 0
  rows[0].pop_back();
  test::WriteRows(c.prefix("index_to_sample"), DType::kU32, rows);
  RequireViolation(c.out, "mod/mod_index_to_sample", std::nullopt,
                   "holds 99999 sample ids but sample_to_metric has 100000");
  RequireViolation(c.out, "mod/mod_index_to_sample", std::nullopt,
                   "sample id 99993 of 0..99999 is in no row");
}

TEST_CASE("verify: a sample listed twice", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_sample"));
  rows[0].insert(rows[0].begin(), 5);  // id 5 also sits in row 12
  test::WriteRows(c.prefix("index_to_sample"), DType::kU32, rows);
  RequireViolation(c.out, "mod/mod_index_to_sample", 12, "sample id 5 appears more than once");
}

TEST_CASE("verify: sample ids written with an unfitted dtype", "[verify]") {
  SeedmodCopy c;
  test::WriteRows(c.prefix("index_to_sample"), DType::kU64,
                  test::ReadRows(c.prefix("index_to_sample")));
  RequireViolation(c.out, "mod/mod_index_to_sample", std::nullopt,
                   "dtype is uint64, expected uint32");
}

TEST_CASE("verify: an index_to_sample row out of order", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_sample"));
  std::swap(rows[20][0], rows[20][1]);
  test::WriteRows(c.prefix("index_to_sample"), DType::kU32, rows);
  RequireViolation(c.out, "mod/mod_index_to_sample", 20, "not ascending");
}

TEST_CASE("verify: an empty index_to_sample row", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_sample"));
  rows[30].clear();
  test::WriteRows(c.prefix("index_to_sample"), DType::kU32, rows);
  RequireViolation(c.out, "mod/mod_index_to_sample", 30, "row is empty");
}

TEST_CASE("verify: sample_to_metric disagrees with the index", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("sample_to_metric"));
  REQUIRE(rows[10][0] == 17);
  rows[10][0] = 18;
  test::WriteRows(c.prefix("sample_to_metric"), DType::kU16, rows);
  RequireViolation(c.out, "mod/mod_sample_to_metric", 10, "value 18");
}

TEST_CASE("verify: sample_to_metric with two values in a row", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("sample_to_metric"));
  rows[7].push_back(1);
  test::WriteRows(c.prefix("sample_to_metric"), DType::kU16, rows);
  RequireViolation(c.out, "mod/mod_sample_to_metric", 7, "has 2 elements, expected exactly 1");
}

TEST_CASE("verify: percentile file grouped with the wrong step", "[verify]") {
  SeedmodCopy c;
  // One group per value (step 1) instead of step = 10000 / 100 = 100.
  test::WriteRows(c.prefix("index_to_sample_percentile_merged"), DType::kU32,
                  test::ReadRows(c.prefix("index_to_sample")));
  RequireViolation(c.out, "mod/mod_index_to_sample_percentile_merged", std::nullopt,
                   "has 10000 rows, expected 100");
}

TEST_CASE("verify: percentile file with the right sizes but reordered ids", "[verify]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix("index_to_sample_percentile_merged"));
  REQUIRE(rows.size() == 100);
  std::swap(rows[3][10], rows[3][11]);
  test::WriteRows(c.prefix("index_to_sample_percentile_merged"), DType::kU32, rows);
  RequireViolation(c.out, "mod/mod_index_to_sample_percentile_merged", 3, "element 10 differs");
}

TEST_CASE("verify: a missing file", "[verify]") {
  SeedmodCopy c;
  fs::remove(c.prefix("index_to_metric") + ".bin");
  RequireViolation(c.out, "mod/mod_index_to_metric", std::nullopt, "file not found");
}

TEST_CASE("verify: a truncated index file", "[verify]") {
  SeedmodCopy c;
  fs::resize_file(c.prefix("index_to_sample") + ".idx", 100);
  RequireViolation(c.out, "mod/mod_index_to_sample", std::nullopt, "size mismatch");
}

TEST_CASE("verify: metric_value with two rows or an unfitted dtype", "[verify]") {
  SeedmodCopy c;
  const std::string mv = (c.out / "batch_sum" / "batch_sum_metric_value").string();
  REQUIRE(test::ReadRows(mv) == Rows{{499950000}});
  test::WriteRows(mv, DType::kU32, {{499950000}, {1}});
  RequireViolation(c.out, "batch_sum/batch_sum_metric_value", std::nullopt,
                   "has 2 rows, expected exactly 1");
  test::WriteRows(mv, DType::kI64, {{499950000}});
  RequireViolation(c.out, "batch_sum/batch_sum_metric_value", std::nullopt,
                   "dtype is int64, expected uint32");
}

TEST_CASE("verify: a folder with files of both metric kinds", "[verify]") {
  SeedmodCopy c;
  const fs::path stray = c.out / "batch_sum" / "batch_sum_index_to_metric";
  test::WriteRows(stray.string(), DType::kU8, {{1}});
  RequireViolation(c.out, "batch_sum", std::nullopt, "holds both single_value_per_sample files");
}

TEST_CASE("verify: user-defined sample ids", "[verify]") {
  test::ScratchDir scratch;
  const fs::path out = scratch.path() / "out";
  constexpr int64_t kBase = 1000000000000;
  std::vector<int64_t> values, ids;
  for (int64_t i = 0; i < 5000; ++i) {
    values.push_back(i % 7 - 3);   // negative values: int8
    ids.push_back(kBase + 3 * i);  // sparse ids, far beyond N: sorted, not bitmapped
  }
  test::WriteSingleValueMetric(out, "m", values, ids);
  Result<VerifyReport> ok = VerifyOutput(out.string());
  REQUIRE(ok.ok());
  INFO(Describe(*ok));
  CHECK(ok->ok());
  CHECK(ok->metrics.at(0).samples == 5000);
  CHECK(ok->metrics.at(0).distinct_values == 7);

  SECTION("a value count that disagrees with the index") {
    const std::string s2m = (out / "m" / "m_sample_to_metric").string();
    Rows rows = test::ReadRows(s2m);
    rows[0][0] = rows[1][0];
    test::WriteRows(s2m, DType::kI8, rows);
    RequireViolation(out, "m/m_sample_to_metric", std::nullopt, "occurs");
  }
  SECTION("a duplicated sparse id") {
    const std::string i2s = (out / "m" / "m_index_to_sample").string();
    Rows rows = test::ReadRows(i2s);
    rows[0][1] = rows[0][0];
    test::WriteRows(i2s, DType::kU64, rows);
    RequireViolation(out, "m/m_index_to_sample", 0,
                     "sample id 1000000000000 appears more than once");
  }
}

}  // namespace
}  // namespace dsanalyze
