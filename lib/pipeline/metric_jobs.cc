// RunMetricJob: the job of each metric type (metric_jobs.h).
#include "pipeline/metric_jobs.h"

#include "output/analysis_layout.h"

namespace dsanalyze {

Status RunMetricJob(RunState& run, PlannedMetric& metric) {
  // None of its files chosen (output.files): it was not mapped, and its
  // folder, kept so a rerun still replaces the previous one, is all it gets.
  if (!WritesAnyKindOf(run.config.output.files, metric.type()))
    return run.MakeMetricDir(metric.name());
  switch (metric.type()) {
    case MetricType::kSingleValuePerSample:
      return RunSingleValueJob(run, metric);
    case MetricType::kAccumulateValueOverSamples:
      return RunAccumulateJob(run, metric);
  }
  return Status::Internal("metric " + metric.name() + ": no job for its type");
}

}  // namespace dsanalyze
