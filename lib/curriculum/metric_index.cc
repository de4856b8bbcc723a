#include "curriculum/metric_index.h"

#include <algorithm>

#include "output/analysis_files.h"

namespace dsanalyze {
namespace {

// The first index_to_sample row whose value exceeds `v` (rows are ascending).
uint64_t FirstRowAbove(const MetricFiles& index, int64_t v) {
  uint64_t lo = 0, hi = index.index_to_sample.num_rows();
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (index.value(mid) <= v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace

Result<MetricFiles> OpenMetricIndex(const CurriculumMetricConfig& metric,
                                    std::optional<CodeTable> table) {
  MetricFiles index;
  index.name = metric.name;
  DSA_ASSIGN_OR_RETURN(index.index_to_sample, OpenMetricFile(metric.index_to_sample_path, table));
  if (metric.difficulty_type != DifficultyType::kValue) return index;
  DSA_ASSIGN_OR_RETURN(index.index_to_metric, OpenMetricFile(metric.index_to_metric_path, table));
  if (std::optional<FileProblem> p = CheckIndexToMetric(index.index_to_metric))
    return BadFile(index.index_to_metric.prefix(), *p);
  const uint64_t rows = index.index_to_sample.num_rows();
  const uint64_t values = index.index_to_metric.num_rows();
  if (rows > values)
    return Status::BadInput(metric.index_to_sample_path + ": has " + std::to_string(rows) +
                            " rows but " + metric.index_to_metric_path + " only " +
                            std::to_string(values) +
                            ": DeepSpeed's value lookup would fail (IndexError); the two files "
                            "are not one metric's pair");
  return index;
}

PositionRange ValueSlice(const MetricFiles& index, std::optional<int64_t> above, int64_t up_to) {
  const uint64_t lo = above ? FirstRowAbove(index, *above) : 0;
  const uint64_t hi = FirstRowAbove(index, up_to);
  if (hi <= lo) return {};
  return {index.index_to_sample.row_begin(lo), index.index_to_sample.row_begin(hi)};
}

std::optional<int64_t> LargestValue(const MetricFiles& index) {
  const uint64_t rows = index.index_to_sample.num_rows();
  if (rows == 0) return std::nullopt;
  return index.value(rows - 1);
}

PositionRange PercentileSlice(uint64_t total, int64_t max, int64_t start, int64_t end) {
  const __int128 per = static_cast<__int128>(total / static_cast<uint64_t>(max));
  const auto clamp = [total](__int128 p) {
    return static_cast<uint64_t>(std::min<__int128>(p, static_cast<__int128>(total)));
  };
  const uint64_t b = clamp(per * start);
  const uint64_t e = end == max ? total : clamp(per * end);
  return {b, std::max(b, e)};
}

}  // namespace dsanalyze
