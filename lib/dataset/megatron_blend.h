// The opener of a blend of megatron_gpt datasets, shared by megatron_blend
// (components and index from the config) and megatron_core (both found in
// Megatron-Core's cache). megatron_blend.cc says what the blend's samples and
// documents are and what Open checks before any sample is read.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/dataset_types.h"
#include "dataset/blend_index.h"
#include "dataset/dataset.h"

namespace dsanalyze {

// What made the blend, for messages and DescribeJson.
struct BlendSource {
  std::string type = "megatron_blend";  // "type" in DescribeJson and Describe
  // Config keys in messages: one per component, the cached index files', and
  // (for a computed index) the key whose value made its size.
  std::vector<std::string> component_keys;
  std::string dataset_index_key = "dataset.dataset_index";
  std::string sample_index_key = "dataset.dataset_sample_index";
  std::string size_key;
  std::vector<double> weights;                         // the blending weights of a computed index
  uint64_t train_samples = 0;                          // megatron_blend: N derived from it
  nlohmann::json describe = nlohmann::json::object();  // more keys for DescribeJson
};

// Opens `components` (their messages name source.component_keys), then makes
// the index with `make_index` (which may fill `source`), checks it against the
// components and returns the blend.
Result<std::unique_ptr<Dataset>> OpenMegatronBlend(
    const std::vector<MegatronGptConfig>& components, BlendSource source,
    const std::function<Result<BlendIndex>(const std::vector<uint64_t>& sizes, BlendSource*)>&
        make_index,
    const std::vector<int64_t>& ignore);

}  // namespace dsanalyze
