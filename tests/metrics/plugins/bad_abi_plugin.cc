// A plugin built for a future ABI version: dsanalyze must refuse it before
// reading anything past abi_version.
#include <dsanalyze/plugin.h>

namespace {
const dsa_plugin kPlugin = {DSA_PLUGIN_ABI_VERSION + 1, "bad_abi", "from the future", 0, nullptr};
}

DSA_PLUGIN_EXPORT const dsa_plugin* dsa_plugin_register(void) { return &kPlugin; }
