#include "check/compare.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Prefixes(const std::vector<FileDifference>& diffs) {
  std::vector<std::string> out;
  for (const FileDifference& d : diffs) out.push_back(d.prefix);
  std::sort(out.begin(), out.end());
  return out;
}

std::string Golden(const std::string& name) { return (test::GoldenDir() / name).string(); }

TEST_CASE("compare: DeepSpeed's two analyzers differ only in doc_idx", "[compare]") {
  SECTION("seedmod") {
    const std::vector<std::string> doc_idx_only = {
        "mod/mod_index_to_metric", "mod/mod_index_to_sample", "mod/mod_sample_to_metric"};
    Result<CompareReport> r =
        CompareOutputs(Golden("seedmod-100k/da"), Golden("seedmod-100k/dda"), false);
    REQUIRE(r.ok());
    CHECK(r->same());
    CHECK(Prefixes(r->equal_except_doc_idx) == doc_idx_only);
    CHECK(r->equal == std::vector<std::string>{"batch_sum/batch_sum_metric_value",
                                               "mod/mod_index_to_sample_percentile_merged"});
    CHECK(r->equal_except_doc_idx.at(0).message ==
          "doc_idx [0, 10000, 10000] in A, [0, 10000] in B");

    Result<CompareReport> strict =
        CompareOutputs(Golden("seedmod-100k/da"), Golden("seedmod-100k/dda"), true);
    REQUIRE(strict.ok());
    CHECK_FALSE(strict->same());
    CHECK(Prefixes(strict->different) == doc_idx_only);
    CHECK(strict->equal_except_doc_idx.empty());
  }
  SECTION("tokens") {
    Result<CompareReport> r = CompareOutputs(Golden("tokens/da"), Golden("tokens/dda"), false);
    REQUIRE(r.ok());
    CHECK(r->same());
    CHECK(r->equal_except_doc_idx.size() == 6);
    CHECK(r->equal.size() == 3);
    Result<CompareReport> strict = CompareOutputs(Golden("tokens/da"), Golden("tokens/dda"), true);
    REQUIRE(strict.ok());
    CHECK_FALSE(strict->same());
    CHECK(strict->different.size() == 6);
  }
}

TEST_CASE("compare: a changed value is reported at its row", "[compare]") {
  test::ScratchDir scratch;
  const fs::path b = scratch.path() / "b";
  test::CopyGolden("seedmod-100k/dda", b);
  const std::string s2m = (b / "mod" / "mod_sample_to_metric").string();
  test::Rows rows = test::ReadRows(s2m);
  rows[1234][0] += 1;
  test::WriteRows(s2m, DType::kU16, rows);

  Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), b.string(), false);
  REQUIRE(r.ok());
  CHECK_FALSE(r->same());
  REQUIRE(r->different.size() == 1);
  CHECK(r->different[0].prefix == "mod/mod_sample_to_metric");
  CHECK(r->different[0].row == 1234);
  CHECK(r->different[0].message == "element 0 of 1: 1241 in A, 1242 in B");
  CHECK(r->equal.size() == 4);
}

TEST_CASE("compare: row counts, row sizes, dtypes and missing files", "[compare]") {
  test::ScratchDir scratch;
  const fs::path b = scratch.path() / "b";
  test::CopyGolden("seedmod-100k/dda", b);
  const std::string i2s = (b / "mod" / "mod_index_to_sample").string();
  test::Rows rows = test::ReadRows(i2s);

  SECTION("a missing last row") {
    rows.pop_back();
    test::WriteRows(i2s, DType::kU32, rows);
    Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), b.string(), false);
    REQUIRE(r.ok());
    REQUIRE(r->different.size() == 1);
    CHECK(r->different[0].row == 9999);
    CHECK(r->different[0].message.find("10000 rows in A, 9999 in B") == 0);
  }
  SECTION("an id moved between rows") {
    rows[5].push_back(rows[6].back());
    rows[6].pop_back();
    test::WriteRows(i2s, DType::kU32, rows);
    Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), b.string(), false);
    REQUIRE(r.ok());
    REQUIRE(r->different.size() == 1);
    CHECK(r->different[0].row == 5);
    CHECK(r->different[0].message ==
          "A [9998, 19998, 29998, 39998, 49998, 59998, 69998, 79998, ...] (10 elements), "
          "B [9998, 19998, 29998, 39998, 49998, 59998, 69998, 79998, ...] (11 elements)");
  }
  SECTION("the same values in another dtype") {
    test::WriteRows(i2s, DType::kU64, rows);
    Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), b.string(), false);
    REQUIRE(r.ok());
    REQUIRE(r->different.size() == 1);
    CHECK(r->different[0].message == "dtype uint32 in A, uint64 in B");
  }
  SECTION("a pair only on one side, or half a pair") {
    fs::remove_all(b / "batch_sum");
    fs::remove(i2s + ".bin");
    Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), b.string(), false);
    REQUIRE(r.ok());
    REQUIRE(r->different.size() == 2);
    CHECK(r->different[0].prefix == "batch_sum");  // a whole metric: one line
    CHECK(r->different[0].message == "metric only in A (B has no such metric folder)");
    CHECK(r->different[1].prefix == "mod/mod_index_to_sample");
    CHECK(r->different[1].message.find("file not found") != std::string::npos);
  }
}

TEST_CASE("compare ignores non-pair files, dot-entries and data_clusters/", "[compare]") {
  test::ScratchDir scratch;
  const fs::path b = scratch.path() / "b";
  test::CopyGolden("seedmod-100k/dda", b);
  std::ofstream(b / "summary.json") << test::kSeedmodSummary;
  fs::create_directories(b / "data_clusters");
  test::WriteRows((b / "data_clusters" / "cluster_mod1").string(), DType::kU32, {{1, 2}});
  std::ofstream(b / "mod" / "mod_histogram.svg") << "<svg/>";
  fs::create_directories(b / ".tmp" / "mod");
  test::WriteRows((b / ".tmp" / "mod" / "mod_index_to_metric").string(), DType::kU8, {{1}});
  Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), b.string(), true);
  REQUIRE(r.ok());
  CHECK(r->same());
  CHECK(r->equal.size() == 5);
}

TEST_CASE("compare checks each side's folders against its summary.json", "[compare]") {
  test::ScratchDir scratch;
  const fs::path a = scratch.path() / "a", b = scratch.path() / "b";
  test::CopyGolden("seedmod-100k/dda", a);
  test::CopyGolden("seedmod-100k/dda", b);
  std::ofstream(a / "summary.json") << test::kSeedmodSummary;
  // B: a rerun with only batch_sum, whose old mod/ survived (the stale folder of issue #17).
  std::ofstream(b / "summary.json") << R"({"metrics": {"batch_sum": {}}})";
  Result<CompareReport> r = CompareOutputs(a.string(), b.string(), false);
  REQUIRE(r.ok());
  CHECK_FALSE(r->same());
  REQUIRE(r->different.size() == 2);
  CHECK(r->different[0].prefix == "mod");
  CHECK(r->different[0].message ==
        "metric folder in B is not listed in B's summary.json (left from another analysis?)");
  CHECK(r->different[1].prefix == "mod");
  CHECK(r->different[1].message == "metric only in A (B's summary.json does not list it)");
  CHECK(r->equal == std::vector<std::string>{"batch_sum/batch_sum_metric_value"});

  SECTION("a listed metric without its folder") {
    fs::remove_all(a / "mod");
    std::ofstream(b / "summary.json") << test::kSeedmodSummary;
    Result<CompareReport> m = CompareOutputs(a.string(), b.string(), false);
    REQUIRE(m.ok());
    REQUIRE_FALSE(m->different.empty());
    CHECK(m->different[0].prefix == "mod");
    CHECK(m->different[0].message == "listed in A's summary.json, but A has no metric folder");
  }
}

TEST_CASE("compare: a folder that is not an analysis is bad input", "[compare]") {
  test::ScratchDir scratch;
  const fs::path plain = scratch.path() / "plain";
  fs::create_directories(plain / "data");
  test::WriteRows((plain / "data" / "tokens").string(), DType::kU16, {{1, 2, 3}});
  for (const bool plain_first : {true, false}) {
    Result<CompareReport> r =
        plain_first ? CompareOutputs(plain.string(), Golden("seedmod-100k/dda"), false)
                    : CompareOutputs(Golden("seedmod-100k/dda"), plain.string(), false);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Status::Code::kBadInput);
    CHECK(r.status().message().find("plain: not an analysis folder: no summary.json and no "
                                    "metric folder") != std::string::npos);
  }
  const fs::path broken = scratch.path() / "broken";
  test::CopyGolden("seedmod-100k/dda", broken);
  std::ofstream(broken / "summary.json") << "{\"metrics\": ";
  Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), broken.string(), false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Status::Code::kBadInput);
  CHECK(r.status().message().find("summary.json: not valid JSON") != std::string::npos);
}

// summary.json of a seed-benchmark analysis of `samples` samples, with the
// config's dataset section `dataset`.
std::string SeedmodSummary(uint64_t samples, const std::string& dataset) {
  return R"({"metrics": {"batch_sum": {"type": "accumulate_value_over_samples"},
                         "mod": {"type": "single_value_per_sample", "samples": )" +
         std::to_string(samples) + R"(}}, "config": {"dataset": )" + dataset + "}}";
}

TEST_CASE("compare says when the analyses cover different samples", "[compare]") {
  test::ScratchDir scratch;
  const fs::path whole = scratch.path() / "whole", part = scratch.path() / "part",
                 merged = scratch.path() / "merged";
  for (const fs::path& p : {whole, part, merged}) test::CopyGolden("seedmod-100k/dda", p);
  std::ofstream(whole / "summary.json") << SeedmodSummary(100000, "{}");
  std::ofstream(part / "summary.json") << SeedmodSummary(40000, R"({"sample_range": [0, 40000]})");
  std::ofstream(merged / "summary.json")
      << SeedmodSummary(100000, R"({"sample_range": [0, 100000]})");

  Result<CompareReport> r = CompareOutputs(whole.string(), part.string(), false);
  REQUIRE(r.ok());
  REQUIRE(r->samples_differ);
  CHECK(*r->samples_differ ==
        "A and B analyse different samples: A positions [0, 100000) (100000 samples), B "
        "positions [0, 40000) (40000 samples) (dataset.sample_range in their summary.json)");
  // A merge of parts records the union's range: the whole run's samples.
  Result<CompareReport> same = CompareOutputs(whole.string(), merged.string(), false);
  REQUIRE(same.ok());
  CHECK_FALSE(same->samples_differ);
  // A DeepSpeed output records nothing.
  Result<CompareReport> ds = CompareOutputs(Golden("seedmod-100k/dda"), part.string(), false);
  REQUIRE(ds.ok());
  CHECK_FALSE(ds->samples_differ);
}

TEST_CASE("compare: a missing directory is bad input", "[compare]") {
  test::ScratchDir scratch;
  Result<CompareReport> r = CompareOutputs(Golden("seedmod-100k/dda"), scratch / "none", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Status::Code::kBadInput);
  CHECK(r.status().message().find("none: no such directory") != std::string::npos);
}

}  // namespace
}  // namespace dsanalyze
