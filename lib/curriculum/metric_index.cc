#include "curriculum/metric_index.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "output/analysis_files.h"

namespace dsanalyze {
namespace {

// index_to_metric's values, one per row, as int64.
Result<std::vector<int64_t>> ReadValues(const IndexedDataset& i2m) {
  const std::string file = i2m.prefix();
  for (uint64_t r = 0; r < i2m.num_rows(); ++r)
    if (i2m.row_size(r) != 1)
      return Status::BadInput(
          file + ": row " + std::to_string(r) + " holds " + std::to_string(i2m.row_size(r)) +
          " values, expected 1 (an index_to_metric file holds one value a row)");
  std::vector<int64_t> values;
  values.reserve(i2m.num_rows());
  bool in_range = true;
  VisitIntDType(i2m.dtype(), [&](auto tag) {
    for (auto v : i2m.elements().as<decltype(tag)>()) {
      if constexpr (std::is_same_v<decltype(tag), uint64_t>)
        in_range = in_range && v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      values.push_back(static_cast<int64_t>(v));
    }
  });
  if (!in_range) return Status::BadInput(file + ": a value exceeds the int64 range");
  for (size_t r = 1; r < values.size(); ++r)
    if (values[r] <= values[r - 1])
      return Status::BadInput(file + ": row " + std::to_string(r) +
                              ": values are not strictly ascending (dsanalyze verify tells more)");
  return values;
}

}  // namespace

Result<MetricIndex> OpenMetricIndex(const CurriculumMetricConfig& metric,
                                    std::optional<CodeTable> table) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2s, OpenMetricFile(metric.index_to_sample_path, table));
  MetricIndex index{std::move(i2s), {}, 0};
  if (metric.difficulty_type != DifficultyType::kValue) return index;
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2m, OpenMetricFile(metric.index_to_metric_path, table));
  DSA_ASSIGN_OR_RETURN(index.values, ReadValues(i2m));
  index.metric_rows = index.values.size();
  const uint64_t rows = index.index_to_sample.num_rows();
  if (rows > index.values.size())
    return Status::BadInput(metric.index_to_sample_path + ": has " + std::to_string(rows) +
                            " rows but " + metric.index_to_metric_path + " only " +
                            std::to_string(index.values.size()) +
                            ": DeepSpeed's value lookup would fail (IndexError); the two files "
                            "are not one metric's pair");
  index.values.resize(rows);
  return index;
}

PositionRange ValueSlice(const MetricIndex& index, std::optional<int64_t> above, int64_t up_to) {
  const auto& v = index.values;
  const uint64_t lo = above ? std::upper_bound(v.begin(), v.end(), *above) - v.begin() : 0;
  const uint64_t hi = std::upper_bound(v.begin(), v.end(), up_to) - v.begin();
  if (hi <= lo) return {};
  return {index.index_to_sample.row_begin(lo), index.index_to_sample.row_begin(hi)};
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
