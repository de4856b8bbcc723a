// Atomic output: everything is written inside a hidden staging directory in
// the save path and moved into place only when complete.
//
// StagedOutput (rank 0 only) creates SAVE/.dsanalyze-staging-XXXXXX. Commit()
// moves each staged metric directory to SAVE/<name>: with renameat2's
// RENAME_EXCHANGE when a previous result exists (old and new swap in one step,
// so a reader sees either the whole old or the whole new directory), then the
// old one is deleted; top-level files (summary.json, ...) are renamed over
// their old versions. If the run fails before Commit, the destructor removes
// the staging directory and the save path keeps its previous results.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

class StagedOutput {
 public:
  // Creates the save path (and parents) if needed, then the staging directory.
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
  StagedOutput() = default;
  std::string save_path_;
  std::string staging_;
  bool active_ = false;
};

}  // namespace dsanalyze
