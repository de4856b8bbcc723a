#include "curriculum/ds_json.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "util/file_util.h"

namespace dsanalyze {
namespace {

using nlohmann::ordered_json;
using std::to_string;

struct Place {
  size_t line = 1;
  size_t column = 1;  // in characters: UTF-8 continuation bytes are not counted
};

Place PlaceOf(std::string_view text, size_t offset) {
  Place p;
  for (char c : text.substr(0, std::min(offset, text.size()))) {
    if (c == '\n')
      p = {p.line + 1, 1};
    else
      p.column += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }
  return p;
}

// "FILE: line L, column C: " for byte `offset` of `text`.
std::string PlaceText(const std::string& file, std::string_view text, size_t offset) {
  const Place p = PlaceOf(text, offset);
  return file + ": line " + to_string(p.line) + ", column " + to_string(p.column) + ": ";
}

// The text with its hjson comments made spaces (newlines kept, so every
// offset, line and column stays), and the offset of each object key (a
// string whose next non-blank character is ':'), in file order.
struct Uncommented {
  std::string text;
  std::vector<size_t> keys;
  std::optional<size_t> open_comment;  // where a `/*` that never closes starts
};

// Blanks text[from, to) but its newlines.
void Blank(std::string& text, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (text[i] != '\n') text[i] = ' ';
}

Uncommented BlankComments(std::string text) {
  Uncommented u;
  std::vector<size_t> string_starts, string_ends;
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const std::string_view rest = std::string_view(text).substr(i);
    if (text[i] == '"') {
      string_starts.push_back(i++);
      for (; i < n && text[i] != '"'; ++i) i += text[i] == '\\';
      string_ends.push_back(++i);
    } else if (rest.starts_with('#') || rest.starts_with("//")) {
      const size_t end = std::min(text.find('\n', i), n);
      Blank(text, i, end);
      i = end;
    } else if (rest.starts_with("/*")) {
      const size_t close = text.find("*/", i + 2);
      if (close == std::string::npos) {
        u.open_comment = i;
        break;
      }
      Blank(text, i, close + 2);
      i = close + 2;
    } else {
      ++i;
    }
  }
  for (size_t s = 0; s < string_starts.size(); ++s) {
    const size_t next = text.find_first_not_of(" \t\r\n", string_ends[s]);
    if (next != std::string::npos && text[next] == ':') u.keys.push_back(string_starts[s]);
  }
  u.text = std::move(text);
  return u;
}

// The first key given twice in one object, found while parsing: the parse
// callback sees each key in file order, the n-th being Uncommented::keys[n].
struct Duplicates {
  std::vector<std::map<std::string, size_t>> open;  // per open object: key -> its number
  size_t keys = 0;
  std::optional<std::pair<size_t, size_t>> first;  // the earlier and the repeated key's number
  std::string name;

  bool See(ordered_json::parse_event_t event, const ordered_json& parsed) {
    using Event = ordered_json::parse_event_t;
    if (event == Event::object_start) open.emplace_back();
    if (event == Event::object_end && !open.empty()) open.pop_back();
    if (event != Event::key || open.empty()) return true;
    const std::string key = parsed.get<std::string>();
    const auto [at, added] = open.back().emplace(key, keys);
    if (!added && !first) first = std::pair{at->second, keys}, name = key;
    ++keys;
    return true;
  }
};

// Where a parse error points: nlohmann's byte is the last character read,
// which for a string is its closing quote; the string's opening quote reads
// better ("unexpected string literal": a comma missing before a key).
size_t ErrorOffset(std::string_view text, size_t byte) {
  size_t at = byte == 0 ? 0 : byte - 1;
  if (at >= text.size() || text[at] != '"' || at == 0) return at;
  for (size_t i = at; i-- > 0;)
    if (text[i] == '"' && (i == 0 || text[i - 1] != '\\')) return i;
  return at;
}

Status NotJson(const std::string& path, const Uncommented& u, size_t byte) {
  const size_t at = ErrorOffset(u.text, byte);
  if (at >= u.text.size())
    return Status::BadInput(PlaceText(path, u.text, at) +
                            "the file ends inside a value (an unclosed {, [ or string)");
  const size_t line_end = std::min(u.text.find('\n', at), at + 20);
  return Status::BadInput(PlaceText(path, u.text, at) + "at \"" + u.text.substr(at, line_end - at) +
                          "\": hjson syntax dsanalyze does not read (it reads JSON with //, # "
                          "and /* */ comments: quote keys and strings, and put commas between "
                          "entries, none after the last)");
}

// nlohmann's out_of_range for a number past a double ("number overflow
// parsing '1e999'"), at the number.
Status TooLarge(const std::string& path, const Uncommented& u, const std::string& what) {
  const size_t open = what.find('\''), close = what.rfind('\'');
  const std::string number =
      open < close ? what.substr(open + 1, close - open - 1) : std::string("a number");
  return Status::BadInput(PlaceText(path, u.text, std::min(u.text.find(number), u.text.size())) +
                          number + " is past the range of a double");
}

Result<ordered_json> ParseConfigText(const std::string& path, const std::string& text) {
  const Uncommented u = BlankComments(text);
  if (u.open_comment)
    return Status::BadInput(PlaceText(path, text, *u.open_comment) +
                            "a /* comment that is never closed with */");
  Duplicates dups;
  ordered_json doc;
  std::optional<Status> stopped;
  try {
    doc = ordered_json::parse(
        u.text, [&dups](int, ordered_json::parse_event_t event, ordered_json& parsed) {
          return dups.See(event, parsed);
        });
  } catch (const ordered_json::parse_error& e) {
    stopped = NotJson(path, u, e.byte);
  } catch (const ordered_json::out_of_range& e) {
    stopped = TooLarge(path, u, e.what());
  }
  // A duplicate found before a later syntax error is the earlier problem.
  if (dups.first && dups.first->second < u.keys.size())
    return Status::BadInput(
        path + ": line " + to_string(PlaceOf(text, u.keys[dups.first->second]).line) +
        ": duplicate key " + ordered_json(dups.name).dump() + " (first at line " +
        to_string(PlaceOf(text, u.keys[dups.first->first]).line) +
        "): DeepSpeed refuses a config with duplicate keys");
  if (stopped) return *stopped;
  return doc;
}

}  // namespace

Result<ordered_json> ReadDeepSpeedJson(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Status::BadInput(path + ": is a directory, not a DeepSpeed config");
  // Not a regular file (a FIFO, a device) is refused before it is opened
  // (util/file_util.h).
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status().WithPrefix("the DeepSpeed config");
  return ParseConfigText(path, *text);
}

}  // namespace dsanalyze
