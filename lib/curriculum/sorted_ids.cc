#include "curriculum/sorted_ids.h"

#include <algorithm>
#include <numeric>

namespace dsanalyze {

SortedIds::SortedIds(std::vector<MetricFiles> metrics, bool descending)
    : metrics_(std::move(metrics)), descending_(descending) {
  row_ = {metrics_[0].index_to_sample.dtype(), nullptr, 0};
}

Status SortedIds::Next(std::span<int64_t> out) {
  size_t done = 0;
  while (done < out.size()) {
    if (row_.count == 0) DSA_RETURN_IF_ERROR(LoadRow());
    const uint64_t n = std::min<uint64_t>(row_.count, out.size() - done);
    WidenElements(row_, 0, out.subspan(done, n));
    row_.data += n * ItemSize(row_.dtype);
    row_.count -= n;
    done += n;
  }
  return Status::OK();
}

Status SortedIds::LoadRow() {
  const IndexedDataset& i2s = metrics_[0].index_to_sample;
  if (metrics_.size() == 1 && !descending_) {  // the whole file is the order
    rows_loaded_ = i2s.num_rows();
    row_ = i2s.elements();
    return Status::OK();
  }
  if (rows_loaded_ == i2s.num_rows()) return Status::Internal("order: read past the last sample");
  const uint64_t row = descending_ ? i2s.num_rows() - 1 - rows_loaded_ : rows_loaded_;
  ++rows_loaded_;
  if (metrics_.size() == 1) {
    row_ = i2s.row(row);
    return Status::OK();
  }
  return SortRow(row);
}

// Sorts the ids of `row` by the later metrics' values (ties keep the row's
// ascending id order: the sort is stable) into sorted_, and points row_ at it.
Status SortedIds::SortRow(uint64_t row) {
  const IndexedDataset& i2s = metrics_[0].index_to_sample;
  std::vector<int64_t> ids(static_cast<size_t>(i2s.row_size(row)));
  WidenElements(i2s.elements(), i2s.row_begin(row), ids);
  const size_t width = metrics_.size() - 1;
  keys_.resize(ids.size() * width);
  for (size_t m = 0; m < width; ++m)
    DSA_RETURN_IF_ERROR(ValuesById(metrics_[m + 1], ids, keys_.data() + m, width));
  std::vector<uint32_t> perm(ids.size());
  std::iota(perm.begin(), perm.end(), 0u);
  const bool descending = descending_;
  std::stable_sort(perm.begin(), perm.end(), [&](uint32_t a, uint32_t b) {
    const int64_t* ka = keys_.data() + size_t{a} * width;
    const int64_t* kb = keys_.data() + size_t{b} * width;
    for (size_t m = 0; m < width; ++m)
      if (ka[m] != kb[m]) return descending ? ka[m] > kb[m] : ka[m] < kb[m];
    return false;
  });
  sorted_.resize(ids.size());
  for (size_t k = 0; k < perm.size(); ++k) sorted_[k] = ids[perm[k]];
  row_ = {DType::kI64, reinterpret_cast<const std::byte*>(sorted_.data()), sorted_.size()};
  return Status::OK();
}

}  // namespace dsanalyze
