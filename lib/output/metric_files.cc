#include "output/metric_files.h"

#include "output/analysis_files.h"
#include "output/analysis_folder.h"
#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

using std::to_string;

// Rule 2 over `view`'s elements: calls f(i, value) for each as int64, up to
// the first that breaks it.
template <class F>
std::optional<FileProblem> ForEachInt64(const ElementView& view, F&& f) {
  std::optional<FileProblem> problem;
  VisitIntDType(view.dtype, [&](auto tag) {
    const auto elements = view.as<decltype(tag)>();
    for (uint64_t i = 0; i < elements.size() && !problem; ++i) {
      int64_t v;
      if (AsInt64(elements[i], &v))
        problem = f(i, v);
      else
        problem = FileProblem{FileRule::kInt64, i,
                              "value " + to_string(elements[i]) + " exceeds the int64 range"};
    }
  });
  return problem;
}

}  // namespace

Status BadFile(const std::string& prefix, const FileProblem& problem) {
  std::string line = prefix + ": ";
  if (problem.row) line += "row " + to_string(*problem.row) + ": ";
  return Status::BadInput(line + problem.message);
}

std::optional<FileProblem> CheckOneValueARow(const IndexedDataset& ds) {
  for (uint64_t r = 0; r < ds.num_rows(); ++r)
    if (ds.row_size(r) != 1)
      return FileProblem{FileRule::kOneValueARow, r,
                         "has " + to_string(ds.row_size(r)) + " elements, expected exactly 1"};
  return std::nullopt;
}

std::optional<FileProblem> CheckIndexToMetric(const IndexedDataset& i2m,
                                              std::vector<int64_t>* values) {
  if (std::optional<FileProblem> p = CheckOneValueARow(i2m)) return p;
  if (values) values->clear();
  // Rules 2 and 3 in one pass over every row (rule 2 is told first),
  // keeping the values only when asked to.
  int64_t previous = 0;
  std::optional<FileProblem> ascending;
  const std::optional<FileProblem> range = ForEachInt64(i2m.elements(), [&](uint64_t r, int64_t v) {
    if (r > 0 && v <= previous && !ascending)
      ascending = FileProblem{FileRule::kAscending, r,
                              "value " + to_string(v) + " is not greater than the previous " +
                                  "row's " + to_string(previous) + " (must be strictly ascending)"};
    previous = v;
    if (values) values->push_back(v);
    return std::optional<FileProblem>();
  });
  if (range && values) values->clear();
  return range ? range : ascending;
}

std::optional<FileProblem> CheckOneRowPerValue(const IndexedDataset& i2s,
                                               const IndexedDataset& i2m) {
  if (i2s.num_rows() == i2m.num_rows()) return std::nullopt;
  return FileProblem{FileRule::kOneRowPerValue, std::nullopt,
                     "has " + to_string(i2s.num_rows()) + " rows but index_to_metric has " +
                         to_string(i2m.num_rows()) + " (one row per distinct value)"};
}

std::optional<FileProblem> CheckOneIdASample(const IndexedDataset& i2s, uint64_t samples) {
  if (i2s.num_elements() == samples) return std::nullopt;
  return FileProblem{FileRule::kOneIdASample, std::nullopt,
                     "holds " + to_string(i2s.num_elements()) +
                         " sample ids but sample_to_metric has " + to_string(samples) + " samples"};
}

Status CheckIndexFiles(const IndexedDataset& i2s, const IndexedDataset& i2m) {
  if (std::optional<FileProblem> p = CheckIndexToMetric(i2m)) return BadFile(i2m.prefix(), *p);
  if (std::optional<FileProblem> p = CheckOneRowPerValue(i2s, i2m))
    return BadFile(i2s.prefix(), *p);
  return Status::OK();
}

Result<std::vector<int64_t>> ReadIndexValues(const IndexedDataset& i2m) {
  std::vector<int64_t> values;
  if (std::optional<FileProblem> p = CheckIndexToMetric(i2m, &values))
    return BadFile(i2m.prefix(), *p);
  return values;
}

std::optional<FileProblem> CheckMetricValue(const IndexedDataset& mv, std::vector<int64_t>* row) {
  if (mv.num_rows() != 1)
    return FileProblem{FileRule::kOneRow, std::nullopt,
                       "has " + to_string(mv.num_rows()) + " rows, expected exactly 1"};
  if (mv.row_size(0) == 0)
    return FileProblem{FileRule::kNonEmptyRow, 0,
                       "is empty (DeepSpeed's reduce never writes an empty metric_value)"};
  if (row) row->clear();
  std::optional<FileProblem> p = ForEachInt64(mv.row(0), [&](uint64_t, int64_t v) {
    if (row) row->push_back(v);
    return std::optional<FileProblem>();
  });
  if (p) p->row = 0;
  return p;
}

Result<std::vector<int64_t>> ReadMetricValueRow(const IndexedDataset& mv) {
  std::vector<int64_t> row;
  if (std::optional<FileProblem> p = CheckMetricValue(mv, &row)) return BadFile(mv.prefix(), *p);
  return row;
}

int64_t MetricFiles::value(uint64_t row) const {
  int64_t v = 0;
  WidenElements(index_to_metric.elements(), row, {&v, 1});
  return v;
}

Result<MetricFiles> OpenMetricFiles(const std::string& save_path, const AnalysisFolder& analysis,
                                    const std::string& metric, SampleToMetric sample_to_metric) {
  MetricFiles m;
  m.name = metric;
  DSA_ASSIGN_OR_RETURN(m.index_to_sample,
                       OpenAnalysisFile(save_path, analysis, metric, kIndexToSample));
  DSA_ASSIGN_OR_RETURN(m.index_to_metric,
                       OpenAnalysisFile(save_path, analysis, metric, kIndexToMetric));
  DSA_RETURN_IF_ERROR(CheckIndexFiles(m.index_to_sample, m.index_to_metric));
  m.sample_to_metric_prefix = MetricFilePrefix(save_path, metric, kSampleToMetric);
  if (sample_to_metric == SampleToMetric::kOpen) {
    DSA_ASSIGN_OR_RETURN(m.sample_to_metric,
                         OpenAnalysisFile(save_path, analysis, metric, kSampleToMetric));
    if (std::optional<FileProblem> p = CheckOneValueARow(*m.sample_to_metric))
      return BadFile(m.sample_to_metric_prefix, *p);
    m.sample_rows = m.sample_to_metric->num_rows();
  } else {
    DSA_RETURN_IF_ERROR(CheckWritten(save_path, analysis, metric, kSampleToMetric));
    DSA_ASSIGN_OR_RETURN(const IdxHeader header, ReadIdxHeader(m.sample_to_metric_prefix));
    m.sample_rows = header.rows;
  }
  if (std::optional<FileProblem> p = CheckOneIdASample(m.index_to_sample, m.sample_rows))
    return BadFile(m.index_to_sample.prefix(), *p);
  return m;
}

}  // namespace dsanalyze
