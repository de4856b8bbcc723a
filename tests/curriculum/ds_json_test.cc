// ReadDeepSpeedJson (curriculum/ds_json.h): DeepSpeed's hjson comments read,
// duplicate keys and the rest of hjson refused at their line and column; and
// the curriculum's "enabled" read as DeepSpeed's bool() of it.
#include "curriculum/ds_json.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "curriculum/ds_config.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

Result<nlohmann::ordered_json> ReadConfigText(const test::ScratchDir& dir,
                                              const std::string& text) {
  const std::string path = dir / "ds.json";
  std::ofstream(path, std::ios::binary) << text;
  return ReadDeepSpeedJson(path);
}

// The error of `text`, without the file's name.
std::string ConfigErrorOf(const test::ScratchDir& dir, const std::string& text) {
  const Result<nlohmann::ordered_json> doc = ReadConfigText(dir, text);
  REQUIRE(!doc.ok());
  REQUIRE(doc.status().code() == Status::Code::kBadInput);
  const std::string prefix = dir / "ds.json: ";
  REQUIRE(doc.status().message().rfind(prefix, 0) == 0);
  REQUIRE(doc.status().message().find('\n') == std::string::npos);
  return doc.status().message().substr(prefix.size());
}

TEST_CASE("hjson comments are read, the text stays JSON", "[ds_json]") {
  test::ScratchDir dir;
  const std::string text =
      "// the config\r\n"
      "{ # batch\n"
      "  \"train_batch_size\": 8, /* a\n"
      "  block */ \"url\": \"http://x.org/#a//b/*c*/\",\n"
      "  \"list\": [1, /* two */ 2] // end\n"
      "}  # done";
  const Result<nlohmann::ordered_json> doc = ReadConfigText(dir, text);
  REQUIRE(doc.ok());
  REQUIRE(doc->dump() == R"({"train_batch_size":8,"url":"http://x.org/#a//b/*c*/","list":[1,2]})");
}

TEST_CASE("a key twice in one object is refused at its line", "[ds_json]") {
  test::ScratchDir dir;
  REQUIRE(ConfigErrorOf(dir, "{\"a\": {\"b\": 1,\n\"c\": 2,\n// \"b\": 0\n\"b\": 3}}") ==
          "line 4: duplicate key \"b\" (first at line 1): DeepSpeed refuses a config with "
          "duplicate keys");
  // The same key in other objects, or as a string value, is no duplicate.
  REQUIRE(ReadConfigText(dir, R"({"b": {"b": "b"}, "c": [{"b": 1}, {"b": 2}]})").ok());
  REQUIRE(ConfigErrorOf(dir, "{\"x\": [{\"k\": 1, \"k\": 2}]}")
              .starts_with("line 1: duplicate key \"k\""));
  // An escaped quote does not end a key early.
  REQUIRE(ConfigErrorOf(dir, "{\"a\\\"b\": 1,\n \"a\\\"b\": 2}")
              .starts_with("line 2: duplicate key \"a\\\"b\""));
}

TEST_CASE("the rest of hjson is refused at its line and column", "[ds_json]") {
  test::ScratchDir dir;
  const std::string hjson = ": hjson syntax dsanalyze does not read";
  REQUIRE(ConfigErrorOf(dir, "{\n  max_tokens: 4\n}")
              .starts_with("line 2, column 3: at \"max_tokens: 4\"" + hjson));
  REQUIRE(ConfigErrorOf(dir, "{\"a\": 1,\n}").starts_with("line 2, column 1: at \"}\"" + hjson));
  REQUIRE(ConfigErrorOf(dir, "{\"a\": 1\n \"b\": 2}")
              .starts_with("line 2, column 2: at \"\"b\": 2}\"" + hjson));
  REQUIRE(ConfigErrorOf(dir, "{\"a\": '''x'''}")
              .starts_with("line 1, column 7: at \"'''x'''}\"" + hjson));
  REQUIRE(ConfigErrorOf(dir, "a: 1").starts_with("line 1, column 1"));
  // Columns count characters, not bytes.
  REQUIRE(ConfigErrorOf(dir, "{\"\xc3\xa9\": x}").starts_with("line 1, column 7: at \"x}\""));
  REQUIRE(ConfigErrorOf(dir, "{\"a\": [1,") ==
          "line 1, column 10: the file ends inside a value (an unclosed {, [ or string)");
  REQUIRE(ConfigErrorOf(dir, "{\"a\": 1 /* open\n}") ==
          "line 1, column 9: a /* comment that is never closed with */");
  // Found by fuzzing (corpus/dsconfig): nlohmann throws out_of_range, not parse_error.
  REQUIRE(ConfigErrorOf(dir, "{\n \"a\": 2e99999}") ==
          "line 2, column 7: 2e99999 is past the range of a double");
}

TEST_CASE("a folder or an unreadable file is refused", "[ds_json]") {
  test::ScratchDir dir;
  REQUIRE(ReadDeepSpeedJson(dir.path().string()).status().message().find("is a directory") !=
          std::string::npos);
  REQUIRE(ReadDeepSpeedJson(dir / "none.json").status().message().find("file not found") !=
          std::string::npos);
}

TEST_CASE("curriculum_learning.enabled is DeepSpeed's bool() of it", "[ds_json]") {
  test::ScratchDir dir;
  const auto read = [&](const std::string& enabled) {
    const std::string path = dir / "curriculum.json";
    std::ofstream(path) << R"({"train_batch_size": 8, "data_efficiency": {"data_sampling": {
        "curriculum_learning": {"enabled": )" +
                               enabled + R"(, "curriculum_metrics": {"seqlen": {
        "difficulty_type": "value", "clustering_type": "single_cluster",
        "min_difficulty": 8, "max_difficulty": 64, "schedule_type": "fixed_linear",
        "schedule_config": {"total_curriculum_step": 10, "difficulty_step": 8}}}}}}})";
    return ReadDeepSpeedCurriculum(path);
  };
  REQUIRE(read("1").ok());
  REQUIRE(read("true").ok());
  REQUIRE(read("0").status().message().find("enabled: is false") != std::string::npos);
  REQUIRE(read("null").status().message().find("enabled: is false") != std::string::npos);
  REQUIRE(read("\"false\"")
              .status()
              .message()
              .find("enabled: expected true or false, got \"false\" (DeepSpeed takes any non-empty "
                    "string as true)") != std::string::npos);
}

}  // namespace
}  // namespace dsanalyze
