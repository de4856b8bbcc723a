// What `dsanalyze order --megatron-core-cache` needs of a megatron_core
// dataset's cache (megatron_core.cc says how its files are found).
#pragma once

#include <string>
#include <vector>

#include "config/dataset_types.h"
#include "util/status.h"

namespace dsanalyze {

struct CoreCacheFiles {
  // Every cache file Megatron-LM reads for the config: the analysed split's
  // descriptions and maps and, where found, the other splits' (a split whose
  // files are not found is left out: Megatron-LM builds it again).
  std::vector<std::string> files;
  std::vector<std::string> cache_dirs;  // the folders holding them
  // The analysed split's file to rewrite: its cached blend's dataset_index and
  // dataset_sample_index, or a lone GPTDataset's shuffle_index.
  std::vector<std::string> rewrite;
};

// BadInput as opening the dataset would give, or naming dataset.path_to_cache
// when the split's blend is not cached (its index cannot be rewritten).
Result<CoreCacheFiles> FindCoreCacheFiles(const MegatronCoreConfig& config);

}  // namespace dsanalyze
