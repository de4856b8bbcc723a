// DeepSpeed's curriculum replayed offline: what DeepSpeedDataSampler.
// get_next_global_batch (data_sampler.py at 38327e07f) does to difficulties
// and clusters at each training step, without drawing any batch.
//
// curriculum_step is 1 on the first global batch and grows by one per batch
// (one batch per training step). At each step every metric's scheduler runs
// update_difficulty(step) (curriculum/schedule.h); a new cluster is built
// (curriculum/clusters.h) at step 1 and whenever any metric's difficulty
// changed. An empty cluster is skipped, as DeepSpeed skips it. The eligible
// pool is the sum of the cluster sizes, DeepSpeed's data_cluster_sizes, which
// weight its draws. Once every difficulty is settled (schedule.h Settled:
// at max_difficulty, or past a fixed_discrete schedule's last max_step)
// nothing changes any more and the replay stops early.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "curriculum/clusters.h"
#include "curriculum/ds_config.h"
#include "curriculum/metric_index.h"
#include "util/status.h"

namespace dsanalyze {

struct ReplayStep {
  int64_t step = 0;
  std::vector<int64_t> difficulty;  // per metric, in config order
  ClusterStep cluster;              // the new cluster built at this step
  uint64_t eligible = 0;            // sum of all cluster sizes so far
};

struct Replay {
  std::vector<ReplayStep> steps;  // step 1 and each step where a difficulty changed
  uint64_t covered = 0;           // distinct samples in some cluster after the last step
};

// Replays steps 1..train_steps for `metrics`; indexes[m] is set for each
// schedule_based metric, `samples` is the dataset's length. Errors as
// MakeClusterBuilder's.
Result<Replay> ReplayCurriculum(const std::vector<CurriculumMetricConfig>& metrics,
                                const std::vector<std::optional<MetricFiles>>& indexes,
                                uint64_t samples, int64_t train_steps);

}  // namespace dsanalyze
