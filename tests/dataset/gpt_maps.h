// Megatron-style GPT index maps for tests, built the way Megatron-LM builds
// them (megatron/core/datasets/gpt_dataset.py and helpers.cpp
// build_sample_idx), independently of dsanalyze's reader:
//   doc_idx     every row once per epoch, all epochs shuffled together;
//   sample_idx  (doc_idx position, offset) of each sample's first token, the
//               next sample starting at the previous one's last token, so each
//               sample has seq_length + 1 tokens; N = (epochs·T - 1) / seq_length;
//   shuffle_idx a random permutation of 0..N-1.
// The random stream is splitmix64, not numpy's, so the maps are Megatron's in
// shape and meaning but not in their exact permutation.
#pragma once

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace dsanalyze::test {

struct GptMaps {
  std::vector<int32_t> doc_idx;
  std::vector<int32_t> sample_idx;  // (N + 1) x 2, row-major
  std::vector<uint32_t> shuffle_idx;
  uint64_t num_samples() const { return shuffle_idx.size(); }
};

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  template <class T>
  void Shuffle(std::vector<T>* v) {
    for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[Next() % i]);
  }

 private:
  uint64_t state_;
};

// `sizes` are the rows' token counts; requires epochs·sum(sizes) > seq_length.
inline GptMaps BuildGptMaps(const std::vector<int32_t>& sizes, int32_t seq_length, int epochs,
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

}  // namespace dsanalyze::test
