// The accumulate metric job (metric_jobs.h).
#include <utility>

#include "output/analysis_layout.h"
#include "pipeline/global_reduce.h"
#include "pipeline/metric_jobs.h"

namespace dsanalyze {

Status RunAccumulateJob(RunState& run, PlannedMetric& m) {
  run.Begin("write", m.name() + ": metric_value");
  DSA_RETURN_IF_ERROR(run.MakeMetricDir(m.name()));
  std::vector<int64_t> total;
  if (m.dependency.total) {
    total = std::move(*m.dependency.total);
  } else {
    // The same inputs on every rank give the same Status on every rank.
    DSA_ASSIGN_OR_RETURN(total, AllreduceSumChecked(run.comm, m.map.values, "metric " + m.name()));
  }
  Status st = WriteMetricValue(run.comm, total, run.FilePrefix(m.name(), kMetricValue), run.write);
  run.clock.Lap(kStageAccumulate);
  return st;
}

}  // namespace dsanalyze
