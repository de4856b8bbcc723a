#include "output/index_files_writer.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "output/analysis_layout.h"
#include "util/scratch_file.h"

namespace dsanalyze {
namespace {

constexpr size_t kValuesPerFlush = size_t{1} << 16;
// Records read back per batch at a deferred Finish (1 MiB).
constexpr size_t kRecordsPerBatch = size_t{1} << 16;
// The ids' temporary file is an IndexedWriter whose rows mean nothing (only
// its .bin is used); a row ends every this many ids, as a row's size must fit
// int32, and so few rows are ended that their sizes cost no memory to speak of.
constexpr uint64_t kIdsPerTempRow = uint64_t{1} << 30;

IndexedWriter::Options WithRows(IndexedWriter::Options o, uint64_t rows) {
  o.rows = rows;
  return o;
}

// One value's row as OpenDeferred records it, in native byte order (the
// scratch file is read back by this process only).
struct ValueRecord {
  int64_t value;
  uint64_t ids;
};
static_assert(sizeof(ValueRecord) == 16);

}  // namespace

// What a deferred writer holds until Finish(): the recorded rows and the
// temporary ids file, which is removed however the writer ends.
struct IndexFilesWriter::Deferred {
  IndexFilePrefixes prefixes;
  DType metric_dtype = DType::kU8, sample_dtype = DType::kU8;
  IndexedWriter::Options base;
  ScratchFile rows;                    // a ValueRecord per value
  std::string ids_prefix;              // empty when index_to_sample is not written
  std::unique_ptr<IndexedWriter> ids;  // at ids_prefix until finished
  uint64_t ids_in_row = 0;             // ids appended since ids' last row end
  bool ids_finishing = false;          // ids' files may be under their final names

  // Before ids->Finish(), `ids` removes its own temporary names when destroyed.
  ~Deferred() {
    if (!ids_finishing) return;
    std::remove((ids_prefix + ".bin").c_str());
    std::remove((ids_prefix + ".idx").c_str());
  }

  // Rows of the ids file end every kIdsPerTempRow ids, however they arrive.
  Status AppendIds(ElementView part) {
    if (!ids) return Status::OK();
    while (part.count > 0) {
      const uint64_t take = std::min(part.count, kIdsPerTempRow - ids_in_row);
      DSA_RETURN_IF_ERROR(ids->Append({part.dtype, part.data, take}));
      part.data += take * ItemSize(part.dtype);
      part.count -= take;
      if ((ids_in_row += take) < kIdsPerTempRow) continue;
      ids_in_row = 0;
      DSA_RETURN_IF_ERROR(ids->EndRow());
    }
    return Status::OK();
  }

  // Moves the ids' .bin into place; its .idx is not needed.
  Status FinishIds() {
    DSA_RETURN_IF_ERROR(ids->EndRow());
    ids_finishing = true;
    DSA_RETURN_IF_ERROR(ids->Finish());
    ids.reset();  // frees its buffers before the real writers take theirs
    std::remove((ids_prefix + ".idx").c_str());
    return Status::OK();
  }
};

IndexFilesWriter::IndexFilesWriter() = default;
IndexFilesWriter::~IndexFilesWriter() = default;
IndexFilesWriter::IndexFilesWriter(IndexFilesWriter&&) noexcept = default;
IndexFilesWriter& IndexFilesWriter::operator=(IndexFilesWriter&&) noexcept = default;

Status IndexFilesWriter::Open(const IndexFilePrefixes& p, DType metric_dtype, DType sample_dtype,
                              IndexedWriter::Options base, uint64_t distinct) {
  writes_ids_ = !p.index_to_sample.empty();
  return OpenWriters(p, metric_dtype, sample_dtype, base, distinct, "");
}

Status IndexFilesWriter::OpenOverIds(const IndexFilePrefixes& p, DType metric_dtype,
                                     DType sample_dtype, IndexedWriter::Options base,
                                     uint64_t distinct, const std::string& ids_bin) {
  writes_ids_ = false;
  ids_elsewhere_ = true;
  return OpenWriters(p, metric_dtype, sample_dtype, base, distinct, ids_bin);
}

Status IndexFilesWriter::OpenDeferred(const IndexFilePrefixes& p, DType metric_dtype,
                                      DType sample_dtype, IndexedWriter::Options base,
                                      const std::string& scratch_dir) {
  if (!p.percentile_merged.empty() && p.index_to_sample.empty())
    return Status::Internal(p.percentile_merged + ": needs index_to_sample, which is not written");
  if (p.index_to_metric.empty() && p.index_to_sample.empty())
    return Open(p, metric_dtype, sample_dtype, base, 0);  // nothing to record
  auto d = std::make_unique<Deferred>();
  d->prefixes = p;
  d->metric_dtype = metric_dtype;
  d->sample_dtype = sample_dtype;
  d->base = base;
  d->base.rows.reset();
  DSA_ASSIGN_OR_RETURN(d->rows, ScratchFile::Create(scratch_dir));
  if (!p.index_to_sample.empty()) {
    d->ids_prefix = IdsFilePrefix(p.index_to_sample);
    // base.sync applies here: this .bin becomes index_to_sample's by a link.
    DSA_ASSIGN_OR_RETURN(d->ids, IndexedWriter::Create(d->ids_prefix, sample_dtype, d->base));
  }
  writes_ids_ = d->ids != nullptr;
  deferred_ = std::move(d);
  return Status::OK();
}

Status IndexFilesWriter::OpenWriters(const IndexFilePrefixes& p, DType metric_dtype,
                                     DType sample_dtype, const IndexedWriter::Options& base,
                                     uint64_t distinct, const std::string& ids_bin) {
  step_ = PercentileStep(distinct);
  if (!p.index_to_metric.empty()) {
    DSA_ASSIGN_OR_RETURN(
        metric_, IndexedWriter::Create(p.index_to_metric, metric_dtype, WithRows(base, distinct)));
  }
  if (!p.index_to_sample.empty()) {
    IndexedWriter::Options sample = WithRows(base, distinct);
    sample.bin_from = ids_bin;
    DSA_ASSIGN_OR_RETURN(sample_, IndexedWriter::Create(p.index_to_sample, sample_dtype, sample));
  }
  if (p.percentile_merged.empty()) return Status::OK();
  IndexedWriter::Options percentile = WithRows(base, PercentileRows(distinct));
  // The same ids in the same order.
  percentile.bin_from = ids_bin.empty() ? p.index_to_sample + ".bin" : ids_bin;
  DSA_ASSIGN_OR_RETURN(percentile_,
                       IndexedWriter::Create(p.percentile_merged, sample_dtype, percentile));
  return Status::OK();
}

Status IndexFilesWriter::AppendIds(const ElementView& ids) {
  if (deferred_) return deferred_->AppendIds(ids);
  if (sample_) DSA_RETURN_IF_ERROR(sample_->Append(ids));
  return percentile_ ? percentile_->AppendElsewhere(ids.count) : Status::OK();
}

Status IndexFilesWriter::EndValue(int64_t value, uint64_t ids) {
  if (!deferred_) return WriteValue(value, ids);
  const ValueRecord record{value, ids};
  return deferred_->rows.Append(&record, sizeof(record));
}

Status IndexFilesWriter::WriteValue(int64_t value, uint64_t ids) {
  if (ids_elsewhere_ && sample_) DSA_RETURN_IF_ERROR(sample_->AppendElsewhere(ids));
  if (ids_elsewhere_ && percentile_) DSA_RETURN_IF_ERROR(percentile_->AppendElsewhere(ids));
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

Status IndexFilesWriter::Finish() { return deferred_ ? FinishDeferred() : FinishWriters(); }

Status IndexFilesWriter::FinishWriters() {
  if (percentile_ && group_rows_ > 0) DSA_RETURN_IF_ERROR(percentile_->EndRowOfSize(group_ids_));
  DSA_RETURN_IF_ERROR(FlushValues());
  if (metric_) DSA_RETURN_IF_ERROR(metric_->Finish());
  if (sample_) DSA_RETURN_IF_ERROR(sample_->Finish());
  return percentile_ ? percentile_->Finish() : Status::OK();
}

// Now that the number of values is known: opens the real writers and feeds
// them the recorded rows, as a known-distinct writer would have been fed.
Status IndexFilesWriter::FinishDeferred() {
  Deferred& d = *deferred_;
  std::string ids_bin;
  if (!d.ids_prefix.empty()) {
    DSA_RETURN_IF_ERROR(d.FinishIds());
    ids_bin = d.ids_prefix + ".bin";
  }
  const uint64_t distinct = d.rows.size() / sizeof(ValueRecord);
  DSA_RETURN_IF_ERROR(
      OpenOverIds(d.prefixes, d.metric_dtype, d.sample_dtype, d.base, distinct, ids_bin));
  DSA_RETURN_IF_ERROR(Replay(distinct));
  DSA_RETURN_IF_ERROR(FinishWriters());
  deferred_.reset();  // removes the ids' file; the written files link to it
  return Status::OK();
}

// Reads the recorded rows back in bounded batches.
Status IndexFilesWriter::Replay(uint64_t distinct) {
  std::vector<ValueRecord> batch(std::min<uint64_t>(distinct, kRecordsPerBatch));
  for (uint64_t done = 0; done < distinct; done += batch.size()) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(batch.size(), distinct - done));
    DSA_RETURN_IF_ERROR(
        deferred_->rows.ReadAt(done * sizeof(ValueRecord), batch.data(), n * sizeof(ValueRecord)));
    for (size_t i = 0; i < n; ++i) DSA_RETURN_IF_ERROR(WriteValue(batch[i].value, batch[i].ids));
  }
  return Status::OK();
}

Status IndexFilesWriter::FlushValues() {
  if (!metric_ || values_.empty()) return Status::OK();
  Status st = metric_->AddScalarRows(values_);
  values_.clear();
  return st;
}

}  // namespace dsanalyze
