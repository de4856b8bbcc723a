// The pieces of AnalysisWriter's commit (analysis_writer.h) that must survive
// a kill: the names beside the save path, the user's entries carried into the
// new analysis, and the cleanup of what a killed run left.
//
// Everything a run creates lives beside the save path S (P/.B<suffix>, P its
// parent, B its name), never inside it, since S itself is swapped away:
// the lock (save_lock.h), the staging folder T and, during a commit, the list
// of the user's entries it carries from S into T (P/.B.dsanalyze-carried,
// naming T, written before the first one moves). A run killed while they
// move leaves some of them in T; the next run's CleanUpKilledRuns moves every
// listed entry still in T back into S before it deletes T. Once T and S are
// swapped, T holds the previous analysis, which has none of the listed
// entries, so the same cleanup finds nothing to move back; the commit
// deletes the list right after the swap.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

inline constexpr std::string_view kStagingSuffix = ".dsanalyze-staging-";
inline constexpr std::string_view kCarriedSuffix = ".dsanalyze-carried";

// P/.B<suffix> for the save path `real_path` (symbolic links resolved).
std::string BesideSavePath(const std::string& real_path, std::string_view suffix);

// Moves the entries of `real_path` that are not part of its analysis (and
// are no run's: names starting with ".dsanalyze") into `staging`, listing
// them first; returns their names. On an error, the ones moved are moved
// back. Test-only pause point "commit_carry" after the first one.
// DropCarriedList deletes the list once the swap is done.
Result<std::vector<std::string>> CarryUserEntries(const std::string& real_path,
                                                  const std::string& staging);

void DropCarriedList(const std::string& real_path);

// Moves `names` from `staging` back into `real_path` (a commit that failed).
void PutBackUserEntries(const std::string& staging, const std::string& real_path,
                        const std::vector<std::string>& names);

// With the save path's lock held (so no live run owns them): each
// staging folder beside `real_path` moves the user entries the list names in
// it back into the save path, then deletes the folder and the list.
void CleanUpKilledRuns(const std::string& real_path);

}  // namespace dsanalyze
