// megatron_blend: the samples of Megatron's blend of GPT datasets
// (Megatron-DeepSpeed's BlendableDataset, Megatron-Core's BlendedDataset),
// as training draws them (docs/config.md, "megatron_blend").
//
// Sample i of the blend is component dataset_index[i]'s training sample
// dataset_sample_index[i]: position dataset_sample_index[i] of that component
// read exactly as megatron_gpt reads it (through its shuffle, sample and doc
// maps). The blend index (dataset/blend_index.h) comes from Megatron's cache
// or is computed from the weights. Open checks the index against the
// components before any sample is read: every entry names a component and one
// of its samples; a uint8 index serves at most 255 components.
//
// Documents are the components' rows numbered across the components in
// `datasets` order (component k's row r is document r + the rows of the
// components before it), as `documents` numbers the rows across its prefixes:
// one per-document score file covers the whole blend, its rows the components'
// in `datasets` order.
#include "dataset/megatron_blend.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "config/memory_budget.h"
#include "dataset/blend_index.h"
#include "dataset/megatron_gpt.h"
#include "dataset/open_dataset.h"

namespace dsanalyze {
namespace {

// Megatron-DeepSpeed's BlendableDataset asserts fewer than 255 datasets for
// its uint8 dataset_index; a uint8 index cannot name more than 255.
constexpr uint64_t kMaxUint8Components = 255;

struct Component {
  std::unique_ptr<MegatronGptDataset> dataset;
  uint64_t first_document = 0;  // the blend's number of its row 0
  uint64_t drawn = 0;           // samples of the blend taken from it
};

class MegatronBlendDataset : public Dataset {
 public:
  MegatronBlendDataset(std::vector<Component> components, BlendIndex index, BlendSource source,
                       std::vector<int64_t> ignore)
      : components_(std::move(components)),
        index_(std::move(index)),
        source_(std::move(source)),
        ignore_(std::move(ignore)) {}

  uint64_t size() const override { return index_.size(); }
  DType dtype() const override { return components_.front().dataset->dtype(); }
  std::string Describe() const override;
  nlohmann::json DescribeJson() const override;
  std::vector<std::string> ComponentPrefixes() const override {
    std::vector<std::string> prefixes;
    for (const Component& c : components_) prefixes.push_back(c.dataset->prefix());
    return prefixes;
  }
  void ComponentsOf(std::span<const int64_t> positions, std::span<uint32_t> out) const override {
    index_.components(positions, out);
  }
  std::unique_ptr<SampleReader> NewReader() const override;
  void WillReadEverySample() const override {
    for (const Component& c : components_) c.dataset->WillReadEverySample();
  }
  std::span<const int64_t> ignore_token_ids() const override { return ignore_; }
  uint64_t num_documents() const override {
    const Component& last = components_.back();
    return last.first_document + last.dataset->num_documents();
  }
  void AppendDocumentPieces(uint64_t i, std::vector<DocumentPiece>* out) const override {
    const Component& c = components_[static_cast<size_t>(index_.component(i))];
    const size_t from = out->size();
    c.dataset->AppendDocumentPieces(static_cast<uint64_t>(index_.sample(i)), out);
    for (size_t p = from; p < out->size(); ++p) (*out)[p].document += c.first_document;
  }

  // Sample i: its component and the component's sample (an index of its sample_idx).
  GptSample Locate(uint64_t i) const {
    const MegatronGptDataset& d = *components_[static_cast<size_t>(index_.component(i))].dataset;
    return {&d, d.SampleAt(static_cast<uint64_t>(index_.sample(i)))};
  }

 private:
  std::vector<Component> components_;
  BlendIndex index_;
  BlendSource source_;
  std::vector<int64_t> ignore_;
};

std::string MegatronBlendDataset::Describe() const {
  std::string s = source_.type + " " + std::to_string(size()) + " samples from " +
                  std::to_string(components_.size()) + " datasets (";
  for (size_t k = 0; k < components_.size(); ++k)
    s += (k ? ", " : "") + components_[k].dataset->prefix() + " " +
         std::to_string(components_[k].drawn);
  s += "), ";
  if (index_.computed() && source_.weights.empty())
    return s + "index computed from the components' sizes";
  return s + (index_.computed() ? "index computed from the weights"
                                : "dataset_index " + index_.dataset_index_file().path());
}

nlohmann::json MegatronBlendDataset::DescribeJson() const {
  nlohmann::json j = {{"type", source_.type}, {"samples", size()}};
  j.update(source_.describe);
  if (index_.computed()) {
    j["index"] = "computed";
    if (source_.train_samples != 0) j["train_samples"] = source_.train_samples;
  } else {
    j["index"] = {{"dataset_index", index_.dataset_index_file().path()},
                  {"dataset_index_dtype", DTypeName(index_.dataset_index_file().dtype())},
                  {"dataset_sample_index", index_.dataset_sample_index_file().path()}};
  }
  nlohmann::json components = nlohmann::json::array();
  for (size_t k = 0; k < components_.size(); ++k) {
    const MegatronGptDataset& d = *components_[k].dataset;
    nlohmann::json c = {{"prefix", d.prefix()},
                        {"samples", d.size()},
                        {"samples_drawn", components_[k].drawn},
                        {"epochs", d.Epochs()},
                        {"first_document", components_[k].first_document}};
    if (!source_.weights.empty()) c["weight"] = source_.weights[k];
    components.push_back(std::move(c));
  }
  j["components"] = std::move(components);
  return j;
}

std::unique_ptr<SampleReader> MegatronBlendDataset::NewReader() const {
  const auto locate = [this](uint64_t i) { return Locate(i); };
  return std::make_unique<GptSampleReader<decltype(locate)>>(size(), dtype(), locate);
}

// Opens every component; they must share one token dtype.
Result<std::vector<Component>> OpenComponents(const std::vector<MegatronGptConfig>& configs,
                                              const std::vector<std::string>& keys,
                                              const std::vector<int64_t>& ignore) {
  std::vector<Component> components;
  uint64_t documents = 0;
  for (size_t k = 0; k < configs.size(); ++k) {
    DSA_ASSIGN_OR_RETURN(std::unique_ptr<MegatronGptDataset> d,
                         MegatronGptDataset::Open(configs[k], ignore, keys[k]));
    if (k > 0 && d->dtype() != components.front().dataset->dtype())
      return Status::BadInput(keys[k] + ".prefix: " + d->prefix() + " holds " +
                              std::string(DTypeName(d->dtype())) + " tokens, but " + keys[0] +
                              " holds " +
                              std::string(DTypeName(components.front().dataset->dtype())) +
                              "; the components of a blend share one token dtype");
    const uint64_t rows = d->num_documents();
    components.push_back({std::move(d), documents, 0});
    documents += rows;
  }
  return components;
}

// The key whose value made N: "size", or "train_samples" N derives from.
std::string SizeKey(const MegatronBlendConfig& config) {
  return "config: " + std::string(SampleCountKey(config));
}

// Before any sample is read: every entry of the index names a component and
// one of its samples. Counts each component's draws.
Status CheckIndex(const BlendSource& source, const BlendIndex& index,
                  std::vector<Component>* components) {
  const NpyArray& which = index.dataset_index_file();
  const uint64_t count = components->size();
  if (!index.computed() && which.dtype() == DType::kU8 && count > kMaxUint8Components)
    return Status::BadInput(source.dataset_index_key + ": " + which.path() +
                            ": a uint8 ('|u1') index, but the blend has " + std::to_string(count) +
                            " entries; a uint8 index serves at most " +
                            std::to_string(kMaxUint8Components) + " (is it another blend's?)");
  for (uint64_t i = 0; i < index.size(); ++i) {
    const int64_t k = index.component(i);
    if (k < 0 || static_cast<uint64_t>(k) >= count)
      return Status::BadInput(source.dataset_index_key + ": " + which.path() + ": dataset_index[" +
                              std::to_string(i) + "] = " + std::to_string(k) +
                              " is not a component (the blend has " + std::to_string(count) + ")");
    Component& c = (*components)[static_cast<size_t>(k)];
    const int64_t j = index.sample(i);
    if (j >= 0 && static_cast<uint64_t>(j) < c.dataset->size()) {
      ++c.drawn;
      continue;
    }
    const std::string component = source.component_keys[static_cast<size_t>(k)] + " (" +
                                  c.dataset->prefix() + ", which has " +
                                  std::to_string(c.dataset->size()) + " samples)";
    if (index.computed())
      return Status::BadInput(
          "config: " + source.size_key + ": the blend of " + std::to_string(index.size()) +
          " samples computed from the weights draws more samples from " + component +
          " than it has (were its maps built for other weights "
          "or another size?)");
    return Status::BadInput(source.sample_index_key + ": " +
                            index.dataset_sample_index_file().path() + ": dataset_sample_index[" +
                            std::to_string(i) + "] = " + std::to_string(j) +
                            " is not a sample of " + component);
  }
  return Status::OK();
}

// Megatron-DeepSpeed's BlendableDataset writes its description <md5>.dsc beside
// <md5>_index.npy: "Blendable dataset", then each component's description,
// whose "Data prefix P" lines give the components in the blend's order. When
// it is there, `datasets` must name the same prefixes in that order (by file
// name: a cache made on another machine names other folders). Swapped
// components would otherwise pass every check with wrong samples.
Status CheckDeepSpeedOrder(const MegatronBlendConfig& config) {
  const std::string suffix = "_index.npy", &index = config.dataset_index;
  if (!config.weights.empty() || !index.ends_with(suffix)) return Status::OK();
  const std::string dsc = index.substr(0, index.size() - suffix.size()) + ".dsc";
  std::ifstream in(dsc);
  std::string line;
  if (!std::getline(in, line) || line != "Blendable dataset") return Status::OK();
  std::vector<std::string> listed;
  std::string list;
  while (std::getline(in, line)) {
    if (!line.starts_with("Data prefix ")) continue;
    listed.push_back(line.substr(std::string("Data prefix ").size()));
    list += (listed.size() > 1 ? ", " : "") + listed.back();
  }
  const auto name = [](const std::string& p) { return std::filesystem::path(p).filename(); };
  if (listed.size() != config.datasets.size())
    return Status::BadInput("dataset.datasets: " + std::to_string(config.datasets.size()) +
                            " entries, but the blend's description " + dsc + " lists " +
                            std::to_string(listed.size()) + " components (" + list + ")");
  for (size_t k = 0; k < listed.size(); ++k)
    if (name(config.datasets[k].prefix) != name(listed[k]))
      return Status::BadInput("dataset.datasets[" + std::to_string(k) + "].prefix: \"" +
                              config.datasets[k].prefix + "\" is not the blend's component " +
                              std::to_string(k) + ", \"" + listed[k] + "\"; its description " +
                              dsc + " lists its components in this order: " + list);
  return Status::OK();
}

// Megatron's cached index, or the one computed from the weights.
Result<BlendIndex> MakeIndex(const MegatronBlendConfig& config, BlendSource* source) {
  if (config.weights.empty())
    return BlendIndex::Open(config.dataset_index, config.dataset_sample_index,
                            source->dataset_index_key, source->sample_index_key);
  const BlendWeights w = NormaliseBlendWeights(config.weights);
  uint64_t n = config.size;
  if (n == 0) {
    for (uint64_t s : ComponentSamples(config.train_samples, w.normalised)) n += s;
    source->train_samples = config.train_samples;
  }
  source->weights = w.blending;
  // A component and a drawn sample for each of the N samples (blend_index.h).
  constexpr uint64_t kIndexBytes = sizeof(uint16_t) + sizeof(int64_t);
  DSA_RETURN_IF_ERROR(
      CheckMemoryNeed({.key = SizeKey(config),
                       .what = "a blend index of " + std::to_string(n) + " samples at " +
                               std::to_string(kIndexBytes) + " bytes each",
                       .bytes = SaturatingProduct(n, kIndexBytes)}));
  return BlendIndex::Compute(w.blending, n);
}

}  // namespace

Result<std::unique_ptr<Dataset>> OpenMegatronBlend(
    const std::vector<MegatronGptConfig>& components, BlendSource source,
    const std::function<Result<BlendIndex>(const std::vector<uint64_t>& sizes, BlendSource*)>&
        make_index,
    const std::vector<int64_t>& ignore) {
  DSA_ASSIGN_OR_RETURN(std::vector<Component> opened,
                       OpenComponents(components, source.component_keys, ignore));
  std::vector<uint64_t> sizes;
  for (const Component& c : opened) sizes.push_back(c.dataset->size());
  DSA_ASSIGN_OR_RETURN(BlendIndex index, make_index(sizes, &source));
  DSA_RETURN_IF_ERROR(CheckIndex(source, index, &opened));
  return std::unique_ptr<Dataset>(std::make_unique<MegatronBlendDataset>(
      std::move(opened), std::move(index), std::move(source), SortedUnique(ignore)));
}

Result<std::unique_ptr<Dataset>> OpenType(const MegatronBlendConfig& config,
                                          const std::vector<int64_t>& ignore) {
  DSA_RETURN_IF_ERROR(CheckDeepSpeedOrder(config));
  BlendSource source;
  for (size_t k = 0; k < config.datasets.size(); ++k)
    source.component_keys.push_back("dataset.datasets[" + std::to_string(k) + "]");
  source.size_key = config.size != 0 ? "dataset.size" : "dataset.train_samples";
  return OpenMegatronBlend(
      config.datasets, std::move(source),
      [&config](const std::vector<uint64_t>&, BlendSource* s) { return MakeIndex(config, s); },
      ignore);
}

}  // namespace dsanalyze
