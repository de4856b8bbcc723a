#include "dataset/open_dataset.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace dsanalyze {

Result<std::unique_ptr<Dataset>> OpenDataset(const DatasetConfig& config) {
  if (config.type == "synthetic_mod") return OpenSyntheticMod(config);
  if (config.type == "documents") return OpenDocuments(config);
  if (config.type == "packed") return OpenPacked(config);
  if (config.type == "megatron_gpt") return OpenMegatronGpt(config);
  return Status::BadInput("config: dataset.type: unknown dataset type " +
                          nlohmann::json(config.type).dump() +
                          "; known types: synthetic_mod, documents, packed, megatron_gpt");
}

std::vector<int64_t> SortedUnique(std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace dsanalyze
