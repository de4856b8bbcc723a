// What `dsanalyze batches` says about a plan: statistics gathered batch by
// batch, the warnings (each with a fix), plan.json (docs/format.md §2.13),
// the terminal summary and the --svg chart (batch sizes, tokens per
// micro-batch). Memory: one counter per distinct batch size and a fixed
// number of token bins.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batching/batch_params.h"
#include "batching/planner.h"

namespace dsanalyze {

class PlanStats {
 public:
  explicit PlanStats(int64_t max_tokens);
  void Add(const PlannedBatch& batch, double lr_scale);

  std::map<int64_t, uint64_t> batch_sizes;  // batch size -> batches
  std::vector<uint64_t> token_bins;         // micro-batches by tokens, bins of token_bin_width
  int64_t token_bin_width = 1;
  double padded_micro = 0;  // sum of micro-batch samples x its longest
  double padded_batch = 0;  // sum of batch samples x its longest
  double lr_min = 0, lr_max = 0;
  uint64_t batches = 0;
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
};

std::vector<PlanWarning> PlanWarnings(const PlanReport& r);
nlohmann::ordered_json PlanJson(const PlanReport& r);
// The lines printed on success, warnings last.
std::string PlanSummary(const PlanReport& r, const std::string& out);
std::string PlanSvg(const PlanReport& r);
// The chart's two halves, each a standalone SVG (the --html page shows both).
std::string BatchSizeSvg(const PlanReport& r);
std::string MicroBatchTokensSvg(const PlanReport& r);

}  // namespace dsanalyze
