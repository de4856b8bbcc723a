// Typed reads of the fields of one JSON object, with errors that name the key
// path ("config: map.threads: expected a positive integer, got \"2\"").
//
// JsonFields is a view: it refers to the object it was made from, which must
// outlive it. Each getter leaves *out untouched when the key is absent, so the
// caller's default stands; Require() makes a key mandatory. Stateless apart
// from the view, so safe to use from several threads on a const object.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/closest_name.h"
#include "util/status.h"

namespace dsanalyze {

// Status::BadInput("config: <path>: <problem>"), or "config: <problem>" for the top level.
Status ConfigError(std::string_view path, std::string_view problem);

// A short rendering of a JSON value for messages: "2" for the string "2", 3.5, [1,2,...].
std::string ShortJson(const nlohmann::json& j);

class JsonFields {
 public:
  // Fails unless `j` is an object; `path` is its key path ("" for the top level).
  static Result<JsonFields> Of(const nlohmann::json& j, std::string path);

  const std::string& path() const { return path_; }
  // "<path>.<key>" (or "<key>" at the top level).
  std::string KeyPath(std::string_view key) const;
  bool has(std::string_view key) const { return object_->contains(key); }
  const nlohmann::json& at(std::string_view key) const { return object_->at(key); }

  // Refuses any key not in `known`, suggesting the closest known key (or the
  // key an alias stands for: util/closest_name.h).
  Status CheckKnown(std::span<const std::string_view> known,
                    std::span<const NameAlias> aliases = {}) const;
  Status Require(std::string_view key) const;

  // Integers must lie in [min, max]; integral floats (1e7) are accepted. Every
  // integer is read as int64, so Uint's max is at most INT64_MAX.
  Status Int(std::string_view key, int64_t min, int64_t max, int64_t* out) const;
  Status Uint(std::string_view key, uint64_t min, uint64_t max, uint64_t* out) const;
  // A non-empty string. A NUL character anywhere in it is refused, naming
  // the key: paths reach the system as C strings, cut at the first NUL.
  Status String(std::string_view key, std::string* out) const;
  Status Bool(std::string_view key, bool* out) const;
  // A finite JSON number greater than 0 (integer or float).
  Status PositiveNumber(std::string_view key, double* out) const;
  Status IntArray(std::string_view key, std::vector<int64_t>* out) const;
  // A non-empty array of non-empty strings, none holding a NUL (as String).
  Status StringArray(std::string_view key, std::vector<std::string>* out) const;

 private:
  JsonFields(const nlohmann::json* object, std::string path)
      : object_(object), path_(std::move(path)) {}

  const nlohmann::json* object_;
  std::string path_;
};

}  // namespace dsanalyze
