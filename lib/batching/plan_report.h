// What `dsanalyze batches` says about a plan: statistics gathered batch by
// batch, the warnings (each with a fix), plan.json (docs/format.md §2.13),
// the terminal summary and the --svg chart (batch sizes, tokens per
// micro-batch, batch size and LR over the training steps). The statistics
// are epoch 1's but for the steps, which cover every epoch. The charts'
// values are exact: one counter per distinct batch size and per distinct
// token count of a micro-batch (at most min(micro-batches, max_tokens + 1)
// of them), binned once, by the chart; the step columns are a fixed number
// (batching/steps_chart.h).
//
// The LR-scale lint: DeepSpeed scales each batch's LR by its size and says
// nothing however far apart the scales are (the seqlen order over 1e7
// samples gave x1 to x898). When the largest scale is more than
// kLrSpreadLimit times the smallest, a warning "lr_scale" gives the
// max_batch_size M that caps the LR scale at kLrSpreadLimit times this
// plan's smallest: with S the smallest batch and E micro-batches a batch, a
// batch holds at most E*M samples, and M = floor(10 S / E) (linear) or
// floor(100 S / E) (sqrt). It caps the largest scale exactly; the smallest
// of the plan made with M may differ a little (its batches fall elsewhere).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batching/batch_params.h"
#include "batching/planner.h"
#include "batching/steps_chart.h"
#include "page/histogram_svg.h"

namespace dsanalyze {

inline constexpr double kLrSpreadLimit = 10;

class PlanStats {
 public:
  void Add(const PlannedBatch& batch, double lr_scale);

  std::map<int64_t, uint64_t> batch_sizes;   // batch size -> batches
  std::map<int64_t, uint64_t> micro_tokens;  // tokens of a micro-batch -> micro-batches
  double padded_micro = 0;                   // sum of micro-batch samples x its longest
  double padded_batch = 0;                   // sum of batch samples x its longest
  double lr_min = 0, lr_max = 0;
  uint64_t batches = 0;
  StepSeries steps;  // Add adds epoch 1's; the caller adds the later epochs'
};

struct PlanWarning {
  std::string kind;
  std::string message;
  std::string fix;
};

struct PlanReport {
  const BatchParams& params;
  const std::string& metric;
  const std::string& sample_ids;  // empty: all samples
  const PlanCounts& counts;
  const PlanStats& stats;
  uint64_t dataset_samples = 0;  // the analysis's N: DeepSpeed's len(dataset)
};

std::vector<PlanWarning> PlanWarnings(const PlanReport& r);
nlohmann::ordered_json PlanJson(const PlanReport& r);
// The lines printed on success, warnings last.
std::string PlanSummary(const PlanReport& r, const std::string& out);
std::string PlanSvg(const PlanReport& r);
// The chart's two halves, each a standalone SVG (the --html page shows both).
std::string BatchSizeSvg(const PlanReport& r);
std::string MicroBatchTokensSvg(const PlanReport& r);
std::string StepsSvg(const PlanReport& r);
// A value -> count map as the charts and the page read it.
CountedValues Counted(const std::map<int64_t, uint64_t>& counts);

}  // namespace dsanalyze
