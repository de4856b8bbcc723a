#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "config/config.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

std::string WriteText(const test::ScratchDir& dir, const std::string& name,
                      const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path) << text;
  return path;
}

TEST_CASE("LoadConfig: reads and validates a file", "[config]") {
  test::ScratchDir dir;
  const std::string path = WriteText(dir, "run.json", R"({
  "dataset": {"type": "synthetic_mod", "num_samples": 100000},
  "metrics": [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
  "output": {"path": "out"}, "map": {"threads": 2, "batch_size": 1024}
})");
  Result<Config> c = LoadConfig(path);
  REQUIRE(c.ok());
  CHECK(std::get<SyntheticModConfig>(c->dataset.type).num_samples == 100000);
  CHECK(c->map.threads == 2);
  CHECK(c->output.path == "out");

  const std::string bad = WriteText(dir, "bad.json", R"({"dataset": {"type": "documents"},
  "metrics": [{"name": "s", "metric": "seqlen"}], "output": {"path": "out"}})");
  Result<Config> b = LoadConfig(bad);
  REQUIRE_FALSE(b.ok());
  CHECK(b.status().message() == "config: dataset.prefixes: required key is missing");
}

TEST_CASE("LoadConfig: JSON syntax errors name the file, line and column", "[config]") {
  test::ScratchDir dir;
  const std::string path =
      WriteText(dir, "broken.json", "{\n  \"dataset\": {\"type\": \"synthetic_mod\",}\n}\n");
  Result<Config> c = LoadConfig(path);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == Status::Code::kBadInput);
  const std::string msg = c.status().message();
  INFO(msg);
  // The '}' after the trailing comma is line 2, column 39.
  CHECK(msg.rfind(path + ":2:39: invalid JSON: ", 0) == 0);
  CHECK(msg.find("[json.exception") == std::string::npos);
  CHECK(msg.find('\n') == std::string::npos);

  const std::string truncated = WriteText(dir, "truncated.json", "{\"a\": [1, 2");
  Result<Config> t = LoadConfig(truncated);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().message().rfind(truncated + ":1:", 0) == 0);
}

TEST_CASE("LoadConfig: a key given twice is an error", "[config]") {
  test::ScratchDir dir;
  const std::string path = WriteText(dir, "dup.json", R"({
  "dataset": {"type": "synthetic_mod", "num_samples": 10, "num_samples": 20},
  "metrics": [{"name": "mod", "metric": "value"}], "output": {"path": "out"}})");
  Result<Config> c = LoadConfig(path);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().message() ==
        path + ": key \"num_samples\" appears twice in one object; give each key once");

  // The same key in different objects is fine.
  const std::string ok = WriteText(dir, "ok.json", R"({
  "dataset": {"type": "synthetic_mod", "num_samples": 10},
  "metrics": [{"name": "a", "metric": "value"}, {"name": "b", "metric": "value"}],
  "output": {"path": "out"}})");
  CHECK(LoadConfig(ok).ok());
}

TEST_CASE("LoadConfig: a missing file names the file", "[config]") {
  test::ScratchDir dir;
  Result<Config> c = LoadConfig(dir / "nope.json");
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == Status::Code::kBadInput);
  CHECK(c.status().message() == "the config file: " + dir / "nope.json" + ": file not found");
}

}  // namespace
}  // namespace dsanalyze
