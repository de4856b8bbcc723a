// The dataset types: one struct per type holding that type's settings (the
// keys of a config's "dataset" section besides the common ones), the variant
// of them that DatasetConfig holds, and the one table that names them ("type"
// in the config) and lists the keys each one takes.
//
// ParseConfig validates against the table, ConfigToJson writes from it, and
// OpenDataset (dataset/open_dataset.h) visits the variant, so a name and the
// error for an unknown one are written only here. A new type is a struct, an
// alternative of DatasetTypeConfig and a row of the table (in the variant's
// order); every std::visit over the variant (its parsing and writing in
// config.cc, its opening in open_dataset.cc) must then handle it, which the
// compiler checks.
//
// Plain values and pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "format/dtype.h"
#include "util/status.h"

namespace dsanalyze {

// synthetic_mod (format.md §4): sample x is the single integer (x + offset)
// mod modulus (a result in [0, modulus), as Python's % gives).
struct SyntheticModConfig {
  uint64_t num_samples = 0;
  int64_t modulus = 10000;
  int64_t offset = 7;

  bool operator==(const SyntheticModConfig&) const = default;
};

// documents: one document (row) = one sample, prefixes concatenated in order.
struct DocumentsConfig {
  std::vector<std::string> prefixes;
  CodeTable dtype_codes = CodeTable::kMegatron;  // table the input .idx files were written with

  bool operator==(const DocumentsConfig&) const = default;
};

// packed: the rows' tokens concatenated in prefix order, cut into samples of
// seq_length + 1 tokens with stride seq_length.
struct PackedConfig {
  std::vector<std::string> prefixes;
  CodeTable dtype_codes = CodeTable::kMegatron;
  uint64_t seq_length = 0;  // required, >= 1

  bool operator==(const PackedConfig&) const = default;
};

// megatron_gpt: the samples Megatron's GPTDataset builds from the rows of
// `prefix` through its cached index maps (format.md §3). The maps are the
// three paths, given directly or as index_prefix + "_doc_idx.npy", ... (then
// index_prefix is kept too, for messages and ConfigToJson).
struct MegatronGptConfig {
  std::string prefix;
  std::string index_prefix;
  std::string doc_idx;
  std::string sample_idx;
  std::string shuffle_idx;
  // Optional (0 = not given); when given, every sample must have
  // seq_length + 1 tokens.
  uint64_t seq_length = 0;
  CodeTable dtype_codes = CodeTable::kMegatron;
  // Megatron-Core's add_extra_token_to_sequence: a sample's end token
  // (sample_idx's next row) is its last (true) or just past it (false).
  bool add_extra_token = true;

  bool operator==(const MegatronGptConfig&) const = default;
};

// megatron_blend: Megatron's blend of megatron_gpt datasets (the components).
// Sample i is component dataset_index[i]'s training sample
// dataset_sample_index[i]; the index is Megatron's cached one (the two .npy
// paths) or computed from `weights` and the blend's size N: `size`, or
// derived from `train_samples` (dataset/blend_index.h says how).
struct MegatronBlendConfig {
  // Each with its own dtype_codes and seq_length: the entry's, else the section's.
  std::vector<MegatronGptConfig> datasets;
  CodeTable dtype_codes = CodeTable::kMegatron;  // the section's
  uint64_t seq_length = 0;                       // the section's; 0: not given
  bool add_extra_token = true;                   // the section's
  std::string dataset_index;                     // Megatron's cached index...
  std::string dataset_sample_index;
  std::vector<double> weights;  // ...or computed: one weight >= 0 per entry, not all 0
  uint64_t size = 0;            // N given (0: not given)...
  uint64_t train_samples = 0;   // ...or the train sample count N derives from

  bool operator==(const MegatronBlendConfig&) const = default;
};

// megatron_core: the samples Megatron-Core's GPTDataset or BlendedDataset
// gives training, found in its cache folder (--data-cache-path) by their
// description files (docs/config.md, "megatron_core").
struct MegatronCoreConfig {
  std::string path_to_cache;  // "": each prefix's cache/GPTDataset_indices, Core's default
  std::string split = "train";
  // Megatron's --data-path as written: prefixes, or weights and prefixes
  // interleaved; `prefixes` and `weights` are what it says (weights empty
  // when it has none; each > 0 otherwise).
  std::vector<std::string> data_path;
  std::vector<std::string> prefixes;
  std::vector<double> weights;
  bool add_extra_token = true;   // Core's add_extra_token_to_sequence
  uint64_t num_samples = 0;      // the split's requested samples; 0: not given
  std::string description_hash;  // picks one of several candidate descriptions
  CodeTable dtype_codes = CodeTable::kMegatron;

  bool operator==(const MegatronCoreConfig&) const = default;
};

// The type of a dataset with its settings; the alternatives in the order of
// DatasetTypes().
using DatasetTypeConfig = std::variant<SyntheticModConfig, DocumentsConfig, PackedConfig,
                                       MegatronGptConfig, MegatronBlendConfig, MegatronCoreConfig>;

struct DatasetTypeInfo {
  std::string_view name;                   // as written in the config
  std::span<const std::string_view> keys;  // its keys besides the common ones
  DatasetTypeConfig (*make)();             // the type with its defaults
};

// Keys every dataset type accepts ("type" among them).
std::span<const std::string_view> CommonDatasetKeys();

// Every type, in the variant's order (the order the unknown-type error lists them).
std::span<const DatasetTypeInfo> DatasetTypes();

// The name of the type `config` holds ("megatron_gpt"), and its keys.
std::string_view DatasetTypeName(const DatasetTypeConfig& config);
std::span<const std::string_view> DatasetTypeKeys(const DatasetTypeConfig& config);

// The config key whose value sets the dataset's sample count N, for messages
// about N: "dataset.num_samples" (synthetic_mod), "dataset.prefixes" (the
// rows or tokens of the files: documents, packed), "dataset.shuffle_idx" or
// "dataset.index_prefix" (megatron_gpt), "dataset.size",
// "dataset.train_samples" or "dataset.dataset_index" (megatron_blend).
std::string_view SampleCountKey(const DatasetTypeConfig& config);
std::string_view SampleCountKey(const MegatronBlendConfig& config);

// The type named `name`, or BadInput "config: dataset.type: unknown dataset
// type "x" (did you mean "y"?); known types: ...".
Result<const DatasetTypeInfo*> FindDatasetType(std::string_view name);

}  // namespace dsanalyze
