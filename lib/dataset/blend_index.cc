#include "dataset/blend_index.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dsanalyze {
namespace {

constexpr size_t kPairwiseBlock = 128;  // numpy's PW_BLOCKSIZE

Status IndexFileError(const std::string& key, const NpyArray& a, const std::string& what) {
  return Status::BadInput(key + ": " + a.path() + ": " + what);
}

Result<NpyArray> OpenIndexFile(const std::string& path, const std::string& key) {
  Result<NpyArray> a = NpyArray::Open(path);
  if (!a.ok()) return a.status().WithPrefix(key);
  if (a->shape().size() != 1 || a->size() == 0)
    return IndexFileError(key, *a,
                          "shape " + a->shape_string() + "; expected a non-empty 1-D array");
  return a;
}

}  // namespace

double NumpySum(std::span<const double> v) {
  const size_t n = v.size();
  if (n < 8) {
    double sum = -0.0;  // numpy starts at -0.0 so that a sum of -0.0 stays -0.0
    for (double x : v) sum += x;
    return sum;
  }
  if (n <= kPairwiseBlock) {
    double r[8];
    for (size_t j = 0; j < 8; ++j) r[j] = v[j];
    size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (size_t j = 0; j < 8; ++j) r[j] += v[i + j];
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += v[i];
    return sum;
  }
  size_t half = n / 2;
  half -= half % 8;
  return NumpySum(v.first(half)) + NumpySum(v.subspan(half));
}

BlendWeights NormaliseBlendWeights(std::span<const double> weights) {
  BlendWeights w;
  double sum = 0.0;
  for (double x : weights) sum += x;  // Python's `weight_sum += weight`
  for (double x : weights) w.normalised.push_back(x / sum);
  const double again = NumpySum(w.normalised);  // np.sum in BlendableDataset
  for (double x : w.normalised) w.blending.push_back(x / again);
  return w;
}

BlendWeights NormaliseCoreBlendWeights(std::span<const double> weights) {
  BlendWeights w;
  const double sum = NumpySum(weights);
  for (double x : weights) w.normalised.push_back(x / sum);
  const double again = NumpySum(w.normalised);
  for (double x : w.normalised) w.blending.push_back(x / again);
  return w;
}

std::vector<uint64_t> CoreComponentTargets(uint64_t requested, std::span<const double> normalised) {
  std::vector<uint64_t> targets;
  for (double w : normalised)
    targets.push_back(static_cast<uint64_t>(std::ceil(static_cast<double>(requested) * w)));
  return targets;
}

uint64_t CoreComponentBuild(uint64_t target) {
  // int(math.ceil(math.ceil(S * w) * (1 + surplus))), 1 + 0.005 rounded as Python does.
  const double factor = 1.0 + 0.005;
  return static_cast<uint64_t>(std::ceil(static_cast<double>(target) * factor));
}

std::vector<uint64_t> ComponentSamples(uint64_t train_samples, std::span<const double> normalised) {
  std::vector<uint64_t> samples;
  // int(math.ceil(val * weight * 1.005)), the products in float64 in that order.
  for (double w : normalised)
    samples.push_back(
        static_cast<uint64_t>(std::ceil(static_cast<double>(train_samples) * w * 1.005)));
  return samples;
}

Result<BlendIndex> BlendIndex::Open(const std::string& dataset_index,
                                    const std::string& dataset_sample_index,
                                    const std::string& dataset_index_key,
                                    const std::string& sample_index_key) {
  BlendIndex index;
  DSA_ASSIGN_OR_RETURN(index.dataset_index_, OpenIndexFile(dataset_index, dataset_index_key));
  DSA_ASSIGN_OR_RETURN(index.dataset_sample_index_,
                       OpenIndexFile(dataset_sample_index, sample_index_key));
  const uint64_t n = index.dataset_index_.size(), m = index.dataset_sample_index_.size();
  if (n != m)
    return IndexFileError(sample_index_key, index.dataset_sample_index_,
                          "has " + std::to_string(m) + " entries, but " + dataset_index_key + " " +
                              dataset_index + " has " + std::to_string(n) +
                              "; the two files of one blend have one entry per sample each");
  return index;
}

BlendIndex BlendIndex::Compute(std::span<const double> weights, uint64_t size) {
  BlendIndex index;
  index.computed_ = true;
  index.component_.resize(size);
  index.sample_.resize(size);
  std::vector<int64_t> drawn(weights.size(), 0);
  for (uint64_t i = 0; i < size; ++i) {
    const double x = std::max(static_cast<double>(i), 1.0);
    size_t best = 0;
    double best_error = weights[0] * x - static_cast<double>(drawn[0]);
    for (size_t k = 1; k < weights.size(); ++k) {
      const double error = weights[k] * x - static_cast<double>(drawn[k]);
      if (error > best_error) {
        best_error = error;
        best = k;
      }
    }
    index.component_[i] = static_cast<uint16_t>(best);
    index.sample_[i] = drawn[best]++;
  }
  return index;
}

namespace {

// out[i] = index[positions[i]]: a dataset_index's entries (checked to be
// component numbers >= 0 when the blend opened, so read as unsigned).
template <class T>
void ComponentsAs(const T* index, std::span<const int64_t> positions, std::span<uint32_t> out) {
  for (size_t i = 0; i < positions.size(); ++i)
    out[i] = static_cast<uint32_t>(index[static_cast<uint64_t>(positions[i])]);
}

}  // namespace

void BlendIndex::components(std::span<const int64_t> positions, std::span<uint32_t> out) const {
  if (identity_size_ != 0) {
    std::fill(out.begin(), out.end(), 0u);
  } else if (computed_) {
    ComponentsAs(component_.data(), positions, out);
  } else {
    const std::byte* data = dataset_index_.elements().data;
    switch (ItemSize(dataset_index_.dtype())) {
      case 1:
        return ComponentsAs(reinterpret_cast<const uint8_t*>(data), positions, out);
      case 2:
        return ComponentsAs(reinterpret_cast<const uint16_t*>(data), positions, out);
      case 4:
        return ComponentsAs(reinterpret_cast<const uint32_t*>(data), positions, out);
      default:
        return ComponentsAs(reinterpret_cast<const uint64_t*>(data), positions, out);
    }
  }
}

BlendIndex BlendIndex::Identity(uint64_t size) {
  BlendIndex index;
  index.computed_ = true;
  index.identity_size_ = size;
  return index;
}

BlendIndex BlendIndex::ComputeExhaustive(std::span<const uint64_t> sizes) {
  uint64_t total = 0;
  for (uint64_t n : sizes) total += n;
  std::vector<double> weights;
  for (uint64_t n : sizes) weights.push_back(static_cast<double>(n) / static_cast<double>(total));
  BlendIndex index;
  index.computed_ = true;
  index.component_.resize(total);
  index.sample_.resize(total);
  std::vector<int64_t> drawn(sizes.size(), 0);
  std::vector<bool> spent(sizes.size(), false);
  for (uint64_t i = 0; i < total; ++i) {
    const double x = std::max(static_cast<double>(i), 1.0);
    size_t best = sizes.size();
    double best_error = std::numeric_limits<double>::lowest();
    for (size_t k = 0; k < sizes.size(); ++k) {
      const double error = weights[k] * x - static_cast<double>(drawn[k]);
      if (!spent[k] && error > best_error) {
        best_error = error;
        best = k;
      }
    }
    index.component_[i] = static_cast<uint16_t>(best);
    index.sample_[i] = drawn[best]++;
    spent[best] = static_cast<uint64_t>(drawn[best]) == sizes[best];
  }
  return index;
}

}  // namespace dsanalyze
