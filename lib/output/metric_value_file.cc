#include "output/metric_value_file.h"

#include "output/analysis_layout.h"

namespace dsanalyze {

Status WriteMetricValueFile(const std::string& prefix, std::span<const int64_t> row,
                            IndexedWriter::Options options) {
  if (row.empty())
    return Status::Internal(prefix + ": an empty metric_value row (no analysis holds one)");
  options.rows = 1;
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<IndexedWriter> w,
                       IndexedWriter::Create(prefix, MetricValueDType(row), options));
  DSA_RETURN_IF_ERROR(w->AddRow(row));
  return w->Finish();
}

}  // namespace dsanalyze
