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
// old one is deleted. Then every other entry of the previous analysis that
// this run did not write (output/analysis_layout.h AnalysisEntries: metric
// folders of metrics not in this run, a stale curriculum_config.json, and
// data_clusters/, which DeepSpeed built from the old index files) is moved
// into the staging directory, so the save path holds exactly one analysis;
// the user's other files and hidden entries are never touched (Create
// refuses a metric whose folder would replace one). Last, the top-level
// files are renamed over their old versions, summary.json last. Each step is
// one rename: a kill between them leaves whole directories and the old
// summary.json, and verify reports a metric it lists that is gone.
// If the run fails before Commit, the destructor removes
// the staging directory and the save path keeps its previous results; a save
// path that Create made (with any parents it made) is removed again once the
// lock is released, if still empty, so a failed run leaves no trace. A run
// killed before Commit leaves only hidden entries (the staging directory, the
// lock file), which the next run removes or takes over. The lock is released
// when the StagedOutput is destroyed, after the staging directory is gone.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "output/save_lock.h"
#include "util/status.h"

namespace dsanalyze {

class StagedOutput {
 public:
  // Creates the save path (and parents) if needed, takes its lock, removes
  // stale staging directories, then creates the staging directory. BadInput,
  // before anything is created in the save path, when one of `metric_names`
  // is taken there by an entry that is no analysis's (a user's file or folder
  // without metric files), which the commit would otherwise replace. The
  // messages name the save path by `path_key`: the run's config key, or
  // merge's "--out".
  static Result<StagedOutput> Create(const std::string& save_path,
                                     const std::vector<std::string>& metric_names = {},
                                     std::string_view path_key = "output.path");

  StagedOutput(StagedOutput&& other) noexcept;
  StagedOutput& operator=(StagedOutput&&) = delete;
  StagedOutput(const StagedOutput&) = delete;
  ~StagedOutput();

  const std::string& staging_dir() const { return staging_; }
  // Creates staging/<name>/ and returns its path.
  Result<std::string> MakeMetricDir(const std::string& name);

  // Moves the staged metric directories `metric_names` and top-level `files`
  // into the save path, removes the previous analysis's entries that are in
  // neither list, then removes the staging directory (and with it the old
  // results).
  Status Commit(const std::vector<std::string>& metric_names,
                const std::vector<std::string>& files);

 private:
  StagedOutput(std::string save_path, std::string staging, SaveLock lock,
               std::vector<std::string> created);
  // Moves the entries of `previous` (the save path's analysis before this
  // run) that are in neither list into the staging directory.
  Status RemoveStale(const std::vector<std::string>& previous,
                     const std::vector<std::string>& metric_names,
                     const std::vector<std::string>& files);
  std::optional<SaveLock> lock_;  // released after the staging directory is gone
  std::string save_path_;
  std::string staging_;
  std::vector<std::string> created_;  // directories Create made, the save path first
  bool active_ = false;
};

}  // namespace dsanalyze
