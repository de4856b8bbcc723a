// Fuzz target for the JSON-lines score reader (format/jsonl_scores.h).
//
// Input: one options byte, then the .jsonl bytes. Bit 0 of the options byte
// picks the mode (0: row = line order, 1: rows named by an "id" field), bits
// 1-7 the number of rows (0 to 127). The field is "score".
//
// On success the target checks that there is one score per row and, against
// an independent parse of each line with nlohmann::json (where that parser
// accepts the line and its object names the field once), that each row holds
// its line's number: as the nearest double, NaN and ±inf only from Python's
// bare tokens (which nlohmann refuses, so those lines are not compared). The
// line-order mode also needs exactly `rows` lines. On failure it checks that
// the error is one BadInput line naming the file.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "format/jsonl_scores.h"
#include "fuzz_support.h"

namespace dsanalyze {
namespace {

using nlohmann::json;

// The lines of `text` as the reader counts them: split at \n, the empty
// "line" after a final newline not counted.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t n = text.find('\n');
    lines.push_back(text.substr(0, n));
    text.remove_prefix(n == std::string_view::npos ? text.size() : n + 1);
  }
  return lines;
}

// The line parsed by nlohmann, or discarded; `field_count` counts the
// top-level keys equal to `field` (nlohmann keeps the last of repeated keys).
json ParseLine(std::string_view line, const std::string& field, int* field_count) {
  *field_count = 0;
  json::parser_callback_t count = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key && parsed == field) ++*field_count;
    return true;
  };
  return json::parse(line.begin(), line.end(), count, /*allow_exceptions=*/false);
}

// The score and row (or -1) of `line` by nlohmann, when comparable.
bool Expected(std::string_view line, bool ids, double* score, int64_t* row) {
  int fields = 0;
  const json j = ParseLine(line, "score", &fields);
  if (j.is_discarded() || !j.is_object() || fields != 1 || !j["score"].is_number()) return false;
  *score = j["score"].get<double>();
  *row = -1;
  if (!ids) return true;
  int id_fields = 0;
  (void)ParseLine(line, "id", &id_fields);
  if (id_fields != 1 || !j.contains("id") || !j["id"].is_number_integer()) return false;
  *row = j["id"].get<int64_t>();
  return true;
}

bool Same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void CheckScores(const std::vector<double>& scores, std::string_view text,
                 const JsonlScoreOptions& o) {
  FUZZ_CHECK(scores.size() == o.rows, "one score per row");
  const std::vector<std::string_view> lines = Lines(text);
  const bool ids = !o.id_field.empty();
  if (!ids) FUZZ_CHECK(lines.size() == o.rows, "line order: one line per row");
  for (size_t i = 0; i < lines.size(); ++i) {
    double score = 0;
    int64_t row = -1;
    if (!Expected(lines[i], ids, &score, &row)) continue;
    const uint64_t r = ids ? static_cast<uint64_t>(row) : i;
    FUZZ_CHECK(r < o.rows, "line " + std::to_string(i + 1) + " names a row");
    FUZZ_CHECK(Same(scores[r], score),
               "row " + std::to_string(r) + " holds line " + std::to_string(i + 1) + "'s score");
  }
}

}  // namespace
}  // namespace dsanalyze

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dsanalyze;
  if (size == 0) return 0;
  const std::string path = fuzz::ScratchDir() + "/scores.jsonl";
  fuzz::WriteFileOrDie(path, data + 1, size - 1);
  JsonlScoreOptions o;
  o.field = "score";
  o.id_field = (data[0] & 1) != 0 ? "id" : "";
  o.rows = data[0] >> 1;
  Result<std::vector<double>> scores = ReadJsonlScores(path, o);
  if (scores.ok()) {
    CheckScores(*scores, std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), o);
  } else {
    const Status status = scores.status();
    const std::string& m = status.message();
    FUZZ_CHECK(status.code() == Status::Code::kBadInput, "bad bytes are bad input: " + m);
    FUZZ_CHECK(m.rfind(path + ": ", 0) == 0, "the error names the file: " + m);
    FUZZ_CHECK(m.find('\n') == std::string::npos, "the error is one line: " + m);
  }
  return 0;
}
