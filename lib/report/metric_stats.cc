#include "report/metric_stats.h"

#include <algorithm>

#include "format/indexed_dataset.h"
#include "output/analysis_files.h"
#include "output/analysis_layout.h"

namespace dsanalyze {

Result<ValueDistribution> ReadValueDistribution(const std::string& save_path,
                                                const std::string& metric, CodeTable table) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2m,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kIndexToMetric), table));
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2s,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kIndexToSample), table));
  const std::string i2m_name = i2m.prefix() + ".idx";
  if (i2s.num_rows() != i2m.num_rows())
    return Status::BadInput(i2s.prefix() + ".idx: " + std::to_string(i2s.num_rows()) +
                            " rows, but " + i2m_name + " has " + std::to_string(i2m.num_rows()));
  if (i2m.num_elements() != i2m.num_rows())
    return Status::BadInput(i2m_name + ": rows must hold exactly one value each");

  ValueDistribution d;
  d.metric_dtype = i2m.dtype();
  d.sample_dtype = i2s.dtype();
  d.values.reserve(i2m.num_rows());
  d.counts.reserve(i2m.num_rows());
  VisitIntDType(i2m.dtype(), [&](auto tag) {
    for (auto v : i2m.elements().as<decltype(tag)>()) d.values.push_back(static_cast<int64_t>(v));
  });
  for (uint64_t r = 0; r < i2m.num_rows(); ++r) {
    if (i2m.row_size(r) != 1)
      return Status::BadInput(i2m_name + ": row " + std::to_string(r) +
                              " does not hold exactly one value");
    if (r > 0 && d.values[r] <= d.values[r - 1])
      return Status::BadInput(i2m_name + ": values are not strictly ascending at row " +
                              std::to_string(r));
    d.counts.push_back(static_cast<uint64_t>(i2s.row_size(r)));
    d.samples += d.counts.back();
  }
  return d;
}

__int128 SumOfValues(const ValueDistribution& d) {
  __int128 sum = 0;
  for (size_t i = 0; i < d.values.size(); ++i)
    sum += static_cast<__int128>(d.values[i]) * static_cast<__int128>(d.counts[i]);
  return sum;
}

int64_t NearestRankPercentile(const ValueDistribution& d, int p) {
  // rank = ceil(p · N / 100), at least 1; in 128 bits so p · N cannot overflow.
  const unsigned __int128 scaled = static_cast<unsigned __int128>(p) * d.samples;
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>((scaled + 99) / 100));
  uint64_t seen = 0;
  for (size_t i = 0; i < d.values.size(); ++i) {
    seen += d.counts[i];
    if (seen >= rank) return d.values[i];
  }
  return d.values.back();
}

Result<AccumulateStats> ReadAccumulateStats(const std::string& save_path, const std::string& metric,
                                            CodeTable table) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset mv,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kMetricValue), table));
  if (mv.num_rows() != 1)
    return Status::BadInput(mv.prefix() + ".idx: " + std::to_string(mv.num_rows()) +
                            " rows, expected exactly 1");
  AccumulateStats s;
  s.dtype = mv.dtype();
  s.length = static_cast<uint64_t>(mv.row_size(0));
  VisitIntDType(mv.dtype(), [&](auto tag) {
    const auto row = mv.row(0).as<decltype(tag)>();
    if (row.empty()) return;
    s.min = s.max = row[0];
    for (auto v : row) {
      s.sum += v;
      s.min = std::min<__int128>(s.min, v);
      s.max = std::max<__int128>(s.max, v);
    }
  });
  return s;
}

std::string PercentileKey(int p) {
  std::string key = "p";  // appended: `"p" + to_string(p)` trips GCC 12's -Wrestrict
  key += std::to_string(p);
  return key;
}

}  // namespace dsanalyze
