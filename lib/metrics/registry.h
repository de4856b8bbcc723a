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
