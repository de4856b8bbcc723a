#include "metrics/registry.h"

#include <catch2/catch.hpp>

#include "dataset/open_dataset.h"
#include "format/indexed_dataset.h"
#include "metrics/batch_builder.h"
#include "metrics/metric_entry.h"
#include "support/npy_writer.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

std::unique_ptr<Dataset> Synthetic(std::vector<int64_t> ignore = {}) {
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = 10};
  c.ignore_token_ids = std::move(ignore);
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  return std::move(ds).value();
}

using test::Entry;

TEST_CASE("registry: lists the built-ins sorted, with their types", "[metrics]") {
  std::vector<MetricInfo> infos = ListBuiltinMetrics();
  std::vector<std::string> names;
  for (const MetricInfo& info : infos) {
    names.push_back(info.name);
    CHECK_FALSE(info.description.empty());
  }
  CHECK(names == std::vector<std::string>{"repeated_ngram_ratio", "score", "seqlen",
                                          "seqlen_vocab_rarity", "sum", "token_entropy",
                                          "total_vocab_freq", "unique_token_ratio", "value",
                                          "vocab_rarity"});
  for (const MetricInfo& info : infos) {
    const bool accumulate = info.name == "sum" || info.name == "total_vocab_freq";
    CHECK(info.type == (accumulate ? MetricType::kAccumulateValueOverSamples
                                   : MetricType::kSingleValuePerSample));
  }
}

TEST_CASE("registry: creates each built-in with the listed type", "[metrics]") {
  std::unique_ptr<Dataset> ds = Synthetic();
  test::ScratchDir dir;
  const std::string scores = dir / "scores.npy";
  test::WriteNpy(scores, std::vector<double>(ds->size(), 0.5), {ds->size()}, 1);
  for (const MetricInfo& info : ListBuiltinMetrics()) {
    MetricConfig entry = Entry("out", info.name);
    if (info.name.find("vocab") != std::string::npos) entry.params = {{"vocab_size", 100}};
    if (info.name == "score") entry.params = {{"file", scores}, {"per", "sample"}, {"scale", 10}};
    Result<std::unique_ptr<Metric>> m = CreateMetric(entry, *ds);
    REQUIRE(m.ok());
    CHECK((*m)->type() == info.type);
  }
}

// NotMergeableBecause is decided from the config alone; the metric objects
// are the truth it mirrors: a dependency pass or rank bins.
TEST_CASE("registry: a metric is mergeable unless it has dependencies or rank bins", "[metrics]") {
  std::unique_ptr<Dataset> ds = Synthetic();
  test::ScratchDir dir;
  const std::string scores = dir / "scores.npy";
  test::WriteNpy(scores, std::vector<double>(ds->size(), 0.5), {ds->size()}, 1);
  const std::string counts = dir / "counts";
  test::WriteRows(counts, DType::kI64, {std::vector<int64_t>(101, 3)});
  const auto score = [&](nlohmann::json params) {
    params.update({{"file", scores}, {"per", "sample"}});
    return params;
  };
  struct Case {
    std::string metric;
    nlohmann::json params;
    bool mergeable;
    std::string because = "";
  };
  const std::vector<Case> cases = {
      {"seqlen", nlohmann::json::object(), true},
      {"total_vocab_freq", {{"vocab_size", 100}}, true},
      {"score", score({{"scale", 10}}), true},
      {"score", score({{"bins", 3}}), false, "params.scale"},
      {"vocab_rarity", {{"vocab_size", 100}}, false, "params.total_vocab_freq"},
      {"vocab_rarity", {{"vocab_size", 100}, {"total_vocab_freq", counts}}, true},
      {"seqlen_vocab_rarity", {{"vocab_size", 100}, {"seq_length", 5}}, false, "counts"},
      {"seqlen_vocab_rarity",
       {{"vocab_size", 100}, {"total_vocab_freq", counts}},
       false,
       "params.seq_length"},
      {"seqlen_vocab_rarity",
       {{"vocab_size", 100}, {"total_vocab_freq", counts}, {"seq_length", 5}},
       true}};
  for (const Case& c : cases) {
    MetricConfig entry = Entry("m", c.metric);
    entry.params = c.params;
    INFO(c.metric << " " << c.params.dump());
    Result<std::unique_ptr<Metric>> m = CreateMetric(entry, *ds);
    REQUIRE(m.ok());
    CHECK(((*m)->dependencies().empty() && !(*m)->rank_bins()) == c.mergeable);
    const std::optional<std::string> why = NotMergeableBecause(entry);
    CHECK(!why == c.mergeable);
    if (why) CHECK(why->find(c.because) != std::string::npos);
  }
}

TEST_CASE("registry: seqlen takes the dataset's ignore_token_ids", "[metrics]") {
  std::unique_ptr<Dataset> plain = Synthetic();
  std::unique_ptr<Dataset> ignoring = Synthetic({9, 3});
  Result<std::unique_ptr<Metric>> a = CreateMetric(Entry("len", "seqlen"), *plain);
  Result<std::unique_ptr<Metric>> b = CreateMetric(Entry("len", "seqlen"), *ignoring);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK_FALSE((*a)->needs_elements());
  CHECK((*b)->needs_elements());
  ignoring.reset();  // the metric keeps its own copy
  test::OwnedBatch<int32_t> batch(0, DType::kI32, {{3, 4, 9}, {1}});
  std::vector<int64_t> out(2);
  REQUIRE((*b)->Compute(batch.batch, out).ok());
  CHECK(out == std::vector<int64_t>{1, 1});
}

TEST_CASE("registry: an unknown metric lists the available ones", "[metrics]") {
  std::unique_ptr<Dataset> ds = Synthetic();
  Result<std::unique_ptr<Metric>> m = CreateMetric(Entry("x", "seqlenn", 2), *ds);
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().code() == Status::Code::kBadInput);
  CHECK(m.status().message() ==
        "config: metrics[2].metric: unknown metric \"seqlenn\" (did you mean \"seqlen\"?); "
        "available: repeated_ngram_ratio, score, seqlen, seqlen_vocab_rarity, sum, "
        "token_entropy, total_vocab_freq, unique_token_ratio, value, vocab_rarity (or a plugin's "
        "metric, with \"plugin\")");
  Result<std::unique_ptr<Metric>> far = CreateMetric(Entry("x", "perplexity"), *ds);
  CHECK(far.status().message().rfind("config: metrics[0].metric: unknown metric \"perplexity\"; "
                                     "available: repeated_ngram_ratio,",
                                     0) == 0);
}

TEST_CASE("registry: params the metric does not take are refused by key path", "[metrics]") {
  std::unique_ptr<Dataset> ds = Synthetic();
  MetricConfig m = Entry("mod", "value", 1);
  m.params = {{"scale", 2}};
  Result<std::unique_ptr<Metric>> r = CreateMetric(m, *ds);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() ==
        "config: metrics[1].params.scale: unknown parameter (metric \"value\" takes no params)");
  m.params = nlohmann::json::array();
  CHECK(CreateMetric(m, *ds).status().message() ==
        "config: metrics[1].params: expected a JSON object {...}, got []");
}

TEST_CASE("registry: seqlen over the golden tokens matches DeepSpeed's sample_to_metric",
          "[metrics][golden]") {
  const std::string tokens = test::GoldenDir() / "tokens";
  DatasetConfig c;
  c.type = DocumentsConfig{.prefixes = {tokens + "/data/tok_d20000_v50000_s1234"},
                           .dtype_codes = CodeTable::kDeepSpeed};  // written by DeepSpeed's builder
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  Result<IndexedDataset> golden =
      IndexedDataset::Open(tokens + "/dda/seqlen/seqlen_sample_to_metric");
  REQUIRE(golden.ok());
  REQUIRE(golden->num_rows() == (*ds)->size());

  Result<std::unique_ptr<Metric>> m = CreateMetric(Entry("seqlen", "seqlen"), **ds);
  REQUIRE(m.ok());
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  SampleBatch b;
  std::vector<int64_t> out;
  uint64_t mismatches = 0;
  for (uint64_t begin = 0; begin < (*ds)->size(); begin += 1024) {
    const uint64_t end = std::min<uint64_t>(begin + 1024, (*ds)->size());
    REQUIRE(r->Read(begin, end, (*m)->needs_elements(), &b).ok());
    out.resize(b.size());
    REQUIRE((*m)->Compute(b, out).ok());
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t expected = VisitIntDType(golden->dtype(), [&](auto zero) {
        return static_cast<int64_t>(golden->typed_row<decltype(zero)>(begin + i)[0]);
      });
      mismatches += out[i] != expected;
    }
  }
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace dsanalyze
