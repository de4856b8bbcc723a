// PluginLibrary: one loaded metric plugin (the C ABI of dsanalyze/plugin.h).
//
// Load() dlopens the file and checks everything dsanalyze relies on before a
// metric is used: the file exists and is a shared library, it exports
// dsa_plugin_register, its ABI version is ours, and its metric table is well
// formed (names, types, a compute function). Errors are one BadInput line
// naming the file; callers add the config key or option they came from.
//
// Ownership: the library stays loaded while a shared_ptr to it lives; every
// metric instance of the plugin holds one, so the table and functions it
// points to outlive their users. Load() calls dlopen/dlerror, which are not
// safe to race with each other: load from one thread. Const accessors are
// safe from any thread.
#pragma once

#include <dsanalyze/plugin.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "util/status.h"

namespace dsanalyze {

class PluginLibrary {
 public:
  static Result<std::shared_ptr<const PluginLibrary>> Load(const std::string& path);
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::string& path() const { return path_; }
  const dsa_plugin& plugin() const { return *plugin_; }
  std::span<const dsa_metric_def> metrics() const {
    return {plugin_->metrics, static_cast<size_t>(plugin_->metric_count)};
  }
  // The metric exported as `name`, or a BadInput error listing the exported names.
  Result<const dsa_metric_def*> Find(std::string_view name) const;

 private:
  PluginLibrary(std::string path, void* handle, const dsa_plugin* plugin)
      : path_(std::move(path)), handle_(handle), plugin_(plugin) {}

  std::string path_;
  void* handle_;
  const dsa_plugin* plugin_;
};

}  // namespace dsanalyze
