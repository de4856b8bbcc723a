// The blend index of a megatron_blend dataset: for each sample i of the blend,
// the component it comes from (dataset_index[i]) and which training sample of
// that component it is (dataset_sample_index[i]).
//
// Either Megatron's cached index, mapped from its two .npy files (any
// little-endian integer dtype: Megatron-DeepSpeed's BlendableDataset writes
// uint8 and int64, Megatron-Core's BlendedDataset int16 and int64), or the
// index computed as Megatron-DeepSpeed computes it when it caches nothing:
//
//   weights   get_datasets_weights_and_num_samples (megatron/data/dataset_utils.py)
//             divides each weight by their sum, added left to right in float64;
//             BlendableDataset (megatron/data/blendable_dataset.py) divides those
//             again by their numpy sum (np.sum: pairwise summation), once more
//             in float64. The second division can move a weight by an ulp, which
//             can move a tie, so both are done here.
//   size      N, the blend's sample count. From train_samples T it is
//             sum over k of ceil(T · w_k · 1.005), w the first normalisation:
//             each component is built with that many samples and the blend
//             with their sum, not with T.
//   index     helpers.cpp build_blending_indices: for i = 0 .. N-1, with
//             x = max(i, 1) as a double, the component k with the largest
//             w_k·x − drawn_k (strictly larger wins: ties go to the lowest k),
//             dataset_index[i] = k, dataset_sample_index[i] = drawn_k, drawn_k += 1.
//
// Megatron-Core (megatron/core/datasets/blended_megatron_dataset_builder.py,
// blended_dataset.py, utils.py) computes it differently:
//
//   weights   utils.normalize (w / numpy.sum(w), float64) in the builder, and
//             again in BlendedDataset: both sums are numpy's pairwise ones.
//   size      from the split's requested samples S, sum over k of ceil(S · w_k)
//             (w normalised once); component k is built with
//             ceil(ceil(S · w_k) · (1 + 0.005)) samples (mid_level_dataset_surplus).
//   no weights  the components' sample counts L_k serve as weights: with S,
//             normalised once, size min(S, sum L_k); without S, helpers.cpp
//             build_exhaustive_blending_indices draws every sample of every
//             component, choosing as above among those not yet exhausted.
//
// What the index must agree with (the components and their sample counts) is
// megatron_blend.cc's to check. Immutable once made; const accessors are safe
// from several threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/npy.h"
#include "util/status.h"

namespace dsanalyze {

// numpy's float64 sum of `v` (np.sum, numpy/_core/src/umath/loops_utils.h.src
// pairwise_sum): left to right below 8 values, 8 interleaved partial sums up
// to 128, halves above.
double NumpySum(std::span<const double> v);

struct BlendWeights {
  std::vector<double> normalised;  // w / sum(w), summed left to right
  std::vector<double> blending;    // normalised / np.sum(normalised): what the index uses
};
// Requires every weight >= 0 and a positive sum (the config checks both).
BlendWeights NormaliseBlendWeights(std::span<const double> weights);

// ceil(train_samples · w_k · 1.005) for each normalised weight w_k: the
// samples Megatron builds each component with. Their sum is the blend's N.
std::vector<uint64_t> ComponentSamples(uint64_t train_samples, std::span<const double> normalised);

// Megatron-Core's weights: normalised with numpy.sum once (`normalised`) and
// again (`blending`). Requires every weight > 0.
BlendWeights NormaliseCoreBlendWeights(std::span<const double> weights);

// ceil(S · w_k) for each once-normalised weight: component k's share of a Core
// blend of S requested samples. The blend's size is their sum.
std::vector<uint64_t> CoreComponentTargets(uint64_t requested, std::span<const double> normalised);

// ceil(target · 1.005): the samples Core builds a component with its default
// mid_level_dataset_surplus of 0.005.
uint64_t CoreComponentBuild(uint64_t target);

class BlendIndex {
 public:
  BlendIndex() = default;
  // Maps the two files; errors name them under `dataset_index_key` and
  // `sample_index_key` (the config keys): not 1-D, empty, or of different lengths.
  static Result<BlendIndex> Open(const std::string& dataset_index,
                                 const std::string& dataset_sample_index,
                                 const std::string& dataset_index_key,
                                 const std::string& sample_index_key);
  // build_blending_indices over `weights` (the blending ones) for `size` samples.
  static BlendIndex Compute(std::span<const double> weights, uint64_t size);
  // build_exhaustive_blending_indices: every sample of components of `sizes`
  // (each >= 1) samples.
  static BlendIndex ComputeExhaustive(std::span<const uint64_t> sizes);
  // A lone dataset's: sample i is component 0's sample i, held in no memory
  // (the exhaustive blend of one component, which a lone GPTDataset of
  // billions of samples could not afford at 10 bytes a sample).
  static BlendIndex Identity(uint64_t size);

  uint64_t size() const {
    return identity_size_ != 0 ? identity_size_
                               : (computed_ ? component_.size() : dataset_index_.size());
  }
  bool computed() const { return computed_; }
  // The files (empty when computed).
  const NpyArray& dataset_index_file() const { return dataset_index_; }
  const NpyArray& dataset_sample_index_file() const { return dataset_sample_index_; }

  // dataset_index[i] and dataset_sample_index[i], as the .npy holds them
  // (widened to int64; checked against the components by the caller).
  int64_t component(uint64_t i) const {
    if (identity_size_ != 0) return 0;
    return computed_ ? component_[i] : dataset_index_.at(i);
  }
  // component(i) for each i of `positions` into `out` (as long), in one
  // loop of the index's own dtype.
  void components(std::span<const int64_t> positions, std::span<uint32_t> out) const;
  int64_t sample(uint64_t i) const {
    if (identity_size_ != 0) return static_cast<int64_t>(i);
    return computed_ ? sample_[i] : dataset_sample_index_.at(i);
  }

 private:
  bool computed_ = false;
  uint64_t identity_size_ = 0;  // Identity's size; 0 otherwise
  NpyArray dataset_index_;
  NpyArray dataset_sample_index_;
  std::vector<uint16_t> component_;  // computed: at most 65536 components
  std::vector<int64_t> sample_;
};

}  // namespace dsanalyze
