// The pieces of AnalysisWriter's commit (analysis_writer.h) that must survive
// a kill: the names beside the save path, the user's entries carried into the
// new analysis and those taken out of the previous one, and the cleanup of
// what a killed run left.
//
// Everything a run creates lives beside the save path S (P/.B<suffix>, P its
// parent, B its name), never inside it, since S itself is swapped away:
// the locks (save_lock.h), the staging folder T and, during a commit, the
// list P/.B.dsanalyze-carried. The list names T and its inode and the user's
// entries the commit carries from S into T; it is written before the first
// one moves and deleted once the commit is done. The swap exchanges T and S,
// so after it T is the previous analysis, with another inode: the inode says
// on which side of the swap a commit was killed.
//
// A run killed during a commit leaves the list, and the next run's
// CleanUpKilledRuns finishes what it left:
//   - before the swap (T has the listed inode), T holds the unfinished new
//     analysis and some of the listed entries: each listed entry still in T
//     moves back into S, then T is deleted;
//   - after the swap, T holds the previous analysis and whatever was created
//     in S while the commit ran (after its listing): SettlePreviousAnalysis.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

inline constexpr std::string_view kStagingSuffix = ".dsanalyze-staging-";
inline constexpr std::string_view kCarriedSuffix = ".dsanalyze-carried";
// Appended to a user's entry that the commit moves into S when S has an entry
// of its name: NAME.before-commit, else NAME.before-commit-2, -3, ...
inline constexpr std::string_view kKeptSuffix = ".before-commit";

// `save_path` with symbolic links (its own too) and "." / ".." resolved, no
// trailing '/': the folder a commit replaces and whose locks it takes.
Result<std::string> RealSavePath(const std::string& save_path);

// P/.B<suffix> for the save path `real_path` (symbolic links resolved).
std::string BesideSavePath(const std::string& real_path, std::string_view suffix);

// Lists, then moves the entries of `real_path` that are not part of its
// analysis (and are no run's: names starting with ".dsanalyze") into
// `staging`; returns their names. The list is written even when there are
// none (the swap needs it: above). An entry gone before it could move (its
// owner removed it) is skipped; on another error the ones moved are moved
// back. Test-only pause point "commit_carry" after the first one.
Result<std::vector<std::string>> CarryUserEntries(const std::string& real_path,
                                                  const std::string& staging);

void DropCarriedList(const std::string& real_path);

// Moves `names` from `staging` back into `real_path` (a commit that failed).
void PutBackUserEntries(const std::string& staging, const std::string& real_path,
                        const std::vector<std::string>& names);

// After the swap: empties `previous`, the folder that was the save path, into
// the save path `real_path`. Deletes the previous analysis's own entries
// (output/analysis_folder.h AnalysisEntries, and any run's names), moves
// every other entry into `real_path` (one whose name is taken there gets
// kKeptSuffix, and one warning line), then, after a second round 20 ms
// later (creates by S's path that looked S up before the swap land in
// `previous` meanwhile), removes `previous` and the list. Entries that keep
// arriving (a process holding the folder open) are moved in further rounds,
// up to a bound. False, with a warning, when `previous` is
// left (the next run's cleanup finishes it).
bool SettlePreviousAnalysis(const std::string& previous, const std::string& real_path);

// With the save path's run lock held (so no live run owns them): finishes
// each killed commit as above, then deletes every staging folder beside
// `real_path` and the list.
void CleanUpKilledRuns(const std::string& real_path);

}  // namespace dsanalyze
