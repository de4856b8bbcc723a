// The score metric created from config entries (metrics/registry.h) and run
// on whole datasets: its errors, the NaN count, token_mean's weights.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>

#include "dataset/open_dataset.h"
#include "dataset/token_rows.h"
#include "metrics/metric_entry.h"
#include "metrics/registry.h"
#include "support/npy_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

std::unique_ptr<Dataset> Open(const DatasetConfig& c) {
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  return std::move(ds).value();
}

std::unique_ptr<Dataset> Synthetic(uint64_t samples) {
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = samples};
  return Open(c);
}

MetricConfig ScoreEntry(nlohmann::json params) {
  MetricConfig entry = test::Entry("q", "score");
  entry.params = std::move(params);
  return entry;
}

// The message CreateMetric refuses `params` with.
std::string Refusal(const nlohmann::json& params, const Dataset& ds) {
  Result<std::unique_ptr<Metric>> m = CreateMetric(ScoreEntry(params), ds);
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().code() == Status::Code::kBadInput);
  return m.status().message();
}

// The metric's values for every sample of `ds`, or its error.
Result<std::vector<int64_t>> ComputeAll(const Metric& m, const Dataset& ds) {
  std::vector<int64_t> values(ds.size());
  SampleBatch batch;
  std::unique_ptr<SampleReader> reader = ds.NewReader();
  DSA_RETURN_IF_ERROR(reader->Read(0, ds.size(), m.needs_elements(), &batch));
  DSA_RETURN_IF_ERROR(m.Compute(batch, values));
  return values;
}

void WriteLines(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST_CASE("score: a .jsonl key error names the file, line and the param choosing the key",
          "[metrics][score]") {
  test::ScratchDir dir;
  std::unique_ptr<Dataset> ds = Synthetic(2);
  const std::string file = dir / "q.jsonl";
  WriteLines(file, "{\"score\": 0.5}\n{\"quality\": 0.25}\n");
  // The default key: the error says which param sets another.
  std::string e = Refusal({{"file", file}, {"per", "sample"}, {"scale", 10}}, *ds);
  CHECK_THAT(e, Catch::Contains(file + ": line 2: field \"score\" is missing"));
  CHECK_THAT(e, Catch::Contains("(metrics[0].params.field, default \"score\""));
  e = Refusal({{"file", file}, {"per", "sample"}, {"scale", 10}, {"field", "quality"}}, *ds);
  CHECK_THAT(e, Catch::Contains(file + ": line 1: field \"quality\" is missing "
                                       "(metrics[0].params.field)"));
  WriteLines(file, "{\"score\": \"high\"}\n{\"score\": 1}\n");
  e = Refusal({{"file", file}, {"per", "sample"}, {"scale", 10}}, *ds);
  CHECK_THAT(e,
             Catch::Contains("line 1: field \"score\" is not a number (metrics[0].params.field"));
  WriteLines(file, "{\"score\": 1, \"row\": \"0\"}\n{\"score\": 1, \"row\": 1}\n");
  e = Refusal({{"file", file}, {"per", "sample"}, {"scale", 10}, {"id_field", "row"}}, *ds);
  CHECK_THAT(e, Catch::Contains("line 1: field \"row\" is not an integer "
                                "(metrics[0].params.id_field)"));
}

TEST_CASE("score: a param named as elsewhere gets did-you-mean", "[metrics][score]") {
  std::unique_ptr<Dataset> ds = Synthetic(2);
  CHECK_THAT(Refusal({{"path", "q.npy"}, {"per", "sample"}, {"scale", 10}}, *ds),
             Catch::Contains("metrics[0].params: unknown key \"path\" (did you mean \"file\"?)"));
  CHECK_THAT(Refusal({{"file", "q.npy"}, {"per", "sample"}, {"num_bins", 10}}, *ds),
             Catch::Contains("unknown key \"num_bins\" (did you mean \"bins\"?)"));
  // Near misses still go by spelling.
  CHECK_THAT(Refusal({{"file", "q.npy"}, {"per", "sample"}, {"scal", 10}}, *ds),
             Catch::Contains("unknown key \"scal\" (did you mean \"scale\"?)"));
}

TEST_CASE("score: a product outside int64 is shown in shortest form", "[metrics][score]") {
  test::ScratchDir dir;
  std::unique_ptr<Dataset> ds = Synthetic(2);
  const std::string file = dir / "q.npy";
  test::WriteNpy(file, std::vector<double>{0.0, 0.1});
  Result<std::unique_ptr<Metric>> m =
      CreateMetric(ScoreEntry({{"file", file}, {"per", "sample"}, {"scale", 1e30}}), *ds);
  REQUIRE(m.ok());
  const Result<std::vector<int64_t>> values = ComputeAll(**m, *ds);
  REQUIRE_FALSE(values.ok());
  CHECK_THAT(values.status().message(),
             Catch::Contains("sample 1: score 0.1 × scale 1e+30 is outside int64"));
}

TEST_CASE("score: counts the samples whose score was NaN", "[metrics][score]") {
  test::ScratchDir dir;
  std::unique_ptr<Dataset> ds = Synthetic(5);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::string file = dir / "q.npy";
  test::WriteNpy(file, std::vector<double>{nan, 0.5, nan, nan, 1.0});
  for (const auto& [key, value] : {std::pair<std::string, int>{"scale", 10}, {"bins", 2}}) {
    INFO(key);
    Result<std::unique_ptr<Metric>> m = CreateMetric(
        ScoreEntry({{"file", file}, {"per", "sample"}, {key, value}, {"nan", -1}}), *ds);
    REQUIRE(m.ok());
    CHECK((*m)->score_meaning()->nan_value == -1);
    CHECK((*m)->nan_scores() == 0);
    REQUIRE(ComputeAll(**m, *ds).ok());
    CHECK((*m)->nan_scores() == 3);
  }
}

TEST_CASE("score: token_mean does not weigh dataset.ignore_token_ids", "[metrics][score]") {
  test::ScratchDir dir;
  // One packed sample of 8 tokens: row 0 (one real token, three pads 0),
  // then row 1 (four real tokens).
  test::WriteRows(dir / "rows", DType::kU16, CodeTable::kMegatron, {{9, 0, 0, 0}, {2, 3, 4, 5}});
  const std::string file = dir / "q.npy";
  test::WriteNpy(file, std::vector<double>{1.0, 0.0});
  DatasetConfig c;
  c.type = PackedConfig{.prefixes = {dir / "rows"}, .seq_length = 7};
  const nlohmann::json params = {{"file", file}, {"per", "document"}, {"scale", 1000}};
  std::unique_ptr<Dataset> plain = Open(c);
  Result<std::unique_ptr<Metric>> m = CreateMetric(ScoreEntry(params), *plain);
  REQUIRE(m.ok());
  CHECK_FALSE((*m)->needs_elements());
  CHECK(ComputeAll(**m, *plain).value() == std::vector<int64_t>{500});  // (1·4 + 0·4) / 8
  c.ignore_token_ids = {0};
  std::unique_ptr<Dataset> ignoring = Open(c);
  m = CreateMetric(ScoreEntry(params), *ignoring);
  REQUIRE(m.ok());
  CHECK((*m)->needs_elements());
  CHECK(ComputeAll(**m, *ignoring).value() == std::vector<int64_t>{200});  // (1·1 + 0·4) / 5
  // Every token ignored: the plain mean of the documents' scores.
  c.ignore_token_ids = {0, 2, 3, 4, 5, 9};
  std::unique_ptr<Dataset> empty = Open(c);
  m = CreateMetric(ScoreEntry(params), *empty);
  REQUIRE(m.ok());
  CHECK(ComputeAll(**m, *empty).value() == std::vector<int64_t>{500});
}

}  // namespace
}  // namespace dsanalyze
