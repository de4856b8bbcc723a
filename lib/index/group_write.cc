#include "index/group_write.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "util/fault_point.h"
#include "util/file_util.h"
#include "util/interrupt.h"

namespace dsanalyze {
namespace {

// The most bytes one write call takes; a caught signal is noticed between them.
constexpr uint64_t kWriteBytes = uint64_t{64} << 20;

// A stretch of this rank's ids that lies whole in the element file.
struct Piece {
  uint64_t file_element;   // where it starts in the file
  uint64_t local_element;  // where it starts in the ids given
  uint64_t count;
};

// Rank 0: index_to_metric, the .idx files and the percentile-merged grouping,
// from the global count of each value; the ids, if written, are in `ids_bin`.
Status WriteRows(const IndexFilePrefixes& prefixes, int64_t value_min,
                 const std::vector<uint64_t>& global, DType metric_dtype, DType sample_dtype,
                 const std::string& ids_bin, const WriteOptions& options) {
  const uint64_t distinct = static_cast<uint64_t>(
      std::count_if(global.begin(), global.end(), [](uint64_t c) { return c > 0; }));
  IndexedWriter::Options base;
  base.table = options.table;
  base.sync = options.sync;
  IndexFilesWriter writer;
  DSA_RETURN_IF_ERROR(
      ids_bin.empty()
          ? writer.Open(prefixes, metric_dtype, sample_dtype, base, distinct)
          : writer.OpenOverIds(prefixes, metric_dtype, sample_dtype, base, distinct, ids_bin));
  for (size_t v = 0; v < global.size(); ++v) {
    if (global[v] == 0) continue;
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    DSA_RETURN_IF_ERROR(writer.EndValue(value_min + static_cast<int64_t>(v), global[v]));
  }
  return writer.Finish();
}

}  // namespace

GroupedIndexWriter::GroupedIndexWriter(const Comm& comm, const WriteOptions& options)
    : comm_(comm), options_(options) {}

GroupedIndexWriter::~GroupedIndexWriter() {
  // The written files link the element file; no other name of it may stay.
  if (comm_.is_root() && !path_.empty()) std::remove(path_.c_str());
}

Status GroupedIndexWriter::Open(const IndexFilePrefixes& prefixes, int64_t value_min,
                                std::vector<uint64_t> local_counts, size_t id_bytes) {
  prefixes_ = prefixes;
  value_min_ = value_min;
  id_bytes_ = id_bytes;
  local_ = std::move(local_counts);
  global_ = comm_.Allreduce(std::span<const uint64_t>(local_), MPI_SUM);
  below_ = comm_.ExclusiveSum(std::span<const uint64_t>(local_));
  row_start_.assign(global_.size(), 0);
  for (size_t v = 1; v < global_.size(); ++v) row_start_[v] = row_start_[v - 1] + global_[v - 1];
  Status st;
  if (comm_.is_root() && !prefixes.index_to_sample.empty()) {
    path_ = IdsFilePrefix(prefixes.index_to_sample) + ".bin";
    Result<OutputFile> created = OutputFile::Create(path_);
    if (created.ok()) file_ = std::move(created).value();
    st = created.status();
  }
  agreed_ = comm_.AgreeOnStatus(st);
  DSA_RETURN_IF_ERROR(agreed_);
  path_ = comm_.BroadcastFromRoot(path_);
  if (!comm_.is_root() && !path_.empty()) {
    Result<OutputFile> opened = OutputFile::OpenExisting(path_);
    if (opened.ok()) file_ = std::move(opened).value();
    st = opened.status();
  }
  agreed_ = comm_.AgreeOnStatus(st);
  return agreed_;
}

Status GroupedIndexWriter::Write(size_t first, size_t end, const std::byte* ids) {
  if (!agreed_.ok()) return agreed_;
  FaultPoint("write");  // test-only (util/fault_point.h)
  const Status st = path_.empty() ? Status::OK() : WritePieces(first, end, ids);
  agreed_ = comm_.AgreeOnStatus(st);
  return agreed_;
}

// Places this rank's groups of [first, end) in the file: value v's row starts
// at row_start_[v], and this rank's group after the ranks below (below_).
// Adjacent groups whose places touch (no other rank holds ids of the values
// between) make one piece, written in calls of at most kWriteBytes.
Status GroupedIndexWriter::WritePieces(size_t first, size_t end, const std::byte* ids) {
  std::vector<Piece> pieces;
  uint64_t at_local = 0;
  for (size_t v = first; v < end; ++v) {
    if (local_[v] == 0) continue;
    const uint64_t at = row_start_[v] + below_[v];
    if (!pieces.empty() && pieces.back().file_element + pieces.back().count == at) {
      pieces.back().count += local_[v];
    } else {
      pieces.push_back({at, at_local, local_[v]});
    }
    at_local += local_[v];
  }
  const uint64_t per_call = kWriteBytes / id_bytes_;
  for (const Piece& p : pieces) {
    for (uint64_t done = 0; done < p.count;) {
      DSA_RETURN_IF_ERROR(CheckInterrupt());
      const uint64_t n = std::min(per_call, p.count - done);
      DSA_RETURN_IF_ERROR(file_.WriteAt((p.file_element + done) * id_bytes_,
                                        ids + (p.local_element + done) * id_bytes_, n * id_bytes_));
      done += n;
      if (options_.rows_done) options_.rows_done->fetch_add(n, std::memory_order_relaxed);
    }
  }
  return Status::OK();
}

Status GroupedIndexWriter::Finish(DType metric_dtype, DType sample_dtype) {
  if (!agreed_.ok()) return agreed_;
  agreed_ = comm_.AgreeOnStatus(file_.Close(options_.sync));
  DSA_RETURN_IF_ERROR(agreed_);
  Status st;
  if (comm_.is_root()) {
    st = WriteRows(prefixes_, value_min_, global_, metric_dtype, sample_dtype, path_, options_);
    // Rank 0 counted its own ids as it wrote them.
    const uint64_t total = std::accumulate(global_.begin(), global_.end(), uint64_t{0});
    const uint64_t own = std::accumulate(local_.begin(), local_.end(), uint64_t{0});
    if (options_.rows_done && st.ok())
      options_.rows_done->fetch_add(path_.empty() ? total : total - own, std::memory_order_relaxed);
  }
  agreed_ = comm_.AgreeOnStatus(st);
  return agreed_;
}

Status WriteIndexFilesFromGroups(const Comm& comm, const IdGroups& groups,
                                 const IndexFilesSpec& files) {
  GroupedIndexWriter writer(comm, files.options);
  DSA_RETURN_IF_ERROR(
      writer.Open(files.prefixes, groups.value_min, groups.counts, groups.id_bytes));
  DSA_RETURN_IF_ERROR(writer.Write(0, groups.counts.size(), groups.bytes()));
  return writer.Finish(files.metric_dtype, files.sample_dtype);
}

}  // namespace dsanalyze
