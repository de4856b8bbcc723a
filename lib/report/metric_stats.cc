#include "report/metric_stats.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "format/indexed_dataset.h"
#include "output/analysis_files.h"
#include "output/analysis_layout.h"
#include "output/metric_files.h"

namespace dsanalyze {

Result<ValueDistribution> ReadValueDistribution(const std::string& save_path,
                                                const std::string& metric, CodeTable table) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2m,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kIndexToMetric), table));
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2s,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kIndexToSample), table));
  ValueDistribution d;
  DSA_ASSIGN_OR_RETURN(d.values, ReadIndexValues(i2m));
  if (std::optional<FileProblem> p = CheckOneRowPerValue(i2s, i2m))
    return BadFile(i2s.prefix(), *p);
  d.metric_dtype = i2m.dtype();
  d.sample_dtype = i2s.dtype();
  d.counts.reserve(i2s.num_rows());
  for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
    d.counts.push_back(static_cast<uint64_t>(i2s.row_size(r)));
    d.samples += d.counts.back();
  }
  return d;
}

Result<std::vector<CountedValues>> ReadComponentDistributions(
    const std::string& save_path, const std::string& metric, CodeTable table, size_t components,
    const ComponentsOfIds& components_of) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2m,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kIndexToMetric), table));
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2s,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kIndexToSample), table));
  DSA_ASSIGN_OR_RETURN(const std::vector<int64_t> values, ReadIndexValues(i2m));
  if (std::optional<FileProblem> p = CheckOneRowPerValue(i2s, i2m))
    return BadFile(i2s.prefix(), *p);
  // counts[k][r]: samples of component k with values[r].
  std::vector<std::vector<uint64_t>> counts(components, std::vector<uint64_t>(values.size()));
  constexpr uint64_t kPiece = 4096;  // ids a call of components_of
  std::vector<int64_t> ids(kPiece);
  std::vector<uint32_t> of(kPiece);
  for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
    const ElementView row = i2s.row(r);
    for (uint64_t from = 0; from < row.count; from += kPiece) {
      const size_t n = static_cast<size_t>(std::min(kPiece, row.count - from));
      WidenElements(row, from, std::span(ids.data(), n));
      components_of(std::span(ids.data(), n), std::span(of.data(), n));
      for (size_t i = 0; i < n; ++i) {
        if (of[i] >= components)
          return Status::Internal("sample " + std::to_string(ids[i]) + " of metric " + metric +
                                  " is in no component of the blend");
        ++counts[of[i]][r];
      }
    }
  }
  std::vector<CountedValues> out(components);
  for (size_t k = 0; k < components; ++k)
    for (size_t r = 0; r < values.size(); ++r) {
      if (counts[k][r] == 0) continue;
      out[k].values.push_back(values[r]);
      out[k].counts.push_back(counts[k][r]);
      out[k].samples += counts[k][r];
    }
  return out;
}

__int128 SumOfValues(const CountedValues& d) {
  __int128 sum = 0;
  for (size_t i = 0; i < d.values.size(); ++i)
    sum += static_cast<__int128>(d.values[i]) * static_cast<__int128>(d.counts[i]);
  return sum;
}

Spread SpreadOf(const CountedValues& d) {
  long double mean = 0;
  for (size_t i = 0; i < d.values.size(); ++i)
    mean += static_cast<long double>(d.values[i]) * d.counts[i];
  mean /= d.samples;
  long double m2 = 0, m3 = 0;
  for (size_t i = 0; i < d.values.size(); ++i) {
    const long double x = d.values[i] - mean;
    m2 += x * x * d.counts[i];
    m3 += x * x * x * d.counts[i];
  }
  m2 /= d.samples;
  m3 /= d.samples;
  Spread s;
  s.std = static_cast<double>(std::sqrt(m2));
  s.iqr = static_cast<double>(static_cast<long double>(NearestRankPercentile(d, 75)) -
                              NearestRankPercentile(d, 25));
  s.skew = m2 > 0 ? static_cast<double>(m3 / std::pow(m2, 1.5L)) : 0.0;
  return s;
}

namespace {

// The up-to-`k` smallest ids of index_to_sample row `row` (any order in the
// row), ascending, read in chunks so that a row of any size costs O(k).
std::vector<uint64_t> SmallestIds(const IndexedDataset& i2s, uint64_t row, size_t k) {
  constexpr uint64_t kChunk = 4096;
  const ElementView view = i2s.row(row);
  std::vector<int64_t> chunk(kChunk);
  std::vector<uint64_t> best;  // ascending, at most k
  for (uint64_t from = 0; from < view.count; from += kChunk) {
    const size_t len = static_cast<size_t>(std::min(kChunk, view.count - from));
    WidenElements(view, from, std::span(chunk.data(), len));
    for (size_t i = 0; i < len; ++i) {
      const uint64_t id = static_cast<uint64_t>(chunk[i]);
      if (best.size() == k && id >= best.back()) continue;
      best.insert(std::upper_bound(best.begin(), best.end(), id), id);
      if (best.size() > k) best.pop_back();
    }
  }
  return best;
}

// Samples of rows `first`, `first + step`, ... until `k` are taken.
std::vector<Extreme> TakeFromRows(const IndexedDataset& i2s, const ValueDistribution& d,
                                  int64_t first, int64_t step, size_t k) {
  std::vector<Extreme> out;
  for (int64_t r = first; r >= 0 && r < static_cast<int64_t>(d.values.size()) && out.size() < k;
       r += step)
    for (const uint64_t id : SmallestIds(i2s, static_cast<uint64_t>(r), k - out.size()))
      out.push_back({id, d.values[static_cast<size_t>(r)]});
  return out;
}

}  // namespace

Result<Extremes> ReadExtremes(const std::string& save_path, const std::string& metric,
                              const ValueDistribution& d, CodeTable table, size_t k) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset i2s,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kIndexToSample), table));
  if (i2s.num_rows() != d.values.size())
    return Status::BadInput(i2s.prefix() + ": changed while the report read it");
  const int64_t last = static_cast<int64_t>(d.values.size()) - 1;
  return Extremes{TakeFromRows(i2s, d, 0, 1, k), TakeFromRows(i2s, d, last, -1, k)};
}

Result<AccumulateStats> ReadAccumulateStats(const std::string& save_path, const std::string& metric,
                                            CodeTable table) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset mv,
                       OpenMetricFile(MetricFilePrefix(save_path, metric, kMetricValue), table));
  DSA_ASSIGN_OR_RETURN(const std::vector<int64_t> row, ReadMetricValueRow(mv));
  AccumulateStats s;
  s.dtype = mv.dtype();
  s.length = row.size();
  s.min = s.max = row[0];  // the row is not empty (metric_files.h rule 6)
  for (const int64_t v : row) {
    s.sum += v;
    s.min = std::min<__int128>(s.min, v);
    s.max = std::max<__int128>(s.max, v);
  }
  return s;
}

std::string PercentileKey(int p) {
  std::string key = "p";  // appended: `"p" + to_string(p)` trips GCC 12's -Wrestrict
  key += std::to_string(p);
  return key;
}

}  // namespace dsanalyze
