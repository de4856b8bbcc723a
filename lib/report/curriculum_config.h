// The DeepSpeed config block that trains with a finished analysis.
//
// DeepSpeed's curriculum sampler (deepspeed/runtime/data_pipeline/
// data_sampling/data_sampler.py, keys in ../constants.py) reads, per metric
// under data_efficiency.data_sampling.curriculum_learning.curriculum_metrics:
// index_to_sample_path, index_to_metric_path, difficulty_type ("value" or
// "percentile"), clustering_type, min/max_difficulty, schedule_type and
// schedule_config. Its scripts note that the *_percentile_merged index only
// works with "percentile"; "value" needs the plain index_to_sample.
//
// The active entry is percentile-based (difficulty 1..100 = share of samples,
// read from the merged index: U rows for U < 200 distinct values, 100 to 150
// rows above, docs/format.md §2.3; building a cluster is cheap and the
// schedule does not depend on the metric's units). A value-based
// alternative (index_to_sample, difficulty = metric min..max) is written next
// to data_efficiency under "value_based_alternative"; swapping it in means
// replacing curriculum_metrics with it. The schedule is DeepSpeed's
// fixed_root with root_degree 2 and difficulty_step 1. total_curriculum_step
// is the step at which difficulty reaches its maximum; DeepSpeed says it must
// be tuned per training, so it is never derived here: it is the run's
// output.total_curriculum_step, or else DeepSpeed's GPT example value
// (kPlaceholderCurriculumStep) and the _comment says it is a placeholder.
// The schedule keys are written by curriculum/schedule.h, the model that
// `dsanalyze curriculum` replays, and the entry keys are curriculum/ds_config.h's.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "curriculum/schedule.h"  // kPlaceholderCurriculumStep

namespace dsanalyze {

struct CurriculumMetric {
  std::string name;
  int64_t min_value = 0;
  int64_t max_value = 0;
};

// The warning a run gives when it wrote the placeholder, and its fix (the
// run's log and its report page say the same).
std::string PlaceholderStepWarning();
std::string PlaceholderStepFix();

// The whole curriculum_config.json document for single-value metrics saved
// under `save_path` (paths are built as save_path/M/M_<kind>).
// `total_curriculum_step` 0 means not given: the placeholder is written.
//
// The curriculum is proposed for ONE metric: `curriculum_metric` (the run's
// output.curriculum_metric) when it is one of `metrics`, else the first.
// DeepSpeed trains only on samples inside every metric's cluster at once, so
// a block listing several metrics intersects them (4 metrics: a first
// cluster of a few samples; metrics over shuffled ids: none). The others are
// written under a top-level "other_metrics", outside data_efficiency, as
// entries ready to add (percentile and value-based). With one metric the
// document is what it always was.
nlohmann::ordered_json CurriculumConfig(const std::string& save_path,
                                        const std::vector<CurriculumMetric>& metrics,
                                        uint64_t total_curriculum_step,
                                        const std::string& curriculum_metric);

}  // namespace dsanalyze
