// `dsanalyze curriculum` without its printing: reads a DeepSpeed config's
// curriculum section and the analysis it points at, replays the curriculum
// (curriculum/replay.h) and collects the warnings (curriculum/warnings.h).
//
// The global batch size is the request's, else DeepSpeed's from the config
// (curriculum/batch_size.h). The number of training steps: the request's,
// else the config's train_iters, else the step where the last schedule ends
// (the largest total_curriculum_step; a fixed_discrete schedule's last
// max_step + 1; schedule.h ScheduleEnd). The dataset's
// length (DeepSpeed's one_epoch_total_samples) is the analysis's N from its
// summary.json (else the first schedule_based metric's index_to_sample).
// When a file a metric needs is missing, nothing is replayed: the report
// holds the missing_file warnings and no step.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "curriculum/ds_config.h"
#include "curriculum/replay.h"
#include "curriculum/warnings.h"
#include "format/dtype.h"
#include "util/status.h"

namespace dsanalyze {

struct CurriculumRequest {
  std::string analysis;   // the save path
  std::string ds_config;  // empty: ANALYSIS/curriculum_config.json
  std::optional<int64_t> global_batch_size;
  int64_t data_parallel_size = 1;
  std::optional<int64_t> train_steps;
};

enum class TrainStepsFrom { kFlag, kTrainIters, kScheduleEnd };
// "--train-steps", "train_iters", "largest total_curriculum_step".
std::string_view TrainStepsFromName(TrainStepsFrom from);

struct CurriculumReport {
  std::string ds_config;  // the file read
  bool legacy = false;    // the config's legacy top-level curriculum_learning
  std::vector<CurriculumMetricConfig> metrics;
  int64_t global_batch_size = 0;
  int64_t train_steps = 0;
  TrainStepsFrom train_steps_from = TrainStepsFrom::kFlag;
  uint64_t samples = 0;
  Replay replay;
  std::vector<CurriculumWarning> warnings;  // by step
};

// BadInput (one line naming the file, key or option) for a save path that is
// not an analysis, a bad DeepSpeed config, a missing or inconsistent batch
// size, or unreadable index files.
Result<CurriculumReport> CheckCurriculum(const CurriculumRequest& request);

// The replay of report->metrics, whose index files are opened with `table`
// (unset: detected), over report->samples (0: the first index's N) and
// report->train_steps, with the warnings added to report->warnings. A
// global_batch_size of 0 leaves out the warnings that depend on it (the run's
// report page replays its proposal, which has no batch size).
Status ReplayInto(CurriculumReport* report, std::optional<CodeTable> table);

// {"train_steps", "train_steps_from",
//  "steps": [{"step", "difficulty": {M: d}, "new_cluster_size", "eligible"}],
//  "warnings": [{"step", "kind", "severity", "metric", "message", "fix"}],
//  "groups": [{"kind", "severity", "metric", "count", "first_step",
//              "last_step", "message", "fix"}]} (docs/format.md §2.11).
nlohmann::ordered_json CurriculumReportJson(const CurriculumReport& report);

}  // namespace dsanalyze
