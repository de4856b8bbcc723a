#include "config/config.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <variant>

#include "config/byte_size.h"
#include "config/dataset_types.h"
#include "config/json_fields.h"
#include "util/closest_name.h"

namespace dsanalyze {
namespace {

using nlohmann::json;

// The keys of megatron_gpt's three index-map paths.
constexpr std::array<std::string_view, 3> kIndexMapKeys = {"doc_idx", "sample_idx", "shuffle_idx"};

Status ParseCodeTable(const JsonFields& f, std::string_view key, CodeTable* out) {
  std::string name;
  DSA_RETURN_IF_ERROR(f.String(key, &name));
  if (name.empty()) return Status::OK();
  const std::optional<CodeTable> table = CodeTableFromName(name);
  if (!table)
    return ConfigError(f.KeyPath(key), "unknown table " + json(name).dump() +
                                           " (use \"megatron\", \"deepspeed\" or "
                                           "\"deepspeed-legacy\")");
  *out = *table;
  return Status::OK();
}

bool Contains(std::span<const std::string_view> keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

Status ParseIndexMaps(const JsonFields& f, MegatronGptConfig* d) {
  const bool any_path = f.has("doc_idx") || f.has("sample_idx") || f.has("shuffle_idx");
  if (f.has("index_prefix")) {
    if (any_path)
      return ConfigError(f.path(),
                         "give \"index_prefix\" or the paths \"doc_idx\", \"sample_idx\" and "
                         "\"shuffle_idx\", not both");
    DSA_RETURN_IF_ERROR(f.String("index_prefix", &d->index_prefix));
    // The names Megatron-LM's legacy GPTDataset and Megatron-DeepSpeed cache
    // the maps under: <prefix>_<split>_indexmap_<N>ns_<L>sl_<seed>s_doc_idx.npy.
    d->doc_idx = d->index_prefix + "_doc_idx.npy";
    d->sample_idx = d->index_prefix + "_sample_idx.npy";
    d->shuffle_idx = d->index_prefix + "_shuffle_idx.npy";
    return Status::OK();
  }
  if (!any_path)
    return ConfigError(f.KeyPath("index_prefix"),
                       "required key is missing (or give the paths \"doc_idx\", \"sample_idx\" "
                       "and \"shuffle_idx\")");
  std::string* paths[] = {&d->doc_idx, &d->sample_idx, &d->shuffle_idx};
  for (size_t i = 0; i < kIndexMapKeys.size(); ++i) {
    if (!f.has(kIndexMapKeys[i]))
      return ConfigError(f.KeyPath(kIndexMapKeys[i]),
                         "required key is missing (\"doc_idx\", \"sample_idx\" and "
                         "\"shuffle_idx\" go together)");
    DSA_RETURN_IF_ERROR(f.String(kIndexMapKeys[i], paths[i]));
  }
  return Status::OK();
}

// The keys of each type (one overload per alternative of DatasetTypeConfig).
Status ParseType(const JsonFields& f, SyntheticModConfig* d) {
  DSA_RETURN_IF_ERROR(f.Require("num_samples"));
  DSA_RETURN_IF_ERROR(
      f.Uint("num_samples", 1, std::numeric_limits<int64_t>::max(), &d->num_samples));
  DSA_RETURN_IF_ERROR(f.Int("modulus", 1, std::numeric_limits<int64_t>::max(), &d->modulus));
  return f.Int("offset", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
               &d->offset);
}

Status ParseType(const JsonFields& f, DocumentsConfig* d) {
  DSA_RETURN_IF_ERROR(ParseCodeTable(f, "dtype_codes", &d->dtype_codes));
  DSA_RETURN_IF_ERROR(f.Require("prefixes"));
  return f.StringArray("prefixes", &d->prefixes);
}

Status ParseType(const JsonFields& f, PackedConfig* d) {
  DSA_RETURN_IF_ERROR(ParseCodeTable(f, "dtype_codes", &d->dtype_codes));
  DSA_RETURN_IF_ERROR(f.Require("prefixes"));
  DSA_RETURN_IF_ERROR(f.StringArray("prefixes", &d->prefixes));
  DSA_RETURN_IF_ERROR(f.Require("seq_length"));
  return f.Uint("seq_length", 1, kMaxSeqLength, &d->seq_length);
}

Status ParseType(const JsonFields& f, MegatronGptConfig* d) {
  DSA_RETURN_IF_ERROR(ParseCodeTable(f, "dtype_codes", &d->dtype_codes));
  DSA_RETURN_IF_ERROR(f.Require("prefix"));
  DSA_RETURN_IF_ERROR(f.String("prefix", &d->prefix));
  DSA_RETURN_IF_ERROR(f.Uint("seq_length", 1, kMaxSeqLength, &d->seq_length));
  DSA_RETURN_IF_ERROR(f.Bool("add_extra_token_to_sequence", &d->add_extra_token));
  return ParseIndexMaps(f, d);
}

// megatron_blend's entries of "datasets": the keys of megatron_gpt that name
// one component, dtype_codes and seq_length defaulting to the section's.
Status ParseBlendDatasets(const JsonFields& f, MegatronBlendConfig* d) {
  DSA_RETURN_IF_ERROR(f.Require("datasets"));
  const std::string path = f.KeyPath("datasets");
  const json& entries = f.at("datasets");
  if (!entries.is_array() || entries.empty())
    return ConfigError(
        path, "expected a non-empty array of {\"prefix\": ...} objects, got " + ShortJson(entries));
  if (entries.size() > kMaxBlendDatasets)
    return ConfigError(path, std::to_string(entries.size()) + " entries; a blend has at most " +
                                 std::to_string(kMaxBlendDatasets));
  for (size_t i = 0; i < entries.size(); ++i) {
    DSA_ASSIGN_OR_RETURN(JsonFields entry,
                         JsonFields::Of(entries[i], path + "[" + std::to_string(i) + "]"));
    MegatronGptConfig gpt;
    gpt.seq_length = d->seq_length;  // the section's, unless the entry gives its own
    gpt.dtype_codes = d->dtype_codes;
    gpt.add_extra_token = d->add_extra_token;
    DSA_RETURN_IF_ERROR(entry.CheckKnown(DatasetTypeKeys(gpt)));
    DSA_RETURN_IF_ERROR(ParseType(entry, &gpt));
    d->datasets.push_back(std::move(gpt));
  }
  return Status::OK();
}

// "weights": one number >= 0 per entry of "datasets", not all 0.
Status ParseBlendWeights(const JsonFields& f, MegatronBlendConfig* d) {
  const std::string path = f.KeyPath("weights");
  const json& j = f.at("weights");
  if (!j.is_array()) return ConfigError(path, "expected an array of numbers, got " + ShortJson(j));
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    if (!j[i].is_number()) return ConfigError(at, "expected a number, got " + ShortJson(j[i]));
    if (j[i].get<double>() < 0)
      return ConfigError(at, ShortJson(j[i]) + " is negative; weights are 0 or more");
    d->weights.push_back(j[i].get<double>());
  }
  if (d->weights.size() != d->datasets.size())
    return ConfigError(path, std::to_string(d->weights.size()) + " weights for " +
                                 std::to_string(d->datasets.size()) + " entries of " +
                                 f.KeyPath("datasets") +
                                 "; give one weight per entry, in its order");
  double sum = 0;
  for (double w : d->weights) sum += w;
  if (sum == 0) return ConfigError(path, "all weights are 0; at least one must be positive");
  if (!std::isfinite(sum)) return ConfigError(path, "the weights' sum is not finite");
  return Status::OK();
}

// With "weights": N given as "size", or derived from "train_samples".
Status ParseBlendSize(const JsonFields& f, MegatronBlendConfig* d) {
  if (f.has("size") == f.has("train_samples"))
    return ConfigError(f.path(),
                       "with \"weights\", give exactly one of \"size\" (the blend's sample "
                       "count N) and \"train_samples\" (then N is the sum over the datasets of "
                       "ceil(train_samples · weight · 1.005), as Megatron builds it)");
  DSA_RETURN_IF_ERROR(f.Uint("size", 1, kMaxBlendSize, &d->size));
  return f.Uint("train_samples", 1, kMaxBlendSize, &d->train_samples);
}

// The blend index: Megatron's two cached files, or "weights" and a size.
Status ParseBlendIndex(const JsonFields& f, MegatronBlendConfig* d) {
  constexpr std::array<std::string_view, 2> kFiles = {"dataset_index", "dataset_sample_index"};
  const bool files = f.has(kFiles[0]) || f.has(kFiles[1]);
  if (files && f.has("weights"))
    return ConfigError(f.path(),
                       "give the blend index files \"dataset_index\" and "
                       "\"dataset_sample_index\" or \"weights\" to compute it, not both");
  if (f.has("weights")) {
    DSA_RETURN_IF_ERROR(ParseBlendWeights(f, d));
    return ParseBlendSize(f, d);
  }
  for (std::string_view key : {"size", "train_samples"})
    if (f.has(key)) return ConfigError(f.KeyPath(key), "applies only with \"weights\"");
  if (!files)
    return ConfigError(f.KeyPath("dataset_index"),
                       "required key is missing (give Megatron's cached \"dataset_index\" and "
                       "\"dataset_sample_index\", or \"weights\" with \"size\" or "
                       "\"train_samples\" to compute the index as Megatron does)");
  for (std::string_view key : kFiles)
    if (!f.has(key))
      return ConfigError(f.KeyPath(key),
                         "required key is missing (\"dataset_index\" and "
                         "\"dataset_sample_index\" go together)");
  DSA_RETURN_IF_ERROR(f.String(kFiles[0], &d->dataset_index));
  return f.String(kFiles[1], &d->dataset_sample_index);
}

Status ParseType(const JsonFields& f, MegatronBlendConfig* d) {
  DSA_RETURN_IF_ERROR(ParseCodeTable(f, "dtype_codes", &d->dtype_codes));
  DSA_RETURN_IF_ERROR(f.Uint("seq_length", 1, kMaxSeqLength, &d->seq_length));
  DSA_RETURN_IF_ERROR(f.Bool("add_extra_token_to_sequence", &d->add_extra_token));
  DSA_RETURN_IF_ERROR(ParseBlendDatasets(f, d));
  return ParseBlendIndex(f, d);
}

// One weight of megatron_core's data_path, as Python's float() reads it; the
// whole entry must be the number (surrounding blanks aside).
std::optional<double> DataPathWeight(const std::string& entry) {
  const size_t first = entry.find_first_not_of(" \t\n");
  if (first == std::string::npos) return std::nullopt;
  const std::string trimmed = entry.substr(first, entry.find_last_not_of(" \t\n") - first + 1);
  char* end = nullptr;
  const double w = std::strtod(trimmed.c_str(), &end);
  if (end != trimmed.c_str() + trimmed.size()) return std::nullopt;
  return w;
}

// data_path as Core's get_blend_from_list reads it: an even-length list whose
// entries 0, 2, ... are all numbers is weights and prefixes interleaved;
// anything else is prefixes. Prefixes lose surrounding blanks; weights are > 0.
Status ParseDataPath(const JsonFields& f, MegatronCoreConfig* d) {
  DSA_RETURN_IF_ERROR(f.Require("data_path"));
  DSA_RETURN_IF_ERROR(f.StringArray("data_path", &d->data_path));
  const std::vector<std::string>& p = d->data_path;
  bool weighted = p.size() % 2 == 0;
  for (size_t i = 0; weighted && i < p.size(); i += 2) weighted = DataPathWeight(p[i]).has_value();
  for (size_t i = weighted ? 1 : 0; i < p.size(); i += weighted ? 2 : 1) {
    const size_t a = p[i].find_first_not_of(" \t\n"), b = p[i].find_last_not_of(" \t\n");
    d->prefixes.push_back(a == std::string::npos ? "" : p[i].substr(a, b - a + 1));
    if (!weighted) continue;
    const double w = *DataPathWeight(p[i - 1]);
    if (!(w > 0) || !std::isfinite(w))
      return ConfigError(f.KeyPath("data_path") + "[" + std::to_string(i - 1) + "]",
                         "weight " + json(p[i - 1]).dump() + " of " + json(p[i]).dump() +
                             " is not a positive number; Megatron-Core's weights are > 0");
    d->weights.push_back(w);
  }
  if (d->prefixes.size() > kMaxBlendDatasets)
    return ConfigError(f.KeyPath("data_path"), std::to_string(d->prefixes.size()) +
                                                   " prefixes; a blend has at most " +
                                                   std::to_string(kMaxBlendDatasets));
  return Status::OK();
}

Status ParseType(const JsonFields& f, MegatronCoreConfig* d) {
  DSA_RETURN_IF_ERROR(ParseCodeTable(f, "dtype_codes", &d->dtype_codes));
  DSA_RETURN_IF_ERROR(f.String("path_to_cache", &d->path_to_cache));
  DSA_RETURN_IF_ERROR(f.String("split", &d->split));
  if (d->split != "train" && d->split != "valid" && d->split != "test")
    return ConfigError(f.KeyPath("split"), "unknown split " + json(d->split).dump() +
                                               " (use \"train\", \"valid\" or \"test\")");
  DSA_RETURN_IF_ERROR(f.Bool("add_extra_token_to_sequence", &d->add_extra_token));
  DSA_RETURN_IF_ERROR(f.Uint("num_samples", 1, kMaxBlendSize, &d->num_samples));
  DSA_RETURN_IF_ERROR(f.String("description_hash", &d->description_hash));
  return ParseDataPath(f, d);
}

// "sample_range": [begin, end), two integers with 0 <= begin < end.
Status ParseSampleRange(const JsonFields& f, DatasetConfig* d) {
  if (!f.has("sample_range")) return Status::OK();
  const json& j = f.at("sample_range");
  const auto non_negative = [](const json& v) { return v.is_number_integer() && v >= 0; };
  if (!j.is_array() || j.size() != 2 || !non_negative(j[0]) || !non_negative(j[1]))
    return ConfigError(f.KeyPath("sample_range"),
                       "expected [begin, end], two non-negative integers, got " + ShortJson(j));
  const SampleRange range{j[0].get<uint64_t>(), j[1].get<uint64_t>()};
  if (range.begin >= range.end)
    return ConfigError(f.KeyPath("sample_range"), "begin " + std::to_string(range.begin) +
                                                      " must be less than end " +
                                                      std::to_string(range.end));
  d->sample_range = range;
  return Status::OK();
}

Status ParseDataset(const json& j, DatasetConfig* d) {
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(j, "dataset"));
  DSA_RETURN_IF_ERROR(f.Require("type"));
  std::string name;
  DSA_RETURN_IF_ERROR(f.String("type", &name));
  DSA_ASSIGN_OR_RETURN(const DatasetTypeInfo* type, FindDatasetType(name));
  const std::span<const std::string_view> type_keys = type->keys;

  std::vector<std::string_view> known(CommonDatasetKeys().begin(), CommonDatasetKeys().end());
  known.insert(known.end(), type_keys.begin(), type_keys.end());
  // A key of another type is a mistake worth naming as such, with this
  // type's near key ("prefix" under documents means "prefixes").
  for (const DatasetTypeInfo& other : DatasetTypes()) {
    for (std::string_view key : other.keys) {
      if (f.has(key) && !Contains(type_keys, key))
        return ConfigError("dataset", "key \"" + std::string(key) + "\" does not apply to type " +
                                          json(name).dump() + DidYouMean(key, known));
    }
  }
  DSA_RETURN_IF_ERROR(f.CheckKnown(known));

  DSA_RETURN_IF_ERROR(f.IntArray("ignore_token_ids", &d->ignore_token_ids));
  DSA_RETURN_IF_ERROR(f.String("sample_indices", &d->sample_indices));
  DSA_RETURN_IF_ERROR(ParseSampleRange(f, d));
  d->type = type->make();
  return std::visit([&](auto& t) { return ParseType(f, &t); }, d->type);
}

Status ParseMetric(const json& j, size_t index, MetricConfig* m) {
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(j, "metrics[" + std::to_string(index) + "]"));
  constexpr std::array<std::string_view, 4> kKeys = {"name", "metric", "plugin", "params"};
  DSA_RETURN_IF_ERROR(f.CheckKnown(kKeys));
  m->index = index;
  DSA_RETURN_IF_ERROR(f.Require("name"));
  if (!f.at("name").is_string())
    return ConfigError(f.KeyPath("name"), "expected a string, got " + ShortJson(f.at("name")));
  m->name = f.at("name").get<std::string>();
  if (!IsSafeMetricName(m->name)) {
    const std::string quoted = json(m->name).dump();
    if (m->name.size() > kMaxMetricNameLength)
      return ConfigError(f.KeyPath("name"),
                         "is longer than " + std::to_string(kMaxMetricNameLength) + " characters");
    if (!m->name.empty() && m->name[0] == '.')
      return ConfigError(f.KeyPath("name"), quoted +
                                                " is not a safe file name (a leading '.' makes a "
                                                "hidden or parent directory name)");
    return ConfigError(f.KeyPath("name"), quoted + " is not a safe file name (use [A-Za-z0-9_.-])");
  }
  DSA_RETURN_IF_ERROR(f.Require("metric"));
  DSA_RETURN_IF_ERROR(f.String("metric", &m->metric));
  DSA_RETURN_IF_ERROR(f.String("plugin", &m->plugin));
  if (f.has("params")) {
    if (!f.at("params").is_object())
      return ConfigError(f.KeyPath("params"),
                         "expected a JSON object {...}, got " + ShortJson(f.at("params")));
    m->params = f.at("params");
  }
  return Status::OK();
}

Status ParseMetrics(const json& j, std::vector<MetricConfig>* metrics) {
  if (!j.is_array() || j.empty())
    return ConfigError("metrics",
                       "expected a non-empty array of metric entries, got " + ShortJson(j));
  std::map<std::string, size_t> seen;  // name → index
  for (size_t i = 0; i < j.size(); ++i) {
    MetricConfig m;
    DSA_RETURN_IF_ERROR(ParseMetric(j[i], i, &m));
    auto [it, inserted] = seen.emplace(m.name, i);
    if (!inserted)
      return ConfigError("metrics[" + std::to_string(i) + "].name",
                         json(m.name).dump() + " is already the name of metrics[" +
                             std::to_string(it->second) + "]; names must be unique");
    metrics->push_back(std::move(m));
  }
  return Status::OK();
}

// output.files: known names, each once, "percentile_merged" with
// "index_to_sample", "reports" always; kept in kOutputFileChoices order.
Status ParseOutputFiles(const JsonFields& f, std::vector<std::string>* files) {
  std::vector<std::string> names;
  DSA_RETURN_IF_ERROR(f.StringArray("files", &names));
  if (!f.has("files")) return Status::OK();
  const std::string path = f.KeyPath("files");
  std::set<std::string_view> chosen;
  for (const std::string& name : names) {
    if (std::find(kOutputFileChoices.begin(), kOutputFileChoices.end(), name) ==
        kOutputFileChoices.end())
      return ConfigError(path, "unknown output " + json(name).dump() +
                                   DidYouMean(name, kOutputFileChoices) +
                                   "; known: " + json(AllOutputFiles()).dump());
    if (!chosen.insert(name).second)
      return ConfigError(path, json(name).dump() + " is listed twice");
  }
  if (chosen.count("percentile_merged") && !chosen.count("index_to_sample"))
    return ConfigError(path,
                       "\"percentile_merged\" needs \"index_to_sample\" (its .bin is a hard link "
                       "to index_to_sample's)");
  if (!chosen.count("reports"))
    return ConfigError(path,
                       "\"reports\" is required (summary.json records the choice for verify and "
                       "compare)");
  files->clear();
  for (std::string_view name : kOutputFileChoices)
    if (chosen.count(name)) files->emplace_back(name);
  return Status::OK();
}

Status ParseOutput(const json& j, OutputConfig* o) {
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(j, "output"));
  constexpr std::array<std::string_view, 7> kKeys = {
      "path",  "dtype_codes",      "chunk_bytes", "fsync", "total_curriculum_step",
      "files", "curriculum_metric"};
  DSA_RETURN_IF_ERROR(f.CheckKnown(kKeys));
  DSA_RETURN_IF_ERROR(f.Require("path"));
  DSA_RETURN_IF_ERROR(f.String("path", &o->path));
  DSA_RETURN_IF_ERROR(ParseCodeTable(f, "dtype_codes", &o->dtype_codes));
  // Megatron's table has no uint32/uint64 codes, which sample ids past 65535
  // need; refuse it now rather than after the whole analysis has run.
  if (o->dtype_codes == CodeTable::kMegatron)
    return ConfigError(f.KeyPath("dtype_codes"),
                       "\"megatron\" cannot be written (it has no uint32 or uint64 code); use "
                       "\"deepspeed\" or \"deepspeed-legacy\"");
  DSA_RETURN_IF_ERROR(f.Uint("chunk_bytes", kMinChunkBytes, kMaxChunkBytes, &o->chunk_bytes));
  DSA_RETURN_IF_ERROR(f.Bool("fsync", &o->fsync));
  DSA_RETURN_IF_ERROR(f.Uint("total_curriculum_step", 1, std::numeric_limits<int64_t>::max(),
                             &o->total_curriculum_step));
  DSA_RETURN_IF_ERROR(f.String("curriculum_metric", &o->curriculum_metric));
  return ParseOutputFiles(f, &o->files);
}

// output.curriculum_metric names one of the metrics (its type is checked
// once the metrics are created: pipeline.cc).
Status CheckCurriculumMetric(const Config& c) {
  const std::string& name = c.output.curriculum_metric;
  std::vector<std::string> names;
  for (const MetricConfig& m : c.metrics) names.push_back(m.name);
  if (name.empty() || std::find(names.begin(), names.end(), name) != names.end())
    return Status::OK();
  const std::vector<std::string_view> choices(names.begin(), names.end());
  return ConfigError("output.curriculum_metric",
                     json(name).dump() + " is not a metric of this config" +
                         DidYouMean(name, choices) + "; its metrics: " + json(names).dump());
}

Status ParseMap(const json& j, MapConfig* m) {
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(j, "map"));
  constexpr std::array<std::string_view, 2> kKeys = {"threads", "batch_size"};
  DSA_RETURN_IF_ERROR(f.CheckKnown(kKeys));
  uint64_t threads = m->threads;
  DSA_RETURN_IF_ERROR(f.Uint("threads", 1, kMaxThreads, &threads));
  m->threads = static_cast<unsigned>(threads);
  DSA_RETURN_IF_ERROR(f.Uint("batch_size", 1, kMaxBatchSize, &m->batch_size));
  return Status::OK();
}

// memory.limit_per_rank: a size string ("2GiB") or a JSON integer of bytes,
// within [kMinMemoryLimit, kMaxMemoryLimit].
Status ParseMemoryLimit(const JsonFields& f, uint64_t* out) {
  const std::string path = f.KeyPath("limit_per_rank");
  const json& j = f.at("limit_per_rank");
  const std::string shown = ShortJson(j);
  std::optional<uint64_t> bytes;
  if (j.is_string()) {
    if (Result<uint64_t> parsed = ParseByteSize(j.get_ref<const std::string&>()); parsed.ok())
      bytes = *parsed;
  } else if (j.is_number_unsigned()) {
    bytes = j.get<uint64_t>();
  } else if (j.is_number_float() && j.get<double>() >= 0 && j.get<double>() < 1.8e19 &&
             j.get<double>() == static_cast<double>(static_cast<uint64_t>(j.get<double>()))) {
    bytes = static_cast<uint64_t>(j.get<double>());  // 2e9, as integers elsewhere
  }
  if (!bytes)
    return ConfigError(path, shown + " is not a size (examples: \"2GiB\", \"512MiB\", 2147483648)");
  if (*bytes < kMinMemoryLimit)
    return ConfigError(path, shown + " is below the minimum of " + FormatByteSize(kMinMemoryLimit) +
                                 " (a smaller budget cannot hold the sort's buffers)");
  if (*bytes > kMaxMemoryLimit)
    return ConfigError(path, shown + " is above the maximum of " + FormatByteSize(kMaxMemoryLimit));
  *out = *bytes;
  return Status::OK();
}

Status ParseMemory(const json& j, MemoryConfig* m) {
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(j, "memory"));
  constexpr std::array<std::string_view, 2> kKeys = {"limit_per_rank", "scratch"};
  DSA_RETURN_IF_ERROR(f.CheckKnown(kKeys));
  if (f.has("limit_per_rank")) DSA_RETURN_IF_ERROR(ParseMemoryLimit(f, &m->limit_per_rank));
  DSA_RETURN_IF_ERROR(f.String("scratch", &m->scratch));
  if (!m->scratch.empty() && m->limit_per_rank == 0)
    return ConfigError(f.KeyPath("scratch"),
                       "is set but memory.limit_per_rank is not: the scratch directory is used "
                       "only under a memory limit");
  return Status::OK();
}

// The keys of each type in ConfigToJson's dataset object (one overload per
// alternative of DatasetTypeConfig).
void AddTypeKeys(const SyntheticModConfig& d, json* dataset) {
  (*dataset)["num_samples"] = d.num_samples;
  (*dataset)["modulus"] = d.modulus;
  (*dataset)["offset"] = d.offset;
}

void AddTypeKeys(const DocumentsConfig& d, json* dataset) {
  (*dataset)["prefixes"] = d.prefixes;
  (*dataset)["dtype_codes"] = CodeTableName(d.dtype_codes);
}

void AddTypeKeys(const PackedConfig& d, json* dataset) {
  (*dataset)["prefixes"] = d.prefixes;
  (*dataset)["dtype_codes"] = CodeTableName(d.dtype_codes);
  (*dataset)["seq_length"] = d.seq_length;
}

void AddTypeKeys(const MegatronGptConfig& d, json* dataset) {
  (*dataset)["prefix"] = d.prefix;
  (*dataset)["dtype_codes"] = CodeTableName(d.dtype_codes);
  if (d.seq_length != 0) (*dataset)["seq_length"] = d.seq_length;
  if (!d.add_extra_token) (*dataset)["add_extra_token_to_sequence"] = false;
  if (!d.index_prefix.empty()) {
    (*dataset)["index_prefix"] = d.index_prefix;
  } else {
    (*dataset)["doc_idx"] = d.doc_idx;
    (*dataset)["sample_idx"] = d.sample_idx;
    (*dataset)["shuffle_idx"] = d.shuffle_idx;
  }
}

void AddTypeKeys(const MegatronBlendConfig& d, json* dataset) {
  json entries = json::array();
  for (const MegatronGptConfig& entry : d.datasets) {
    json e = json::object();
    AddTypeKeys(entry, &e);
    entries.push_back(std::move(e));
  }
  (*dataset)["datasets"] = std::move(entries);
  (*dataset)["dtype_codes"] = CodeTableName(d.dtype_codes);
  if (d.seq_length != 0) (*dataset)["seq_length"] = d.seq_length;
  if (!d.add_extra_token) (*dataset)["add_extra_token_to_sequence"] = false;
  if (d.weights.empty()) {
    (*dataset)["dataset_index"] = d.dataset_index;
    (*dataset)["dataset_sample_index"] = d.dataset_sample_index;
    return;
  }
  (*dataset)["weights"] = d.weights;
  if (d.size != 0) (*dataset)["size"] = d.size;
  if (d.train_samples != 0) (*dataset)["train_samples"] = d.train_samples;
}

void AddTypeKeys(const MegatronCoreConfig& d, json* dataset) {
  if (!d.path_to_cache.empty()) (*dataset)["path_to_cache"] = d.path_to_cache;
  (*dataset)["split"] = d.split;
  (*dataset)["data_path"] = d.data_path;
  (*dataset)["add_extra_token_to_sequence"] = d.add_extra_token;
  if (d.num_samples != 0) (*dataset)["num_samples"] = d.num_samples;
  if (!d.description_hash.empty()) (*dataset)["description_hash"] = d.description_hash;
  (*dataset)["dtype_codes"] = CodeTableName(d.dtype_codes);
}

}  // namespace

bool IsSafeMetricName(const std::string& name) {
  if (name.empty() || name.size() > kMaxMetricNameLength || name[0] == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<Config> ParseConfig(const json& j) {
  Config c;
  DSA_ASSIGN_OR_RETURN(JsonFields f, JsonFields::Of(j, ""));
  constexpr std::array<std::string_view, 5> kKeys = {"dataset", "metrics", "output", "map",
                                                     "memory"};
  DSA_RETURN_IF_ERROR(f.CheckKnown(kKeys));
  for (std::string_view key : {"dataset", "metrics", "output"}) DSA_RETURN_IF_ERROR(f.Require(key));
  DSA_RETURN_IF_ERROR(ParseDataset(f.at("dataset"), &c.dataset));
  DSA_RETURN_IF_ERROR(ParseMetrics(f.at("metrics"), &c.metrics));
  DSA_RETURN_IF_ERROR(ParseOutput(f.at("output"), &c.output));
  DSA_RETURN_IF_ERROR(CheckCurriculumMetric(c));
  if (f.has("map")) DSA_RETURN_IF_ERROR(ParseMap(f.at("map"), &c.map));
  if (f.has("memory")) DSA_RETURN_IF_ERROR(ParseMemory(f.at("memory"), &c.memory));
  return c;
}

json ConfigToJson(const Config& c) {
  const DatasetConfig& d = c.dataset;
  json dataset = {{"type", DatasetTypeName(d.type)}, {"ignore_token_ids", d.ignore_token_ids}};
  if (!d.sample_indices.empty()) dataset["sample_indices"] = d.sample_indices;
  if (d.sample_range) dataset["sample_range"] = {d.sample_range->begin, d.sample_range->end};
  std::visit([&](const auto& t) { AddTypeKeys(t, &dataset); }, d.type);
  json metrics = json::array();
  for (const MetricConfig& m : c.metrics) {
    json entry = {{"name", m.name}, {"metric", m.metric}, {"params", m.params}};
    if (!m.plugin.empty()) entry["plugin"] = m.plugin;
    metrics.push_back(std::move(entry));
  }
  const OutputConfig& o = c.output;
  json output = {{"path", o.path},
                 {"dtype_codes", CodeTableName(o.dtype_codes)},
                 {"chunk_bytes", o.chunk_bytes},
                 {"fsync", o.fsync}};
  if (o.total_curriculum_step != 0) output["total_curriculum_step"] = o.total_curriculum_step;
  if (o.files != AllOutputFiles()) output["files"] = o.files;
  if (!o.curriculum_metric.empty()) output["curriculum_metric"] = o.curriculum_metric;
  json config = {{"dataset", std::move(dataset)},
                 {"metrics", std::move(metrics)},
                 {"output", std::move(output)},
                 {"map", {{"threads", c.map.threads}, {"batch_size", c.map.batch_size}}}};
  if (c.memory.limit_per_rank != 0) {
    json memory = {{"limit_per_rank", FormatByteSize(c.memory.limit_per_rank)}};
    if (!c.memory.scratch.empty()) memory["scratch"] = c.memory.scratch;
    config["memory"] = std::move(memory);
  }
  return config;
}

}  // namespace dsanalyze
