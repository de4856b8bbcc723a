#include "output/index_files_writer.h"

#include <utility>

#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

constexpr size_t kValuesPerFlush = size_t{1} << 16;

IndexedWriter::Options WithRows(IndexedWriter::Options o, uint64_t rows) {
  o.rows = rows;
  return o;
}

}  // namespace

Status IndexFilesWriter::Open(const IndexFilePrefixes& p, DType metric_dtype, DType sample_dtype,
                              IndexedWriter::Options base, uint64_t distinct) {
  step_ = PercentileStep(distinct);
  if (!p.index_to_metric.empty()) {
    DSA_ASSIGN_OR_RETURN(
        metric_, IndexedWriter::Create(p.index_to_metric, metric_dtype, WithRows(base, distinct)));
  }
  if (!p.index_to_sample.empty()) {
    DSA_ASSIGN_OR_RETURN(
        sample_, IndexedWriter::Create(p.index_to_sample, sample_dtype, WithRows(base, distinct)));
  }
  if (p.percentile_merged.empty()) return Status::OK();
  IndexedWriter::Options percentile = WithRows(base, PercentileRows(distinct));
  percentile.bin_from = p.index_to_sample + ".bin";  // the same ids in the same order
  DSA_ASSIGN_OR_RETURN(percentile_,
                       IndexedWriter::Create(p.percentile_merged, sample_dtype, percentile));
  return Status::OK();
}

Status IndexFilesWriter::AppendIds(std::span<const int64_t> ids) {
  if (sample_) DSA_RETURN_IF_ERROR(sample_->Append(ids));
  return percentile_ ? percentile_->AppendElsewhere(ids.size()) : Status::OK();
}

Status IndexFilesWriter::EndValue(int64_t value, uint64_t ids) {
  if (metric_) {
    values_.push_back(value);
    if (values_.size() == kValuesPerFlush) DSA_RETURN_IF_ERROR(FlushValues());
  }
  if (sample_) DSA_RETURN_IF_ERROR(sample_->EndRowOfSize(ids));
  if (!percentile_) return Status::OK();
  group_ids_ += ids;
  if (++group_rows_ < step_) return Status::OK();
  group_rows_ = 0;
  return percentile_->EndRowOfSize(std::exchange(group_ids_, 0));
}

Status IndexFilesWriter::Finish() {
  if (percentile_ && group_rows_ > 0) DSA_RETURN_IF_ERROR(percentile_->EndRowOfSize(group_ids_));
  DSA_RETURN_IF_ERROR(FlushValues());
  if (metric_) DSA_RETURN_IF_ERROR(metric_->Finish());
  if (sample_) DSA_RETURN_IF_ERROR(sample_->Finish());
  return percentile_ ? percentile_->Finish() : Status::OK();
}

Status IndexFilesWriter::FlushValues() {
  if (!metric_ || values_.empty()) return Status::OK();
  Status st = metric_->AddScalarRows(values_);
  values_.clear();
  return st;
}

}  // namespace dsanalyze
