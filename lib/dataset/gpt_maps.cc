#include "dataset/gpt_maps.h"

#include <limits>
#include <numeric>
#include <span>

#include "format/npy_writer.h"

namespace dsanalyze {

GptMaps BuildGptMaps(const std::vector<int32_t>& sizes, int32_t seq_length, int epochs,
                     uint64_t seed) {
  SplitMix64 rng(seed);
  GptMaps m;
  for (int e = 0; e < epochs; ++e)
    for (size_t r = 0; r < sizes.size(); ++r) m.doc_idx.push_back(static_cast<int32_t>(r));
  rng.Shuffle(&m.doc_idx);

  const int64_t tokens_per_epoch = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
  const int64_t num_samples = (epochs * tokens_per_epoch - 1) / seq_length;
  int64_t doc_idx_index = 0;
  int32_t doc_offset = 0;
  m.sample_idx = {0, 0};
  for (int64_t s = 1; s <= num_samples; ++s) {
    int32_t remaining = seq_length + 1;
    while (remaining != 0) {
      const int32_t doc_length = sizes[m.doc_idx[doc_idx_index]] - doc_offset;
      remaining -= doc_length;
      if (remaining <= 0) {
        doc_offset += remaining + doc_length - 1;
        remaining = 0;
      } else {
        ++doc_idx_index;
        doc_offset = 0;
      }
    }
    m.sample_idx.push_back(static_cast<int32_t>(doc_idx_index));
    m.sample_idx.push_back(doc_offset);
  }
  m.shuffle_idx.resize(num_samples);
  std::iota(m.shuffle_idx.begin(), m.shuffle_idx.end(), 0u);
  rng.Shuffle(&m.shuffle_idx);
  return m;
}

Status CheckGptMapInputs(const GptMapInputs& inputs, const std::string& what) {
  const auto [rows, tokens, seq_length, epochs] = inputs;
  constexpr uint64_t kInt32Max = std::numeric_limits<int32_t>::max();
  if (seq_length < 1 || seq_length >= kInt32Max)
    return Status::BadInput(what + ": the sequence length must be in [1, " +
                            std::to_string(kInt32Max - 1) + "]");
  if (epochs < 1 || rows > kInt32Max / epochs)
    return Status::BadInput(what + ": " + std::to_string(rows) + " rows x " +
                            std::to_string(epochs) + " epochs do not fit doc_idx's int32");
  if (tokens > std::numeric_limits<uint64_t>::max() / epochs || tokens * epochs <= seq_length)
    return Status::BadInput(what + ": the dataset has " + std::to_string(tokens) +
                            " tokens, not enough for one sample of " +
                            std::to_string(seq_length + 1));
  if ((tokens * epochs - 1) / seq_length > std::numeric_limits<uint32_t>::max())
    return Status::BadInput(what + ": more than 2^32 samples do not fit shuffle_idx's uint32");
  return Status::OK();
}

Result<uint64_t> WriteGptMaps(const IndexedDataset& dataset, int32_t seq_length, int epochs,
                              uint64_t seed, const std::string& index_prefix,
                              const std::string& what) {
  DSA_RETURN_IF_ERROR(CheckGptMapInputs({.rows = dataset.num_rows(),
                                         .tokens = dataset.num_elements(),
                                         .seq_length = static_cast<uint64_t>(seq_length),
                                         .epochs = static_cast<uint64_t>(epochs)},
                                        what));
  std::vector<int32_t> sizes(dataset.num_rows());
  for (uint64_t r = 0; r < sizes.size(); ++r) sizes[r] = dataset.row_size(r);
  const GptMaps m = BuildGptMaps(sizes, seq_length, epochs, seed);
  auto bytes = [](const auto& v) { return std::as_bytes(std::span(v)); };
  DSA_RETURN_IF_ERROR(
      WriteNpy(index_prefix + "_doc_idx.npy", DType::kI32, bytes(m.doc_idx), {m.doc_idx.size()}));
  DSA_RETURN_IF_ERROR(WriteNpy(index_prefix + "_sample_idx.npy", DType::kI32, bytes(m.sample_idx),
                               {m.num_samples() + 1, 2}));
  DSA_RETURN_IF_ERROR(WriteNpy(index_prefix + "_shuffle_idx.npy", DType::kU32, bytes(m.shuffle_idx),
                               {m.num_samples()}));
  return m.num_samples();
}

}  // namespace dsanalyze
