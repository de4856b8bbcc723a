// RunPipeline: the whole analysis of docs/format.md §2 under MPI. It reads
// as the pipeline's diagram (docs/architecture.md):
//
//   open inputs: dataset, sample ids, metric plan ........ metric_plan.h
//   stage the output (rank 0: lock, staging folder) ....... output/analysis_writer.h
//   dependency pass ....................................... dependencies.h
//   map: every metric over this rank's samples ............ map.h
//   per metric, the job of its type ....................... metric_jobs.h
//     single-value: min/max → sample_to_metric → local sort → sample sort → index files
//     accumulate:   exact sum over ranks → metric_value
//   reports (rank 0) ...................................... report/report.h
//   last checkpoint → commit (rank 0) ..................... output/finish_analysis.h
//
// Collective over `comm`: every rank calls it with the same Config, and every
// rank returns the same Status (errors are agreed on at stage boundaries).
// Only rank 0 touches the save path.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "config/config.h"
#include "pipeline/progress.h"
#include "util/stage_clock.h"
#include "util/status.h"

namespace dsanalyze {

// A stage's time spent on one metric.
struct MetricStageTime {
  std::string metric;
  StageTime time;
};

struct RunSummary {
  uint64_t samples = 0;
  std::vector<StageTime> stages;
  // The dependency pass (dependencies.h), part of the "map" stage; unset
  // when the run has none.
  std::optional<StageTime> dependency_pass;
  // The stages that run per metric, split by metric (plan order, then stage
  // order), each where some rank spent time in it.
  std::vector<MetricStageTime> metric_stages;
  std::vector<int64_t> peak_rss_bytes;   // per rank, mapped input pages included
  std::vector<int64_t> peak_anon_bytes;  // per rank, anonymous only, sampled at stage ends
  double total_seconds = 0;
};

struct RunContext {
  std::string config_hash;   // of the config file's bytes, for the report
  ProgressOptions progress;  // what rank 0 shows of the stages (progress.h)
  // Warnings the command gave before the run (message, fix): the report's
  // summary box lists them with its own (report.h RunInfo::warnings).
  std::vector<std::array<std::string, 2>> warnings;
};

Status RunPipeline(const Config& config, const RunContext& context, const Comm& comm,
                   RunSummary* summary);

}  // namespace dsanalyze
