#include "curriculum/row_cursors.h"

#include <string>

#include "output/analysis_files.h"
#include "output/analysis_folder.h"
#include "output/analysis_layout.h"
#include "output/metric_files.h"

namespace dsanalyze {
namespace {

using std::to_string;

// The start of a value sample_to_metric may hold but index_to_metric has no
// row for: beyond every position, so its samples are never placed (and
// CheckCounts names it).
constexpr uint64_t kAbsent = uint64_t{1} << 62;

// start(v) and the count of each value's slot (row_cursors.h): the rows of
// index_to_sample in the order's order, their sizes summed.
void FillStarts(const MetricFiles& m, const std::vector<int64_t>& values, bool descending,
                std::vector<uint64_t>& starts, std::vector<uint64_t>& counts) {
  const uint64_t rows = values.size();
  const auto lowest = static_cast<uint64_t>(values.front());
  uint64_t position = 0;
  for (uint64_t k = 0; k < rows; ++k) {
    const uint64_t row = descending ? rows - 1 - k : k;
    const uint64_t slot = static_cast<uint64_t>(values[row]) - lowest;
    starts[slot] = position;
    counts[slot] = static_cast<uint64_t>(m.index_to_sample.row_size(row));
    position += counts[slot];
  }
}

}  // namespace

Result<std::optional<RowCursors>> RowCursors::Open(const OrderOptions& options) {
  if (options.metrics.size() != 1) return std::optional<RowCursors>();
  const std::string& name = options.metrics[0];
  DSA_ASSIGN_OR_RETURN(const AnalysisFolder folder, ReadAnalysisFolder(options.analysis));
  DSA_RETURN_IF_ERROR(FindSingleValueMetric(options.analysis, folder, name));
  DSA_ASSIGN_OR_RETURN(const MetricFiles m,
                       OpenMetricFiles(options.analysis, folder, name, SampleToMetric::kCount));
  DSA_ASSIGN_OR_RETURN(const std::vector<int64_t> values, ReadIndexValues(m.index_to_metric));
  // Unsigned: the difference of two int64 values always fits.
  if (values.empty() ||
      static_cast<uint64_t>(values.back()) - static_cast<uint64_t>(values.front()) >= kMaxSpan)
    return std::optional<RowCursors>();
  const std::string& prefix = m.sample_to_metric_prefix;
  DSA_ASSIGN_OR_RETURN(const IndexedDataset::Options file_options,
                       MetricFileOptions(prefix, folder.table));
  DSA_ASSIGN_OR_RETURN(IndexedDataset file, IndexedDataset::OpenScalarRows(prefix, file_options));
  if (file.num_elements() != m.samples())
    return Status::BadInput(prefix + ": holds " + to_string(file.num_elements()) + " values, but " +
                            name + "_index_to_sample holds " + to_string(m.samples()) +
                            " sample ids");
  const uint64_t span =
      static_cast<uint64_t>(values.back()) - static_cast<uint64_t>(values.front()) + 1;
  // One slot more, for the values outside the span.
  std::vector<uint64_t> starts(span + 1, kAbsent), counts(span + 1, 0);
  FillStarts(m, values, options.descending, starts, counts);
  return std::optional<RowCursors>(
      RowCursors(std::move(file), values.front(), std::move(starts), std::move(counts)));
}

Status RowCursors::CheckCounts(const std::vector<uint64_t>& up,
                               const std::vector<uint64_t>& down) const {
  const std::string head = values_.prefix() + ": disagrees with its index_to_sample: ";
  // A slot's samples: those of the front range (up − start) and of the back
  // one (start + count − down).
  const auto placed = [&](uint64_t slot) { return counts_[slot] + up[slot] - down[slot]; };
  const uint64_t outside = up.size() - 1;  // named first: it says the most
  if (placed(outside) != 0)
    return Status::BadInput(head + "it holds " + to_string(placed(outside)) +
                            " values outside index_to_metric's (an analysis's files mixed up?)");
  for (uint64_t slot = 0; slot < outside; ++slot) {
    if (placed(slot) == counts_[slot]) continue;
    const auto value = static_cast<int64_t>(static_cast<uint64_t>(lowest_) + slot);
    return Status::BadInput(head + "it gives the value " + to_string(value) + " to " +
                            to_string(placed(slot)) + " samples, index_to_sample to " +
                            to_string(counts_[slot]));
  }
  return Status::OK();
}

}  // namespace dsanalyze
