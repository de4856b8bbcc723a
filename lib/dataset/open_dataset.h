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

// The types, for OpenDataset (config.type must match).
Result<std::unique_ptr<Dataset>> OpenSyntheticMod(const DatasetConfig& config);
Result<std::unique_ptr<Dataset>> OpenDocuments(const DatasetConfig& config);
Result<std::unique_ptr<Dataset>> OpenPacked(const DatasetConfig& config);
Result<std::unique_ptr<Dataset>> OpenMegatronGpt(const DatasetConfig& config);

// `ids` sorted, without repeats: the form Dataset::ignore_token_ids returns.
std::vector<int64_t> SortedUnique(std::vector<int64_t> ids);

}  // namespace dsanalyze
