#include "curriculum/clusters.h"

#include <algorithm>
#include <limits>

namespace dsanalyze {
namespace {

// DeepSpeed's data_1epoch_size: the ids of the first percentile metric it
// queries, which is the first schedule_based percentile metric in order.
uint64_t PercentileTotal(const std::vector<CurriculumMetricConfig>& metrics,
                         const std::vector<std::optional<MetricFiles>>& indexes) {
  for (size_t m = 0; m < metrics.size(); ++m)
    if (indexes[m] && metrics[m].difficulty_type == DifficultyType::kPercentile)
      return indexes[m]->samples();
  return 0;
}

// The samples metric `m` admits from above `above` (nullopt: DeepSpeed's
// lowest, -inf or 0) up to `up_to`.
PositionRange Lookup(const CurriculumMetricConfig& m, const MetricFiles& index,
                     uint64_t percentile_total, std::optional<int64_t> above, int64_t up_to) {
  if (m.difficulty_type == DifficultyType::kValue) return ValueSlice(index, above, up_to);
  return PercentileSlice(percentile_total, m.schedule.max_difficulty, above.value_or(0), up_to);
}

// At most one schedule_based metric: each cluster is one lookup.
class SliceClusters : public ClusterBuilder {
 public:
  SliceClusters(const std::vector<CurriculumMetricConfig>& metrics,
                const std::vector<std::optional<MetricFiles>>& indexes, uint64_t samples)
      : metrics_(metrics), indexes_(indexes), samples_(samples) {
    for (size_t m = 0; m < metrics.size(); ++m)
      if (indexes[m]) scheduled_ = m;
    percentile_total_ = PercentileTotal(metrics, indexes);
  }

  ClusterStep Next(const std::vector<int64_t>& previous, const std::vector<int64_t>& current,
                   bool first) override {
    ClusterStep step;
    if (!scheduled_) {  // only single_cluster metrics: everything, once
      step.size = first ? samples_ : 0;
      all_ = all_ || first;
      return step;
    }
    const size_t m = *scheduled_;
    const std::optional<int64_t> above = first ? std::nullopt : std::optional(previous[m]);
    const PositionRange r = Lookup(metrics_[m], *indexes_[m], percentile_total_, above, current[m]);
    if (r.size() > 0) taken_.push_back(r);
    step.size = r.size();
    return step;
  }

  uint64_t Covered() const override {
    if (!scheduled_) return all_ ? samples_ : 0;
    std::vector<PositionRange> r = taken_;
    std::sort(r.begin(), r.end(),
              [](const PositionRange& a, const PositionRange& b) { return a.begin < b.begin; });
    uint64_t covered = 0, reach = 0;
    for (const PositionRange& p : r) {
      if (p.end > reach) covered += p.end - std::max(p.begin, reach);
      reach = std::max(reach, p.end);
    }
    return covered;
  }

 private:
  const std::vector<CurriculumMetricConfig>& metrics_;
  const std::vector<std::optional<MetricFiles>>& indexes_;
  uint64_t samples_;
  std::optional<size_t> scheduled_;
  uint64_t percentile_total_ = 0;
  std::vector<PositionRange> taken_;
  bool all_ = false;
};

// Two or more schedule_based metrics: intersections of cumulative lookups,
// minus earlier clusters, counted per sample id.
class IntersectionClusters : public ClusterBuilder {
 public:
  IntersectionClusters(const std::vector<CurriculumMetricConfig>& metrics,
                       const std::vector<std::optional<MetricFiles>>& indexes, uint64_t samples,
                       int64_t lo, uint64_t span)
      : metrics_(metrics),
        indexes_(indexes),
        samples_(samples),
        lo_(lo),
        count_(span, 0),
        clustered_(span, false),
        prefix_(metrics.size(), 0) {
    for (size_t m = 0; m < metrics.size(); ++m) {
      needed_ += indexes[m].has_value();
      only_first_n_ = only_first_n_ || !indexes[m];
    }
    percentile_total_ = PercentileTotal(metrics, indexes);
  }

  ClusterStep Next(const std::vector<int64_t>&, const std::vector<int64_t>& current,
                   bool) override {
    std::vector<PositionRange> gained(metrics_.size());
    for (size_t m = 0; m < metrics_.size(); ++m) {
      if (!indexes_[m]) continue;
      const uint64_t end =
          Lookup(metrics_[m], *indexes_[m], percentile_total_, std::nullopt, current[m]).end;
      if (end > prefix_[m]) {
        gained[m] = {prefix_[m], end};
        ForEachId(*indexes_[m], gained[m], [this](int64_t id) { Add(id, +1); });
      } else {
        ForEachId(*indexes_[m], {end, prefix_[m]}, [this](int64_t id) { Add(id, -1); });
      }
      prefix_[m] = end;
    }
    ClusterStep step;
    for (size_t m = 0; m < metrics_.size(); ++m) {
      step.admitted.push_back(indexes_[m] ? prefix_[m] : samples_);
      if (indexes_[m])
        ForEachId(*indexes_[m], gained[m], [&](int64_t id) { step.size += Take(id); });
    }
    step.intersection = full_;
    covered_ += step.size;
    return step;
  }

  uint64_t Covered() const override { return covered_; }

 private:
  bool Allowed(int64_t id) const {
    return !only_first_n_ || (id >= 0 && static_cast<uint64_t>(id) < samples_);
  }
  // One more (delta +1) or one fewer (-1) metric admits `id`.
  void Add(int64_t id, int delta) {
    uint8_t& c = count_[static_cast<uint64_t>(id - lo_)];
    const bool was_full = c == needed_;
    c = static_cast<uint8_t>(c + delta);
    if (!Allowed(id) || was_full == (c == needed_)) return;
    if (was_full)
      --full_;
    else
      ++full_;
  }
  // 1 when `id` joins the new cluster: every metric admits it, no earlier
  // cluster holds it.
  uint64_t Take(int64_t id) {
    const uint64_t i = static_cast<uint64_t>(id - lo_);
    if (count_[i] != needed_ || clustered_[i] || !Allowed(id)) return 0;
    clustered_[i] = true;
    return 1;
  }

  const std::vector<CurriculumMetricConfig>& metrics_;
  const std::vector<std::optional<MetricFiles>>& indexes_;
  uint64_t samples_;
  int64_t lo_;
  std::vector<uint8_t> count_;
  std::vector<bool> clustered_;
  std::vector<uint64_t> prefix_;  // per metric: positions its cumulative lookup holds
  uint8_t needed_ = 0;            // schedule_based metrics
  bool only_first_n_ = false;     // a single_cluster metric admits only ids 0..samples-1
  uint64_t percentile_total_ = 0;
  uint64_t full_ = 0;  // allowed ids every schedule_based metric admits
  uint64_t covered_ = 0;
};

struct ClusterIdSpan {
  int64_t lo;
  uint64_t span;
};

// The id span of the intersection's per-id arrays (clusters.h).
Result<ClusterIdSpan> SpanOfIds(const std::vector<CurriculumMetricConfig>& metrics,
                                const std::vector<std::optional<MetricFiles>>& indexes,
                                uint64_t samples) {
  int64_t lo = 0, hi = samples > 0 ? static_cast<int64_t>(samples - 1) : 0;
  uint64_t ids = samples;
  for (size_t m = 0; m < metrics.size(); ++m) {
    if (!indexes[m]) continue;
    ids = std::max(ids, indexes[m]->samples());
    ForEachId(*indexes[m], {0, indexes[m]->samples()}, [&](int64_t id) {
      lo = std::min(lo, id);
      hi = std::max(hi, id);
    });
  }
  const uint64_t span = static_cast<uint64_t>(static_cast<__int128>(hi) - lo + 1);
  if (span > std::max<uint64_t>(8 * ids, uint64_t{1} << 26))
    return Status::BadInput("sample ids span " + std::to_string(lo) + ".." + std::to_string(hi) +
                            ", too sparse to intersect the metrics' clusters by id");
  return ClusterIdSpan{lo, span};
}

}  // namespace

Result<std::unique_ptr<ClusterBuilder>> MakeClusterBuilder(
    const std::vector<CurriculumMetricConfig>& metrics,
    const std::vector<std::optional<MetricFiles>>& indexes, uint64_t samples) {
  const auto scheduled =
      std::count_if(indexes.begin(), indexes.end(), [](const auto& i) { return i.has_value(); });
  if (scheduled <= 1)
    return std::unique_ptr<ClusterBuilder>(new SliceClusters(metrics, indexes, samples));
  if (scheduled > std::numeric_limits<uint8_t>::max())
    return Status::BadInput("more than 255 schedule_based metrics");
  DSA_ASSIGN_OR_RETURN(ClusterIdSpan s, SpanOfIds(metrics, indexes, samples));
  return std::unique_ptr<ClusterBuilder>(
      new IntersectionClusters(metrics, indexes, samples, s.lo, s.span));
}

}  // namespace dsanalyze
