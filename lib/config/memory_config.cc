// ScratchDirOf and CheckMemoryConfig: the run-time half of config.h's memory
// section (the environment and the file system, which ParseConfig leaves alone).
#include <cstdlib>
#include <filesystem>

#include "config/config.h"
#include "config/json_fields.h"
#include "util/scratch_file.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;

// `path` made absolute and weakly canonical (symlinks of its existing part
// resolved); as written when that fails.
fs::path Resolved(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return fs::path(path).lexically_normal();
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  if (ec) return absolute.lexically_normal();
  return resolved;
}

// True if `inner` is `outer` or lies below it (both resolved, no trailing '/').
bool IsWithin(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // the empty last element of "a/b/"
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

}  // namespace

std::string ScratchDirOf(const MemoryConfig& memory) {
  if (!memory.scratch.empty()) return memory.scratch;
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir != nullptr && *tmpdir != '\0') return tmpdir;
  return "/tmp";
}

Status CheckMemoryConfig(const Config& config) {
  const MemoryConfig& memory = config.memory;
  if (memory.limit_per_rank == 0) return Status::OK();
  const std::string dir = ScratchDirOf(memory);
  // The default is named as such: the user did not write it.
  const std::string unset = memory.scratch.empty()
                                ? " (memory.scratch is not set: the default is TMPDIR, else /tmp)"
                                : "";
  const std::string& save = config.output.path;
  const fs::path resolved_dir = Resolved(dir);
  const fs::path resolved_save = Resolved(save);
  if (IsWithin(resolved_dir, resolved_save)) {
    const std::string where = IsWithin(resolved_save, resolved_dir)
                                  ? " is the save path"
                                  : " is inside the save path " + save;
    return ConfigError(
        "memory.scratch",
        dir + where + " (scratch must be node-local working space, never the save path)" + unset);
  }
  // A scratch folder that cannot be created is the environment's failure, as
  // for the save path (exit 3); the rest is the config's.
  if (Status st = CheckScratchDir(dir); !st.ok())
    return st.code() == Status::Code::kIoError
               ? Status::IoError("memory.scratch: " + st.message() + unset)
               : ConfigError("memory.scratch", st.message() + unset);
  return Status::OK();
}

}  // namespace dsanalyze
