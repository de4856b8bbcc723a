#include "curriculum/order_inputs.h"

#include <algorithm>

#include "output/analysis_folder.h"
#include "output/analysis_layout.h"
#include "util/closest_name.h"

namespace dsanalyze {
namespace {

using std::to_string;

// BadInput unless m holds `samples` ids, as the first metric does.
Status CheckSameSamples(const MetricFiles& m, uint64_t samples, const std::string& first) {
  const uint64_t ids = m.samples();
  if (ids == samples) return Status::OK();
  return Status::BadInput(m.index_to_sample.prefix() + ": holds " + to_string(ids) +
                          " sample ids, but " + first + "_index_to_sample holds " +
                          to_string(samples) + ": the metrics disagree on the number of samples");
}

}  // namespace

Status FindSingleValueMetric(const std::string& analysis, const AnalysisFolder& folder,
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
    if (f.name == metric && !TraitsOf(f.types.front()).per_sample)
      return Status::BadInput(analysis + ": metric \"" + metric + "\" is an " +
                              std::string(MetricTypeName(f.types.front())) +
                              " metric: it has no value per sample to order by");
  return Status::OK();
}

Result<std::vector<MetricFiles>> OpenOrderMetrics(const std::string& analysis,
                                                  const std::vector<std::string>& metrics) {
  DSA_ASSIGN_OR_RETURN(const AnalysisFolder folder, ReadAnalysisFolder(analysis));
  for (const std::string& metric : metrics)
    DSA_RETURN_IF_ERROR(FindSingleValueMetric(analysis, folder, metric));
  std::vector<MetricFiles> opened;
  for (const std::string& metric : metrics) {
    // The first metric's values are not looked up by id: its sample_to_metric
    // is only counted (its .idx is 12 bytes a sample).
    const SampleToMetric values = opened.empty() ? SampleToMetric::kCount : SampleToMetric::kOpen;
    DSA_ASSIGN_OR_RETURN(MetricFiles m, OpenMetricFiles(analysis, folder, metric, values));
    if (!opened.empty()) DSA_RETURN_IF_ERROR(CheckSameSamples(m, opened[0].samples(), metrics[0]));
    opened.push_back(std::move(m));
  }
  for (size_t i = 1; i < opened.size(); ++i) DSA_RETURN_IF_ERROR(CheckIndexedById(opened[i]));
  return opened;
}

Status CheckIndexedById(const MetricFiles& m) {
  const IndexedDataset& i2s = m.index_to_sample;
  std::vector<int64_t> ids, values;
  for (uint64_t r = 0; r < i2s.num_rows(); ++r) {
    const int64_t value = m.value(r);
    ids.resize(static_cast<size_t>(i2s.row_size(r)));
    values.resize(ids.size());
    WidenElements(i2s.elements(), i2s.row_begin(r), ids);
    DSA_RETURN_IF_ERROR(ValuesById(m, ids, values.data(), 1));
    for (size_t k = 0; k < ids.size(); ++k) {
      if (values[k] == value) continue;
      return Status::BadInput(
          m.sample_to_metric_prefix + ": is not indexed by sample id: row " + to_string(ids[k]) +
          " holds " + to_string(values[k]) + ", but " + m.name + "_index_to_sample gives sample " +
          to_string(ids[k]) + " the value " + to_string(value) +
          " (an analysis made with dataset.sample_indices); order it by one metric only");
    }
  }
  return Status::OK();
}

Status ValuesById(const MetricFiles& m, std::span<const int64_t> ids, int64_t* out, size_t stride) {
  const ElementView values = m.sample_to_metric->elements();
  const uint64_t samples = values.count;
  Status status;
  VisitIntDType(values.dtype, [&](auto tag) {
    const auto* in = values.as<decltype(tag)>().data();
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] < 0 || static_cast<uint64_t>(ids[k]) >= samples) {
        status = Status::BadInput(m.sample_to_metric_prefix + ": has no row for sample id " +
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
