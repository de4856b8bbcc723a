#include "curriculum/order_inputs.h"

#include <algorithm>

#include "output/analysis_files.h"
#include "output/analysis_folder.h"
#include "output/analysis_layout.h"
#include "util/closest_name.h"

namespace dsanalyze {
namespace {

using std::to_string;

// BadInput unless `metric` is a single-value metric of the analysis.
Status FindMetric(const std::string& analysis, const AnalysisFolder& folder,
                  const std::string& metric) {
  const std::vector<std::string> names = AnalysisMetricNames(folder);
  if (std::find(names.begin(), names.end(), metric) == names.end()) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    const std::vector<std::string_view> choices(names.begin(), names.end());
    return Status::BadInput(analysis + ": no metric \"" + metric + "\"" +
                            DidYouMean(metric, choices) + "; its metrics: " + list);
  }
  for (const MetricFolder& f : folder.folders)
    if (f.name == metric && !f.has_single_value_files && f.has_metric_value)
      return Status::BadInput(analysis + ": metric \"" + metric +
                              "\" is an accumulate_value_over_samples metric: it has no value "
                              "per sample to order by");
  return Status::OK();
}

// Opens m's index files, counts its sample_to_metric rows, and opens that
// too when `by_id` (its values are looked up by sample id).
Result<OrderMetric> OpenMetric(const std::string& analysis, const AnalysisFolder& folder,
                               const std::string& metric, bool by_id) {
  OrderMetric m;
  m.name = metric;
  DSA_ASSIGN_OR_RETURN(m.index_to_sample,
                       OpenAnalysisFile(analysis, folder, metric, kIndexToSample));
  DSA_ASSIGN_OR_RETURN(m.index_to_metric,
                       OpenAnalysisFile(analysis, folder, metric, kIndexToMetric));
  m.values_prefix = MetricFilePrefix(analysis, metric, kSampleToMetric);
  DSA_RETURN_IF_ERROR(CheckWritten(analysis, folder, metric, kSampleToMetric));
  DSA_ASSIGN_OR_RETURN(const IdxHeader header, ReadIdxHeader(m.values_prefix));
  m.sample_rows = header.rows;
  if (by_id) {
    DSA_ASSIGN_OR_RETURN(m.sample_to_metric,
                         OpenAnalysisFile(analysis, folder, metric, kSampleToMetric));
  }
  return m;
}

// BadInput unless m's files agree with each other and with `samples` ids.
Status CheckCounts(const OrderMetric& m, uint64_t samples, const std::string& first) {
  const uint64_t ids = m.index_to_sample.num_elements();
  if (ids != samples)
    return Status::BadInput(m.index_to_sample.prefix() + ": holds " + to_string(ids) +
                            " sample ids, but " + first + "_index_to_sample holds " +
                            to_string(samples) + ": the metrics disagree on the number of samples");
  const uint64_t values = m.sample_to_metric ? m.sample_to_metric->num_elements() : m.sample_rows;
  if (m.sample_rows != ids || values != ids)
    return Status::BadInput(m.values_prefix + ": has " + to_string(values) + " values in " +
                            to_string(m.sample_rows) + " rows, but " + m.name +
                            "_index_to_sample holds " + to_string(ids) +
                            " sample ids: the files disagree on the number of samples");
  if (m.index_to_metric.num_rows() != m.index_to_sample.num_rows() ||
      m.index_to_metric.num_elements() != m.index_to_metric.num_rows())
    return Status::BadInput(m.index_to_metric.prefix() + ": has " +
                            to_string(m.index_to_metric.num_elements()) + " values in " +
                            to_string(m.index_to_metric.num_rows()) + " rows, but " + m.name +
                            "_index_to_sample has " + to_string(m.index_to_sample.num_rows()) +
                            " rows: the files disagree on the number of values");
  return Status::OK();
}

}  // namespace

Result<std::vector<OrderMetric>> OpenOrderMetrics(const std::string& analysis,
                                                  const std::vector<std::string>& metrics) {
  DSA_ASSIGN_OR_RETURN(const AnalysisFolder folder, ReadAnalysisFolder(analysis));
  for (const std::string& metric : metrics)
    DSA_RETURN_IF_ERROR(FindMetric(analysis, folder, metric));
  std::vector<OrderMetric> opened;
  for (const std::string& metric : metrics) {
    DSA_ASSIGN_OR_RETURN(OrderMetric m, OpenMetric(analysis, folder, metric, !opened.empty()));
    const uint64_t samples = opened.empty() ? m.index_to_sample.num_elements()
                                            : opened[0].index_to_sample.num_elements();
    DSA_RETURN_IF_ERROR(CheckCounts(m, samples, metrics[0]));
    opened.push_back(std::move(m));
  }
  for (size_t i = 1; i < opened.size(); ++i) DSA_RETURN_IF_ERROR(CheckIndexedById(opened[i]));
  return opened;
}

Status CheckIndexedById(const OrderMetric& m) {
  const IndexedDataset& i2s = m.index_to_sample;
  std::vector<int64_t> ids, values;
  for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
    int64_t value;
    WidenElements(m.index_to_metric.elements(), r, {&value, 1});
    ids.resize(static_cast<size_t>(i2s.row_size(r)));
    values.resize(ids.size());
    WidenElements(i2s.elements(), i2s.row_begin(r), ids);
    DSA_RETURN_IF_ERROR(ValuesById(m, ids, values.data(), 1));
    for (size_t k = 0; k < ids.size(); ++k) {
      if (values[k] == value) continue;
      return Status::BadInput(
          m.values_prefix + ": is not indexed by sample id: row " + to_string(ids[k]) + " holds " +
          to_string(values[k]) + ", but " + m.name + "_index_to_sample gives sample " +
          to_string(ids[k]) + " the value " + to_string(value) +
          " (an analysis made with dataset.sample_indices); order it by one metric only");
    }
  }
  return Status::OK();
}

Status ValuesById(const OrderMetric& m, std::span<const int64_t> ids, int64_t* out, size_t stride) {
  const ElementView values = m.sample_to_metric->elements();
  const uint64_t samples = values.count;
  Status status;
  VisitIntDType(values.dtype, [&](auto tag) {
    const auto* in = values.as<decltype(tag)>().data();
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] < 0 || static_cast<uint64_t>(ids[k]) >= samples) {
        status = Status::BadInput(m.values_prefix + ": has no row for sample id " +
                                  to_string(ids[k]) + " (it has " + to_string(samples) +
                                  " rows): the ids are not the iteration positions (an analysis "
                                  "made with dataset.sample_indices); order it by one metric only");
        return;
      }
      out[k * stride] = static_cast<int64_t>(in[ids[k]]);
    }
  });
  return status;
}

}  // namespace dsanalyze
