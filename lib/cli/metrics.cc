// `dsanalyze metrics [--plugin P]...`: lists the metrics a config can name:
// the built-ins, then each given plugin's exports, one line each with name,
// type and description. A plugin that does not load is an error (exit 2)
// with the loader's message; nothing is listed then, so scripts never see a
// partial list.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "metrics/registry.h"

namespace dsanalyze::cli {
namespace {

void PrintMetrics(const std::vector<MetricInfo>& metrics) {
  size_t width = 0;
  for (const MetricInfo& m : metrics) width = std::max(width, m.name.size());
  for (const MetricInfo& m : metrics)
    std::printf("  %-*s  %-29s  %s\n", static_cast<int>(width), m.name.c_str(),
                std::string(MetricTypeName(m.type)).c_str(), m.description.c_str());
}

}  // namespace

int ListMetrics(const MetricsOptions& options) {
  std::vector<PluginInfo> plugins;
  for (const std::string& path : options.plugins) {
    Result<PluginInfo> info = DescribePlugin(path);
    if (!info.ok()) return ReportFailure(info.status().WithPrefix("--plugin"));
    plugins.push_back(std::move(info).value());
  }
  std::printf("built-in metrics (\"metric\": NAME):\n");
  PrintMetrics(ListBuiltinMetrics());
  for (size_t i = 0; i < plugins.size(); ++i) {
    const PluginInfo& p = plugins[i];
    std::printf("\nplugin %s (\"plugin\": \"%s\", \"metric\": NAME): %s\n", p.name.c_str(),
                options.plugins[i].c_str(), p.description.c_str());
    if (p.metrics.empty())
      std::printf("  (exports no metrics)\n");
    else
      PrintMetrics(p.metrics);
  }
  return kExitOk;
}

}  // namespace dsanalyze::cli
