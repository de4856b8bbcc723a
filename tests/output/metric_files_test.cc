#include "output/metric_files.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "check/verify.h"
#include "curriculum/metric_index.h"
#include "output/analysis_folder.h"
#include "output/analysis_layout.h"
#include "output/metric_value_file.h"
#include "report/metric_stats.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using test::Rows;

// A writable copy of golden seedmod-100k/dda (DeepSpeed's: no summary.json).
struct SeedmodCopy {
  test::ScratchDir scratch;
  fs::path out = scratch.path() / "out";
  SeedmodCopy() { test::CopyGolden("seedmod-100k/dda", out); }
  std::string prefix(std::string_view kind) const {
    return MetricFilePrefix(out.string(), "mod", kind);
  }
};

// The message verify lists for `file`, or "" when it lists none.
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
  metric.index_to_sample_path = c.prefix(kIndexToSample);
  metric.index_to_metric_path = c.prefix(kIndexToMetric);
  messages.push_back(OpenMetricIndex(metric, std::nullopt).status().message());
  messages.push_back(
      ReadValueDistribution(c.out.string(), "mod", CodeTable::kDeepSpeed).status().message());
  Result<AnalysisFolder> folder = ReadAnalysisFolder(c.out.string());
  REQUIRE(folder.ok());
  messages.push_back(
      OpenMetricFiles(c.out.string(), *folder, "mod", SampleToMetric::kCount).status().message());
  return messages;
}

TEST_CASE("metric files: a broken index_to_metric is one message in every reader",
          "[metric_files]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix(kIndexToMetric));
  SECTION("not strictly ascending") { std::swap(rows[3], rows[4]); }
  SECTION("two values in a row") { rows[7].push_back(7); }
  test::WriteRows(c.prefix(kIndexToMetric), DType::kU16, rows);
  const std::string message = VerifyMessage(c.out, "mod/mod_index_to_metric");
  REQUIRE_FALSE(message.empty());
  for (const std::string& m : ReadersMessages(c))
    CHECK(m == c.prefix(kIndexToMetric) + ": " + message);
}

TEST_CASE("metric files: index_to_sample and sample_to_metric disagreeing", "[metric_files]") {
  SeedmodCopy c;
  Rows rows = test::ReadRows(c.prefix(kIndexToSample));
  SECTION("a row fewer than values") {
    rows.pop_back();
    test::WriteRows(c.prefix(kIndexToSample), DType::kU32, rows);
    const std::string message = VerifyMessage(c.out, "mod/mod_index_to_sample");
    CHECK(message == "has 9999 rows but index_to_metric has 10000 (one row per distinct value)");
    const std::vector<std::string> m = ReadersMessages(c);
    CHECK(m[1] == c.prefix(kIndexToSample) + ": " + message);
    CHECK(m[2] == c.prefix(kIndexToSample) + ": " + message);
  }
  SECTION("an id fewer than samples") {
    rows[0].pop_back();
    test::WriteRows(c.prefix(kIndexToSample), DType::kU32, rows);
    const std::string message = VerifyMessage(c.out, "mod/mod_index_to_sample");
    CHECK(message == "holds 99999 sample ids but sample_to_metric has 100000 samples");
    CHECK(ReadersMessages(c)[2] == c.prefix(kIndexToSample) + ": " + message);
  }
}

TEST_CASE("metric files: metric_value's row is never empty, read or written", "[metric_files]") {
  test::ScratchDir scratch;
  const std::string mv = (scratch.path() / "mv").string();
  const std::string empty_message =
      "row 0: is empty (DeepSpeed's reduce never writes an empty metric_value)";

  test::WriteRows(mv, DType::kU8, {{}});
  Result<IndexedDataset> read = IndexedDataset::Open(mv);
  REQUIRE(read.ok());
  CHECK(ReadMetricValueRow(*read).status().message() == mv + ": " + empty_message);

  const std::string never = (scratch.path() / "never").string();
  const Status st = WriteMetricValueFile(never, {}, {});
  CHECK(st.code() == Status::Code::kInternal);
  CHECK_FALSE(fs::exists(never + ".bin"));
  CHECK_FALSE(fs::exists(never + ".idx"));

  const std::vector<int64_t> row = {-1, 300};
  REQUIRE(WriteMetricValueFile(mv, row, {}).ok());
  Result<IndexedDataset> written = IndexedDataset::Open(mv);
  REQUIRE(written.ok());
  CHECK(written->dtype() == DType::kI16);
  CHECK(MetricValueDType(row) == DType::kI16);
  CHECK(ReadMetricValueRow(*written).value() == row);
}

}  // namespace
}  // namespace dsanalyze
