#include "config/dataset_types.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/json_fields.h"
#include "util/closest_name.h"

namespace dsanalyze {
namespace {

constexpr std::array<std::string_view, 4> kCommonKeys = {"type", "ignore_token_ids",
                                                         "sample_indices", "sample_range"};
constexpr std::array<std::string_view, 3> kSyntheticModKeys = {"num_samples", "modulus", "offset"};
constexpr std::array<std::string_view, 2> kDocumentsKeys = {"prefixes", "dtype_codes"};
constexpr std::array<std::string_view, 3> kPackedKeys = {"prefixes", "dtype_codes", "seq_length"};
constexpr std::array<std::string_view, 8> kMegatronGptKeys = {
    "prefix",  "dtype_codes", "seq_length",  "index_prefix",
    "doc_idx", "sample_idx",  "shuffle_idx", "add_extra_token_to_sequence"};
constexpr std::array<std::string_view, 9> kMegatronBlendKeys = {"datasets",
                                                                "dtype_codes",
                                                                "seq_length",
                                                                "dataset_index",
                                                                "weights",
                                                                "size",
                                                                "dataset_sample_index",
                                                                "train_samples",
                                                                "add_extra_token_to_sequence"};
constexpr std::array<std::string_view, 7> kMegatronCoreKeys = {
    "path_to_cache", "split",       "data_path",       "add_extra_token_to_sequence",
    "num_samples",   "dtype_codes", "description_hash"};

template <class T>
DatasetTypeConfig Make() {
  return T{};
}

constexpr std::array<DatasetTypeInfo, 6> kTypes = {{
    {"synthetic_mod", kSyntheticModKeys, Make<SyntheticModConfig>},
    {"documents", kDocumentsKeys, Make<DocumentsConfig>},
    {"packed", kPackedKeys, Make<PackedConfig>},
    {"megatron_gpt", kMegatronGptKeys, Make<MegatronGptConfig>},
    {"megatron_blend", kMegatronBlendKeys, Make<MegatronBlendConfig>},
    {"megatron_core", kMegatronCoreKeys, Make<MegatronCoreConfig>},
}};
static_assert(kTypes.size() == std::variant_size_v<DatasetTypeConfig>,
              "one row per alternative of DatasetTypeConfig, in its order");

}  // namespace

std::span<const std::string_view> CommonDatasetKeys() { return kCommonKeys; }

std::span<const DatasetTypeInfo> DatasetTypes() { return kTypes; }

std::string_view DatasetTypeName(const DatasetTypeConfig& config) {
  return kTypes[config.index()].name;
}

std::span<const std::string_view> DatasetTypeKeys(const DatasetTypeConfig& config) {
  return kTypes[config.index()].keys;
}

std::string_view SampleCountKey(const MegatronBlendConfig& config) {
  if (config.weights.empty()) return "dataset.dataset_index";
  return config.size != 0 ? "dataset.size" : "dataset.train_samples";
}

std::string_view SampleCountKey(const DatasetTypeConfig& config) {
  struct Key {
    std::string_view operator()(const SyntheticModConfig&) const { return "dataset.num_samples"; }
    std::string_view operator()(const DocumentsConfig&) const { return "dataset.prefixes"; }
    std::string_view operator()(const PackedConfig&) const { return "dataset.prefixes"; }
    std::string_view operator()(const MegatronGptConfig& c) const {
      return c.index_prefix.empty() ? "dataset.shuffle_idx" : "dataset.index_prefix";
    }
    std::string_view operator()(const MegatronBlendConfig& c) const { return SampleCountKey(c); }
    std::string_view operator()(const MegatronCoreConfig& c) const {
      return c.num_samples != 0 ? "dataset.num_samples" : "dataset.path_to_cache";
    }
  };
  return std::visit(Key{}, config);
}

Result<const DatasetTypeInfo*> FindDatasetType(std::string_view name) {
  std::vector<std::string_view> names;
  for (const DatasetTypeInfo& t : kTypes) {
    if (t.name == name) return &t;
    names.push_back(t.name);
  }
  std::string known;
  for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
  return ConfigError("dataset.type", "unknown dataset type " +
                                         nlohmann::json(std::string(name)).dump() +
                                         DidYouMean(name, names) + "; known types: " + known);
}

}  // namespace dsanalyze
