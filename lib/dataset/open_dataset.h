// OpenDataset: the Dataset a config's "dataset" section describes.
//
// Opening validates everything a later Read relies on (files exist, are
// well-formed and agree on one dtype; index maps are consistent with the data;
// the dataset is not empty), so readers need no error paths for bad input. The returned Dataset
// owns its files.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/config.h"
#include "dataset/dataset.h"
#include "util/status.h"

namespace dsanalyze {

Result<std::unique_ptr<Dataset>> OpenDataset(const DatasetConfig& config);

// Each type's opener, for OpenDataset (one overload per alternative of
// DatasetTypeConfig); `ignore` is the config's ignore_token_ids.
Result<std::unique_ptr<Dataset>> OpenType(const SyntheticModConfig& config,
                                          const std::vector<int64_t>& ignore);
Result<std::unique_ptr<Dataset>> OpenType(const DocumentsConfig& config,
                                          const std::vector<int64_t>& ignore);
Result<std::unique_ptr<Dataset>> OpenType(const PackedConfig& config,
                                          const std::vector<int64_t>& ignore);
Result<std::unique_ptr<Dataset>> OpenType(const MegatronGptConfig& config,
                                          const std::vector<int64_t>& ignore);
Result<std::unique_ptr<Dataset>> OpenType(const MegatronBlendConfig& config,
                                          const std::vector<int64_t>& ignore);
Result<std::unique_ptr<Dataset>> OpenType(const MegatronCoreConfig& config,
                                          const std::vector<int64_t>& ignore);

// `ids` sorted, without repeats: the form Dataset::ignore_token_ids returns.
std::vector<int64_t> SortedUnique(std::vector<int64_t> ids);

}  // namespace dsanalyze
