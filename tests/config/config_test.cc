#include "config/config.h"

#include <catch2/catch.hpp>
#include <string>

namespace dsanalyze {
namespace {

using nlohmann::json;

json SyntheticShape() {
  return json::parse(R"({"dataset": {"type": "synthetic_mod", "num_samples": 100000},
    "metrics": [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
    "output": {"path": "out"}, "map": {"threads": 1, "batch_size": 1024}})");
}

json DocumentsShape() {
  return json::parse(R"({"dataset": {"type": "documents",
      "prefixes": ["data/corpus_text_document"], "dtype_codes": "megatron"},
    "metrics": [{"name": "seqlen", "metric": "seqlen"}], "output": {"path": "out"}})");
}

json PackedShape() {
  return json::parse(R"({"dataset": {"type": "packed", "prefixes": ["data/a", "data/b"],
      "seq_length": 2048},
    "metrics": [{"name": "seqlen", "metric": "seqlen"}], "output": {"path": "out"}})");
}

json GptShape() {
  return json::parse(R"({"dataset": {"type": "megatron_gpt", "prefix": "data/a",
      "index_prefix": "data/a_train_indexmap_100ns_2048sl_1234s"},
    "metrics": [{"name": "seqlen", "metric": "seqlen"}], "output": {"path": "out"}})");
}

// The error ParseConfig gives for `j` (which must be refused); every error is one line.
std::string ErrorOf(const json& j) {
  Result<Config> c = ParseConfig(j);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == Status::Code::kBadInput);
  CHECK(c.status().message().find('\n') == std::string::npos);
  return c.status().message();
}

// SyntheticShape with `patch` (a JSON merge patch) applied.
json Synthetic(const char* patch) {
  json j = SyntheticShape();
  j.merge_patch(json::parse(patch));
  return j;
}

json Documents(const char* patch) {
  json j = DocumentsShape();
  j.merge_patch(json::parse(patch));
  return j;
}

json Packed(const char* patch) {
  json j = PackedShape();
  j.merge_patch(json::parse(patch));
  return j;
}

json Gpt(const char* patch) {
  json j = GptShape();
  j.merge_patch(json::parse(patch));
  return j;
}

TEST_CASE("config: the synthetic_mod shape parses with its values and defaults", "[config]") {
  Result<Config> c = ParseConfig(SyntheticShape());
  REQUIRE(c.ok());
  CHECK(DatasetTypeName(c->dataset.type) == "synthetic_mod");
  CHECK(std::get<SyntheticModConfig>(c->dataset.type).num_samples == 100000);
  CHECK(std::get<SyntheticModConfig>(c->dataset.type).modulus == 10000);
  CHECK(std::get<SyntheticModConfig>(c->dataset.type).offset == 7);
  CHECK(c->dataset.ignore_token_ids.empty());
  CHECK(c->dataset.sample_indices.empty());
  REQUIRE(c->metrics.size() == 2);
  CHECK(c->metrics[0].name == "mod");
  CHECK(c->metrics[0].metric == "value");
  CHECK(c->metrics[0].index == 0);
  CHECK(c->metrics[0].params == json::object());
  CHECK(c->metrics[1].name == "batch_sum");
  CHECK(c->metrics[1].metric == "sum");
  CHECK(c->metrics[1].index == 1);
  CHECK(c->metrics[1].plugin.empty());
  CHECK(c->output.path == "out");
  CHECK(c->output.dtype_codes == CodeTable::kDeepSpeed);
  CHECK(c->output.chunk_bytes == 4u << 20);
  CHECK_FALSE(c->output.fsync);
  CHECK(c->output.total_curriculum_step == 0);  // not given: a placeholder is written
  CHECK(c->map.threads == 1);
  CHECK(c->map.batch_size == 1024);
}

TEST_CASE("config: the documents shape parses; map is optional", "[config]") {
  Result<Config> c = ParseConfig(DocumentsShape());
  REQUIRE(c.ok());
  CHECK(DatasetTypeName(c->dataset.type) == "documents");
  CHECK(std::get<DocumentsConfig>(c->dataset.type).prefixes ==
        std::vector<std::string>{"data/corpus_text_document"});
  CHECK(std::get<DocumentsConfig>(c->dataset.type).dtype_codes == CodeTable::kMegatron);
  REQUIRE(c->metrics.size() == 1);
  CHECK(c->metrics[0].name == "seqlen");
  CHECK(c->map.threads == 1);
  CHECK(c->map.batch_size == 1024);
}

TEST_CASE("config: every optional key is read", "[config]") {
  json j = json::parse(R"({
    "dataset": {"type": "documents", "prefixes": ["a", "b/c"], "dtype_codes": "deepspeed-legacy",
                "ignore_token_ids": [0, -1, 50256], "sample_indices": "ids.npy"},
    "metrics": [{"name": "x.y-z_1", "metric": "m", "plugin": "./p.so", "params": {"k": [1, 2]}}],
    "output": {"path": "o", "dtype_codes": "deepspeed-legacy", "chunk_bytes": 64, "fsync": true,
               "total_curriculum_step": 55000},
    "map": {"threads": 256, "batch_size": 1e3}})");
  Result<Config> c = ParseConfig(j);
  REQUIRE(c.ok());
  CHECK(std::get<DocumentsConfig>(c->dataset.type).prefixes ==
        std::vector<std::string>{"a", "b/c"});
  CHECK(std::get<DocumentsConfig>(c->dataset.type).dtype_codes == CodeTable::kDeepSpeedLegacy);
  CHECK(c->dataset.ignore_token_ids == std::vector<int64_t>{0, -1, 50256});
  CHECK(c->dataset.sample_indices == "ids.npy");
  CHECK(c->metrics[0].plugin == "./p.so");
  CHECK(c->metrics[0].params == json::parse(R"({"k": [1, 2]})"));
  CHECK(c->output.dtype_codes == CodeTable::kDeepSpeedLegacy);
  CHECK(c->output.chunk_bytes == 64);
  CHECK(c->output.fsync);
  CHECK(c->output.total_curriculum_step == 55000);
  CHECK(c->map.threads == 256);
  CHECK(c->map.batch_size == 1000);  // 1e3 is an integral float

  Result<Config> s = ParseConfig(Synthetic(R"({"dataset": {"modulus": 3, "offset": -5}})"));
  REQUIRE(s.ok());
  CHECK(std::get<SyntheticModConfig>(s->dataset.type).modulus == 3);
  CHECK(std::get<SyntheticModConfig>(s->dataset.type).offset == -5);
}

TEST_CASE("config: dataset.sample_range is begin, end with begin < end", "[config]") {
  Result<Config> c = ParseConfig(Documents(R"({"dataset": {"sample_range": [0, 1e0]}})"));
  REQUIRE_FALSE(c.ok());  // integers only
  c = ParseConfig(Documents(R"({"dataset": {"sample_range": [3, 10]}})"));
  REQUIRE(c.ok());
  REQUIRE(c->dataset.sample_range);
  CHECK(*c->dataset.sample_range == SampleRange{3, 10});
  CHECK_FALSE(ParseConfig(DocumentsShape())->dataset.sample_range);
  CHECK(ErrorOf(Documents(R"({"dataset": {"sample_range": [4, 4]}})")) ==
        "config: dataset.sample_range: begin 4 must be less than end 4");
  for (const char* bad : {"[1]", "[1, 2, 3]", "[-1, 2]", "[0, \"2\"]", "{}"})
    CHECK(ErrorOf(Documents((std::string(R"({"dataset": {"sample_range": )") + bad + "}}").c_str()))
              .starts_with("config: dataset.sample_range: expected [begin, end], two "
                           "non-negative integers, got "));
}

TEST_CASE("config: ConfigToJson round-trips and fills in defaults", "[config]") {
  for (const json& j :
       {SyntheticShape(), DocumentsShape(), PackedShape(), GptShape(),
        Gpt(R"({"dataset": {"index_prefix": null, "doc_idx": "d.npy", "sample_idx": "s.npy",
                            "shuffle_idx": "h.npy", "seq_length": 8}})"),
        Synthetic(R"({"dataset": {"sample_range": [5, 9]}})"),
        Documents(R"({"dataset": {"ignore_token_ids": [3, 1], "sample_indices": "s.npy"},
                      "metrics": [{"name": "p", "metric": "q", "plugin": "x.so",
                                   "params": {"a": 1}}],
                      "output": {"fsync": true, "chunk_bytes": 100,
                                 "total_curriculum_step": 7}})"),
        Synthetic(R"({"memory": {"limit_per_rank": "1.5GiB", "scratch": "/local/tmp"}})")}) {
    Result<Config> c = ParseConfig(j);
    REQUIRE(c.ok());
    const json effective = ConfigToJson(*c);
    CHECK(effective["map"]["threads"] == c->map.threads);
    CHECK(effective["output"]["dtype_codes"] == "deepspeed");
    Result<Config> again = ParseConfig(effective);
    REQUIRE(again.ok());
    CHECK(again->dataset == c->dataset);
    CHECK(again->metrics == c->metrics);
    CHECK(again->output == c->output);
    CHECK(again->map == c->map);
    CHECK(again->memory == c->memory);
    CHECK(ConfigToJson(*again) == effective);
  }
}

TEST_CASE("config: errors name the key path", "[config]") {
  CHECK(ErrorOf(Synthetic(R"({"metrics": [{"name": "a/b", "metric": "value"}]})")) ==
        "config: metrics[0].name: \"a/b\" is not a safe file name (use [A-Za-z0-9_.-])");
  CHECK(ErrorOf(Synthetic(R"({"map": {"threads": "2"}})")) ==
        "config: map.threads: expected a positive integer, got \"2\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"num_samples": null, "num_sample": 5}})")) ==
        "config: dataset: unknown key \"num_sample\" (did you mean \"num_samples\"?)");
  CHECK(ErrorOf(Synthetic(R"({"output": {"pth": "x"}})")) ==
        "config: output: unknown key \"pth\" (did you mean \"path\"?)");
  CHECK(ErrorOf(Synthetic(R"({"output": {"zzzzzzzz": 1}})")) ==
        "config: output: unknown key \"zzzzzzzz\"");
  json top = SyntheticShape();
  top["metric"] = json::array();
  CHECK(ErrorOf(top) == "config: unknown key \"metric\" (did you mean \"metrics\"?)");
  CHECK(ErrorOf(json::array()) == "config: expected a JSON object {...}, got []");
}

TEST_CASE("config: missing required keys", "[config]") {
  for (const char* key : {"dataset", "metrics", "output"}) {
    json j = SyntheticShape();
    j.erase(key);
    CHECK(ErrorOf(j) == std::string("config: ") + key + ": required key is missing");
  }
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"type": null}})")) ==
        "config: dataset.type: required key is missing");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"num_samples": null}})")) ==
        "config: dataset.num_samples: required key is missing");
  json no_prefixes = DocumentsShape();
  no_prefixes["dataset"].erase("prefixes");
  CHECK(ErrorOf(no_prefixes) == "config: dataset.prefixes: required key is missing");
  CHECK(ErrorOf(Synthetic(R"({"output": {"path": null, "fsync": true}})")) ==
        "config: output.path: required key is missing");
  CHECK(ErrorOf(Synthetic(R"({"metrics": [{"metric": "value"}]})")) ==
        "config: metrics[0].name: required key is missing");
  CHECK(ErrorOf(Synthetic(R"({"metrics": [{"name": "v"}]})")) ==
        "config: metrics[0].metric: required key is missing");
}

TEST_CASE("config: wrong types", "[config]") {
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"num_samples": "100"}})")) ==
        "config: dataset.num_samples: expected a positive integer, got \"100\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"num_samples": 1.5}})")) ==
        "config: dataset.num_samples: expected a positive integer, got 1.5");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"offset": true}})")) ==
        "config: dataset.offset: expected an integer, got true");
  CHECK(ErrorOf(Synthetic(R"({"dataset": "synthetic_mod"})")) ==
        "config: dataset: expected a JSON object {...}, got \"synthetic_mod\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"ignore_token_ids": [1, "x"]}})")) ==
        "config: dataset.ignore_token_ids[1]: expected an integer, got \"x\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"ignore_token_ids": 5}})")) ==
        "config: dataset.ignore_token_ids: expected an array of integers, got 5");
  CHECK(ErrorOf(Synthetic(R"({"metrics": {"name": "x"}})")) ==
        "config: metrics: expected a non-empty array of metric entries, got {\"name\":\"x\"}");
  CHECK(ErrorOf(Synthetic(R"({"metrics": [{"name": "v", "metric": "value", "params": [1]}]})")) ==
        "config: metrics[0].params: expected a JSON object {...}, got [1]");
  CHECK(ErrorOf(Synthetic(R"({"metrics": [{"name": 5, "metric": "value"}]})")) ==
        "config: metrics[0].name: expected a string, got 5");
  CHECK(ErrorOf(Synthetic(R"({"metrics": ["value"]})")) ==
        "config: metrics[0]: expected a JSON object {...}, got \"value\"");
  CHECK(ErrorOf(Synthetic(R"({"output": {"fsync": "yes"}})")) ==
        "config: output.fsync: expected true or false, got \"yes\"");
  CHECK(ErrorOf(Synthetic(R"({"output": {"total_curriculum_step": 0}})")) ==
        "config: output.total_curriculum_step: expected a positive integer, got 0");
  CHECK(ErrorOf(Synthetic(R"({"output": {"total_curriculum_step": "55000"}})")) ==
        "config: output.total_curriculum_step: expected a positive integer, got \"55000\"");
  CHECK(ErrorOf(Synthetic(R"({"output": {"total_curriculum_steps": 5}})")) ==
        "config: output: unknown key \"total_curriculum_steps\" (did you mean "
        "\"total_curriculum_step\"?)");
  CHECK(ErrorOf(Synthetic(R"({"output": {"path": ""}})")) ==
        "config: output.path: expected a non-empty string, got \"\"");
  CHECK(ErrorOf(Documents(R"({"dataset": {"prefixes": "data/x"}})")) ==
        "config: dataset.prefixes: expected a non-empty array of strings, got \"data/x\"");
  // A long value is shortened in the message.
  const std::string long_error = ErrorOf(
      Synthetic(R"({"map": {"batch_size": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}})"));
  CHECK(long_error.size() < 100);
  CHECK(long_error.find("...") != std::string::npos);
}

TEST_CASE("config: ranges (N = 0, threads, batch size, chunk bytes, modulus)", "[config]") {
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"num_samples": 0}})")) ==
        "config: dataset.num_samples: expected a positive integer, got 0");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"num_samples": -3}})")) ==
        "config: dataset.num_samples: expected a positive integer, got -3");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"num_samples": 18446744073709551615}})")) ==
        "config: dataset.num_samples: must be at most 9223372036854775807, got "
        "18446744073709551615");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"modulus": 0}})")) ==
        "config: dataset.modulus: expected a positive integer, got 0");
  CHECK(ErrorOf(Synthetic(R"({"map": {"threads": 0}})")) ==
        "config: map.threads: expected a positive integer, got 0");
  CHECK(ErrorOf(Synthetic(R"({"map": {"threads": 257}})")) ==
        "config: map.threads: must be between 1 and 256, got 257");
  CHECK(ErrorOf(Synthetic(R"({"map": {"batch_size": 0}})")) ==
        "config: map.batch_size: expected a positive integer, got 0");
  CHECK(ErrorOf(Synthetic(R"({"map": {"batch_size": 16777217}})")) ==
        "config: map.batch_size: must be between 1 and 16777216, got 16777217");
  CHECK(ErrorOf(Synthetic(R"({"output": {"chunk_bytes": 63}})")) ==
        "config: output.chunk_bytes: must be between 64 and 1073741824, got 63");
  CHECK(ErrorOf(Synthetic(R"({"map": {"threads": 1e300}})")) ==
        "config: map.threads: is out of the 64-bit integer range, got 1e+300");
}

TEST_CASE("config: metric names must be safe file names and unique", "[config]") {
  for (const char* name : {"a/b", "", "a b", "x\\y", "na\u00efve", "a:b"}) {
    json j = SyntheticShape();
    j["metrics"][1]["name"] = name;
    CHECK(ErrorOf(j) == "config: metrics[1].name: " + json(name).dump() +
                            " is not a safe file name (use [A-Za-z0-9_.-])");
  }
  for (const char* name : {".", "..", ".hidden"}) {
    json j = SyntheticShape();
    j["metrics"][0]["name"] = name;
    CHECK(ErrorOf(j) == "config: metrics[0].name: " + json(name).dump() +
                            " is not a safe file name (a leading '.' makes a hidden or parent "
                            "directory name)");
  }
  json too_long = SyntheticShape();
  too_long["metrics"][0]["name"] = std::string(kMaxMetricNameLength + 1, 'a');
  CHECK(ErrorOf(too_long) == "config: metrics[0].name: is longer than 200 characters");
  too_long["metrics"][0]["name"] = std::string(kMaxMetricNameLength, 'a');
  CHECK(ParseConfig(too_long).ok());

  CHECK(IsSafeMetricName("a.b-c_D9"));
  CHECK(IsSafeMetricName("a.."));
  CHECK_FALSE(IsSafeMetricName("..a"));

  CHECK(ErrorOf(Synthetic(R"({"metrics": [{"name": "m", "metric": "value"},
                                          {"name": "n", "metric": "sum"},
                                          {"name": "m", "metric": "sum"}]})")) ==
        "config: metrics[2].name: \"m\" is already the name of metrics[0]; names must be unique");
  CHECK(ErrorOf(Synthetic(R"({"metrics": []})")) ==
        "config: metrics: expected a non-empty array of metric entries, got []");
  CHECK(ErrorOf(Synthetic(R"({"metrics": [{"name": "m", "metric": "value", "param": {}}]})")) ==
        "config: metrics[0]: unknown key \"param\" (did you mean \"params\"?)");
}

TEST_CASE("config: dataset types, tables and prefixes", "[config]") {
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"type": "synthetic"}})")) ==
        "config: dataset.type: unknown dataset type \"synthetic\" (did you mean "
        "\"synthetic_mod\"?); known types: synthetic_mod, documents, packed, megatron_gpt, "
        "megatron_blend, megatron_core");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"type": "parquet"}})")) ==
        "config: dataset.type: unknown dataset type \"parquet\"; known types: synthetic_mod, "
        "documents, packed, megatron_gpt, megatron_blend, megatron_core");
  CHECK(ErrorOf(Documents(R"({"dataset": {"dtype_codes": "megatron2"}})")) ==
        "config: dataset.dtype_codes: unknown table \"megatron2\" (use \"megatron\", "
        "\"deepspeed\" or \"deepspeed-legacy\")");
  CHECK(ErrorOf(Synthetic(R"({"output": {"dtype_codes": "numpy"}})")) ==
        "config: output.dtype_codes: unknown table \"numpy\" (use \"megatron\", \"deepspeed\" or "
        "\"deepspeed-legacy\")");
  CHECK(ErrorOf(Synthetic(R"({"output": {"dtype_codes": "megatron"}})")) ==
        "config: output.dtype_codes: \"megatron\" cannot be written (it has no uint32 or uint64 "
        "code); use \"deepspeed\" or \"deepspeed-legacy\"");
  CHECK(ErrorOf(Documents(R"({"dataset": {"prefixes": []}})")) ==
        "config: dataset.prefixes: expected a non-empty array of strings, got []");
  CHECK(ErrorOf(Documents(R"({"dataset": {"prefixes": ["a", ""]}})")) ==
        "config: dataset.prefixes[1]: expected a non-empty string, got \"\"");
  CHECK(ErrorOf(Documents(R"({"dataset": {"num_samples": 5}})")) ==
        "config: dataset: key \"num_samples\" does not apply to type \"documents\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"dtype_codes": "megatron"}})")) ==
        "config: dataset: key \"dtype_codes\" does not apply to type \"synthetic_mod\"");
}

TEST_CASE("config: packed reads prefixes, dtype_codes and seq_length", "[config]") {
  Result<Config> c = ParseConfig(PackedShape());
  REQUIRE(c.ok());
  CHECK(DatasetTypeName(c->dataset.type) == "packed");
  CHECK(std::get<PackedConfig>(c->dataset.type).prefixes ==
        std::vector<std::string>{"data/a", "data/b"});
  CHECK(std::get<PackedConfig>(c->dataset.type).seq_length == 2048);
  CHECK(std::get<PackedConfig>(c->dataset.type).dtype_codes == CodeTable::kMegatron);
  Result<Config> d = ParseConfig(Packed(R"({"dataset": {"dtype_codes": "deepspeed",
                                             "ignore_token_ids": [0]}})"));
  REQUIRE(d.ok());
  CHECK(std::get<PackedConfig>(d->dataset.type).dtype_codes == CodeTable::kDeepSpeed);
  CHECK(d->dataset.ignore_token_ids == std::vector<int64_t>{0});

  CHECK(ErrorOf(Packed(R"({"dataset": {"seq_length": null}})")) ==
        "config: dataset.seq_length: required key is missing");
  CHECK(ErrorOf(Packed(R"({"dataset": {"seq_length": 0}})")) ==
        "config: dataset.seq_length: expected a positive integer, got 0");
  CHECK(ErrorOf(Packed(R"({"dataset": {"seq_length": 2147483647}})")) ==
        "config: dataset.seq_length: must be between 1 and 2147483646, got 2147483647");
  CHECK(ErrorOf(Packed(R"({"dataset": {"seq_length": "2048"}})")) ==
        "config: dataset.seq_length: expected a positive integer, got \"2048\"");
  CHECK(ErrorOf(Packed(R"({"dataset": {"prefixes": null}})")) ==
        "config: dataset.prefixes: required key is missing");
  CHECK(ErrorOf(Packed(R"({"dataset": {"prefix": "x"}})")) ==
        "config: dataset: key \"prefix\" does not apply to type \"packed\" (did you mean "
        "\"prefixes\"?)");
  CHECK(ErrorOf(Documents(R"({"dataset": {"prefixes": null, "prefix": "x"}})")) ==
        "config: dataset: key \"prefix\" does not apply to type \"documents\" (did you mean "
        "\"prefixes\"?)");
  CHECK(ErrorOf(Packed(R"({"dataset": {"seq_lenght": 5}})")) ==
        "config: dataset: unknown key \"seq_lenght\" (did you mean \"seq_length\"?)");
  CHECK(ErrorOf(Documents(R"({"dataset": {"seq_length": 5}})")) ==
        "config: dataset: key \"seq_length\" does not apply to type \"documents\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"type": "pack"}})")) ==
        "config: dataset.type: unknown dataset type \"pack\" (did you mean \"packed\"?); "
        "known types: synthetic_mod, documents, packed, megatron_gpt, "
        "megatron_blend, megatron_core");
}

TEST_CASE("config: megatron_gpt takes index_prefix or the three map paths", "[config]") {
  Result<Config> c = ParseConfig(GptShape());
  REQUIRE(c.ok());
  const std::string maps = "data/a_train_indexmap_100ns_2048sl_1234s";
  CHECK(DatasetTypeName(c->dataset.type) == "megatron_gpt");
  CHECK(std::get<MegatronGptConfig>(c->dataset.type).prefix == "data/a");
  CHECK(std::get<MegatronGptConfig>(c->dataset.type).index_prefix == maps);
  CHECK(std::get<MegatronGptConfig>(c->dataset.type).doc_idx == maps + "_doc_idx.npy");
  CHECK(std::get<MegatronGptConfig>(c->dataset.type).sample_idx == maps + "_sample_idx.npy");
  CHECK(std::get<MegatronGptConfig>(c->dataset.type).shuffle_idx == maps + "_shuffle_idx.npy");
  CHECK(std::get<MegatronGptConfig>(c->dataset.type).seq_length == 0);

  Result<Config> e = ParseConfig(Gpt(R"({"dataset": {"index_prefix": null,
      "doc_idx": "c/x-document_index.npy", "sample_idx": "c/x-sample_index.npy",
      "shuffle_idx": "c/x-shuffle_index.npy", "seq_length": 4096,
      "dtype_codes": "deepspeed-legacy", "sample_indices": "ids.npy"}})"));
  REQUIRE(e.ok());
  CHECK(std::get<MegatronGptConfig>(e->dataset.type).index_prefix.empty());
  CHECK(std::get<MegatronGptConfig>(e->dataset.type).doc_idx == "c/x-document_index.npy");
  CHECK(std::get<MegatronGptConfig>(e->dataset.type).sample_idx == "c/x-sample_index.npy");
  CHECK(std::get<MegatronGptConfig>(e->dataset.type).shuffle_idx == "c/x-shuffle_index.npy");
  CHECK(std::get<MegatronGptConfig>(e->dataset.type).seq_length == 4096);
  CHECK(std::get<MegatronGptConfig>(e->dataset.type).dtype_codes == CodeTable::kDeepSpeedLegacy);
  CHECK(e->dataset.sample_indices == "ids.npy");

  CHECK(ErrorOf(Gpt(R"({"dataset": {"prefix": null}})")) ==
        "config: dataset.prefix: required key is missing");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"prefix": ["data/a"]}})")) ==
        "config: dataset.prefix: expected a non-empty string, got [\"data/a\"]");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"prefixes": ["data/a"]}})")) ==
        "config: dataset: key \"prefixes\" does not apply to type \"megatron_gpt\" (did you "
        "mean \"prefix\"?)");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"index_prefix": null}})")) ==
        "config: dataset.index_prefix: required key is missing (or give the paths \"doc_idx\", "
        "\"sample_idx\" and \"shuffle_idx\")");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"doc_idx": "d.npy"}})")) ==
        "config: dataset: give \"index_prefix\" or the paths \"doc_idx\", \"sample_idx\" and "
        "\"shuffle_idx\", not both");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"index_prefix": null, "doc_idx": "d.npy",
                                     "shuffle_idx": "h.npy"}})")) ==
        "config: dataset.sample_idx: required key is missing (\"doc_idx\", \"sample_idx\" and "
        "\"shuffle_idx\" go together)");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"index_prefix": null, "doc_idx": "d.npy",
                                     "sample_idx": "s.npy", "shuffle_idx": ""}})")) ==
        "config: dataset.shuffle_idx: expected a non-empty string, got \"\"");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"index_prefix": 3}})")) ==
        "config: dataset.index_prefix: expected a non-empty string, got 3");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"seq_length": -1}})")) ==
        "config: dataset.seq_length: expected a positive integer, got -1");
  CHECK(ErrorOf(Gpt(R"({"dataset": {"dtype_codes": "numpy"}})")) ==
        "config: dataset.dtype_codes: unknown table \"numpy\" (use \"megatron\", "
        "\"deepspeed\" or \"deepspeed-legacy\")");
  CHECK(ErrorOf(Documents(R"({"dataset": {"index_prefix": "x"}})")) ==
        "config: dataset: key \"index_prefix\" does not apply to type \"documents\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"shuffle_idx": "x"}})")) ==
        "config: dataset: key \"shuffle_idx\" does not apply to type \"synthetic_mod\"");
  CHECK(ErrorOf(Synthetic(R"({"dataset": {"type": "megatron"}})")) ==
        "config: dataset.type: unknown dataset type \"megatron\" (did you mean "
        "\"megatron_gpt\"?); known types: synthetic_mod, documents, packed, megatron_gpt, "
        "megatron_blend, megatron_core");
}

TEST_CASE("config: megatron_blend entries take megatron_gpt's keys, the section's defaults",
          "[config][blend]") {
  const json j = json::parse(R"({"dataset": {"type": "megatron_blend", "seq_length": 4,
      "datasets": [{"prefix": "a", "index_prefix": "ia"},
                   {"prefix": "b", "doc_idx": "d", "sample_idx": "s", "shuffle_idx": "h",
                    "seq_length": 8, "dtype_codes": "deepspeed"}],
      "weights": [3, 1], "train_samples": 100},
    "metrics": [{"name": "seqlen", "metric": "seqlen"}], "output": {"path": "out"}})");
  Result<Config> c = ParseConfig(j);
  REQUIRE(c.ok());
  const auto& b = std::get<MegatronBlendConfig>(c->dataset.type);
  REQUIRE(b.datasets.size() == 2);
  CHECK(b.datasets[0].seq_length == 4);
  CHECK(b.datasets[0].doc_idx == "ia_doc_idx.npy");
  CHECK(b.datasets[0].dtype_codes == CodeTable::kMegatron);
  CHECK(b.datasets[1].seq_length == 8);
  CHECK(b.datasets[1].dtype_codes == CodeTable::kDeepSpeed);
  CHECK(b.weights == std::vector<double>{3, 1});
  CHECK(b.train_samples == 100);
  CHECK(b.size == 0);
  Result<Config> again = ParseConfig(ConfigToJson(*c));
  REQUIRE(again.ok());
  CHECK(again->dataset == c->dataset);
  json files = j;
  files["dataset"].erase("weights");
  files["dataset"].erase("train_samples");
  files["dataset"]["dataset_index"] = "x_index.npy";
  files["dataset"]["dataset_sample_index"] = "x_sample_index.npy";
  Result<Config> cached = ParseConfig(files);
  REQUIRE(cached.ok());
  CHECK(ParseConfig(ConfigToJson(*cached))->dataset == cached->dataset);
  files["dataset"]["prefix"] = "a";
  CHECK(ErrorOf(files).starts_with(
      "config: dataset: key \"prefix\" does not apply to type \"megatron_blend\""));
}

}  // namespace
TEST_CASE("config: output.files chooses outputs, kept in table order", "[config]") {
  Result<Config> all = ParseConfig(Synthetic("{}"));
  REQUIRE(all.ok());
  CHECK(all->output.files == AllOutputFiles());
  CHECK_FALSE(ConfigToJson(*all)["output"].contains("files"));  // the default is not echoed

  Result<Config> c = ParseConfig(
      Synthetic(R"({"output": {"files": ["reports", "percentile_merged", "index_to_sample"]}})"));
  REQUIRE(c.ok());
  CHECK(c->output.files ==
        std::vector<std::string>{"index_to_sample", "percentile_merged", "reports"});
  const json effective = ConfigToJson(*c);
  CHECK(effective["output"]["files"] == json(c->output.files));
  Result<Config> again = ParseConfig(effective);
  REQUIRE(again.ok());
  CHECK(again->output == c->output);

  CHECK(ErrorOf(Synthetic(R"({"output": {"files": ["metric_valu", "reports"]}})")) ==
        "config: output.files: unknown output \"metric_valu\" (did you mean \"metric_value\"?); "
        "known: [\"index_to_sample\",\"index_to_metric\",\"sample_to_metric\","
        "\"percentile_merged\",\"metric_value\",\"reports\"]");
  CHECK(ErrorOf(Synthetic(R"({"output": {"files": ["reports", "reports"]}})")) ==
        "config: output.files: \"reports\" is listed twice");
  CHECK(ErrorOf(Synthetic(R"({"output": {"files": []}})")) ==
        "config: output.files: expected a non-empty array of strings, got []");
  CHECK(ErrorOf(Synthetic(R"({"output": {"files": ["percentile_merged", "reports"]}})")) ==
        "config: output.files: \"percentile_merged\" needs \"index_to_sample\" (its .bin is a "
        "hard link to index_to_sample's)");
  CHECK(ErrorOf(Synthetic(R"({"output": {"files": ["metric_value"]}})")) ==
        "config: output.files: \"reports\" is required (summary.json records the choice for "
        "verify and compare)");
}

TEST_CASE("config: megatron_core reads data_path as Megatron-Core's get_blend_from_list",
          "[config][blend]") {
  const auto core = [](const std::string& dataset) {
    return json::parse(R"({"dataset": )" + dataset +
                       R"(, "metrics": [{"name": "seqlen", "metric": "seqlen"}],
                          "output": {"path": "out"}})");
  };
  Result<Config> c = ParseConfig(core(R"({"type": "megatron_core", "path_to_cache": "cache",
      "data_path": [" 30", " data/web ", "7e1", "data/books"],
      "add_extra_token_to_sequence": false, "num_samples": 2000})"));
  REQUIRE(c.ok());
  const auto& m = std::get<MegatronCoreConfig>(c->dataset.type);
  CHECK(m.split == "train");
  CHECK(m.prefixes == std::vector<std::string>{"data/web", "data/books"});
  CHECK(m.weights == std::vector<double>{30, 70});
  CHECK(!m.add_extra_token);
  CHECK(ParseConfig(ConfigToJson(*c))->dataset == c->dataset);
  // An odd count, or a non-number at an even place: all prefixes, no weights.
  Result<Config> plain =
      ParseConfig(core(R"({"type": "megatron_core", "data_path": ["a", "b", "c"]})"));
  REQUIRE(plain.ok());
  CHECK(std::get<MegatronCoreConfig>(plain->dataset.type).weights.empty());
  CHECK(std::get<MegatronCoreConfig>(plain->dataset.type).prefixes.size() == 3);
  CHECK(ErrorOf(core(R"({"type": "megatron_core", "data_path": ["0", "a", "1", "b"]})")) ==
        "config: dataset.data_path[0]: weight \"0\" of \"a\" is not a positive number; "
        "Megatron-Core's weights are > 0");
  CHECK(ErrorOf(core(R"({"type": "megatron_core", "data_path": ["a"], "split": "val"})")) ==
        "config: dataset.split: unknown split \"val\" (use \"train\", \"valid\" or \"test\")");
}

}  // namespace dsanalyze
