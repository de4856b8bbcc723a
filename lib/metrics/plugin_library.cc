#include "metrics/plugin_library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "util/file_util.h"

namespace dsanalyze {
namespace {

std::string Quoted(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

Status PluginError(const std::string& path, const std::string& problem) {
  return Status::BadInput("plugin " + Quoted(path) + ": " + problem);
}

bool IsSafeName(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* p = name; *p; ++p) {
    const char c = *p;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// The checks a metric table must pass before any of it is used.
Status CheckMetricTable(const std::string& path, const dsa_plugin& plugin) {
  if (plugin.metric_count > 0 && plugin.metrics == nullptr)
    return PluginError(path, "dsa_plugin_register returned metric_count " +
                                 std::to_string(plugin.metric_count) + " but no metrics array");
  std::set<std::string> names;
  for (uint64_t i = 0; i < plugin.metric_count; ++i) {
    const dsa_metric_def& m = plugin.metrics[i];
    const std::string which = "metric #" + std::to_string(i);
    if (!IsSafeName(m.name))
      return PluginError(path, which + " has no valid name (use [A-Za-z0-9_.-])");
    const std::string named = which + " (" + Quoted(m.name) + ")";
    if (!names.insert(m.name).second)
      return PluginError(path, named + " has the same name as an earlier metric");
    if (m.type != DSA_SINGLE_VALUE_PER_SAMPLE && m.type != DSA_ACCUMULATE_VALUE_OVER_SAMPLES)
      return PluginError(path, named + " has unknown type " + std::to_string(m.type));
    if (m.compute == nullptr) return PluginError(path, named + " has no compute function");
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const PluginLibrary>> PluginLibrary::Load(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return PluginError(path, errno == ENOENT ? "no such file" : std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return PluginError(path, "is a directory, not a shared library");
  // dlopen of a FIFO would wait in open(2) for a writer, where SIGINT and
  // SIGTERM cannot end it; a device would be mapped. InputFile refuses both
  // without waiting (util/file_util.h). dlopen then opens the name again (it
  // takes no descriptor; /proc/self/fd/N would break a plugin's $ORIGIN), so
  // only a file swapped for a FIFO in between could still make it wait.
  if (Result<InputFile> file = InputFile::Open(path); !file.ok()) {
    const std::string problem = file.status().message();
    return PluginError(
        path, problem.rfind(path + ": ", 0) == 0 ? problem.substr(path.size() + 2) : problem);
  }

  // A name without '/' would make dlopen search the library path; config paths
  // are relative to the working directory.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  void* handle = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return PluginError(path, std::string("cannot be loaded as a shared library: ") +
                                 (why ? why : "unknown dlopen error"));
  }
  // From here on, errors must close the handle.
  auto fail = [&](Status s) -> Result<std::shared_ptr<const PluginLibrary>> {
    dlclose(handle);
    return s;
  };
  dlerror();
  void* symbol = dlsym(handle, DSA_PLUGIN_REGISTER_SYMBOL);
  if (symbol == nullptr)
    return fail(PluginError(path,
                            "does not export " DSA_PLUGIN_REGISTER_SYMBOL
                            ", so it is not a dsanalyze metric plugin (see docs/plugins.md)"));
  const auto register_fn = reinterpret_cast<dsa_plugin_register_fn>(symbol);
  const dsa_plugin* plugin = register_fn();
  if (plugin == nullptr)
    return fail(PluginError(path, DSA_PLUGIN_REGISTER_SYMBOL "() returned NULL"));
  if (plugin->abi_version != DSA_PLUGIN_ABI_VERSION)
    return fail(PluginError(
        path, "was built for plugin ABI version " + std::to_string(plugin->abi_version) +
                  ", but this dsanalyze supports version " +
                  std::to_string(DSA_PLUGIN_ABI_VERSION) +
                  "; rebuild it against this dsanalyze's include/dsanalyze/plugin.h"));
  if (Status s = CheckMetricTable(path, *plugin); !s.ok()) return fail(s);
  return std::shared_ptr<const PluginLibrary>(new PluginLibrary(path, handle, plugin));
}

PluginLibrary::~PluginLibrary() { dlclose(handle_); }

Result<const dsa_metric_def*> PluginLibrary::Find(std::string_view name) const {
  std::string list;
  for (const dsa_metric_def& m : metrics()) {
    if (name == m.name) return &m;
    list += (list.empty() ? "" : ", ") + std::string(m.name);
  }
  return PluginError(path_, "does not export a metric " + Quoted(name) +
                                (list.empty() ? "; it exports none" : "; it exports: " + list));
}

}  // namespace dsanalyze
