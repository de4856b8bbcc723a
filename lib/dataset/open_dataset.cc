#include "dataset/open_dataset.h"

#include <algorithm>
#include <variant>

namespace dsanalyze {

Result<std::unique_ptr<Dataset>> OpenDataset(const DatasetConfig& config) {
  return std::visit([&](const auto& t) { return OpenType(t, config.ignore_token_ids); },
                    config.type);
}

std::vector<int64_t> SortedUnique(std::vector<int64_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace dsanalyze
