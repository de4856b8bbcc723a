#include "curriculum/replay.h"

namespace dsanalyze {

Result<Replay> ReplayCurriculum(const std::vector<CurriculumMetricConfig>& metrics,
                                const std::vector<std::optional<MetricFiles>>& indexes,
                                uint64_t samples, int64_t train_steps) {
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<ClusterBuilder> builder,
                       MakeClusterBuilder(metrics, indexes, samples));
  std::vector<int64_t> current;
  for (const CurriculumMetricConfig& m : metrics) current.push_back(m.schedule.min_difficulty);
  Replay replay;
  uint64_t eligible = 0;
  for (int64_t step = 1; step <= train_steps; ++step) {
    const std::vector<int64_t> previous = current;
    bool changed = step == 1, settled = true;
    for (size_t m = 0; m < metrics.size(); ++m) {
      const Schedule& s = metrics[m].schedule;
      current[m] = UpdateDifficulty(s, current[m], step);
      changed = changed || current[m] != previous[m];
      settled = settled && Settled(s, current[m], step);
    }
    if (changed) {
      ReplayStep r{step, current, builder->Next(previous, current, step == 1), 0};
      eligible += r.cluster.size;
      r.eligible = eligible;
      replay.steps.push_back(std::move(r));
    }
    if (settled) break;
  }
  replay.covered = builder->Covered();
  return replay;
}

}  // namespace dsanalyze
