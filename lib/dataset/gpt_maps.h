// Megatron-style GPT index maps, the inputs of the megatron_gpt dataset type
// (format.md §3), built the way Megatron-LM builds them
// (megatron/core/datasets/gpt_dataset.py and helpers.cpp build_sample_idx):
//   doc_idx     every row once per epoch, all epochs shuffled together;
//   sample_idx  (doc_idx position, offset) of each sample's first token, the
//               next sample starting at the previous one's last token, so each
//               sample has seq_length + 1 tokens; N = (epochs·T - 1) / seq_length;
//   shuffle_idx a random permutation of 0..N-1.
// The random stream is splitmix64, not numpy's, so the maps are Megatron's in
// shape and meaning but not in their exact permutation. `dsanalyze generate
// --gpt-maps` writes them for its synthetic data; the tests build theirs here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/indexed_dataset.h"
#include "util/splitmix64.h"
#include "util/status.h"

namespace dsanalyze {

struct GptMaps {
  std::vector<int32_t> doc_idx;
  std::vector<int32_t> sample_idx;  // (N + 1) x 2, row-major
  std::vector<uint32_t> shuffle_idx;
  uint64_t num_samples() const { return shuffle_idx.size(); }
};

// `sizes` are the rows' token counts. Requires seq_length >= 1, epochs >= 1,
// epochs·sum(sizes) > seq_length, epochs·rows < 2^31 and N < 2^32 (what
// CheckGptMapInputs checks).
GptMaps BuildGptMaps(const std::vector<int32_t>& sizes, int32_t seq_length, int epochs,
                     uint64_t seed);

// What the maps are built from: the dataset's rows and tokens, and the
// sequence length and epochs asked for.
struct GptMapInputs {
  uint64_t rows = 0;
  uint64_t tokens = 0;
  uint64_t seq_length = 0;
  uint64_t epochs = 0;
};

// BadInput, starting with `what`, unless BuildGptMaps accepts these inputs.
Status CheckGptMapInputs(const GptMapInputs& inputs, const std::string& what);

// Builds the maps of `dataset` and writes INDEX_PREFIX_doc_idx.npy (int32),
// _sample_idx.npy (int32, [N + 1, 2]) and _shuffle_idx.npy (uint32), the
// dtypes Megatron-LM's legacy GPTDataset saves; each file appears whole or not
// at all. Returns N. Errors start with `what` (the option or key to fix).
Result<uint64_t> WriteGptMaps(const IndexedDataset& dataset, int32_t seq_length, int epochs,
                              uint64_t seed, const std::string& index_prefix,
                              const std::string& what);

}  // namespace dsanalyze
