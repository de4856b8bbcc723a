// Spearman's rank correlation between an analysis's single-value metrics:
// how alike two metrics would order a curriculum (report.html's "which metric"
// matrix, summary.json's "spearman").
//
// Exact, from files the analysis already has: each metric's distinct values
// and counts (its sorted index, metric_stats.h) give every value its average
// rank (ties share the mean of the ranks they span, the standard definition),
// and the metrics' sample_to_metric files, streamed side by side in chunks,
// give each sample's ranks. ρ is Pearson's correlation of those ranks, its
// sums kept as integers (twice the ranks, in 128 bits: exact to ~10^12
// samples) and divided once. Memory: O(distinct values) per metric and one
// chunk, never O(N) — the report runs on rank 0 alone.
// Thread-compatible; reads only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "report/metric_stats.h"
#include "util/status.h"

namespace dsanalyze {

struct RankedMetric {
  std::string name;
  const ValueDistribution* distribution;  // its index's values and counts
};

// rho[i][j] for the metrics' pairs (rho[i][i] = 1); nullopt where a metric is
// constant (its ranks do not vary, ρ is undefined). The metrics' files are
// save_path/M/M_sample_to_metric, written with `table`; all must hold the same
// samples. BadInput naming the file when one does not match its index (a row
// count or a value the index does not have).
Result<std::vector<std::vector<std::optional<double>>>> SpearmanMatrix(
    const std::string& save_path, const std::vector<RankedMetric>& metrics, CodeTable table);

}  // namespace dsanalyze
