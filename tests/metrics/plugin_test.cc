// Metric plugins through the registry: the example plugin's metrics, and one
// test per way a plugin can be wrong (the libraries are built from
// tests/metrics/plugins/ and apps/example_plugin/).
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "dataset/open_dataset.h"
#include "metrics/batch_builder.h"
#include "metrics/registry.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using test::OwnedBatch;

const std::string kExample = DSANALYZE_EXAMPLE_PLUGIN;
const std::string kFaulty = DSANALYZE_TEST_PLUGIN_FAULTY;

std::unique_ptr<Dataset> AnyDataset() {
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = 10};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  return std::move(ds).value();
}

MetricConfig PluginEntry(std::string plugin, std::string metric,
                         nlohmann::json params = nlohmann::json::object()) {
  MetricConfig m;
  m.name = "pm";
  m.plugin = std::move(plugin);
  m.metric = std::move(metric);
  m.params = std::move(params);
  m.index = 4;
  return m;
}

Result<std::unique_ptr<Metric>> Create(const MetricConfig& entry) {
  return CreateMetric(entry, *AnyDataset());
}

TEST_CASE("plugins: the example plugin describes its metrics", "[metrics][plugin]") {
  Result<PluginInfo> info = DescribePlugin(kExample);
  REQUIRE(info.ok());
  CHECK(info->name == "example");
  REQUIRE(info->metrics.size() == 2);
  CHECK(info->metrics[0].name == "token_sum");
  CHECK(info->metrics[0].type == MetricType::kSingleValuePerSample);
  CHECK(info->metrics[1].name == "token_histogram");
  CHECK(info->metrics[1].type == MetricType::kAccumulateValueOverSamples);
  CHECK_FALSE(info->metrics[1].description.empty());
}

TEST_CASE("plugins: token_sum computes per sample, for every dtype", "[metrics][plugin]") {
  Result<std::unique_ptr<Metric>> m = Create(PluginEntry(kExample, "token_sum"));
  REQUIRE(m.ok());
  CHECK((*m)->type() == MetricType::kSingleValuePerSample);
  std::vector<int64_t> out(3);
  OwnedBatch<uint16_t> u16(0, DType::kU16, {{1, 2, 65535}, {}, {7}});
  REQUIRE((*m)->Compute(u16.batch, out).ok());
  CHECK(out == std::vector<int64_t>{65538, 0, 7});
  OwnedBatch<int8_t> i8(0, DType::kI8, {{-128, -1}, {5}, {0}});
  REQUIRE((*m)->Compute(i8.batch, out).ok());
  CHECK(out == std::vector<int64_t>{-129, 5, 0});
  // A batch whose offsets do not start at 0 (a slice of a bigger batch).
  OwnedBatch<int64_t> big(10, DType::kI64, {{1}, {2, 3}, {4}, {5, 6}});
  const SampleBatch slice{11, DType::kI64, big.batch.elements, big.batch.offsets.subspan(1, 4)};
  REQUIRE((*m)->Compute(slice, out).ok());
  CHECK(out == std::vector<int64_t>{5, 4, 11});
}

TEST_CASE("plugins: token_histogram accumulates, its params go through init", "[metrics][plugin]") {
  Result<std::unique_ptr<Metric>> m =
      Create(PluginEntry(kExample, "token_histogram", {{"vocab_size", 10}, {"buckets", 2}}));
  REQUIRE(m.ok());
  CHECK((*m)->type() == MetricType::kAccumulateValueOverSamples);
  REQUIRE((*m)->accumulate_length() == 2);
  std::vector<int64_t> acc = {100, 200};
  OwnedBatch<uint32_t> b(0, DType::kU32, {{0, 4, 5}, {9, 9}});
  REQUIRE((*m)->Accumulate(b.batch, acc).ok());
  CHECK(acc == std::vector<int64_t>{102, 203});

  // The plugin's own error, with the metric's config name.
  OwnedBatch<uint32_t> bad(40, DType::kU32, {{1}, {10}});
  Status st = (*m)->Accumulate(bad.batch, acc);
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() == "metric \"pm\" (plugin metric \"token_histogram\" of " + kExample +
                            "): sample 41 has token 10, outside [0, vocab_size 10) (at samples "
                            "40..41)");

  // init rejects params.
  Result<std::unique_ptr<Metric>> no_params = Create(PluginEntry(kExample, "token_histogram"));
  CHECK(no_params.status().message() ==
        "config: metrics[4].params: plugin metric \"token_histogram\" of " + kExample +
            ": token_histogram needs \"vocab_size\": a positive integer");
}

TEST_CASE("plugins: compute runs on several threads at once", "[metrics][plugin]") {
  Result<std::unique_ptr<Metric>> m =
      Create(PluginEntry(kExample, "token_histogram", {{"vocab_size", 100}, {"buckets", 10}}));
  REQUIRE(m.ok());
  std::vector<std::vector<int64_t>> accs(4, std::vector<int64_t>(10, 0));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < accs.size(); ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::vector<int32_t>> rows;
      for (int i = 0; i < 100; ++i) rows.push_back({i, i});
      OwnedBatch<int32_t> b(0, DType::kI32, rows);
      for (int round = 0; round < 200; ++round)
        failures += !(*m)->Accumulate(b.batch, accs[t]).ok();
    });
  }
  for (auto& t : threads) t.join();
  CHECK(failures == 0);
  for (const auto& acc : accs) CHECK(acc == std::vector<int64_t>(10, 200 * 20));
}

TEST_CASE("plugins: a missing file, or not a shared library", "[metrics][plugin]") {
  CHECK(Create(PluginEntry("/nonexistent/libx.so", "m")).status().message() ==
        "config: metrics[4].plugin: plugin \"/nonexistent/libx.so\": no such file");
  test::ScratchDir dir;
  const std::string text = dir / "notes.so";
  test::WriteBytes(text, {'h', 'i', '\n'});
  Status st = Create(PluginEntry(text, "m")).status();
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message().rfind("config: metrics[4].plugin: plugin \"" + text +
                               "\": cannot be loaded as a shared library: ",
                           0) == 0);
  CHECK(Create(PluginEntry(dir.path().string(), "m")).status().message() ==
        "config: metrics[4].plugin: plugin \"" + dir.path().string() +
            "\": is a directory, not a shared library");
}

TEST_CASE("plugins: a library without the register symbol", "[metrics][plugin]") {
  const std::string path = DSANALYZE_TEST_PLUGIN_NO_REGISTER;
  CHECK(Create(PluginEntry(path, "m")).status().message() ==
        "config: metrics[4].plugin: plugin \"" + path +
            "\": does not export dsa_plugin_register, so it is not a dsanalyze metric plugin "
            "(see docs/plugins.md)");
}

TEST_CASE("plugins: an ABI version mismatch", "[metrics][plugin]") {
  const std::string path = DSANALYZE_TEST_PLUGIN_BAD_ABI;
  const std::string expected = "plugin \"" + path +
                               "\": was built for plugin ABI version 2, but this dsanalyze "
                               "supports version 1; rebuild it against this dsanalyze's "
                               "include/dsanalyze/plugin.h";
  CHECK(Create(PluginEntry(path, "m")).status().message() ==
        "config: metrics[4].plugin: " + expected);
  CHECK(DescribePlugin(path).status().message() == expected);
}

TEST_CASE("plugins: a malformed metric table", "[metrics][plugin]") {
  const std::string path = DSANALYZE_TEST_PLUGIN_BAD_TABLE;
  CHECK(DescribePlugin(path).status().message() ==
        "plugin \"" + path + "\": metric #0 (\"no_compute\") has no compute function");
}

TEST_CASE("plugins: a metric the plugin does not export", "[metrics][plugin]") {
  CHECK(Create(PluginEntry(kExample, "token_count")).status().message() ==
        "config: metrics[4].metric: plugin \"" + kExample +
            "\": does not export a metric \"token_count\"; it exports: token_sum, "
            "token_histogram");
}

TEST_CASE("plugins: compute errors carry the plugin's message", "[metrics][plugin]") {
  Result<std::unique_ptr<Metric>> fails = Create(PluginEntry(kFaulty, "fails"));
  REQUIRE(fails.ok());
  std::vector<int64_t> out(3);
  OwnedBatch<int64_t> early(0, DType::kI64, {{1}, {2}, {3}});
  CHECK((*fails)->Compute(early.batch, out).ok());
  OwnedBatch<int64_t> late(4, DType::kI64, {{1}, {2}, {3}});
  Status st = (*fails)->Compute(late.batch, out);
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() == "metric \"pm\" (plugin metric \"fails\" of " + kFaulty +
                            "): deliberate failure at sample 5 (at samples 4..6)");

  Result<std::unique_ptr<Metric>> silent = Create(PluginEntry(kFaulty, "fails_silent"));
  REQUIRE(silent.ok());
  CHECK((*silent)->Compute(late.batch, out).message() ==
        "metric \"pm\" (plugin metric \"fails_silent\" of " + kFaulty +
            "): failed with code 7 and no message (at samples 4..6)");
}

TEST_CASE("plugins: a wrong number of values is an error", "[metrics][plugin]") {
  Result<std::unique_ptr<Metric>> m = Create(PluginEntry(kFaulty, "short"));
  REQUIRE(m.ok());
  std::vector<int64_t> out(3);
  OwnedBatch<int64_t> b(0, DType::kI64, {{1}, {2}, {3}});
  CHECK((*m)->Compute(b.batch, out).message() ==
        "metric \"pm\" (plugin metric \"short\" of " + kFaulty +
            "): compute reported 2 values where 3 were expected (samples 0..2)");
}

TEST_CASE("plugins: bad accumulate length and rejected params fail at creation",
          "[metrics][plugin]") {
  CHECK(Create(PluginEntry(kFaulty, "zero_length")).status().message() ==
        "config: metrics[4].params: plugin metric \"zero_length\" of " + kFaulty +
            ": accumulate_length is 0; it must be 1..268435456");
  CHECK(Create(PluginEntry(kFaulty, "bad_params", {{"k", 1}})).status().message() ==
        "config: metrics[4].params: plugin metric \"bad_params\" of " + kFaulty +
            ": no params are good enough, not even {\"k\":1}");
}

}  // namespace
}  // namespace dsanalyze
