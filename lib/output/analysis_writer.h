// AnalysisWriter: how the run and `merge` write an analysis (rank 0 only).
// The whole analysis is staged in a folder beside the save path S and
// committed in one step, so a reader of S — or a run that is killed, by any
// signal and at any moment — sees either the complete previous analysis or
// the complete new one, never a mix (docs/reliability.md, "Atomic output").
//
// Create resolves S (through symbolic links: the target is replaced), takes
// the run lock P/.B.dsanalyze-run.lock beside it (P its parent, B its name;
// save_lock.h), finishes what killed runs left (commit_recovery.h), then
// creates the staging folder P/.B.dsanalyze-staging-XXXXXX. The run writes
// every metric folder and the reports (whatever files they are) in dir().
// Commit then:
//   1. takes the save path's lock P/.B.dsanalyze.lock exclusively, waiting
//      for its readers (save_lock.h: LockWaitSeconds, then IoError naming
//      the lock's holder, nothing changed);
//   2. moves the entries of S that are not part of its analysis (the user's
//      files and folders, hidden ones too; output/analysis_folder.h
//      AnalysisEntries) into the staged folder, after listing them beside S
//      (commit_recovery.h), so a kill while they move loses none of them;
//   3. swaps the staged folder with S: renameat2(RENAME_EXCHANGE), the one
//      step (a plain rename when S did not exist), and releases the lock;
//   4. empties the previous analysis, now at the staging name, into S:
//      deletes its own entries and moves everything else (what was created
//      in S after step 2 listed it) into S (commit_recovery.h
//      SettlePreviousAnalysis).
// The previous analysis's entries (metric folders, summary.json,
// curriculum_config.json, data_clusters/) therefore all go at once, and
// nothing else in S is deleted.
//
// What this needs of S, checked by Create before anything is written:
// neither a mount point nor the file system's root (the swap renames S
// within its parent), not the current directory (a process inside it would
// be left in the deleted previous analysis), and a parent folder where the
// locks and the staging folder can be created (else IoError naming it: no
// fallback that would give up the one-step commit). S keeps its permission
// bits. A save path that Create's lock required creating parents for has
// them removed again, if still empty, when no commit happened.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "output/save_lock.h"
#include "util/status.h"

namespace dsanalyze {

class AnalysisWriter {
 public:
  // Creates S's missing parents, takes the run lock, cleans up, then creates
  // the staging folder. BadInput, before anything is created: S (or a parent)
  // is a file or a symbolic link to nothing, S is a mount point or the current
  // directory, one of
  // `metric_names` is taken in S by an entry that is no analysis's (a user's
  // file or folder without metric files), which the commit would replace, or
  // DSANALYZE_LOCK_WAIT is not a number of seconds.
  // Messages name S by `path_key`: the run's config key, or merge's "--out".
  static Result<AnalysisWriter> Create(const std::string& save_path,
                                       const std::vector<std::string>& metric_names = {},
                                       std::string_view path_key = "output.path");

  AnalysisWriter(AnalysisWriter&& other) noexcept;
  AnalysisWriter& operator=(AnalysisWriter&&) = delete;
  AnalysisWriter(const AnalysisWriter&) = delete;
  ~AnalysisWriter();  // without a Commit: removes the staged folder

  // The staged analysis: write the metric folders and the reports here.
  const std::string& dir() const { return staging_; }
  // Creates dir()/<name>/ and returns its path.
  Result<std::string> MakeMetricDir(const std::string& name);

  // Makes everything in dir() the analysis at S in one step (see above). On
  // an error before the swap (the lock, the carry, the swap itself) S is as
  // it was, the user's entries back in it, and the staged analysis is kept
  // for another Commit. Test-only pause points (util/fault_point.h), in
  // order: commit_carry (the first user entry moved), commit (the new
  // analysis complete, S still the previous one), commit_swapped (S the new
  // one, the previous one beside it); and FaultFails("commit"): the swap
  // fails (EIO) after the carry.
  Status Commit();

 private:
  AnalysisWriter(std::string save_path, std::string_view path_key, std::string real_path,
                 SaveLock lock, std::vector<std::string> created, double lock_wait);
  Status Swap(bool replacing) const;
  std::optional<SaveLock> lock_;  // the run lock, released after the staging folder is gone
  std::string save_path_;         // as given, and its key: for messages
  std::string path_key_;
  std::string real_path_;  // S, symbolic links resolved
  std::string staging_;
  std::vector<std::string> created_;  // parents Create made, the deepest first
  double lock_wait_ = 0;              // seconds the swap waits for readers
  bool active_ = false;
};

}  // namespace dsanalyze
