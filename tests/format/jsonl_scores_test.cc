#include "format/jsonl_scores.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "dataset/gpt_maps.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

struct Jsonl {
  test::ScratchDir dir;
  std::string path = dir / "q.jsonl";

  Result<std::vector<double>> Read(const std::string& text, uint64_t rows,
                                   const std::string& id_field = "") const {
    test::WriteBytes(path, std::vector<uint8_t>(text.begin(), text.end()));
    return ReadJsonlScores(path, {"score", id_field, rows});
  }
  // The error message for `text`, which must be BadInput.
  std::string Error(const std::string& text, uint64_t rows, const std::string& id_field = "") {
    Result<std::vector<double>> r = Read(text, rows, id_field);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Status::Code::kBadInput);
    return r.status().message();
  }
  // path + ": line N: " + what.
  std::string At(int line, const std::string& what) const {
    return path + ": line " + std::to_string(line) + ": " + what;
  }
};

std::vector<double> Values(const Result<std::vector<double>>& r) {
  INFO((r.ok() ? "" : r.status().message()));
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("jsonl: scores in line order, integers, floats and exponents", "[jsonl]") {
  Jsonl j;
  const std::string text =
      "{\"id\": 3, \"score\": 1}\n"
      "{\"score\": -2.5, \"text\": \"a \\\"quoted\\\" NaN, Infinity\"}\n"
      "  {\"score\": 1e3}\n"
      "{\"nested\": {\"score\": 7}, \"score\": 2.5E-3, \"list\": [1, 2, null, true]}\n"
      "{\"score\": -0}\n"
      "{\"score\": 18446744073709551615}\n"
      "{\"score\": -9223372036854775808}\n";
  CHECK(Values(j.Read(text, 7)) == std::vector<double>{1, -2.5, 1000, 0.0025, 0,
                                                       18446744073709551615.0,
                                                       -9223372036854775808.0});
  // The same without the final newline, and with \r\n line endings.
  CHECK(Values(j.Read(text.substr(0, text.size() - 1), 7)).size() == 7);
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  CHECK(Values(j.Read(crlf, 7)) == Values(j.Read(text, 7)));
  CHECK(Values(j.Read(crlf.substr(0, crlf.size() - 2), 7)) == Values(j.Read(text, 7)));
  // No rows: an empty file.
  CHECK(Values(j.Read("", 0)).empty());
}

TEST_CASE("jsonl: ids place scores in their rows", "[jsonl]") {
  Jsonl j;
  std::vector<uint64_t> ids(1000);
  for (uint64_t i = 0; i < ids.size(); ++i) ids[i] = i;
  SplitMix64(3).Shuffle(&ids);
  std::string text;
  for (uint64_t id : ids)
    text += "{\"doc\": " + std::to_string(id) + ", \"score\": " + std::to_string(id * 2) + "}\n";
  const std::vector<double> scores = Values(j.Read(text, ids.size(), "doc"));
  for (uint64_t i = 0; i < scores.size(); ++i) CHECK(scores[i] == static_cast<double>(2 * i));
}

TEST_CASE("jsonl: Python's NaN, Infinity and -Infinity are read", "[jsonl]") {
  Jsonl j;
  const std::vector<double> v =
      Values(j.Read("{\"score\": NaN}\n{\"score\": Infinity, \"x\": NaN}\n"
                    "{\"x\": [-Infinity, \"NaN\"], \"score\":-Infinity}\n{\"score\": 0.5}\n",
                    4));
  REQUIRE(v.size() == 4);
  CHECK(std::isnan(v[0]));
  CHECK(v[1] == std::numeric_limits<double>::infinity());
  CHECK(v[2] == -std::numeric_limits<double>::infinity());
  CHECK(v[3] == 0.5);
  // With ids too, and the tokens only count outside strings.
  CHECK(std::isnan(
      Values(j.Read("{\"i\": 1, \"score\": 2}\n{\"i\": 0, \"score\": NaN}\n", 2, "i"))[0]));
  CHECK(j.Error("{\"score\": \"NaN\"}\n", 1) == j.At(1, "field \"score\" is not a number"));
  CHECK(j.Error("{\"x\": NaN, \"score\": \"Infinity\"}\n", 1) ==
        j.At(1, "field \"score\" is not a number"));
  CHECK(j.Error("{\"score\": nan}\n", 1).rfind(j.At(1, "invalid JSON: "), 0) == 0);
  CHECK(j.Error("{\"score\": NaNa}\n", 1).rfind(j.At(1, "invalid JSON: "), 0) == 0);
  CHECK(j.Error("{\"score\": [NaN]}\n", 1) == j.At(1, "field \"score\" is not a number"));
}

TEST_CASE("jsonl: errors in line-order mode name the line", "[jsonl]") {
  Jsonl j;
  const std::string ok = "{\"score\": 1}\n";
  CHECK(j.Error(ok + ok + "{\"value\": 1}\n", 3) == j.At(3, "field \"score\" is missing"));
  CHECK(j.Error(ok + "{\"score\": \"1\"}\n", 2) == j.At(2, "field \"score\" is not a number"));
  CHECK(j.Error(ok + "{\"score\": null}\n", 2) == j.At(2, "field \"score\" is not a number"));
  CHECK(j.Error(ok + "{\"score\": true}\n", 2) == j.At(2, "field \"score\" is not a number"));
  for (const std::string bad : {"{\"score\": 1", "{\"score\": 1}}", "{\"score\": 1} {\"score\": 2}",
                                "{\"score\": 1}, {\"score\": 2}", "{score: 1}", "{\"score\": 01}",
                                "{\"score\": 1.}", "{\"score\": \"a\tb\"}", "[1, 2"})
    CHECK(j.Error(ok + ok + bad + "\n" + ok, 4).rfind(j.At(3, "invalid JSON: "), 0) == 0);
  CHECK(j.Error(ok + "[1, 2]\n", 2) == j.At(2, "expected a JSON object"));
  CHECK(j.Error(ok + "7\n", 2) == j.At(2, "expected a JSON object"));
  // An object across two lines: each line alone is invalid, also when another
  // line's two objects make up the count.
  CHECK(j.Error(ok + "{\"score\":\n2}\n" + ok, 3).rfind(j.At(2, "invalid JSON: "), 0) == 0);
  CHECK(j.Error("{\"score\":\n2}\n{\"score\": 1} {\"score\": 2}\n", 3)
            .rfind(j.At(1, "invalid JSON: "), 0) == 0);
  CHECK(j.Error(ok + "\n" + ok, 2) == j.At(2, "blank line (each line must hold one JSON object)"));
  CHECK(j.Error(ok + " \r\n" + ok, 2) ==
        j.At(2, "blank line (each line must hold one JSON object)"));
  CHECK(j.Error(ok + ok + "\n", 2) == j.At(3, "blank line (each line must hold one JSON object)"));
  CHECK(j.Error("\n" + ok, 1) == j.At(1, "blank line (each line must hold one JSON object)"));
  CHECK(j.Error(ok + ok, 3) ==
        j.At(3, "expected 3 lines (one per row), but the file ends after 2"));
  CHECK(j.Error("", 1) == j.At(1, "expected 1 line (one per row), but the file ends after 0"));
  CHECK(j.Error(ok + ok + ok, 2) ==
        j.At(3, "expected 2 lines (one per row), but the file has more"));
}

TEST_CASE("jsonl: errors in id mode name the line", "[jsonl]") {
  Jsonl j;
  auto line = [](const std::string& id) { return "{\"id\": " + id + ", \"score\": 1}\n"; };
  CHECK(j.Error(line("0") + "{\"score\": 1}\n", 2, "id") == j.At(2, "field \"id\" is missing"));
  for (const std::string bad : {"1.0", "\"1\"", "null", "1e0", "[1]"})
    CHECK(j.Error(line("0") + line(bad), 2, "id") == j.At(2, "field \"id\" is not an integer"));
  CHECK(j.Error(line("0") + line("-1"), 2, "id") == j.At(2, "id -1 is outside [0, 2)"));
  CHECK(j.Error(line("0") + line("2"), 2, "id") ==
        j.At(2, "id 2 is outside [0, 2): row past the end"));
  CHECK(j.Error(line("0") + line("18446744073709551615"), 2, "id") ==
        j.At(2, "id 18446744073709551615 is outside [0, 2): row past the end"));
  CHECK(j.Error(line("1") + line("0") + line("1"), 3, "id") ==
        j.At(3, "id 1 appears twice, on lines 1 and 3"));
  CHECK(j.Error(line("0") + line("3"), 5, "id") ==
        j.path + ": no line has id 1, so row 1 of [0, 5) has no score (the first such row)");
  CHECK(j.Error("", 1, "id") ==
        j.path + ": no line has id 0, so row 0 of [0, 1) has no score (the first such row)");
  // The score is checked before the id.
  CHECK(j.Error("{\"id\": -1}\n", 1, "id") == j.At(1, "field \"score\" is missing"));
}

TEST_CASE("jsonl: errors about a key say where the key was chosen", "[jsonl]") {
  Jsonl j;
  test::WriteBytes(j.path, {'{', '"', 'i', 'd', '"', ':', '0', '}', '\n'});
  const JsonlScoreOptions o{"q", "id", 1};
  const JsonlKeyNotes notes{"F note", "I note"};
  Result<std::vector<double>> r = ReadJsonlScores(j.path, o, notes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == j.At(1, "field \"q\" is missing (F note)"));
  test::WriteBytes(j.path, {'{', '"', 'q', '"', ':', '1', '}', '\n'});
  r = ReadJsonlScores(j.path, o, notes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == j.At(1, "field \"id\" is missing (I note)"));
}

TEST_CASE("jsonl: a missing file is named", "[jsonl]") {
  Jsonl j;
  Result<std::vector<double>> r = ReadJsonlScores(j.dir / "none.jsonl", {"score", "", 1});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Status::Code::kBadInput);
  CHECK(r.status().message() == j.dir / "none.jsonl: file not found");
}

// Over a megabyte, so the file is read in several chunks; every double
// written with %.17g comes back bit for bit.
TEST_CASE("jsonl: 100k lines round-trip %.17g doubles exactly", "[jsonl]") {
  Jsonl j;
  SplitMix64 rng(7);
  std::vector<double> expected;
  std::string text;
  char number[64];
  for (int i = 0; i < 100000; ++i) {
    uint64_t bits = rng.Next();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) v = static_cast<double>(bits >> 11) * 0x1p-53;
    expected.push_back(v);
    std::snprintf(number, sizeof number, "%.17g", v);
    text += "{\"id\": " + std::to_string(i) + ", \"text_len\": 42, \"score\": " + number + "}\n";
  }
  REQUIRE(text.size() > (size_t{3} << 20));
  const std::vector<double> got = Values(j.Read(text, expected.size()));
  REQUIRE(got.size() == expected.size());
  CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)) == 0);

  // An error deep in a later chunk still names its line.
  const size_t line_start = text.find("{\"id\": 76543,");
  text.insert(text.find("\"score\"", line_start), "\"score\": NaNx, ");
  CHECK(j.Error(text, expected.size()).rfind(j.At(76544, "invalid JSON: "), 0) == 0);
}

}  // namespace
}  // namespace dsanalyze
