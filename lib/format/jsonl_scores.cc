// ReadJsonlScores: simdjson over chunks of about 1 MiB of whole lines.
//
// Fast path: a chunk is copied into a padded buffer and parsed as a stream of
// documents (simdjson's parse_many, one batch, no worker thread). It is taken
// only if every document is an object lying inside its own line and every
// line holds one; the values are then committed in line order. Anything else
// (invalid JSON, a non-finite token, a blank line, two objects on a line, an
// object across lines, a missing field) sends the chunk to the slow path,
// which parses it line by line and reports the first problem with its line.
// The slow path also accepts Python's bare NaN / Infinity / -Infinity: a line
// that does not parse is parsed again with those tokens (outside strings)
// replaced by marker strings, which only that second parse reads as numbers.
#include "format/jsonl_scores.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <string_view>

#include "util/file_util.h"

namespace dsanalyze {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

// One line's values: the score and, with an id field, the row it is for.
struct LineValue {
  double score = 0;
  uint64_t row = 0;
};

// The non-finite tokens Python writes, and the strings that stand for them in
// a line's second parse.
struct NonFinite {
  std::string_view token;
  std::string_view marker;  // as JSON text
  std::string_view marker_value;
  double value;
};
constexpr NonFinite kNonFinite[] = {
    {"-Infinity", "\"\\u0000dsanalyze:-Infinity\"", std::string_view("\0dsanalyze:-Infinity", 20),
     -std::numeric_limits<double>::infinity()},
    {"Infinity", "\"\\u0000dsanalyze:Infinity\"", std::string_view("\0dsanalyze:Infinity", 19),
     std::numeric_limits<double>::infinity()},
    {"NaN", "\"\\u0000dsanalyze:NaN\"", std::string_view("\0dsanalyze:NaN", 14),
     std::numeric_limits<double>::quiet_NaN()},
};

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' ||
         c == '-';
}

// Copies `line` to `out` with each bare NaN / Infinity / -Infinity token
// outside strings replaced by its marker; false if there was none.
bool ReplaceNonFinite(std::string_view line, std::string* out) {
  out->clear();
  bool replaced = false, in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      out->push_back(c);
      if (c == '\\' && i + 1 < line.size()) out->push_back(line[++i]);
      in_string = c != '"';
      continue;
    }
    in_string = c == '"';
    const NonFinite* hit = nullptr;
    for (const NonFinite& n : kNonFinite)
      if (line.substr(i, n.token.size()) == n.token && (i == 0 || !IsWordChar(line[i - 1])) &&
          (i + n.token.size() == line.size() || !IsWordChar(line[i + n.token.size()]))) {
        hit = &n;
        break;
      }
    if (hit == nullptr) {
      out->push_back(c);
      continue;
    }
    out->append(hit->marker);
    i += hit->token.size() - 1;
    replaced = true;
  }
  return replaced;
}

// "field "KEY" PROBLEM (NOTE)": a problem with a line's key, and where the
// key was chosen.
Status KeyError(const std::string& key, const std::string& note, const std::string& problem) {
  return Status::BadInput("field \"" + key + "\" " + problem +
                          (note.empty() ? "" : " (" + note + ")"));
}

// The score in `value`: a number, or (in a line parsed with markers) a marker.
Result<double> ScoreOf(simdjson::dom::element value, const std::string& field,
                       const std::string& note, bool markers) {
  switch (value.type()) {
    case simdjson::dom::element_type::DOUBLE:
      return value.get_double().value_unsafe();
    case simdjson::dom::element_type::INT64:
      return static_cast<double>(value.get_int64().value_unsafe());
    case simdjson::dom::element_type::UINT64:
      return static_cast<double>(value.get_uint64().value_unsafe());
    case simdjson::dom::element_type::STRING:
      if (markers)
        for (const NonFinite& n : kNonFinite)
          if (value.get_string().value_unsafe() == n.marker_value) return n.value;
      break;
    default:
      break;
  }
  return KeyError(field, note, "is not a number");
}

// "id ID is outside [0, rows)", for an id that is not a row.
Status NotARow(const std::string& id, bool past_end, uint64_t rows) {
  return Status::BadInput("id " + id + " is outside [0, " + std::to_string(rows) + ")" +
                          (past_end ? ": row past the end" : ""));
}

// The row named by the id in `value`, which must lie in [0, rows).
Result<uint64_t> RowOf(simdjson::dom::element value, const JsonlScoreOptions& o,
                       const std::string& note) {
  switch (value.type()) {
    case simdjson::dom::element_type::INT64: {
      const int64_t id = value.get_int64().value_unsafe();
      if (id >= 0 && static_cast<uint64_t>(id) < o.rows) return static_cast<uint64_t>(id);
      return NotARow(std::to_string(id), id >= 0, o.rows);
    }
    case simdjson::dom::element_type::UINT64:
      return NotARow(std::to_string(value.get_uint64().value_unsafe()), true, o.rows);
    default:
      return KeyError(o.id_field, note, "is not an integer");
  }
}

// The values of one line's document, or the problem (without file and line).
Result<LineValue> Extract(simdjson::dom::element doc, const JsonlScoreOptions& o,
                          const JsonlKeyNotes& notes, bool markers) {
  simdjson::dom::object object;
  if (doc.get_object().get(object)) return Status::BadInput("expected a JSON object");
  simdjson::dom::element value;
  if (object.at_key(o.field).get(value)) return KeyError(o.field, notes.field, "is missing");
  LineValue v;
  DSA_ASSIGN_OR_RETURN(v.score, ScoreOf(value, o.field, notes.field, markers));
  if (o.id_field.empty()) return v;
  if (object.at_key(o.id_field).get(value))
    return KeyError(o.id_field, notes.id_field, "is missing");
  DSA_ASSIGN_OR_RETURN(v.row, RowOf(value, o, notes.id_field));
  return v;
}

// "1 line (one per row)", "3 lines (one per row)".
std::string Lines(uint64_t rows) {
  return std::to_string(rows) + (rows == 1 ? " line" : " lines") + " (one per row)";
}

// Places each line's score in its row and checks that every row gets one.
class ScoreSink {
 public:
  ScoreSink(const std::string& path, const JsonlScoreOptions& o)
      : path_(path), o_(o), scores_(o.rows, 0.0) {
    if (!o.id_field.empty()) line_of_.assign(o.rows, 0);
  }

  // "PATH: line N: what".
  Status Error(uint64_t line, const std::string& what) const {
    return Status::BadInput(path_ + ": line " + std::to_string(line) + ": " + what);
  }

  // Line `line` (1-based) holds `v`.
  Status Add(uint64_t line, const LineValue& v) {
    if (o_.id_field.empty()) {
      if (line > o_.rows)
        return Error(line, "expected " + Lines(o_.rows) + ", but the file has more");
      scores_[line - 1] = v.score;
      return Status::OK();
    }
    if (line_of_[v.row] != 0)
      return Error(line, "id " + std::to_string(v.row) + " appears twice, on lines " +
                             std::to_string(line_of_[v.row]) + " and " + std::to_string(line));
    line_of_[v.row] = line;
    scores_[v.row] = v.score;
    return Status::OK();
  }

  // After the last of `lines` lines: the scores, once every row has one.
  Result<std::vector<double>> Finish(uint64_t lines) {
    if (o_.id_field.empty() && lines < o_.rows)
      return Error(lines + 1, "expected " + Lines(o_.rows) + ", but the file ends after " +
                                  std::to_string(lines));
    const auto missing = std::find(line_of_.begin(), line_of_.end(), 0);
    if (missing != line_of_.end()) {
      const std::string row = std::to_string(missing - line_of_.begin());
      return Status::BadInput(path_ + ": no line has id " + row + ", so row " + row + " of [0, " +
                              std::to_string(o_.rows) + ") has no score (the first such row)");
    }
    return std::move(scores_);
  }

 private:
  const std::string& path_;
  const JsonlScoreOptions& o_;
  std::vector<double> scores_;
  std::vector<uint64_t> line_of_;  // with an id field: the line that gave row r its score, or 0
};

// Walks the file a chunk at a time, feeding the sink.
class JsonlReader {
 public:
  JsonlReader(std::string_view text, const JsonlScoreOptions& o, const JsonlKeyNotes& notes,
              ScoreSink* sink)
      : text_(text), o_(o), notes_(notes), sink_(sink) {
    parser_.threaded = false;  // one core: the caller owns the parallelism
  }

  // Feeds every line to the sink; returns the number of lines.
  Result<uint64_t> Run() {
    for (size_t begin = 0; begin < text_.size();) {
      const size_t end = ChunkEnd(begin);
      if (FastChunk(text_.substr(begin, end - begin))) {
        for (const LineValue& v : values_) DSA_RETURN_IF_ERROR(sink_->Add(++lines_, v));
      } else {
        DSA_RETURN_IF_ERROR(SlowChunk(text_.substr(begin, end - begin)));
      }
      begin = end;
    }
    return lines_;
  }

 private:
  // The end of the chunk starting at `begin`: just past the last newline
  // within kChunkBytes (or past the first one after, for a longer line).
  size_t ChunkEnd(size_t begin) const {
    if (text_.size() - begin <= kChunkBytes) return text_.size();
    const size_t last = text_.rfind('\n', begin + kChunkBytes - 1);
    if (last != std::string_view::npos && last >= begin) return last + 1;
    const size_t next = text_.find('\n', begin + kChunkBytes);
    return next == std::string_view::npos ? text_.size() : next + 1;
  }

  bool FastChunk(std::string_view chunk);
  Status SlowChunk(std::string_view chunk);
  Status SlowLine(std::string_view line);

  std::string_view text_;
  const JsonlScoreOptions& o_;
  const JsonlKeyNotes& notes_;
  ScoreSink* sink_;
  uint64_t lines_ = 0;  // lines fed to the sink so far
  simdjson::dom::parser parser_;
  std::vector<char> buffer_;       // the chunk, padded for simdjson
  std::vector<LineValue> values_;  // the fast path's values for the chunk
  std::string replaced_;           // a line with its non-finite tokens replaced
};

// Parses `chunk` as a document stream; true (with values_ filled) only if every
// line holds exactly one object, inside the line, with the fields needed.
bool JsonlReader::FastChunk(std::string_view chunk) {
  values_.clear();
  buffer_.resize(chunk.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(buffer_.data(), chunk.data(), chunk.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(buffer_.data());
  simdjson::dom::document_stream stream;
  if (parser_.parse_many(bytes, chunk.size(), std::max(chunk.size(), kChunkBytes)).get(stream))
    return false;
  size_t line_begin = 0;
  for (auto it = stream.begin(); it != stream.end(); ++it) {
    simdjson::dom::element doc;
    if ((*it).get(doc) || line_begin >= chunk.size()) return false;
    const size_t newline = chunk.find('\n', line_begin);
    const size_t line_end = newline == std::string_view::npos ? chunk.size() : newline;
    const size_t start = it.current_index();
    if (start < line_begin || chunk[start] != '{' || start + it.source().size() > line_end)
      return false;
    Result<LineValue> v = Extract(doc, o_, notes_, false);
    if (!v.ok()) return false;
    values_.push_back(*v);
    line_begin = line_end + 1;
  }
  return line_begin >= chunk.size();
}

Status JsonlReader::SlowChunk(std::string_view chunk) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    const size_t line_end = newline == std::string_view::npos ? chunk.size() : newline;
    DSA_RETURN_IF_ERROR(SlowLine(chunk.substr(0, line_end)));
    chunk.remove_prefix(std::min(chunk.size(), line_end + 1));
  }
  return Status::OK();
}

// One line (without its newline), its problems named with its line number.
Status JsonlReader::SlowLine(std::string_view line) {
  const uint64_t number = ++lines_;
  if (line.find_first_not_of(" \t\r") == std::string_view::npos)
    return sink_->Error(number, "blank line (each line must hold one JSON object)");
  simdjson::dom::element doc;
  simdjson::error_code error = parser_.parse(line.data(), line.size()).get(doc);
  const bool markers = error && ReplaceNonFinite(line, &replaced_);
  if (markers) error = parser_.parse(replaced_).get(doc);
  if (error)
    return sink_->Error(number, "invalid JSON: " + std::string(simdjson::error_message(error)));
  Result<LineValue> v = Extract(doc, o_, notes_, markers);
  if (!v.ok()) return sink_->Error(number, v.status().message());
  return sink_->Add(number, *v);
}

}  // namespace

Result<std::vector<double>> ReadJsonlScores(const std::string& path,
                                            const JsonlScoreOptions& options,
                                            const JsonlKeyNotes& notes) {
  DSA_ASSIGN_OR_RETURN(const MappedFile file, MappedFile::Open(path));
  const std::string_view text(reinterpret_cast<const char*>(file.bytes().data()),
                              file.bytes().size());
  ScoreSink sink(path, options);
  JsonlReader reader(text, options, notes, &sink);
  DSA_ASSIGN_OR_RETURN(const uint64_t lines, reader.Run());
  return sink.Finish(lines);
}

}  // namespace dsanalyze
