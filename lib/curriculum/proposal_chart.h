// The chart of the run's proposed curriculum for its report page: the
// curriculum_config.json just written into the staging folder D, replayed
// (curriculum/curriculum_check.h ReplayInto) on D's index files over its
// schedule (to the largest total_curriculum_step) and drawn as `dsanalyze
// curriculum --svg` draws it. The config's paths name the final save path,
// where the files are not yet: each is read at the same place under D. The
// proposal has no batch size, so neither has the replay (the difficulty and
// the eligible pool do not depend on it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "page/html.h"
#include "util/status.h"

namespace dsanalyze {

struct ProposalChart {
  std::string svg;
  std::string note;                     // what was replayed, for the page
  std::vector<html::Finding> findings;  // the replay's, as curriculum_page.h words them
};

// `save_path`: the absolute save path the config's paths are under; `samples`:
// the analysis's N. BadInput as dsanalyze curriculum's for unreadable files.
Result<ProposalChart> ReplayProposal(const std::string& dir, const std::string& save_path,
                                     uint64_t samples, CodeTable table);

}  // namespace dsanalyze
