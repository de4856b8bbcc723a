#include "config/json_fields.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/closest_name.h"

namespace dsanalyze {
namespace {

using nlohmann::json;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string KindOfInteger(int64_t min) {
  if (min == 1) return "a positive integer";
  if (min == 0) return "a non-negative integer";
  return "an integer";
}

// The value of `j` if it is an integral number in [min, max]; errors name `path`.
Result<int64_t> JsonToInt(const json& j, std::string_view path, int64_t min, int64_t max) {
  const std::string expected = "expected " + KindOfInteger(min) + ", got " + ShortJson(j);
  int64_t v;
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(kInt64Max))
      return ConfigError(path, "must be at most " + std::to_string(max) + ", got " + ShortJson(j));
    v = static_cast<int64_t>(u);
  } else if (j.is_number_integer()) {
    v = j.get<int64_t>();
  } else if (j.is_number_float()) {
    // 1e7 parses as a float; accept it when it is exactly an int64.
    const double d = j.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) return ConfigError(path, expected);
    if (d < -9.2233720368547758e18 || d >= 9.2233720368547758e18)
      return ConfigError(path, "is out of the 64-bit integer range, got " + ShortJson(j));
    v = static_cast<int64_t>(d);
  } else {
    return ConfigError(path, expected);
  }
  if (v < min && min <= 1) return ConfigError(path, expected);
  if (v < min || v > max) {
    const std::string got = ", got " + std::to_string(v);
    if (max == kInt64Max) return ConfigError(path, "must be at least " + std::to_string(min) + got);
    return ConfigError(
        path, "must be between " + std::to_string(min) + " and " + std::to_string(max) + got);
  }
  return v;
}

// A non-empty string without a NUL character, else an error naming `path`.
// Paths and names reach the system as C strings, which end at the first NUL
// ("o\u0000/../../x" would name "o"), and no setting needs one: a NUL anywhere
// is refused, whether or not the string names a file.
Result<std::string> NonEmptyString(const json& j, const std::string& path) {
  if (!j.is_string() || j.get_ref<const std::string&>().empty())
    return ConfigError(path, "expected a non-empty string, got " + ShortJson(j));
  const std::string& s = j.get_ref<const std::string&>();
  if (const size_t nul = s.find('\0'); nul != std::string::npos)
    return ConfigError(path, ShortJson(j) + " holds a NUL character (\\u0000) at byte " +
                                 std::to_string(nul) + "; no path or name can hold one");
  return s;
}

}  // namespace

Status ConfigError(std::string_view path, std::string_view problem) {
  std::string msg = "config: ";
  if (!path.empty()) msg.append(path).append(": ");
  msg.append(problem);
  return Status::BadInput(std::move(msg));
}

std::string ShortJson(const json& j) {
  constexpr size_t kMax = 40;
  std::string s = j.dump();
  if (s.size() > kMax) s = s.substr(0, kMax - 3) + "...";
  return s;
}

Result<JsonFields> JsonFields::Of(const json& j, std::string path) {
  if (!j.is_object()) return ConfigError(path, "expected a JSON object {...}, got " + ShortJson(j));
  return JsonFields(&j, std::move(path));
}

std::string JsonFields::KeyPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Status JsonFields::CheckKnown(std::span<const std::string_view> known,
                              std::span<const NameAlias> aliases) const {
  for (const auto& [key, value] : object_->items()) {
    if (std::find(known.begin(), known.end(), key) == known.end())
      return ConfigError(path_,
                         "unknown key " + json(key).dump() + DidYouMean(key, known, aliases));
  }
  return Status::OK();
}

Status JsonFields::Require(std::string_view key) const {
  if (has(key)) return Status::OK();
  return ConfigError(KeyPath(key), "required key is missing");
}

Status JsonFields::Int(std::string_view key, int64_t min, int64_t max, int64_t* out) const {
  if (!has(key)) return Status::OK();
  DSA_ASSIGN_OR_RETURN(*out, JsonToInt(at(key), KeyPath(key), min, max));
  return Status::OK();
}

Status JsonFields::Uint(std::string_view key, uint64_t min, uint64_t max, uint64_t* out) const {
  if (!has(key)) return Status::OK();
  const auto clamp = [](uint64_t v) {
    return static_cast<int64_t>(std::min(v, static_cast<uint64_t>(kInt64Max)));
  };
  DSA_ASSIGN_OR_RETURN(int64_t v, JsonToInt(at(key), KeyPath(key), clamp(min), clamp(max)));
  *out = static_cast<uint64_t>(v);
  return Status::OK();
}

Status JsonFields::String(std::string_view key, std::string* out) const {
  if (!has(key)) return Status::OK();
  DSA_ASSIGN_OR_RETURN(*out, NonEmptyString(at(key), KeyPath(key)));
  return Status::OK();
}

Status JsonFields::Bool(std::string_view key, bool* out) const {
  if (!has(key)) return Status::OK();
  const json& j = at(key);
  if (!j.is_boolean())
    return ConfigError(KeyPath(key), "expected true or false, got " + ShortJson(j));
  *out = j.get<bool>();
  return Status::OK();
}

Status JsonFields::PositiveNumber(std::string_view key, double* out) const {
  if (!has(key)) return Status::OK();
  const json& j = at(key);
  const double v = j.is_number() ? j.get<double>() : 0;
  if (!j.is_number() || !(v > 0) || !std::isfinite(v))
    return ConfigError(KeyPath(key), "expected a number greater than 0, got " + ShortJson(j));
  *out = v;
  return Status::OK();
}

Status JsonFields::IntArray(std::string_view key, std::vector<int64_t>* out) const {
  if (!has(key)) return Status::OK();
  const json& j = at(key);
  if (!j.is_array())
    return ConfigError(KeyPath(key), "expected an array of integers, got " + ShortJson(j));
  std::vector<int64_t> values;
  values.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string path = KeyPath(key) + "[" + std::to_string(i) + "]";
    DSA_ASSIGN_OR_RETURN(int64_t v,
                         JsonToInt(j[i], path, std::numeric_limits<int64_t>::min(), kInt64Max));
    values.push_back(v);
  }
  *out = std::move(values);
  return Status::OK();
}

Status JsonFields::StringArray(std::string_view key, std::vector<std::string>* out) const {
  if (!has(key)) return Status::OK();
  const json& j = at(key);
  if (!j.is_array() || j.empty())
    return ConfigError(KeyPath(key), "expected a non-empty array of strings, got " + ShortJson(j));
  std::vector<std::string> values;
  values.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    DSA_ASSIGN_OR_RETURN(std::string value,
                         NonEmptyString(j[i], KeyPath(key) + "[" + std::to_string(i) + "]"));
    values.push_back(std::move(value));
  }
  *out = std::move(values);
  return Status::OK();
}

}  // namespace dsanalyze
