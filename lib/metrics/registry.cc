#include "metrics/registry.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "config/json_fields.h"
#include "metrics/builtin_metrics.h"

namespace dsanalyze {
namespace {

struct Builtin {
  std::string_view name;
  std::string_view description;
  MetricType type;
  std::unique_ptr<Metric> (*make)(const MetricConfig& config, const Dataset& dataset);
};

// Sorted by name. None of the built-ins takes params.
const std::array<Builtin, 3> kBuiltins = {{
    {"seqlen", "number of elements (tokens) in the sample, not counting dataset.ignore_token_ids",
     MetricType::kSingleValuePerSample,
     [](const MetricConfig& c, const Dataset& d) {
       return NewSeqlenMetric(c.name, d.ignore_token_ids());
     }},
    {"sum", "sum of the samples' single integers, in int64 (overflow is an error)",
     MetricType::kAccumulateValueOverSamples,
     [](const MetricConfig& c, const Dataset&) { return NewSumMetric(c.name); }},
    {"value", "the sample's single integer (each sample must have exactly one element)",
     MetricType::kSingleValuePerSample,
     [](const MetricConfig& c, const Dataset&) { return NewValueMetric(c.name); }},
}};

std::string EntryPath(const MetricConfig& config) {
  return "metrics[" + std::to_string(config.index) + "]";
}

}  // namespace

Result<std::unique_ptr<Metric>> CreateMetric(const MetricConfig& config, const Dataset& dataset) {
  if (!config.plugin.empty())
    return ConfigError(EntryPath(config) + ".plugin",
                       "loading metric plugins is not supported yet");

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
                           DidYouMean(config.metric, names) + "; available: " + list);
  }

  if (!config.params.is_object())
    return ConfigError(EntryPath(config) + ".params",
                       "expected a JSON object {...}, got " + ShortJson(config.params));
  if (!config.params.empty())
    return ConfigError(
        EntryPath(config) + ".params." + config.params.begin().key(),
        "unknown parameter (metric \"" + std::string(it->name) + "\" takes no params)");
  return it->make(config, dataset);
}

std::vector<MetricInfo> ListBuiltinMetrics() {
  std::vector<MetricInfo> infos;
  for (const Builtin& b : kBuiltins)
    infos.push_back({std::string(b.name), std::string(b.description), b.type});
  return infos;
}

}  // namespace dsanalyze
