#include "index/gather_write.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <functional>
#include <memory>
#include <utility>

#include "comm/stream.h"
#include "format/indexed_writer.h"
#include "output/analysis_layout.h"
#include "output/metric_value_file.h"
#include "sort/global_ranks.h"
#include "sort/value_store.h"
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
  return IndexedWriter::OptionsFor(o.table, rows, o.sync);
}

// Per-rank facts about a sorted slice, gathered so rank 0 can count distinct
// values before it writes (the .idx row counts are needed up front).
struct SliceSummary {
  uint64_t count;
  uint64_t distinct;
  uint64_t first_value;  // value offsets, meaningful when count > 0
  uint64_t last_value;
};

// The end of the run of value offset `v` that starts at keys[begin]: steps
// that double, then a binary search, so a long run costs a few reads.
template <class Key>
size_t RunEnd(std::span<const Key> keys, size_t begin, uint64_t v, const KeyCodec<Key>& codec) {
  size_t lo = begin, step = 1;  // keys[lo] has value v
  while (lo + step < keys.size() && codec.ValueOffset(keys[lo + step]) == v) {
    lo += step;
    step *= 2;
  }
  const auto hi = keys.begin() + static_cast<ptrdiff_t>(std::min(keys.size(), lo + step));
  const auto end = std::partition_point(keys.begin() + static_cast<ptrdiff_t>(lo), hi,
                                        [&](const Key& k) { return codec.ValueOffset(k) == v; });
  return static_cast<size_t>(end - keys.begin());
}

}  // namespace

// Feeds the global key stream, chunk by chunk, to the index files' writer
// (output/index_files_writer.h): the ids, and a row end per run of equal values.
template <class Key>
class IndexStreamWriter {
 public:
  explicit IndexStreamWriter(const KeyCodec<Key>& codec) : codec_(codec) {}

  Status Open(const IndexFilePrefixes& p, DType metric_dtype, DType sample_dtype,
              const WriteOptions& o, std::optional<uint64_t> distinct,
              const std::string& scratch_dir) {
    if (distinct) return files_.Open(p, metric_dtype, sample_dtype, WriterOptions(o, 0), *distinct);
    return files_.OpenDeferred(p, metric_dtype, sample_dtype, WriterOptions(o, 0), scratch_dir);
  }

  Status Consume(std::span<const Key> keys) {
    if (files_.writes_ids()) {
      ids_.resize(keys.size());
      for (size_t i = 0; i < keys.size(); ++i) ids_[i] = codec_.Id(keys[i]);
      DSA_RETURN_IF_ERROR(files_.AppendIds(ids_));
    }
    for (size_t i = 0; i < keys.size();) {
      const uint64_t v = codec_.ValueOffset(keys[i]);
      if (run_len_ > 0 && v != run_value_) DSA_RETURN_IF_ERROR(EndRun());
      if (run_len_ == 0) run_value_ = v;
      const size_t end = RunEnd(keys, i, v, codec_);
      run_len_ += end - i;
      i = end;
    }
    return Status::OK();
  }

  Status Finish() {
    if (run_len_ > 0) DSA_RETURN_IF_ERROR(EndRun());
    return files_.Finish();
  }

 private:
  Status EndRun() {
    const int64_t value =
        static_cast<int64_t>(run_value_ + static_cast<uint64_t>(codec_.layout.value_min));
    return files_.EndValue(value, std::exchange(run_len_, 0));
  }

  KeyCodec<Key> codec_;
  IndexFilesWriter files_;
  std::vector<int64_t> ids_;
  uint64_t run_value_ = 0, run_len_ = 0;
};

namespace {

template <class Key>
SliceSummary Summarize(const std::vector<Key>& slice, const KeyCodec<Key>& codec) {
  SliceSummary s{slice.size(), 0, 0, 0};
  if (slice.empty()) return s;
  s.first_value = codec.ValueOffset(slice.front());
  s.last_value = codec.ValueOffset(slice.back());
  for (size_t i = 0; i < slice.size(); ++s.distinct)
    i = RunEnd(std::span<const Key>(slice), i, codec.ValueOffset(slice[i]), codec);
  return s;
}

// A window of AddRankOrdered is this many chunks of keys: rank 0 holds the
// other ranks' parts of one window and the window in global order.
constexpr uint64_t kWindowChunks = 16;

// Passes one window's parts (one per rank, each sorted) to `emit` in the
// global order when ranks hold ascending id ranges: value by value, each
// part's run of that value in rank order. Stops at emit's first error.
template <class Key, class Emit>
Status InterleaveByValue(const std::vector<std::span<const Key>>& parts, const KeyCodec<Key>& codec,
                         Emit&& emit) {
  std::vector<size_t> at(parts.size(), 0);
  for (;;) {
    std::optional<uint64_t> v;
    for (size_t r = 0; r < parts.size(); ++r) {
      if (at[r] == parts[r].size()) continue;
      const uint64_t vr = codec.ValueOffset(parts[r][at[r]]);
      if (!v || vr < *v) v = vr;
    }
    if (!v) return Status::OK();
    for (size_t r = 0; r < parts.size(); ++r) {
      if (at[r] == parts[r].size() || codec.ValueOffset(parts[r][at[r]]) != *v) continue;
      const size_t end = RunEnd(parts[r], at[r], *v, codec);
      DSA_RETURN_IF_ERROR(emit(parts[r].subspan(at[r], end - at[r])));
      at[r] = end;
    }
  }
}

// Collective: the number of distinct values over every rank's sorted keys,
// from a bitmap of the value offsets (value_bits <= kRankOrderedMaxValueBits).
template <class Key>
uint64_t CountDistinctValues(const Comm& comm, const std::vector<Key>& sorted,
                             const KeyCodec<Key>& codec) {
  assert(codec.layout.value_bits <= kRankOrderedMaxValueBits);
  std::vector<uint64_t> seen(((uint64_t{1} << codec.layout.value_bits) + 63) / 64, 0);
  for (size_t i = 0; i < sorted.size();) {
    const uint64_t v = codec.ValueOffset(sorted[i]);
    seen[v / 64] |= uint64_t{1} << (v % 64);
    i = RunEnd(std::span<const Key>(sorted), i, v, codec);
  }
  uint64_t distinct = 0;
  for (uint64_t word : comm.Allreduce<uint64_t>(seen, MPI_BOR)) distinct += std::popcount(word);
  return distinct;
}

// Collective: where each window of `window` keys of the global order starts
// and ends in the local `sorted` (size: windows + 1).
template <class Key>
std::vector<uint64_t> WindowCuts(const Comm& comm, const std::vector<Key>& sorted,
                                 unsigned key_bits, uint64_t window) {
  const uint64_t total = comm.Allreduce<uint64_t>(sorted.size(), MPI_SUM);
  std::vector<uint64_t> targets;
  for (uint64_t t = window; t < total; t += window) targets.push_back(t);
  std::vector<uint64_t> cuts{0};
  for (uint64_t cut : LocalCutsAtGlobalRanks(comm, sorted, key_bits, targets, total))
    cuts.push_back(cut);
  cuts.push_back(sorted.size());
  return cuts;
}

}  // namespace

namespace {

// WriteOrderedScalars over any source of each rank's values. A rank that
// fails to read still sends (zeros), so no rank blocks; its error is agreed.
Status WriteScalarsFrom(const Comm& comm, uint64_t local_count, const ScalarReader& read,
                        const std::string& prefix, DType dtype, const WriteOptions& options) {
  const std::vector<uint64_t> counts = comm.Allgather<uint64_t>(local_count);
  const uint64_t chunk = ChunkElems<int64_t>(options);
  Status st;
  if (comm.is_root()) {
    uint64_t total = 0;
    for (uint64_t c : counts) total += c;
    std::unique_ptr<IndexedWriter> w;
    auto created = IndexedWriter::Create(prefix, dtype, WriterOptions(options, total));
    if (created.ok()) w = std::move(created).value();
    st = created.status();
    for (uint64_t off = 0; st.ok() && off < local_count; off += chunk) {
      const uint64_t n = std::min(chunk, local_count - off);
      st = CheckInterrupt();
      Result<std::span<const int64_t>> part = st.ok() ? read(off, n) : st;
      st = part.ok() ? w->AddScalarRows(*part) : part.status();
      CountRows(options, n);
    }
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
    std::vector<int64_t> zeros;
    for (uint64_t off = 0; off < local_count; off += chunk) {
      const uint64_t n = std::min(chunk, local_count - off);
      Result<std::span<const int64_t>> part = st.ok() ? read(off, n) : st;
      if (!part.ok()) {
        st = part.status();
        zeros.assign(n, 0);
        part = std::span<const int64_t>(zeros);
      }
      comm.Send(*part, 0, kTagScalars);
    }
  }
  return comm.AgreeOnStatus(st);
}

}  // namespace

ScalarReader ReaderOf(std::span<const int64_t> local) {
  return [local](uint64_t off, uint64_t n) -> Result<std::span<const int64_t>> {
    return local.subspan(off, n);
  };
}

ScalarReader ReaderOf(ValueStore& local) {
  auto buffer = std::make_shared<std::vector<int64_t>>();
  return [&local, buffer](uint64_t off, uint64_t n) -> Result<std::span<const int64_t>> {
    buffer->resize(n);
    DSA_RETURN_IF_ERROR(local.Read(off, *buffer));
    return std::span<const int64_t>(*buffer);
  };
}

Status WriteOrderedScalars(const Comm& comm, std::span<const int64_t> local,
                           const std::string& prefix, DType dtype, const WriteOptions& options) {
  return WriteScalarsFrom(comm, local.size(), ReaderOf(local), prefix, dtype, options);
}

Status WriteOrderedScalars(const Comm& comm, ValueStore& local, const std::string& prefix,
                           DType dtype, const WriteOptions& options) {
  return WriteScalarsFrom(comm, local.size(), ReaderOf(local), prefix, dtype, options);
}

template <class Key>
IndexGather<Key>::IndexGather(const Comm& comm, const KeyCodec<Key>& codec,
                              const WriteOptions& options)
    : comm_(comm), codec_(codec), options_(options) {}

template <class Key>
IndexGather<Key>::~IndexGather() = default;

template <class Key>
Status IndexGather<Key>::Open(const IndexFilePrefixes& prefixes, DType metric_dtype,
                              DType sample_dtype, std::optional<uint64_t> distinct,
                              const std::string& scratch_dir) {
  if (comm_.is_root()) {
    writer_ = std::make_unique<IndexStreamWriter<Key>>(codec_);
    status_ = writer_->Open(prefixes, metric_dtype, sample_dtype, options_, distinct, scratch_dir);
  }
  agreed_ = comm_.AgreeOnStatus(status_);
  return agreed_;
}

template <class Key>
Status IndexGather<Key>::Add(const std::vector<Key>& slice) {
  if (!agreed_.ok()) return agreed_;
  const std::vector<uint64_t> counts = comm_.Allgather<uint64_t>(slice.size());
  const uint64_t chunk = ChunkElems<Key>(options_);
  if (comm_.is_root()) {
    auto consume = [&](std::span<const Key> part) {
      if (status_.ok()) status_ = CheckInterrupt();
      if (status_.ok()) status_ = writer_->Consume(part);
      CountRows(options_, part.size());
    };
    for (uint64_t off = 0; status_.ok() && off < slice.size(); off += chunk)
      consume(std::span<const Key>(slice).subspan(off, std::min(chunk, slice.size() - off)));
    for (int r = 1; r < comm_.size(); ++r) {
      ReceiveChunks<Key>(comm_, counts[r], r, kTagKeys, chunk, [&](std::span<const Key> part) {
        consume(part);
        FaultPoint("write");  // test-only (util/fault_point.h)
      });
    }
  } else {
    FaultPoint("write");  // test-only (util/fault_point.h)
    SendChunks(comm_, std::span<const Key>(slice), 0, kTagKeys, chunk);
  }
  agreed_ = comm_.AgreeOnStatus(status_);
  return agreed_;
}

template <class Key>
Status IndexGather<Key>::AddRankOrdered(const std::vector<Key>& sorted) {
  if (!agreed_.ok()) return agreed_;
  const uint64_t chunk = ChunkElems<Key>(options_);
  const std::vector<uint64_t> cuts =
      WindowCuts(comm_, sorted, codec_.layout.key_bits(), kWindowChunks * chunk);
  for (size_t w = 0; w + 1 < cuts.size(); ++w) {
    const std::span<const Key> own =
        std::span<const Key>(sorted).subspan(cuts[w], cuts[w + 1] - cuts[w]);
    const std::vector<uint64_t> counts = comm_.Allgather<uint64_t>(own.size());
    FaultPoint("write");  // test-only (util/fault_point.h)
    if (comm_.is_root()) {
      ConsumeWindow(own, counts);
    } else {
      SendChunks(comm_, own, 0, kTagKeys, chunk);
    }
  }
  agreed_ = comm_.AgreeOnStatus(status_);
  return agreed_;
}

template <class Key>
void IndexGather<Key>::ConsumeWindow(std::span<const Key> own,
                                     const std::vector<uint64_t>& counts) {
  std::vector<uint64_t> offsets{0};
  for (size_t r = 1; r < counts.size(); ++r) offsets.push_back(offsets.back() + counts[r]);
  received_.resize(offsets.back());
  std::vector<std::span<const Key>> parts{own};
  for (size_t r = 1; r < counts.size(); ++r) {
    const std::span<Key> part = std::span<Key>(received_).subspan(offsets[r - 1], counts[r]);
    ReceiveChunksInto(comm_, part, static_cast<int>(r), kTagKeys, ChunkElems<Key>(options_));
    parts.push_back(part);
  }
  if (status_.ok()) status_ = CheckInterrupt();
  if (status_.ok())
    status_ = InterleaveByValue(parts, codec_,
                                [&](std::span<const Key> run) { return writer_->Consume(run); });
  CountRows(options_, own.size() + received_.size());
}

template <class Key>
Status IndexGather<Key>::Finish() {
  if (!agreed_.ok()) return agreed_;
  if (comm_.is_root()) status_ = writer_->Finish();
  agreed_ = comm_.AgreeOnStatus(status_);
  return agreed_;
}

template <class Key>
Status WriteIndexFiles(const Comm& comm, const std::vector<Key>& slice, const KeyCodec<Key>& codec,
                       const IndexFilesSpec& files) {
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
  IndexGather<Key> gather(comm, codec, files.options);
  DSA_RETURN_IF_ERROR(
      gather.Open(files.prefixes, files.metric_dtype, files.sample_dtype, distinct, ""));
  DSA_RETURN_IF_ERROR(gather.Add(slice));
  return gather.Finish();
}

template <class Key>
Status WriteIndexFilesRankOrdered(const Comm& comm, const std::vector<Key>& sorted,
                                  const KeyCodec<Key>& codec, const IndexFilesSpec& files) {
  const uint64_t distinct = CountDistinctValues(comm, sorted, codec);
  IndexGather<Key> gather(comm, codec, files.options);
  DSA_RETURN_IF_ERROR(
      gather.Open(files.prefixes, files.metric_dtype, files.sample_dtype, distinct, ""));
  DSA_RETURN_IF_ERROR(gather.AddRankOrdered(sorted));
  return gather.Finish();
}

Status WriteMetricValue(const Comm& comm, std::span<const int64_t> total, const std::string& prefix,
                        const WriteOptions& options) {
  Status st = [&]() -> Status {
    if (!comm.is_root()) return Status::OK();
    return WriteMetricValueFile(prefix, total, WriterOptions(options, 1));
  }();
  return comm.AgreeOnStatus(st);
}

template class IndexGather<uint64_t>;
template class IndexGather<WideKey>;
template Status WriteIndexFiles(const Comm&, const std::vector<uint64_t>&,
                                const KeyCodec<uint64_t>&, const IndexFilesSpec&);
template Status WriteIndexFiles(const Comm&, const std::vector<WideKey>&, const KeyCodec<WideKey>&,
                                const IndexFilesSpec&);
template Status WriteIndexFilesRankOrdered(const Comm&, const std::vector<uint64_t>&,
                                           const KeyCodec<uint64_t>&, const IndexFilesSpec&);
template Status WriteIndexFilesRankOrdered(const Comm&, const std::vector<WideKey>&,
                                           const KeyCodec<WideKey>&, const IndexFilesSpec&);

}  // namespace dsanalyze
