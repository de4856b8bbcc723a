// Spearman's rank correlation between an analysis's single-value metrics:
// how alike two metrics would order a curriculum (report.html's "which metric"
// matrix, summary.json's "spearman").
//
// Exact: each metric's distinct values and counts (its sorted index,
// metric_stats.h) give every value its average rank (ties share the mean of
// the ranks they span, the standard definition), and the samples' values,
// fed side by side in chunks (RankProductSums), give each sample's ranks. ρ
// is Pearson's correlation of those ranks, its sums kept as integers (twice
// the ranks, in 128 bits: exact to ~10^12 samples) and divided once.
//
// A run sums the rank products on every rank from the values its map holds
// and adds the ranks' sums (pipeline/rank_sums.h); SpearmanMatrix then only
// divides. Without such sums (a merge, or metrics too wide for the run's
// count tables) it streams the metrics' sample_to_metric files on the
// caller's rank. Memory: O(distinct values) per metric and one chunk, never
// O(N). Thread-compatible; reads only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/dtype.h"
#include "report/metric_stats.h"
#include "util/status.h"

namespace dsanalyze {

struct RankedMetric {
  std::string name;
  const ValueDistribution* distribution;  // its index's values and counts
};

// Σ over samples of Ra·Rb for k metrics' pairs a < b, R twice the sample's
// average rank in a metric (an integer): what ρ is computed from. Each
// metric's distribution (distinct values ascending, their counts) must
// outlive it.
class RankProductSums {
 public:
  explicit RankProductSums(const std::vector<const CountedValues*>& distributions);
  ~RankProductSums();
  RankProductSums(RankProductSums&&) noexcept;

  // Adds `len` samples: values[a] points at their values in metric a. A value
  // that metric a's distribution does not have adds nothing; the first such,
  // {a, i} (values[a][i]), is returned (nullopt: all were there).
  std::optional<std::pair<size_t, size_t>> Add(const std::vector<const int64_t*>& values,
                                               size_t len);
  // The sums, cross()[a·k + b] for a < b (the rest 0). Adding other parts'
  // sums (other ranks') into them gives the sums over all their samples.
  std::vector<unsigned __int128>& cross() { return cross_; }
  // Σ over metric a's samples of Ra², from its distribution alone.
  unsigned __int128 SumOfSquares(size_t a) const;

 private:
  class TwiceRanks;
  bool AddDense(const std::vector<const int64_t*>& values, size_t from, size_t n);
  std::vector<TwiceRanks> ranks_;
  std::vector<unsigned __int128> cross_;
  std::vector<std::vector<uint64_t>> chunk_;  // the twice-ranks of one chunk
  std::vector<uint64_t> block_;               // one block's sums (AddDense)
  size_t dense_block_;                        // samples a block of AddDense (its sums' bound)
};

// RankProductSums::cross() over all the samples of `metrics`, in that order.
struct RankSums {
  std::vector<std::string> metrics;
  uint64_t samples = 0;
  std::vector<unsigned __int128> cross;
};

// rho[i][j] for the metrics' pairs (rho[i][i] = 1); nullopt where a metric is
// constant (its ranks do not vary, ρ is undefined). From `sums` when they are
// of these metrics (names in this order) and their samples; else from the
// files save_path/M/M_sample_to_metric, written with `table`, which must all
// hold the same samples: BadInput naming the file when one does not match
// its index (a row count or a value the index does not have).
Result<std::vector<std::vector<std::optional<double>>>> SpearmanMatrix(
    const std::string& save_path, const std::vector<RankedMetric>& metrics, CodeTable table,
    const RankSums* sums = nullptr);

}  // namespace dsanalyze
