// The score metric created from config entries (metrics/registry.h) and run
// on whole datasets: its errors.
#include <catch2/catch.hpp>
#include <fstream>

#include "dataset/open_dataset.h"
#include "metrics/metric_entry.h"
#include "metrics/registry.h"
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
  c.type = "synthetic_mod";
  c.num_samples = samples;
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

}  // namespace
}  // namespace dsanalyze
