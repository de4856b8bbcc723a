// A plugin whose metric table is malformed (a metric without compute).
#include <dsanalyze/plugin.h>

namespace {
const dsa_metric_def kMetrics[] = {
    {"no_compute", "has no compute function", DSA_SINGLE_VALUE_PER_SAMPLE, 0, nullptr, nullptr,
     nullptr},
};
const dsa_plugin kPlugin = {DSA_PLUGIN_ABI_VERSION, "bad_table", "malformed", 1, kMetrics};
}  // namespace

DSA_PLUGIN_EXPORT const dsa_plugin* dsa_plugin_register(void) { return &kPlugin; }
