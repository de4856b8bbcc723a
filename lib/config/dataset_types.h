// The dataset types: the one table that names them ("type" in a config's
// "dataset" section) and lists the keys each one takes.
//
// ParseConfig validates against it, ConfigToJson writes from it and
// OpenDataset (dataset/open_dataset.h) looks types up in it, so a name and the
// error for an unknown one are written only here. A new type is a row here
// and an enumerator; every switch over DatasetType (its parsing in config.cc,
// its opening in open_dataset.cc) must then handle it, which -Wswitch checks.
//
// Constant data and pure functions: thread-safe.
#pragma once

#include <span>
#include <string_view>

#include "util/status.h"

namespace dsanalyze {

enum class DatasetType { kSyntheticMod, kDocuments, kPacked, kMegatronGpt };

struct DatasetTypeInfo {
  DatasetType type;
  std::string_view name;                   // as written in the config
  std::span<const std::string_view> keys;  // its keys besides the common ones
};

// Keys every dataset type accepts ("type" among them).
std::span<const std::string_view> CommonDatasetKeys();

// Every type, in the order the unknown-type error lists them.
std::span<const DatasetTypeInfo> DatasetTypes();

// The type named `name`, or BadInput "config: dataset.type: unknown dataset
// type "x" (did you mean "y"?); known types: ...".
Result<const DatasetTypeInfo*> FindDatasetType(std::string_view name);

}  // namespace dsanalyze
