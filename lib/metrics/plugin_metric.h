// Metrics provided by plugins (dsanalyze/plugin.h): a config entry with
// "plugin": "path.so" and "metric": "<exported name>".
//
// NewPluginMetric loads the library, finds the metric and runs its init with
// the entry's params, so everything a plugin can reject is rejected before
// any sample is read, with the key path ("config: metrics[2].plugin: ...",
// "...metrics[2].metric: ...", "...metrics[2].params: ..."). The returned
// metric keeps the library loaded and calls the plugin's destroy when it is
// destroyed. Compute/Accumulate call the plugin's compute concurrently, as
// the ABI allows; they check the number of values it reports and turn its
// error messages into BadInput errors naming the metric.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "metrics/metric.h"
#include "util/status.h"

namespace dsanalyze {

// Longest vector an accumulate plugin metric may declare.
inline constexpr uint64_t kMaxPluginAccumulateLength = uint64_t{1} << 28;

Result<std::unique_ptr<Metric>> NewPluginMetric(const MetricConfig& config);

}  // namespace dsanalyze
