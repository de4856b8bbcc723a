// The registry of metrics: the built-ins' names, descriptions and params, and
// construction of any metric, built-in or from a plugin (plugin_metric.h),
// from a validated config entry.
//
// CreateMetric is where a metrics[i] entry meets the code that runs it, so it
// checks what the config layer cannot: that the metric exists (the error lists
// the available ones) and that its params are ones the metric takes. Errors are
// one line naming the key path ("config: metrics[2].metric: ...",
// "config: metrics[0].params.foo: ..."). The built-in part is stateless and
// safe from any thread; plugins are loaded with dlopen, so create plugin
// metrics and describe plugins from one thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "dataset/dataset.h"
#include "metrics/metric.h"
#include "util/status.h"

namespace dsanalyze {

struct MetricInfo {
  std::string name;
  std::string description;
  MetricType type;
};

// Creates the metric that `config` asks for, validating its params. The metric
// may keep what it needs of `dataset` (e.g. seqlen copies ignore_token_ids) but
// keeps no reference to it.
Result<std::unique_ptr<Metric>> CreateMetric(const MetricConfig& config, const Dataset& dataset);

// Why the values a metric gives the samples of a part of the dataset
// (dataset.sample_range) are not those a run over the whole dataset gives
// them, with the fix; nullopt when they are the same ("mergeable": `dsanalyze
// merge` of such parts equals the whole run). A metric is not mergeable when
// it learns from every sample analysed before it computes a value: a
// dependency pass (Metric::dependencies: vocab_rarity's token counts without
// params.total_vocab_freq, seqlen_vocab_rarity's longest sample without
// params.seq_length) or equal-count bins (Metric::rank_bins: score's
// params.bins). Decided from the config entry alone, so that merge can judge
// analyses whose summary.json records only their config. Plugin metrics have
// no dependencies (plugin.h): always mergeable.
std::optional<std::string> NotMergeableBecause(const MetricConfig& config);

// What a score metric's integers stand for, from its config entry alone (for
// the reports of an analysis made without the metric: merge); nullopt for any
// other metric. Errors: the entry's params, as CreateMetric words them.
Result<std::optional<ScoreMeaning>> ScoreMeaningOf(const MetricConfig& config);

// The built-in metrics, sorted by name.
std::vector<MetricInfo> ListBuiltinMetrics();

struct PluginInfo {
  std::string name;
  std::string description;
  std::vector<MetricInfo> metrics;  // in the plugin's order
};
// Loads the plugin at `path` and describes what it exports. Errors are the
// loader's one-liners ("plugin \"x.so\": no such file").
Result<PluginInfo> DescribePlugin(const std::string& path);

}  // namespace dsanalyze
