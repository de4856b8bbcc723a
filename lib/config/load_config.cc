// LoadConfig: the file half of config.h (reading, JSON syntax and duplicate keys).
#include <set>
#include <vector>

#include "config/config.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace {

using nlohmann::json;

// "3:7" for the 1-based line and column of byte `offset` (0-based) in `text`.
std::string LineColumn(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

// nlohmann's message without its "[json.exception...] parse error at line L,
// column C: " preamble, since we print our own position.
std::string SyntaxProblem(const std::string& what) {
  const size_t column = what.find("column ");
  const size_t colon = column == std::string::npos ? column : what.find(": ", column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

Result<Config> LoadConfig(const std::string& path) {
  // A directory, a FIFO or a device is refused before it is read
  // (util/file_util.h InputFile).
  Result<std::string> read = ReadTextFile(path);
  if (!read.ok()) return read.status().WithPrefix("the config file");
  const std::string text = std::move(read).value();

  // One set of keys per open object, to catch a key given twice (which a JSON
  // parser otherwise resolves silently to the last value).
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate;
  const json::parser_callback_t on_event = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      open_objects.pop_back();
    } else if (event == json::parse_event_t::key && duplicate.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second) duplicate = key;
    }
    return true;
  };

  json j;
  try {
    j = json::parse(text, on_event);
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based offset just past the offending character.
    const size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    return Status::BadInput(path + ":" + LineColumn(text, offset) +
                            ": invalid JSON: " + SyntaxProblem(e.what()));
  } catch (const json::out_of_range& e) {
    // A number too large for a double ("1e400"), which nlohmann reports
    // without a position: "[json.exception.out_of_range.406] number overflow ...".
    const std::string what = e.what();
    const size_t id_end = what.find("] ");
    return Status::BadInput(
        path + ": invalid JSON: " + (id_end == std::string::npos ? what : what.substr(id_end + 2)));
  }
  if (!duplicate.empty())
    return Status::BadInput(path + ": key " + json(duplicate).dump() +
                            " appears twice in one object; give each key once");
  return ParseConfig(j);
}

}  // namespace dsanalyze
