// Opening the MMapIndexedDataset files that token datasets (documents, packed,
// megatron_gpt) read, with errors that name the config key of the prefix.
#pragma once

#include <string>
#include <vector>

#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "util/status.h"

namespace dsanalyze {

// Opens PREFIX.idx/.bin with `table`, integer dtypes only. Errors start with
// "<key>: " and hint at a prefix given with its .idx/.bin suffix.
Result<IndexedDataset> OpenTokenFile(const std::string& prefix, CodeTable table,
                                     const std::string& key);

// Opens every prefix of dataset.prefixes (errors name "dataset.prefixes[i]")
// and checks that they share one dtype.
Result<std::vector<IndexedDataset>> OpenTokenFiles(const std::vector<std::string>& prefixes,
                                                   CodeTable table);

}  // namespace dsanalyze
