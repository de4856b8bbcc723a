#include "dataset/open_dataset.h"

#include <algorithm>

#include "config/dataset_types.h"

namespace dsanalyze {

Result<std::unique_ptr<Dataset>> OpenDataset(const DatasetConfig& config) {
  DSA_ASSIGN_OR_RETURN(const DatasetTypeInfo* type, FindDatasetType(config.type));
  switch (type->type) {
    case DatasetType::kSyntheticMod:
      return OpenSyntheticMod(config);
    case DatasetType::kDocuments:
      return OpenDocuments(config);
    case DatasetType::kPacked:
      return OpenPacked(config);
    case DatasetType::kMegatronGpt:
      return OpenMegatronGpt(config);
  }
  return Status::Internal("dataset type " + config.type + " has no opener");
}

std::vector<int64_t> SortedUnique(std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace dsanalyze
