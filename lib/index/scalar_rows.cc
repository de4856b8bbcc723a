#include "index/scalar_rows.h"

#include <algorithm>
#include <cstdio>
#include <span>
#include <utility>
#include <vector>

#include "format/idx_header.h"
#include "format/indexed_writer.h"
#include "util/exception_status.h"
#include "util/interrupt.h"

namespace dsanalyze {

ScalarRowsWriter::ScalarRowsWriter(const Comm& comm, const WriteOptions& options)
    : comm_(comm), options_(options) {}

ScalarRowsWriter::~ScalarRowsWriter() {
  stop_ = true;  // a no-op once Finish() has joined them
  meta_thread_.JoinDiscardingException();
  sizes_thread_.JoinDiscardingException();
  if (comm_.is_root() && !finished_ && !prefix_.empty()) {
    // Abandoned: nothing may stay under these names.
    (void)bin_.Close(false);
    (void)idx_.Close(false);
    std::remove((prefix_ + ".bin.tmp").c_str());
    std::remove((prefix_ + ".idx.tmp").c_str());
  }
}

// Rank 0 creates both files; then the others open the .bin.
Status ScalarRowsWriter::CreateFiles() {
  Status st;
  if (comm_.is_root()) {
    Result<OutputFile> bin = OutputFile::Create(prefix_ + ".bin.tmp");
    if (bin.ok()) bin_ = std::move(bin).value();
    Result<OutputFile> idx = bin.ok() ? OutputFile::Create(prefix_ + ".idx.tmp") : bin.status();
    if (idx.ok()) idx_ = std::move(idx).value();
    st = idx.status();
  }
  DSA_RETURN_IF_ERROR(comm_.AgreeOnStatus(st));
  if (!comm_.is_root()) {
    Result<OutputFile> bin = OutputFile::OpenExisting(prefix_ + ".bin.tmp");
    if (bin.ok()) bin_ = std::move(bin).value();
    st = bin.status();
  }
  return comm_.AgreeOnStatus(st);
}

Status ScalarRowsWriter::Open(const std::string& prefix, uint64_t rows, bool idx_now) {
  prefix_ = comm_.BroadcastFromRoot(prefix);
  total_ = rows;
  idx_now_ = idx_now;
  DSA_RETURN_IF_ERROR(CreateFiles());
  if (!comm_.is_root() || !idx_now) return Status::OK();
  sizes_thread_ = StartWorkerThread([this] { sizes_status_ = WriteSizes(); });
  return Status::OK();
}

// Collective: this rank's first row; the ranks' rows against Open()'s, and
// rank 0's code for `dtype` into the header.
Status ScalarRowsWriter::CheckRows(DType dtype) {
  first_ = comm_.ExclusiveSum(std::span<const uint64_t>(&count_, 1))[0];
  const uint64_t total = comm_.Allreduce(count_, MPI_SUM);
  if (total != total_)
    return Status::Internal(prefix_ + ".bin: " + std::to_string(total) + " rows written, " +
                            std::to_string(total_) + " opened for");
  Status st;
  if (comm_.is_root()) {
    const Result<uint8_t> code = DTypeCodeFor(prefix_, options_.table, dtype);
    if (code.ok()) header_ = {.dtype_code = code.value(), .rows = total_, .doc_count = 2};
    st = code.status();
  }
  return comm_.AgreeOnStatus(st);
}

uint64_t ScalarRowsWriter::chunk_rows() const {
  return std::max<uint64_t>(1, options_.chunk_bytes / sizeof(int64_t));
}

Status ScalarRowsWriter::Begin(DType dtype, uint64_t local_count) {
  count_ = local_count;
  dtype_ = dtype;
  return CheckRows(dtype);
}

Status ScalarRowsWriter::Write(uint64_t offset, std::span<const int64_t> values) {
  const size_t itemsize = ItemSize(dtype_);
  const uint64_t n = values.size();
  if (offset + n > count_)
    return Status::Internal(prefix_ + ".bin: rows to " + std::to_string(offset + n) +
                            " written of this rank's " + std::to_string(count_));
  out_.resize(std::max<size_t>(out_.size(), n * itemsize));
  ConvertElements(DType::kI64, reinterpret_cast<const std::byte*>(values.data()), n, dtype_,
                  out_.data());
  DSA_RETURN_IF_ERROR(bin_.WriteAt((first_ + offset) * itemsize, out_.data(), n * itemsize));
  if (options_.rows_done && comm_.is_root())
    options_.rows_done->fetch_add(n, std::memory_order_relaxed);
  return Status::OK();
}

// This rank's values, read a chunk at a time, at its rows' place.
Status ScalarRowsWriter::WriteValues(const ScalarReader& read) {
  const uint64_t chunk = chunk_rows();
  for (uint64_t off = 0; off < count_; off += chunk) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    const uint64_t n = std::min(chunk, count_ - off);
    DSA_ASSIGN_OR_RETURN(const std::span<const int64_t> part, read(off, n));
    DSA_RETURN_IF_ERROR(Write(off, part));
  }
  return Status::OK();
}

Status ScalarRowsWriter::End(const Status& written) {
  out_ = {};
  DSA_RETURN_IF_ERROR(comm_.AgreeOnStatus(written));
  if (options_.rows_done && comm_.is_root())
    options_.rows_done->fetch_add(total_ - count_, std::memory_order_relaxed);
  if (idx_now_) StartIdxThread();
  return Status::OK();
}

void ScalarRowsWriter::WriteIdx() {
  if (!idx_now_) StartIdxThread();
  idx_now_ = true;
}

// Rank 0: the thread writing the .idx's rest, after its sizes (the sizes
// thread's, or its own when the .idx waited for WriteIdx()).
void ScalarRowsWriter::StartIdxThread() {
  if (!comm_.is_root()) return;
  const size_t itemsize = ItemSize(dtype_);
  const bool sizes = !idx_now_;
  meta_thread_ = StartWorkerThread([this, itemsize, sizes] {
    sizes_thread_.JoinDiscardingException();  // the thread catches its own
    meta_status_ = sizes_status_;
    if (meta_status_.ok() && sizes) meta_status_ = WriteSizes();
    if (!meta_status_.ok()) return;
    meta_status_ = CatchAsStatus("writing " + prefix_ + ".idx", [&] {
      return WriteScalarIdx(&idx_, header_, itemsize, IdxBlocks::kRest, &stop_);
    });
  });
}

// The .idx's sizes, a function of the row count alone: with a header of its
// own, since header_'s dtype code is set by Begin() meanwhile.
Status ScalarRowsWriter::WriteSizes() {
  return CatchAsStatus("writing " + prefix_ + ".idx", [&] {
    const IdxHeader rows_only{.rows = total_, .doc_count = 2};
    return WriteScalarIdx(&idx_, rows_only, 0, IdxBlocks::kRowsOnly, &stop_);
  });
}

Status ScalarRowsWriter::Start(DType dtype, uint64_t local_count, const ScalarReader& read) {
  DSA_RETURN_IF_ERROR(Begin(dtype, local_count));
  return End(WriteValues(read));
}

Status ScalarRowsWriter::Finish() {
  meta_thread_.JoinDiscardingException();  // the thread catches its own
  Status st = meta_status_;
  if (st.ok()) st = bin_.Close(options_.sync);
  if (st.ok()) st = idx_.Close(options_.sync);
  DSA_RETURN_IF_ERROR(comm_.AgreeOnStatus(st));
  if (comm_.is_root()) {
    st = RenameFile(prefix_ + ".bin.tmp", prefix_ + ".bin");
    if (st.ok()) st = RenameFile(prefix_ + ".idx.tmp", prefix_ + ".idx");
    finished_ = st.ok();
  }
  return comm_.AgreeOnStatus(st);
}

}  // namespace dsanalyze
