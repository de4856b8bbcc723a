#include "index/scalar_rows.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "format/idx_header.h"
#include "format/indexed_writer.h"
#include "util/exception_status.h"
#include "util/huge_pages.h"
#include "util/interrupt.h"
#include "util/unique_fd.h"

namespace dsanalyze {
namespace {

// The .idx is written in blocks of 16 MiB (a caught signal is noticed
// between them), aligned for O_DIRECT.
constexpr uint64_t kIdxBlockBytes = uint64_t{16} << 20;
constexpr uint64_t kDirectAlign = 4096;
constexpr uint64_t kHugePage = uint64_t{2} << 20;

// pwrite(2) of all `n` bytes through an O_DIRECT descriptor; false with errno
// set when a write fails.
bool WriteDirect(int fd, uint64_t at, const std::byte* data, uint64_t n) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, data, n, static_cast<off_t>(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    data += w;
    at += static_cast<uint64_t>(w);
    n -= static_cast<uint64_t>(w);
  }
  return true;
}

}  // namespace

ScalarRowsWriter::ScalarRowsWriter(const Comm& comm, const WriteOptions& options)
    : comm_(comm), options_(options) {}

ScalarRowsWriter::~ScalarRowsWriter() {
  meta_thread_.JoinDiscardingException();
  if (comm_.is_root() && !finished_ && !prefix_.empty()) {
    // Abandoned: nothing may stay under these names.
    (void)bin_.Close(false);
    (void)idx_.Close(false);
    std::remove((prefix_ + ".bin.tmp").c_str());
    std::remove((prefix_ + ".idx.tmp").c_str());
  }
}

// Rank 0 creates both files; then the others open the .bin.
Status ScalarRowsWriter::CreateFiles(DType dtype) {
  Status st;
  if (comm_.is_root()) {
    const std::optional<uint8_t> code = CodeForDType(options_.table, dtype);
    if (!code)
      st = Status::BadInput(prefix_ + ": dtype " + std::string(DTypeName(dtype)) +
                            " has no code in the " + std::string(CodeTableName(options_.table)) +
                            " table");
    Result<OutputFile> bin = st.ok() ? OutputFile::Create(prefix_ + ".bin.tmp") : st;
    if (bin.ok()) bin_ = std::move(bin).value();
    Result<OutputFile> idx = bin.ok() ? OutputFile::Create(prefix_ + ".idx.tmp") : bin.status();
    if (idx.ok()) idx_ = std::move(idx).value();
    st = idx.status();
    if (st.ok()) header_ = {.dtype_code = *code, .rows = total_, .doc_count = 2};
  }
  DSA_RETURN_IF_ERROR(comm_.AgreeOnStatus(st));
  if (!comm_.is_root()) {
    Result<OutputFile> bin = OutputFile::OpenExisting(prefix_ + ".bin.tmp");
    if (bin.ok()) bin_ = std::move(bin).value();
    st = bin.status();
  }
  return comm_.AgreeOnStatus(st);
}

// This rank's values, converted a chunk at a time, at its rows' place.
Status ScalarRowsWriter::WriteValues(DType dtype, const ScalarReader& read) {
  const size_t itemsize = ItemSize(dtype);
  const uint64_t chunk = std::max<uint64_t>(1, options_.chunk_bytes / sizeof(int64_t));
  std::vector<std::byte> out(std::min(chunk, count_) * itemsize);
  for (uint64_t off = 0; off < count_; off += chunk) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    const uint64_t n = std::min(chunk, count_ - off);
    DSA_ASSIGN_OR_RETURN(const std::span<const int64_t> part, read(off, n));
    ConvertElements(DType::kI64, reinterpret_cast<const std::byte*>(part.data()), n, dtype,
                    out.data());
    DSA_RETURN_IF_ERROR(bin_.WriteAt((first_ + off) * itemsize, out.data(), n * itemsize));
    if (options_.rows_done && comm_.is_root())
      options_.rows_done->fetch_add(n, std::memory_order_relaxed);
  }
  return Status::OK();
}

// Rank 0: the whole .idx, in blocks computed from their offsets, written
// past the page cache where the file system allows it.
Status ScalarRowsWriter::WriteIdx(size_t itemsize) {
  const uint64_t size = IdxDocIdxOffset(total_) + 2 * kIdxDocIdxBytes;
  const uint64_t aligned = size / kDirectAlign * kDirectAlign;
  // An own descriptor for the direct writes; invalid (buffered writes) where
  // O_DIRECT is refused.
  UniqueFd direct(::open((prefix_ + ".idx.tmp").c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC));
  // On huge pages: a direct write pins each page of its buffer.
  const std::unique_ptr<std::byte, decltype(&std::free)> block(
      static_cast<std::byte*>(std::aligned_alloc(kHugePage, kIdxBlockBytes)), &std::free);
  if (!block) return Status::Internal(prefix_ + ".idx: no memory for a write block");
  AdviseHugePages(block.get(), kIdxBlockBytes);
  for (uint64_t at = 0; at < size;) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    const bool use_direct = direct.valid() && at < aligned;
    const uint64_t n = std::min(kIdxBlockBytes, (use_direct ? aligned : size) - at);
    ScalarIdxBytes(header_, itemsize, at, {block.get(), n});
    if (use_direct && !WriteDirect(direct.get(), at, block.get(), n)) {
      if (errno != EINVAL)
        return Status::IoError(prefix_ + ".idx: write failed: " + ErrnoText(errno));
      direct.Reset();  // refused: this block and the rest through the page cache
      continue;
    }
    if (!use_direct) DSA_RETURN_IF_ERROR(idx_.WriteAt(at, block.get(), n));
    at += n;
  }
  return Status::OK();
}

Status ScalarRowsWriter::Start(const std::string& prefix, DType dtype, uint64_t local_count,
                               const ScalarReader& read) {
  prefix_ = comm_.BroadcastFromRoot(prefix);
  count_ = local_count;
  first_ = comm_.ExclusiveSum(std::span<const uint64_t>(&count_, 1))[0];
  total_ = comm_.Allreduce(count_, MPI_SUM);
  DSA_RETURN_IF_ERROR(CreateFiles(dtype));
  DSA_RETURN_IF_ERROR(comm_.AgreeOnStatus(WriteValues(dtype, read)));
  if (options_.rows_done && comm_.is_root())
    options_.rows_done->fetch_add(total_ - count_, std::memory_order_relaxed);
  if (!comm_.is_root()) return Status::OK();
  const size_t itemsize = ItemSize(dtype);
  meta_thread_ = WorkerThread([this, itemsize] {
    meta_status_ = CatchAsStatus("writing " + prefix_ + ".idx", [&] { return WriteIdx(itemsize); });
  });
  return Status::OK();
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
