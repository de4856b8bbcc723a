// The inputs of `dsanalyze merge`: finished analyses of disjoint ranges of
// one dataset's iteration positions (config dataset.sample_range), read back
// and checked to be mergeable.
//
// Each input must be a dsanalyze output (output/analysis_folder.h) whose
// summary.json records the config it was run with. Its positions are that
// config's sample_range, or [0, N) for a run over the whole dataset (N: the
// samples of a single-value metric in summary.json). Inputs are mergeable when
// their configs agree on the metrics, on output.dtype_codes and on the dataset
// apart from sample_range (output.path and the map settings never change a
// metric file's bytes), and when their ranges, sorted, meet end to begin: the
// union is one range, which is what one run can analyse. Each input's metrics
// must be mergeable (metrics/registry.h NotMergeableBecause, judged from the
// recorded config): a metric whose values depend on the other samples of its
// part (vocab_rarity without a counts file, a score with bins) is refused.
//
// Errors are BadInput, one line starting "merge: ".
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "output/analysis_folder.h"
#include "util/status.h"
#include "util/work_split.h"

namespace dsanalyze {

struct MergeInput {
  std::string path;
  Config config;                     // as summary.json records it
  SampleRange positions;             // the iteration positions it analysed
  std::vector<ListedMetric> listed;  // summary.json's metrics, sorted by name
  nlohmann::json dataset;            // summary.json's "dataset" block (a blend's components)
};

// Reads every input, checks that they can be merged and returns them sorted
// by position.
Result<std::vector<MergeInput>> ReadMergeInputs(const std::vector<std::string>& paths);

// The config of the union of `inputs` (sorted, checked): the first input's,
// with the union's sample_range, output.path `out` and no memory section (memory
// settings do not change the bytes: inputs may differ in them).
Config MergedConfig(const std::vector<MergeInput>& inputs, const std::string& out);

}  // namespace dsanalyze
