#include "metrics/registry.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "config/json_fields.h"
#include "config/memory_budget.h"
#include "format/vocab.h"
#include "metrics/builtin_metrics.h"
#include "metrics/plugin_library.h"
#include "metrics/plugin_metric.h"
#include "metrics/rarity.h"
#include "util/closest_name.h"

namespace dsanalyze {
namespace {

using Made = Result<std::unique_ptr<Metric>>;
using MakeFn = Made (*)(const MetricConfig& config, const JsonFields& params,
                        const Dataset& dataset);

struct Builtin {
  std::string_view name;
  std::string_view description;
  MetricType type;
  std::span<const std::string_view> params;  // the keys it takes
  MakeFn make;
  std::span<const NameAlias> aliases = {};  // words for its keys, for "did you mean"
};

Result<uint64_t> VocabSize(const JsonFields& params) {
  uint64_t vocab_size = 0;
  DSA_RETURN_IF_ERROR(params.Require("vocab_size"));
  DSA_RETURN_IF_ERROR(params.Uint("vocab_size", 1, kMaxVocabSize, &vocab_size));
  return vocab_size;
}

Result<std::unique_ptr<Metric>> MakeVocabRarity(const MetricConfig& config,
                                                const JsonFields& params, const Dataset& dataset,
                                                bool with_seqlen) {
  VocabRarityOptions o;
  o.name = config.name;
  o.config_index = config.index;
  o.ignore_token_ids = dataset.ignore_token_ids();
  o.with_seqlen = with_seqlen;
  DSA_ASSIGN_OR_RETURN(o.vocab_size, VocabSize(params));
  // Per token id: its count, its rarity, its units and whether it is ignored
  // (vocab_metrics.cc SetCounts).
  constexpr uint64_t kBytesPerId = 8 + 8 + 8 + 1;
  DSA_RETURN_IF_ERROR(
      CheckMemoryNeed({.key = "config: " + params.KeyPath("vocab_size"),
                       .what = "the rarities of " + std::to_string(o.vocab_size + 1) +
                               " token ids at " + std::to_string(kBytesPerId) + " bytes each",
                       .bytes = SaturatingProduct(o.vocab_size + 1, kBytesPerId)}));
  if (with_seqlen) DSA_RETURN_IF_ERROR(params.Uint("seq_length", 1, UINT64_MAX, &o.seq_length));
  std::string counts_path;
  DSA_RETURN_IF_ERROR(params.String("total_vocab_freq", &counts_path));
  if (!counts_path.empty()) {
    Result<std::vector<int64_t>> counts = ReadVocabCounts(counts_path, o.vocab_size);
    if (!counts.ok())
      return ConfigError(params.KeyPath("total_vocab_freq"), counts.status().message());
    o.counts = std::move(counts).value();
  }
  return NewVocabRarityMetric(o);
}

// params.scale (default 1000), at most `max`.
Result<uint64_t> Scale(const JsonFields& params, uint64_t max) {
  uint64_t scale = 1000;
  DSA_RETURN_IF_ERROR(params.Uint("scale", 1, max, &scale));
  return scale;
}

Made MakeRepeatedNgramRatio(const MetricConfig& config, const JsonFields& params,
                            const Dataset& dataset) {
  uint64_t n = 3;
  DSA_RETURN_IF_ERROR(params.Uint("n", 1, INT64_MAX, &n));
  DSA_ASSIGN_OR_RETURN(uint64_t scale, Scale(params, INT64_MAX));
  return NewRepeatedNgramRatioMetric(config.name, dataset.ignore_token_ids(), n, scale);
}

constexpr std::array<std::string_view, 0> kNoParams = {};
constexpr std::array<std::string_view, 1> kVocabParams = {"vocab_size"};
constexpr std::array<std::string_view, 2> kRarityParams = {"vocab_size", "total_vocab_freq"};
constexpr std::array<std::string_view, 9> kScoreParams = {
    "file", "per", "reduce", "scale", "bins", "descending", "nan", "field", "id_field"};
// What people call the score's keys elsewhere (too far from them in spelling
// for the edit distance to suggest them).
constexpr std::array<NameAlias, 7> kScoreAliases = {{{"path", "file"},
                                                     {"filename", "file"},
                                                     {"file_path", "file"},
                                                     {"key", "field"},
                                                     {"id", "id_field"},
                                                     {"reduction", "reduce"},
                                                     {"num_bins", "bins"}}};
constexpr std::array<std::string_view, 1> kScaleParams = {"scale"};
constexpr std::array<std::string_view, 2> kNgramParams = {"n", "scale"};
constexpr std::array<std::string_view, 3> kSeqlenRarityParams = {"vocab_size", "total_vocab_freq",
                                                                 "seq_length"};

// Sorted by name.
const std::array<Builtin, 10> kBuiltins = {{
    {"repeated_ngram_ratio",
     "share of the sample's n-grams that occur more than once in it, times scale (params: "
     "optional n, default 3; scale, default 1000)",
     MetricType::kSingleValuePerSample, kNgramParams, MakeRepeatedNgramRatio},
    {"score",
     "a score per document or per sample from a .npy or .jsonl file, as integers (params: file, "
     "per, scale or bins; optional reduce, descending, nan, field, id_field)",
     MetricType::kSingleValuePerSample, kScoreParams, MakeScoreMetric, kScoreAliases},
    {"seqlen", "number of elements (tokens) in the sample, not counting dataset.ignore_token_ids",
     MetricType::kSingleValuePerSample, kNoParams,
     [](const MetricConfig& c, const JsonFields&, const Dataset& d) -> Made {
       return NewSeqlenMetric(c.name, d.ignore_token_ids());
     }},
    {"seqlen_vocab_rarity",
     "seqlen * C + vocab_rarity, C a power of ten above any vocab_rarity (params: vocab_size; "
     "optional total_vocab_freq, seq_length)",
     MetricType::kSingleValuePerSample, kSeqlenRarityParams,
     [](const MetricConfig& c, const JsonFields& p, const Dataset& d) -> Made {
       return MakeVocabRarity(c, p, d, true);
     }},
    {"sum", "sum of the samples' single integers, in int64 (overflow is an error)",
     MetricType::kAccumulateValueOverSamples, kNoParams,
     [](const MetricConfig& c, const JsonFields&, const Dataset&) -> Made {
       return NewSumMetric(c.name);
     }},
    {"token_entropy",
     "Shannon entropy in bits of the sample's token distribution, times scale (params: "
     "optional scale, default 1000)",
     MetricType::kSingleValuePerSample, kScaleParams,
     [](const MetricConfig& c, const JsonFields& p, const Dataset& d) -> Made {
       DSA_ASSIGN_OR_RETURN(uint64_t scale, Scale(p, kMaxEntropyScale));
       return NewTokenEntropyMetric(c.name, d.ignore_token_ids(), scale);
     }},
    {"total_vocab_freq",
     "count of every token id 0..vocab_size over all samples, ignored ids not counted (params: "
     "vocab_size)",
     MetricType::kAccumulateValueOverSamples, kVocabParams,
     [](const MetricConfig& c, const JsonFields& p, const Dataset& d) -> Made {
       DSA_ASSIGN_OR_RETURN(uint64_t vocab_size, VocabSize(p));
       return NewTotalVocabFreqMetric(c.name, vocab_size, d.ignore_token_ids());
     }},
    {"unique_token_ratio",
     "distinct tokens / tokens of the sample, times scale (params: optional scale, default "
     "1000)",
     MetricType::kSingleValuePerSample, kScaleParams,
     [](const MetricConfig& c, const JsonFields& p, const Dataset& d) -> Made {
       DSA_ASSIGN_OR_RETURN(uint64_t scale, Scale(p, INT64_MAX));
       return NewUniqueTokenRatioMetric(c.name, d.ignore_token_ids(), scale);
     }},
    {"value", "the sample's single integer (each sample must have exactly one element)",
     MetricType::kSingleValuePerSample, kNoParams,
     [](const MetricConfig& c, const JsonFields&, const Dataset&) -> Made {
       return NewValueMetric(c.name);
     }},
    {"vocab_rarity",
     "-ln(freq/total) from total_vocab_freq, summed exactly over the sample's tokens, then "
     "truncated to an integer (params: vocab_size; optional total_vocab_freq file)",
     MetricType::kSingleValuePerSample, kRarityParams,
     [](const MetricConfig& c, const JsonFields& p, const Dataset& d) -> Made {
       return MakeVocabRarity(c, p, d, false);
     }},
}};

// params.<key> is a non-empty string / a positive integer (as the metric
// reads it; anything else counts as not given).
bool HasString(const nlohmann::json& params, const char* key) {
  const auto it = params.find(key);
  return it != params.end() && it->is_string() && !it->get_ref<const std::string&>().empty();
}
bool HasPositive(const nlohmann::json& params, const char* key) {
  const auto it = params.find(key);
  if (it == params.end() || !it->is_number_integer()) return false;
  return it->is_number_unsigned() ? it->get<uint64_t>() > 0 : it->get<int64_t>() > 0;
}

std::string EntryPath(const MetricConfig& config) {
  return "metrics[" + std::to_string(config.index) + "]";
}

}  // namespace

Result<std::unique_ptr<Metric>> CreateMetric(const MetricConfig& config, const Dataset& dataset) {
  if (!config.plugin.empty()) return NewPluginMetric(config);

  const auto it = std::find_if(kBuiltins.begin(), kBuiltins.end(),
                               [&](const Builtin& b) { return b.name == config.metric; });
  if (it == kBuiltins.end()) {
    std::vector<std::string_view> names;
    std::string list;
    for (const Builtin& b : kBuiltins) {
      names.push_back(b.name);
      list += (list.empty() ? "" : ", ") + std::string(b.name);
    }
    return ConfigError(EntryPath(config) + ".metric",
                       "unknown metric " + nlohmann::json(config.metric).dump() +
                           DidYouMean(config.metric, names) + "; available: " + list +
                           " (or a plugin's metric, with \"plugin\")");
  }

  DSA_ASSIGN_OR_RETURN(JsonFields params,
                       JsonFields::Of(config.params, EntryPath(config) + ".params"));
  if (it->params.empty() && !config.params.empty())
    return ConfigError(
        params.KeyPath(config.params.begin().key()),
        "unknown parameter (metric \"" + std::string(it->name) + "\" takes no params)");
  DSA_RETURN_IF_ERROR(params.CheckKnown(it->params, it->aliases));
  return it->make(config, params, dataset);
}

std::optional<std::string> NotMergeableBecause(const MetricConfig& config) {
  if (!config.plugin.empty()) return std::nullopt;
  const nlohmann::json& p = config.params;
  if (config.metric == "score" && p.is_object() && p.contains("bins"))
    return "its params.bins are equal-count bins of the part's own scores; give params.scale "
           "instead of bins (a value per score, the same in every part), or analyse the dataset "
           "in one run";
  if (config.metric != "vocab_rarity" && config.metric != "seqlen_vocab_rarity")
    return std::nullopt;
  std::string why;
  if (!HasString(p, "total_vocab_freq"))
    why =
        "without params.total_vocab_freq it counts the tokens of the part's samples only; run "
        "the parts with params.total_vocab_freq from one counts pass over the whole dataset (a "
        "total_vocab_freq metric, run whole or in parts and merged)";
  if (config.metric == "seqlen_vocab_rarity" && !HasPositive(p, "seq_length"))
    why += std::string(why.empty() ? "" : "; and ") +
           "without params.seq_length it takes the longest sample of the part; give "
           "params.seq_length";
  if (why.empty()) return std::nullopt;
  return why;
}

Result<std::optional<ScoreMeaning>> ScoreMeaningOf(const MetricConfig& config) {
  if (!config.plugin.empty() || config.metric != "score") return std::optional<ScoreMeaning>();
  DSA_ASSIGN_OR_RETURN(JsonFields params,
                       JsonFields::Of(config.params, EntryPath(config) + ".params"));
  ScoreMeaning meaning;
  DSA_RETURN_IF_ERROR(ParseScoreMeaning(params, &meaning));
  return std::optional<ScoreMeaning>(meaning);
}

std::vector<MetricInfo> ListBuiltinMetrics() {
  std::vector<MetricInfo> infos;
  for (const Builtin& b : kBuiltins)
    infos.push_back({std::string(b.name), std::string(b.description), b.type});
  return infos;
}

Result<PluginInfo> DescribePlugin(const std::string& path) {
  DSA_ASSIGN_OR_RETURN(std::shared_ptr<const PluginLibrary> library, PluginLibrary::Load(path));
  const auto text = [](const char* s) { return std::string(s ? s : ""); };
  PluginInfo info{text(library->plugin().name), text(library->plugin().description), {}};
  for (const dsa_metric_def& m : library->metrics())
    info.metrics.push_back({m.name, text(m.description),
                            m.type == DSA_SINGLE_VALUE_PER_SAMPLE
                                ? MetricType::kSingleValuePerSample
                                : MetricType::kAccumulateValueOverSamples});
  return info;
}

}  // namespace dsanalyze
