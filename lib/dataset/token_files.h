// Opening the MMapIndexedDataset files that token datasets (documents, packed,
// megatron_gpt) read, with errors that name the config key of the prefix, and
// the buffer their readers copy a batch's tokens into.
#pragma once

#include <cstddef>
#include <cstdint>
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

// Makes `copy` (a reader's buffer) hold at least `bytes`: the tokens of a
// batch of `samples` samples that do not lie side by side in one file. A
// growth past the memory budget is BadInput naming map.batch_size
// (config/memory_budget.h), before it is allocated.
Status GrowBatchCopy(std::vector<std::byte>& copy, uint64_t samples, uint64_t bytes);

}  // namespace dsanalyze
