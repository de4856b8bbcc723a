// What `dsanalyze curriculum` finds in a curriculum, as occurrences of the
// kinds of curriculum/warning_kinds.h (which holds their severities): each
// names the training step and metric it concerns, what happens in DeepSpeed,
// and a concrete fix.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "curriculum/ds_config.h"
#include "curriculum/metric_index.h"
#include "curriculum/replay.h"
#include "curriculum/warning_kinds.h"

namespace dsanalyze {

// missing_file and other_analysis (folder) for the files the metrics'
// DeepSpeed lookups open; sets *missing when one does not exist (then the
// replay cannot run).
std::vector<CurriculumWarning> CheckMetricPaths(const std::vector<CurriculumMetricConfig>& metrics,
                                                const std::string& analysis, bool* missing);

// other_dataset, index_mismatch and index_choice once the files are open.
std::vector<CurriculumWarning> CheckMetricIndexes(
    const std::vector<CurriculumMetricConfig>& metrics,
    const std::vector<std::optional<MetricFiles>>& indexes, uint64_t samples);

// What the replay shows: below_min_value, empty_first_cluster,
// empty_cluster, single_cluster_change, empty_intersection, small_pool,
// small_cluster and never_eligible.
struct ReplayContext {
  const std::vector<CurriculumMetricConfig>& metrics;
  const std::vector<std::optional<MetricFiles>>& indexes;
  uint64_t samples;
  int64_t global_batch_size;
  int64_t train_steps;
};
std::vector<CurriculumWarning> CheckReplay(const ReplayContext& context, const Replay& replay);

}  // namespace dsanalyze
