// Atomic output: everything is written inside a hidden staging directory in
// the save path and moved into place only when complete.
//
// StagedOutput (rank 0 only) first takes the save path's lock (save_lock.h:
// a second run into the same save path fails at once), then removes the
// staging directories a killed run left behind (the lock proves no live run
// owns them), then creates SAVE/.dsanalyze-staging-XXXXXX. Commit()
// moves each staged metric directory to SAVE/<name>: with renameat2's
// RENAME_EXCHANGE when a previous result exists (old and new swap in one step,
// so a reader sees either the whole old or the whole new directory), then the
// old one is deleted; top-level files (summary.json, ...) are renamed over
// their old versions. If the run fails before Commit, the destructor removes
// the staging directory and the save path keeps its previous results. A run
// killed before Commit leaves only hidden entries (the staging directory, the
// lock file), which the next run removes or takes over. The lock is released
// when the StagedOutput is destroyed, after the staging directory is gone.
#pragma once

#include <string>
#include <vector>

#include "pipeline/save_lock.h"
#include "util/status.h"

namespace dsanalyze {

class StagedOutput {
 public:
  // Creates the save path (and parents) if needed, takes its lock, removes
  // stale staging directories, then creates the staging directory.
  static Result<StagedOutput> Create(const std::string& save_path);

  StagedOutput(StagedOutput&& other) noexcept;
  StagedOutput& operator=(StagedOutput&&) = delete;
  StagedOutput(const StagedOutput&) = delete;
  ~StagedOutput();

  const std::string& staging_dir() const { return staging_; }
  // Creates staging/<name>/ and returns its path.
  Result<std::string> MakeMetricDir(const std::string& name);

  // Moves the staged metric directories `metric_names` and top-level `files`
  // into the save path, then removes the staging directory.
  Status Commit(const std::vector<std::string>& metric_names,
                const std::vector<std::string>& files);

 private:
  StagedOutput(std::string save_path, std::string staging, SaveLock lock);
  SaveLock lock_;  // declared first: released last
  std::string save_path_;
  std::string staging_;
  bool active_ = false;
};

}  // namespace dsanalyze
