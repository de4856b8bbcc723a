// A shared library that is not a dsanalyze plugin: it exports no
// dsa_plugin_register.
#include <dsanalyze/plugin.h>

DSA_PLUGIN_EXPORT int dsa_plugin_something_else(void) { return 1; }
