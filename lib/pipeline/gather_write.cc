#include "pipeline/gather_write.h"

#include <algorithm>
#include <memory>

#include "format/indexed_writer.h"
#include "output/analysis_layout.h"
#include "pipeline/stream.h"
#include "util/fault_point.h"
#include "util/interrupt.h"

namespace dsanalyze {
namespace {

constexpr int kTagScalars = 101;
constexpr int kTagKeys = 102;

template <class T>
uint64_t ChunkElems(const WriteOptions& o) {
  return std::max<uint64_t>(1, o.chunk_bytes / sizeof(T));
}

void CountRows(const WriteOptions& o, uint64_t rows) {
  if (o.rows_done) o.rows_done->fetch_add(rows, std::memory_order_relaxed);
}

IndexedWriter::Options WriterOptions(const WriteOptions& o, uint64_t rows) {
  IndexedWriter::Options w;
  w.table = o.table;
  w.rows = rows;
  w.sync = o.sync;
  return w;
}

// Per-rank facts about a sorted slice, gathered so rank 0 can count distinct
// values before it writes (the .idx row counts are needed up front).
struct SliceSummary {
  uint64_t count;
  uint64_t distinct;
  uint64_t first_value;  // value offsets, meaningful when count > 0
  uint64_t last_value;
};

// Builds the chosen index files from the global key stream, chunk by chunk.
template <class Key>
class IndexStreamWriter {
 public:
  IndexStreamWriter(const KeyCodec<Key>& codec, uint64_t distinct) : codec_(codec) {
    step_ = PercentileStep(distinct);
  }

  // Creates the writers of the files whose prefix is set.
  Status Open(const IndexFilePrefixes& p, DType metric_dtype, DType sample_dtype,
              const WriteOptions& o, uint64_t distinct) {
    if (!p.index_to_metric.empty()) {
      DSA_ASSIGN_OR_RETURN(metric_, IndexedWriter::Create(p.index_to_metric, metric_dtype,
                                                          WriterOptions(o, distinct)));
    }
    if (!p.index_to_sample.empty()) {
      DSA_ASSIGN_OR_RETURN(sample_, IndexedWriter::Create(p.index_to_sample, sample_dtype,
                                                          WriterOptions(o, distinct)));
    }
    if (p.percentile_merged.empty()) return Status::OK();
    // The percentile-merged .bin holds the same ids in the same order as
    // index_to_sample's: it is linked, not written twice.
    IndexedWriter::Options percentile_options = WriterOptions(o, PercentileRows(distinct));
    percentile_options.bin_from = p.index_to_sample + ".bin";
    DSA_ASSIGN_OR_RETURN(
        percentile_, IndexedWriter::Create(p.percentile_merged, sample_dtype, percentile_options));
    return Status::OK();
  }

  Status Consume(std::span<const Key> keys) {
    values_.clear();
    if (sample_) {
      ids_.resize(keys.size());
      for (size_t i = 0; i < keys.size(); ++i) ids_[i] = codec_.Id(keys[i]);
      DSA_RETURN_IF_ERROR(sample_->Append(ids_));
    }
    if (percentile_) DSA_RETURN_IF_ERROR(percentile_->AppendElsewhere(keys.size()));
    for (const Key& k : keys) {
      const uint64_t v = codec_.ValueOffset(k);
      if (run_len_ > 0 && v != run_value_) DSA_RETURN_IF_ERROR(EndRun());
      if (run_len_ == 0) run_value_ = v;
      ++run_len_;
    }
    return FlushValues();
  }

  Status Finish() {
    if (run_len_ > 0) DSA_RETURN_IF_ERROR(EndRun());
    if (percentile_ && group_rows_ > 0) DSA_RETURN_IF_ERROR(percentile_->EndRowOfSize(group_len_));
    DSA_RETURN_IF_ERROR(FlushValues());
    if (metric_) DSA_RETURN_IF_ERROR(metric_->Finish());
    if (sample_) DSA_RETURN_IF_ERROR(sample_->Finish());
    return percentile_ ? percentile_->Finish() : Status::OK();
  }

 private:
  Status EndRun() {
    if (metric_)
      values_.push_back(
          static_cast<int64_t>(run_value_ + static_cast<uint64_t>(codec_.layout.value_min)));
    if (sample_) DSA_RETURN_IF_ERROR(sample_->EndRowOfSize(run_len_));
    group_len_ += run_len_;
    if (percentile_ && ++group_rows_ == step_) {
      DSA_RETURN_IF_ERROR(percentile_->EndRowOfSize(group_len_));
      group_rows_ = 0;
      group_len_ = 0;
    }
    run_len_ = 0;
    return Status::OK();
  }

  Status FlushValues() {
    if (!metric_) return Status::OK();
    Status st = metric_->AddScalarRows(values_);
    values_.clear();
    return st;
  }

  KeyCodec<Key> codec_;
  uint64_t step_ = 1;
  std::unique_ptr<IndexedWriter> metric_, sample_, percentile_;
  std::vector<int64_t> ids_, values_;
  uint64_t run_value_ = 0, run_len_ = 0;
  uint64_t group_rows_ = 0, group_len_ = 0;
};

template <class Key>
SliceSummary Summarize(const std::vector<Key>& slice, const KeyCodec<Key>& codec) {
  SliceSummary s{slice.size(), 0, 0, 0};
  if (slice.empty()) return s;
  s.first_value = codec.ValueOffset(slice.front());
  s.last_value = codec.ValueOffset(slice.back());
  uint64_t prev = s.first_value;
  s.distinct = 1;
  for (const Key& k : slice) {
    const uint64_t v = codec.ValueOffset(k);
    s.distinct += v != prev;
    prev = v;
  }
  return s;
}

}  // namespace

Status WriteOrderedScalars(const Comm& comm, std::span<const int64_t> local,
                           const std::string& prefix, DType dtype, const WriteOptions& options) {
  const std::vector<uint64_t> counts = comm.Allgather<uint64_t>(local.size());
  const uint64_t chunk = ChunkElems<int64_t>(options);
  Status st;
  if (comm.is_root()) {
    uint64_t total = 0;
    for (uint64_t c : counts) total += c;
    std::unique_ptr<IndexedWriter> w;
    auto created = IndexedWriter::Create(prefix, dtype, WriterOptions(options, total));
    if (created.ok()) w = std::move(created).value();
    st = created.status();
    if (st.ok()) st = CheckInterrupt();
    if (st.ok()) st = w->AddScalarRows(local);
    CountRows(options, local.size());
    for (int r = 1; r < comm.size(); ++r) {
      ReceiveChunks<int64_t>(comm, counts[r], r, kTagScalars, chunk,
                             [&](std::span<const int64_t> part) {
                               if (st.ok()) st = CheckInterrupt();
                               if (st.ok()) st = w->AddScalarRows(part);
                               CountRows(options, part.size());
                             });
    }
    if (st.ok()) st = w->Finish();
  } else {
    SendChunks(comm, local, 0, kTagScalars, chunk);
  }
  return comm.AgreeOnStatus(st);
}

template <class Key>
Status WriteIndexFiles(const Comm& comm, const std::vector<Key>& slice, const KeyCodec<Key>& codec,
                       const IndexFilePrefixes& prefixes, DType metric_dtype, DType sample_dtype,
                       const WriteOptions& options) {
  const std::vector<SliceSummary> all = comm.Allgather(Summarize(slice, codec));
  uint64_t distinct = 0;
  bool have_last = false;
  uint64_t last = 0;
  for (const SliceSummary& s : all) {
    if (s.count == 0) continue;
    distinct += s.distinct - (have_last && s.first_value == last ? 1 : 0);
    last = s.last_value;
    have_last = true;
  }

  const uint64_t chunk = ChunkElems<Key>(options);
  Status st;
  if (comm.is_root()) {
    IndexStreamWriter<Key> writer(codec, distinct);
    st = writer.Open(prefixes, metric_dtype, sample_dtype, options, distinct);
    for (uint64_t off = 0; st.ok() && off < slice.size(); off += chunk) {
      const uint64_t n = std::min<uint64_t>(chunk, slice.size() - off);
      st = CheckInterrupt();
      if (st.ok()) st = writer.Consume(std::span<const Key>(slice).subspan(off, n));
      CountRows(options, n);
    }
    for (int r = 1; r < comm.size(); ++r) {
      ReceiveChunks<Key>(comm, all[r].count, r, kTagKeys, chunk, [&](std::span<const Key> part) {
        if (st.ok()) st = CheckInterrupt();
        if (st.ok()) st = writer.Consume(part);
        CountRows(options, part.size());
        FaultPoint("write");  // test-only (util/fault_point.h)
      });
    }
    if (st.ok()) st = writer.Finish();
  } else {
    FaultPoint("write");  // test-only (util/fault_point.h)
    SendChunks(comm, std::span<const Key>(slice), 0, kTagKeys, chunk);
  }
  return comm.AgreeOnStatus(st);
}

Status WriteMetricValue(const Comm& comm, std::span<const int64_t> total, const std::string& prefix,
                        const WriteOptions& options) {
  Status st = [&]() -> Status {
    if (!comm.is_root() || total.empty()) return Status::OK();
    const auto [mn, mx] = std::minmax_element(total.begin(), total.end());
    DSA_ASSIGN_OR_RETURN(
        auto w, IndexedWriter::Create(prefix, FitIntDType(*mn, *mx), WriterOptions(options, 1)));
    DSA_RETURN_IF_ERROR(w->AddRow(total));
    return w->Finish();
  }();
  return comm.AgreeOnStatus(st);
}

template Status WriteIndexFiles(const Comm&, const std::vector<uint64_t>&,
                                const KeyCodec<uint64_t>&, const IndexFilePrefixes&, DType, DType,
                                const WriteOptions&);
template Status WriteIndexFiles(const Comm&, const std::vector<WideKey>&, const KeyCodec<WideKey>&,
                                const IndexFilePrefixes&, DType, DType, const WriteOptions&);

}  // namespace dsanalyze
