// What `dsanalyze curriculum` warns about: each warning names the training
// step it concerns (0: before the first step, when DeepSpeed's sampler opens
// the files), a kind, what happens in DeepSpeed, and a concrete fix.
//
// kinds (docs/format.md §2.11):
//  below_min_value     a value-based metric's difficulty is below its smallest
//                      value: its lookup admits nothing (first such step)
//  empty_cluster       a new cluster holds no sample (DeepSpeed skips it)
//  small_cluster       a new cluster holds fewer samples than a global batch
//  never_eligible      samples in no cluster by the last training step
//  index_mismatch      a percentile metric reads the plain index_to_sample, or
//                      a value metric the percentile_merged one
//  missing_file        a file DeepSpeed opens does not exist
//  other_analysis      a file outside the analysis folder, or whose sample
//                      count is not the analysis's
//  empty_intersection  two or more metrics each admit samples, none in common
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "curriculum/ds_config.h"
#include "curriculum/metric_index.h"
#include "curriculum/replay.h"

namespace dsanalyze {

struct CurriculumWarning {
  int64_t step = 0;
  std::string kind;
  std::string message;
  std::string fix;
};

// missing_file and other_analysis (folder) for the files the metrics'
// DeepSpeed lookups open; sets *missing when one does not exist (then the
// replay cannot run).
std::vector<CurriculumWarning> CheckMetricPaths(const std::vector<CurriculumMetricConfig>& metrics,
                                                const std::string& analysis, bool* missing);

// index_mismatch and other_analysis (sample count) once the files are open.
std::vector<CurriculumWarning> CheckMetricIndexes(
    const std::vector<CurriculumMetricConfig>& metrics,
    const std::vector<std::optional<MetricIndex>>& indexes, uint64_t samples);

// What the replay shows: below_min_value, empty_cluster, small_cluster,
// empty_intersection and never_eligible.
struct ReplayContext {
  const std::vector<CurriculumMetricConfig>& metrics;
  const std::vector<std::optional<MetricIndex>>& indexes;
  uint64_t samples;
  int64_t global_batch_size;
  int64_t train_steps;
};
std::vector<CurriculumWarning> CheckReplay(const ReplayContext& context, const Replay& replay);

}  // namespace dsanalyze
