// megatron_core: the samples Megatron-Core gives training, found in its cache
// folder as Core finds them (docs/config.md, "megatron_core").
//
// Core names every cached file <md5>-<Class>-<split>-<what>, the md5 being that
// of a JSON description it writes beside the maps as
// <md5>-<Class>-<split>-description.txt (megatron_dataset.py, blended_dataset.py).
// A BlendedDataset's description lists its components' GPTDataset descriptions
// in its order; a GPTDataset's names its prefix ("dataset_path"), its
// sample count ("num_samples") and "sequence_length". Here the descriptions
// are read and matched by their content (equal JSON), so the md5s are never
// recomputed:
//   - a cached blend for the split: its components in its order, its
//     dataset_index and dataset_sample_index;
//   - none (Core caches blends only under --data-cache-path): each prefix's
//     GPTDataset picked by the num_samples Core asked of it, and the index
//     computed with Core's formulas (dataset/blend_index.h);
//   - one prefix without weights: Core's lone GPTDataset, read as a blend of
//     one whose sample i is the dataset's sample i.
// Each component is then opened as megatron_gpt opens it, and the blend as
// megatron_blend opens it (dataset/megatron_blend.h), with every check of both.
#include "dataset/megatron_core.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "dataset/blend_index.h"
#include "dataset/megatron_blend.h"
#include "dataset/open_dataset.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One <md5>-<Class>-<split>-description.txt.
struct CoreDescription {
  std::string dir;   // the cache folder holding it
  std::string hash;  // <md5>
  json content;
  std::string File(const std::string& cls, const std::string& split,
                   const std::string& what) const {
    return (fs::path(dir) / (hash + "-" + cls + "-" + split + "-" + what)).string();
  }
};

std::string Basename(const std::string& prefix) { return fs::path(prefix).filename().string(); }

// The descriptions of class `cls` for `split` in `dir` (none if `dir` does
// not exist), in file-name order.
Result<std::vector<CoreDescription>> ReadDescriptions(const std::string& dir,
                                                      const std::string& cls,
                                                      const std::string& split) {
  std::vector<CoreDescription> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  const std::string tail = "-" + cls + "-" + split + "-description.txt";
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > tail.size() && name.ends_with(tail)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = (fs::path(dir) / name).string();
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    json content = json::parse(text.str(), nullptr, false);
    if (!in || content.is_discarded() || !content.is_object())
      return Status::BadInput("dataset.path_to_cache: " + path +
                              ": not a JSON description as Megatron-Core writes them");
    found.push_back({dir, name.substr(0, name.size() - tail.size()), std::move(content)});
  }
  return found;
}

// The cache folder of prefix k: path_to_cache, or Core's default under the prefix.
std::string CacheDir(const MegatronCoreConfig& c, size_t k) {
  if (!c.path_to_cache.empty()) return c.path_to_cache;
  return (fs::path(c.prefixes[k]) / "cache" / "GPTDataset_indices").string();
}

// The key of prefix k in data_path (weights take the even places).
std::string PrefixKey(const MegatronCoreConfig& c, size_t k) {
  return "dataset.data_path[" + std::to_string(c.weights.empty() ? k : 2 * k + 1) + "]";
}

std::string StringOr(const json& j, const char* key, const std::string& fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// What was found: each component's GPTDataset description and, for a cached
// blend, the blend's.
struct Found {
  std::vector<CoreDescription> components;
  std::optional<CoreDescription> blend;
};

// "<description file> (prefix, prefix, ...)": a candidate blend, for messages.
std::string ListBlend(const CoreDescription& d, const std::string& split) {
  std::string s = d.File("BlendedDataset", split, "description.txt") + " (";
  const json& parts = d.content.value("datasets", json::array());
  for (size_t k = 0; k < parts.size(); ++k)
    s += (k ? ", " : "") + StringOr(parts[k], "dataset_path", "?");
  return s + ")";
}

// Refuses a blend whose components are not data_path's prefixes in order (by
// file name: a cache made elsewhere names other folders), or whose weights
// are not data_path's normalised as Core normalises them.
Status CheckBlendMatches(const MegatronCoreConfig& c, const CoreDescription& blend) {
  const json& parts = blend.content.value("datasets", json::array());
  const std::string file = blend.File("BlendedDataset", c.split, "description.txt");
  std::vector<std::string> names;
  for (const json& p : parts) names.push_back(Basename(StringOr(p, "dataset_path", "")));
  if (names.size() != c.prefixes.size())
    return Status::BadInput("config: dataset.data_path: " + std::to_string(c.prefixes.size()) +
                            " prefixes, but the cached blend " + ListBlend(blend, c.split) +
                            " has " + std::to_string(names.size()) + " components");
  for (size_t k = 0; k < names.size(); ++k) {
    if (Basename(c.prefixes[k]) == names[k]) continue;
    const bool elsewhere =
        std::find(names.begin(), names.end(), Basename(c.prefixes[k])) != names.end();
    return Status::BadInput("config: " + PrefixKey(c, k) + ": \"" + c.prefixes[k] + "\" " +
                            (elsewhere ? "comes at another place in" : "is not in") +
                            " the cached blend, whose component " + std::to_string(k) + " is \"" +
                            StringOr(parts[k], "dataset_path", "") + "\" (" +
                            ListBlend(blend, c.split) +
                            "); data_path lists the blend's components in its order");
  }
  if (c.weights.empty()) return Status::OK();
  const std::vector<double> mine = NormaliseCoreBlendWeights(c.weights).blending;
  const json& theirs = blend.content.value("weights", json());
  if (theirs != json(mine))
    return Status::BadInput("config: dataset.data_path: its weights normalised are " +
                            json(mine).dump() + ", but the cached blend " + file + " has " +
                            theirs.dump() + " (is it another blend?)");
  return Status::OK();
}

// The split's cached blend that data_path names, if Core cached one: the one
// description_hash picks, else the one candidate that matches data_path.
Result<std::optional<CoreDescription>> FindBlend(const MegatronCoreConfig& c) {
  if (c.path_to_cache.empty() || (c.prefixes.size() == 1 && c.weights.empty()))
    return std::optional<CoreDescription>();
  DSA_ASSIGN_OR_RETURN(std::vector<CoreDescription> blends,
                       ReadDescriptions(c.path_to_cache, "BlendedDataset", c.split));
  if (!c.description_hash.empty())
    std::erase_if(blends, [&](const CoreDescription& d) { return d.hash != c.description_hash; });
  std::vector<CoreDescription> matching;
  for (const CoreDescription& d : blends)
    if (CheckBlendMatches(c, d).ok()) matching.push_back(d);
  if (matching.size() == 1) return std::optional<CoreDescription>(matching.front());
  if (blends.size() == 1) return CheckBlendMatches(c, blends.front());
  if (blends.empty()) {
    if (c.description_hash.empty()) return std::optional<CoreDescription>();
    return Status::BadInput("config: dataset.description_hash: no " + c.split +
                            " BlendedDataset description " + c.description_hash + " in " +
                            c.path_to_cache);
  }
  std::string list;
  for (const CoreDescription& d : matching.empty() ? blends : matching)
    list += (list.empty() ? "" : "; ") + d.hash + ": " + ListBlend(d, c.split);
  return Status::BadInput("dataset.path_to_cache: " + c.path_to_cache + " holds " +
                          std::to_string(blends.size()) + " " + c.split + " blends" +
                          (matching.empty() ? ", none of them data_path's" : "") + ": " + list +
                          "; set dataset.description_hash to the one training uses");
}

// The GPTDataset descriptions of a cached blend's components, in its order.
Result<std::vector<CoreDescription>> ComponentsOfBlend(const MegatronCoreConfig& c,
                                                       const CoreDescription& blend) {
  DSA_ASSIGN_OR_RETURN(std::vector<CoreDescription> all,
                       ReadDescriptions(blend.dir, "GPTDataset", c.split));
  std::vector<CoreDescription> found;
  const json& parts = blend.content.value("datasets", json::array());
  for (size_t k = 0; k < parts.size(); ++k) {
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const CoreDescription& d) { return d.content == parts[k]; });
    if (it == all.end())
      return Status::BadInput("dataset.path_to_cache: " + c.path_to_cache +
                              " has no GPTDataset description of component " + std::to_string(k) +
                              " (" + StringOr(parts[k], "dataset_path", "?") +
                              ") of the cached blend " + ListBlend(blend, c.split) +
                              " (was the cache copied in part?)");
    found.push_back(*it);
  }
  return found;
}

// The num_samples Core asked of prefix k's GPTDataset when it is not in a
// cached blend: the requested count for a lone dataset, ceil(ceil(S·w)·1.005)
// in a weighted blend, none (null) in one without weights; nullopt when any
// will do (a lone dataset, num_samples not given).
Result<std::optional<json>> WantedSamples(const MegatronCoreConfig& c, size_t k) {
  if (c.prefixes.size() == 1 && c.weights.empty())
    return c.num_samples != 0 ? std::optional<json>(c.num_samples) : std::nullopt;
  if (c.weights.empty()) return std::optional<json>(json());
  if (c.num_samples == 0)
    return Status::BadInput("config: dataset.num_samples: required key is missing (the " + c.split +
                            " blend's own files are not in the cache" +
                            (c.path_to_cache.empty() ? " (Core caches blends only under "
                                                       "--data-cache-path, dataset.path_to_cache)"
                                                     : " " + c.path_to_cache) +
                            ", so its index is computed from the weights and the split's sample "
                            "count Megatron-LM asked for)");
  const BlendWeights w = NormaliseCoreBlendWeights(c.weights);
  return std::optional<json>(
      CoreComponentBuild(CoreComponentTargets(c.num_samples, w.normalised)[k]));
}

// Prefix k's GPTDataset description for the split, picked by file name and the
// num_samples Core asked of it.
Result<CoreDescription> ComponentOfPrefix(const MegatronCoreConfig& c, size_t k) {
  const std::string dir = CacheDir(c, k);
  DSA_ASSIGN_OR_RETURN(const std::optional<json> wanted, WantedSamples(c, k));
  DSA_ASSIGN_OR_RETURN(std::vector<CoreDescription> all,
                       ReadDescriptions(dir, "GPTDataset", c.split));
  std::vector<CoreDescription> found;
  for (const CoreDescription& d : all) {
    const json& n = d.content.value("num_samples", json());
    if (Basename(StringOr(d.content, "dataset_path", "")) != Basename(c.prefixes[k])) continue;
    if (wanted && n != *wanted) continue;
    if (!c.description_hash.empty() && c.prefixes.size() == 1 && d.hash != c.description_hash)
      continue;
    found.push_back(d);
  }
  if (found.size() == 1) return found.front();
  std::string list;
  for (const CoreDescription& d : found)
    list += "; " + d.hash + " (num_samples " + d.content.value("num_samples", json()).dump() + ")";
  const std::string which = "GPTDataset " + c.split + " description of \"" + c.prefixes[k] + "\"" +
                            (wanted ? " with num_samples " + wanted->dump() : "");
  if (found.empty())
    return Status::BadInput("config: " + PrefixKey(c, k) + ": no " + which + " in " + dir +
                            " (has Megatron-LM built this split with this data_path there?)");
  return Status::BadInput("config: " + PrefixKey(c, k) + ": " + std::to_string(found.size()) + " " +
                          which + " in " + dir + list +
                          "; set dataset.num_samples (or dataset.description_hash) to pick one");
}

// Where the components and the blend index are: the descriptions found.
Result<Found> FindDescriptions(const MegatronCoreConfig& c) {
  Found f;
  DSA_ASSIGN_OR_RETURN(f.blend, FindBlend(c));
  if (f.blend) {
    DSA_ASSIGN_OR_RETURN(f.components, ComponentsOfBlend(c, *f.blend));
    return f;
  }
  for (size_t k = 0; k < c.prefixes.size(); ++k) {
    DSA_ASSIGN_OR_RETURN(CoreDescription d, ComponentOfPrefix(c, k));
    f.components.push_back(std::move(d));
  }
  return f;
}

// Component k as megatron_gpt opens it: data_path's prefix (a cache made on
// another machine names other folders; the maps' checks against the .idx
// tell whether it is the same data) and the description's maps.
MegatronGptConfig ComponentConfig(const MegatronCoreConfig& c, size_t k, const CoreDescription& d) {
  MegatronGptConfig g;
  g.prefix = c.prefixes[k];
  g.doc_idx = d.File("GPTDataset", c.split, "document_index.npy");
  g.sample_idx = d.File("GPTDataset", c.split, "sample_index.npy");
  g.shuffle_idx = d.File("GPTDataset", c.split, "shuffle_index.npy");
  const json& length = d.content.value("sequence_length", json());
  g.seq_length = length.is_number_unsigned() ? length.get<uint64_t>() : 0;
  g.add_extra_token = c.add_extra_token;
  g.dtype_codes = c.dtype_codes;
  return g;
}

// The blend index: the cached one, or Core's computed from the weights (or
// the components' sizes without weights).
Result<BlendIndex> CoreIndex(const MegatronCoreConfig& c, const Found& f,
                             const std::vector<uint64_t>& sizes, BlendSource* source) {
  if (f.blend)
    return BlendIndex::Open(f.blend->File("BlendedDataset", c.split, "dataset_index.npy"),
                            f.blend->File("BlendedDataset", c.split, "dataset_sample_index.npy"),
                            source->dataset_index_key, source->sample_index_key);
  if (!c.weights.empty()) {
    const BlendWeights w = NormaliseCoreBlendWeights(c.weights);
    uint64_t n = 0;
    for (uint64_t t : CoreComponentTargets(c.num_samples, w.normalised)) n += t;
    source->weights = w.blending;
    return BlendIndex::Compute(w.blending, n);
  }
  if (sizes.size() == 1 && c.weights.empty()) return BlendIndex::Identity(sizes.front());
  if (c.num_samples == 0) return BlendIndex::ComputeExhaustive(sizes);
  std::vector<double> lengths(sizes.begin(), sizes.end());
  uint64_t total = 0;
  for (uint64_t s : sizes) total += s;
  source->weights = NormaliseCoreBlendWeights(lengths).normalised;
  return BlendIndex::Compute(source->weights, std::min(c.num_samples, total));
}

// The files of what `f` found for `c`'s split, added to `out`.
void AddFiles(const MegatronCoreConfig& c, const Found& f, CoreCacheFiles* out) {
  const auto add = [&](const CoreDescription& d, const std::string& cls,
                       std::initializer_list<const char*> what) {
    for (const char* w : what) out->files.push_back(d.File(cls, c.split, w));
    if (std::find(out->cache_dirs.begin(), out->cache_dirs.end(), d.dir) == out->cache_dirs.end())
      out->cache_dirs.push_back(d.dir);
  };
  for (const CoreDescription& d : f.components)
    add(d, "GPTDataset",
        {"description.txt", "document_index.npy", "sample_index.npy", "shuffle_index.npy"});
  if (f.blend)
    add(*f.blend, "BlendedDataset",
        {"description.txt", "dataset_index.npy", "dataset_sample_index.npy"});
}

}  // namespace

Result<CoreCacheFiles> FindCoreCacheFiles(const MegatronCoreConfig& config) {
  DSA_ASSIGN_OR_RETURN(const Found found, FindDescriptions(config));
  CoreCacheFiles out;
  AddFiles(config, found, &out);
  if (found.blend) {
    out.rewrite = {found.blend->File("BlendedDataset", config.split, "dataset_index.npy"),
                   found.blend->File("BlendedDataset", config.split, "dataset_sample_index.npy")};
  } else if (config.prefixes.size() == 1 && config.weights.empty()) {
    out.rewrite = {found.components.front().File("GPTDataset", config.split, "shuffle_index.npy")};
  } else {
    return Status::BadInput(
        "dataset.path_to_cache: the " + config.split +
        " blend's own files are not in the cache, so there is no blend index to rewrite; run "
        "Megatron-LM once with --data-cache-path (it caches the blend there), then analyse that");
  }
  for (const char* split : {"train", "valid", "test"}) {
    if (split == config.split) continue;
    MegatronCoreConfig other = config;
    other.split = split;
    if (Result<Found> f = FindDescriptions(other); f.ok()) AddFiles(other, *f, &out);
  }
  return out;
}

Result<std::unique_ptr<Dataset>> OpenType(const MegatronCoreConfig& config,
                                          const std::vector<int64_t>& ignore) {
  DSA_ASSIGN_OR_RETURN(const Found found, FindDescriptions(config));
  BlendSource source;
  source.type = "megatron_core";
  source.dataset_index_key = source.sample_index_key = "dataset.path_to_cache";
  source.size_key = "dataset.num_samples";
  std::vector<MegatronGptConfig> components;
  json descriptions = json::array();
  for (size_t k = 0; k < found.components.size(); ++k) {
    components.push_back(ComponentConfig(config, k, found.components[k]));
    source.component_keys.push_back(PrefixKey(config, k));
    descriptions.push_back(found.components[k].File("GPTDataset", config.split, "description.txt"));
  }
  source.describe = {
      {"split", config.split},
      {"add_extra_token_to_sequence", config.add_extra_token},
      {"blend_description",
       found.blend ? json(found.blend->File("BlendedDataset", config.split, "description.txt"))
                   : json()},
      {"component_descriptions", std::move(descriptions)}};
  return OpenMegatronBlend(
      components, std::move(source),
      [&](const std::vector<uint64_t>& sizes, BlendSource* s) {
        return CoreIndex(config, found, sizes, s);
      },
      ignore);
}

}  // namespace dsanalyze
