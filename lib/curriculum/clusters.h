// The data clusters DeepSpeed's DeepSpeedDataSampler.get_new_cluster builds
// (data_sampler.py at 38327e07f), counted rather than written.
//
// With at most one schedule_based metric, a new cluster is that metric's
// lookup between its previous and its current difficulty (metric_index.h);
// with none, the first cluster is all `samples` ids and later ones are empty.
// With two or more, it is the intersection over all metrics of each one's
// lookup from its lowest difficulty (value: -inf, percentile: 0) to its
// current one — a single_cluster metric contributes the ids 0..samples-1 —
// minus every earlier cluster. That needs sample ids: per id, a count of the
// schedule_based metrics whose cumulative lookup holds it (one byte), and a
// bit for "in an earlier cluster"; both change only on the positions a
// metric's cumulative run gains or loses, so each step costs what changed.
// Memory: bytes + bits for the id span min(0, smallest id) .. max(samples -
// 1, largest id), which must be at most max(8 * samples, 2^26) ids.
//
// DeepSpeed's value lookup returns None when no row matches; in the
// intersection numpy then fails or yields nothing. Here it is the empty set.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "curriculum/ds_config.h"
#include "curriculum/metric_index.h"
#include "util/status.h"

namespace dsanalyze {

// What one get_new_cluster call saw.
struct ClusterStep {
  uint64_t size = 0;  // the new cluster (0: DeepSpeed skips it)
  // Two or more schedule_based metrics only: per metric, the samples its
  // cumulative lookup admits (single_cluster: all), and how many all of them
  // admit together (before earlier clusters are taken out).
  std::vector<uint64_t> admitted;
  std::optional<uint64_t> intersection;
};

class ClusterBuilder {
 public:
  virtual ~ClusterBuilder() = default;
  // The cluster for difficulties moving from `previous` to `current` (one
  // entry per metric); `first` for the first call, where DeepSpeed's previous
  // difficulty is -inf (value) or 0 (percentile) whatever `previous` holds.
  virtual ClusterStep Next(const std::vector<int64_t>& previous,
                           const std::vector<int64_t>& current, bool first) = 0;
  // Distinct samples in some cluster so far.
  virtual uint64_t Covered() const = 0;
};

// The builder for `metrics`; `indexes[m]` is set for each schedule_based
// metric m. `samples` is the dataset's length (DeepSpeed's
// one_epoch_total_samples). BadInput when the id span is too sparse or there
// are more than 255 schedule_based metrics.
Result<std::unique_ptr<ClusterBuilder>> MakeClusterBuilder(
    const std::vector<CurriculumMetricConfig>& metrics,
    const std::vector<std::optional<MetricFiles>>& indexes, uint64_t samples);

}  // namespace dsanalyze
