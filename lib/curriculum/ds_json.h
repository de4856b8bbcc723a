// A DeepSpeed config file read as DeepSpeed reads it, as far as dsanalyze
// goes: DeepSpeedConfig loads the file with hjson.load(...,
// object_pairs_hook=dict_raise_error_on_duplicate_keys) (deepspeed/runtime/
// config.py, config_utils.py), so it takes hjson comments and refuses a key
// given twice in one object, anywhere in the file.
//
// Read: JSON with hjson's three comments, `// ...` and `# ...` to the end of
// the line and `/* ... */` (outside strings; the text is otherwise JSON, so
// a key or value means what it means in JSON). Refused, each with one
// BadInput line naming the file:
//   - a key given twice in one object, as DeepSpeed refuses it:
//       "FILE: line 9: duplicate key \"max_tokens\" (first at line 7): ..."
//   - the rest of hjson (quoteless keys and strings, omitted or trailing
//     commas, ''' strings, no braces around the top level) and anything
//     else that is not JSON, at the line and column (in characters) where
//     reading stopped:
//       "FILE: line 3, column 17: hjson syntax dsanalyze does not read ..."
//   - a `/*` comment never closed, at its line and column;
//   - a folder or an unreadable file.
// The value keeps the file's key order. Pure apart from reading the file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "util/status.h"

namespace dsanalyze {

Result<nlohmann::ordered_json> ReadDeepSpeedJson(const std::string& path);

}  // namespace dsanalyze
