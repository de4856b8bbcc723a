#include "format/indexed_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>

#include "format/idx_header.h"
#include "util/exception_status.h"
#include "util/huge_pages.h"
#include "util/interrupt.h"
#include "util/unique_fd.h"
#include "util/worker_thread.h"

namespace dsanalyze {
namespace {

// Rows per metadata batch: 256 KiB of sizes and 512 KiB of pointers.
constexpr size_t kMetaBatchRows = 1 << 16;

// WriteScalarIdx writes in blocks of 16 MiB (a caught signal is noticed
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

// The .idx pointers of `n` rows of one element each: pointer i = first +
// i * itemsize, in bytes, as int64 at out + 8 * i (`out` need not be aligned).
void ScalarRowPointers(int64_t first, size_t itemsize, uint64_t n, std::byte* out) {
  for (uint64_t i = 0; i < n; ++i) {
    const int64_t pointer = first + static_cast<int64_t>(i * itemsize);
    std::memcpy(out + 8 * i, &pointer, 8);
  }
}

// Copies the part of the bytes `bytes`, which sit at file offset `begin`,
// that lies in [at, at + out.size()) to its place in `out`.
void CopyOverlap(uint64_t begin, std::span<const std::byte> bytes, uint64_t at,
                 std::span<std::byte> out) {
  const uint64_t lo = std::max(begin, at);
  const uint64_t hi = std::min(begin + bytes.size(), at + out.size());
  if (lo < hi) std::memcpy(out.data() + (lo - at), bytes.data() + (lo - begin), hi - lo);
}

// Writes the part that lies in [at, at + out.size()) of an array of `count`
// elements of `bytes` (at most 8) bytes at file offset `base`, where
// fill(i, n, dst) writes elements i .. i + n - 1 at dst: the whole elements
// straight into `out`, the (at most two) cut at its ends through a copy.
template <class F>
void PlaceArray(uint64_t base, uint64_t count, uint64_t bytes, uint64_t at,
                std::span<std::byte> out, const F& fill) {
  const uint64_t end_at = at + out.size();
  if (end_at <= base || at >= base + count * bytes) return;
  uint64_t whole = at > base ? (at - base) / bytes : 0;
  uint64_t whole_end = std::min(count, (end_at - base + bytes - 1) / bytes);
  std::byte cut[8];
  if (base + whole * bytes < at) {  // cut by the block's start
    fill(whole, 1, cut);
    CopyOverlap(base + whole * bytes, {cut, bytes}, at, out);
    ++whole;
  }
  if (whole < whole_end && base + whole_end * bytes > end_at) {  // cut by its end
    --whole_end;
    fill(whole_end, 1, cut);
    CopyOverlap(base + whole_end * bytes, {cut, bytes}, at, out);
  }
  if (whole < whole_end) fill(whole, whole_end - whole, out.data() + (base + whole * bytes - at));
}

// Whether the block of WriteScalarIdx at `at` is a whole one of sizes past
// the header: IdxBlocks::kRowsOnly. Blocks start at multiples of 4, so every
// such block holds the same bytes.
bool SizesOnlyBlock(uint64_t at, uint64_t rows) {
  return at >= kIdxBlockBytes && at % kIdxBlockBytes == 0 &&
         at + kIdxBlockBytes <= IdxPointersOffset(rows);
}

}  // namespace

void ScalarIdxBytes(const IdxHeader& header, size_t itemsize, uint64_t at,
                    std::span<std::byte> out) {
  const uint64_t rows = header.rows;
  const auto header_bytes = SerializeIdxHeader(header);
  CopyOverlap(0, header_bytes, at, out);
  PlaceArray(IdxSizesOffset(), rows, kIdxSizeBytes, at, out,
             [](uint64_t, uint64_t n, std::byte* dst) {
               const int32_t one = 1;
               for (uint64_t k = 0; k < n; ++k) std::memcpy(dst + 4 * k, &one, 4);
             });
  PlaceArray(IdxPointersOffset(rows), rows, kIdxPointerBytes, at, out,
             [itemsize](uint64_t i, uint64_t n, std::byte* dst) {
               ScalarRowPointers(static_cast<int64_t>(i * itemsize), itemsize, n, dst);
             });
  const int64_t doc_idx[2] = {0, static_cast<int64_t>(rows)};
  CopyOverlap(IdxDocIdxOffset(rows), std::as_bytes(std::span(doc_idx)), at, out);
}

Status WriteScalarIdx(OutputFile* idx, const IdxHeader& header, size_t itemsize, IdxBlocks blocks,
                      const std::atomic<bool>* stop) {
  const std::string& path = idx->path();
  const uint64_t size = IdxDocIdxOffset(header.rows) + 2 * kIdxDocIdxBytes;
  const uint64_t aligned = size / kDirectAlign * kDirectAlign;
  // An own descriptor for the direct writes; invalid (buffered writes) where
  // O_DIRECT is refused.
  UniqueFd direct(::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC));
  // On huge pages: a direct write pins each page of its buffer.
  const std::unique_ptr<std::byte, decltype(&std::free)> block(
      static_cast<std::byte*>(std::aligned_alloc(kHugePage, kIdxBlockBytes)), &std::free);
  if (!block) return Status::Internal(path + ": no memory for a write block");
  AdviseHugePages(block.get(), kIdxBlockBytes);
  bool holds_sizes = false;  // `block` holds a sizes-only block's bytes
  for (uint64_t at = 0; at < size;) {
    DSA_RETURN_IF_ERROR(CheckInterrupt());
    if (stop && stop->load(std::memory_order_relaxed))
      return Status::Internal(path + ": abandoned by its writer");
    const bool use_direct = direct.valid() && at < aligned;
    const uint64_t n = std::min(kIdxBlockBytes, (use_direct ? aligned : size) - at);
    const bool sizes_only = SizesOnlyBlock(at, header.rows);
    if (blocks != IdxBlocks::kAll && (blocks == IdxBlocks::kRowsOnly) != sizes_only) {
      at += n;
      continue;
    }
    if (!(sizes_only && holds_sizes)) ScalarIdxBytes(header, itemsize, at, {block.get(), n});
    holds_sizes = sizes_only;
    if (use_direct && !WriteDirect(direct.get(), at, block.get(), n)) {
      if (errno != EINVAL) return Status::IoError(path + ": write failed: " + ErrnoText(errno));
      direct.Reset();  // refused: this block and the rest through the page cache
      continue;
    }
    if (!use_direct) DSA_RETURN_IF_ERROR(idx->WriteAt(at, block.get(), n));
    at += n;
  }
  return Status::OK();
}

Status WriteBesideScalarIdx(OutputFile* idx, const IdxHeader& header, size_t itemsize,
                            const std::function<Status()>& write_bin) {
  std::atomic<bool> stop{false};
  Status idx_status;
  WorkerThread idx_thread = StartWorkerThread([&] {
    idx_status = CatchAsStatus("writing " + idx->path(), [&] {
      return WriteScalarIdx(idx, header, itemsize, IdxBlocks::kAll, &stop);
    });
  });
  Status bin_status;
  try {
    bin_status = write_bin();
  } catch (...) {
    stop.store(true, std::memory_order_relaxed);  // idx_thread is joined as this leaves
    throw;
  }
  if (!bin_status.ok()) stop.store(true, std::memory_order_relaxed);
  idx_thread.join();
  return bin_status.ok() ? idx_status : bin_status;
}

void ConvertElements(DType from, const std::byte* in, size_t n, DType to, std::byte* out) {
  if (from == to) {
    std::memcpy(out, in, n * ItemSize(to));
    return;
  }
  VisitIntDType(from, [&](auto i) {
    VisitIntDType(to, [&](auto o) {
      const auto* src = reinterpret_cast<const decltype(i)*>(in);
      auto* dst = reinterpret_cast<decltype(o)*>(out);
      for (size_t k = 0; k < n; ++k)
        dst[k] = static_cast<decltype(o)>(static_cast<int64_t>(src[k]));
    });
  });
}

Result<uint8_t> DTypeCodeFor(const std::string& prefix, CodeTable table, DType dtype) {
  const std::optional<uint8_t> code = CodeForDType(table, dtype);
  if (!code)
    return Status::BadInput(prefix + ": dtype " + std::string(DTypeName(dtype)) +
                            " has no code in the " + std::string(CodeTableName(table)) + " table");
  return *code;
}

Result<std::unique_ptr<IndexedWriter>> IndexedWriter::Create(const std::string& prefix, DType dtype,
                                                             const Options& options) {
  if (!IsInteger(dtype))
    return Status::Internal(prefix + ": cannot write float dtype " + std::string(DTypeName(dtype)));
  DSA_RETURN_IF_ERROR(DTypeCodeFor(prefix, options.table, dtype).status());
  std::unique_ptr<IndexedWriter> w(new IndexedWriter());
  w->prefix_ = prefix;
  w->dtype_ = dtype;
  w->options_ = options;
  w->itemsize_ = ItemSize(dtype);
  w->io_ = std::make_unique<WriteBehind>();
  w->bin_buf_ = w->io_->TakeBuffer(std::max<size_t>(options.buffer_bytes, 4096));
  if (options.bin_from.empty()) {
    DSA_ASSIGN_OR_RETURN(w->bin_, OutputFile::Create(prefix + ".bin.tmp"));
  }
  w->open_ = true;
  DSA_ASSIGN_OR_RETURN(w->idx_, OutputFile::Create(prefix + ".idx.tmp"));
  if (options.rows) {
    w->sizes_buf_ = w->io_->TakeBuffer(4 * kMetaBatchRows);
    w->pointers_buf_ = w->io_->TakeBuffer(8 * kMetaBatchRows);
  }
  return w;
}

IndexedWriter::~IndexedWriter() {
  io_.reset();  // stops the background writes before the files close
  if (open_ && !finished_) {
    // Abandoned: the temporary files are removed next, so a failed close loses nothing.
    (void)bin_.Close(false);
    (void)idx_.Close(false);
    std::remove((prefix_ + ".bin.tmp").c_str());
    std::remove((prefix_ + ".idx.tmp").c_str());
  }
}

Status IndexedWriter::FlushBin() {
  if (bin_buf_.size == 0) return Status::OK();
  const uint64_t offset = bin_offset_;
  bin_offset_ += bin_buf_.size;
  const size_t capacity = bin_buf_.capacity;
  DSA_RETURN_IF_ERROR(io_->Write(&bin_, offset, std::move(bin_buf_)));
  bin_buf_ = io_->TakeBuffer(capacity);
  return Status::OK();
}

Status IndexedWriter::WriteBuffered(OutputFile* file, uint64_t offset, const void* data,
                                    size_t size) {
  WriteBuffer b = io_->TakeBuffer(size);
  std::memcpy(b.data.get(), data, size);
  b.size = size;
  return io_->Write(file, offset, std::move(b));
}

Status IndexedWriter::Append(const ElementView& elements) {
  const std::byte* p = elements.data;
  const size_t in_item = ItemSize(elements.dtype);
  uint64_t n = elements.count;
  while (n > 0) {
    const uint64_t take = std::min<uint64_t>(n, (bin_buf_.capacity - bin_buf_.size) / itemsize_);
    if (take == 0) {
      DSA_RETURN_IF_ERROR(FlushBin());
      continue;
    }
    ConvertElements(elements.dtype, p, take, dtype_, bin_buf_.data.get() + bin_buf_.size);
    bin_buf_.size += take * itemsize_;
    p += take * in_item;
    n -= take;
  }
  elements_ += elements.count;
  return Status::OK();
}

Status IndexedWriter::AppendElsewhere(uint64_t count) {
  if (options_.bin_from.empty())
    return Status::Internal(prefix_ + ": AppendElsewhere without Options::bin_from");
  elements_ += count;
  return Status::OK();
}

Status IndexedWriter::StartRow(uint64_t size) {
  if (size > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return Status::BadInput(prefix_ + ": row " + std::to_string(rows_) + " has " +
                            std::to_string(size) +
                            " elements, more than the format's int32 row size allows");
  if (options_.rows && rows_ >= *options_.rows)
    return Status::Internal(prefix_ + ": more rows than the " + std::to_string(*options_.rows) +
                            " promised");
  const int32_t size32 = static_cast<int32_t>(size);
  if (options_.rows) {
    const int64_t pointer = static_cast<int64_t>(row_start_element_ * itemsize_);
    std::memcpy(sizes_buf_.data.get() + 4 * meta_rows_, &size32, 4);
    std::memcpy(pointers_buf_.data.get() + 8 * meta_rows_, &pointer, 8);
    if (++meta_rows_ == kMetaBatchRows) DSA_RETURN_IF_ERROR(FlushMeta());
  } else {
    all_sizes_.push_back(size32);
  }
  row_start_element_ += size;
  ++rows_;
  return Status::OK();
}

Status IndexedWriter::EndRow() { return StartRow(elements_ - row_start_element_); }

Status IndexedWriter::EndRowOfSize(uint64_t size) {
  if (size > elements_ - row_start_element_)
    return Status::Internal(prefix_ + ": row of " + std::to_string(size) +
                            " elements ends past the elements appended");
  return StartRow(size);
}

Status IndexedWriter::AddRow(std::span<const int64_t> elements) {
  DSA_RETURN_IF_ERROR(Append(elements));
  return EndRow();
}

Status IndexedWriter::AddScalarRows(const ElementView& values) {
  if (row_start_element_ != elements_)
    return Status::Internal(prefix_ + ": scalar rows added while a row is open");
  const uint64_t count = values.count;
  if (options_.rows && rows_ + count > *options_.rows)
    return Status::Internal(prefix_ + ": more rows than the " + std::to_string(*options_.rows) +
                            " promised");
  DSA_RETURN_IF_ERROR(Append(values));
  if (!options_.rows) {
    all_sizes_.insert(all_sizes_.end(), count, 1);
    row_start_element_ += count;
    rows_ += count;
    return Status::OK();
  }
  // Rows of one element: sizes are all 1 and pointers step by the item size,
  // filled a metadata batch at a time.
  for (uint64_t done = 0; done < count;) {
    const uint64_t take = std::min<uint64_t>(count - done, kMetaBatchRows - meta_rows_);
    int32_t* sizes = reinterpret_cast<int32_t*>(sizes_buf_.data.get()) + meta_rows_;
    int64_t* pointers = reinterpret_cast<int64_t*>(pointers_buf_.data.get()) + meta_rows_;
    std::fill_n(sizes, take, 1);
    ScalarRowPointers(static_cast<int64_t>(row_start_element_ * itemsize_), itemsize_, take,
                      reinterpret_cast<std::byte*>(pointers));
    meta_rows_ += take;
    row_start_element_ += take;
    rows_ += take;
    done += take;
    if (meta_rows_ == kMetaBatchRows) DSA_RETURN_IF_ERROR(FlushMeta());
  }
  return Status::OK();
}

// With a known row count: hands the buffered sizes and pointers to their final
// .idx offsets.
Status IndexedWriter::FlushMeta() {
  if (meta_rows_ == 0) return Status::OK();
  const uint64_t total = *options_.rows;
  sizes_buf_.size = 4 * meta_rows_;
  pointers_buf_.size = 8 * meta_rows_;
  DSA_RETURN_IF_ERROR(
      io_->Write(&idx_, IdxSizesOffset() + kIdxSizeBytes * meta_first_row_, std::move(sizes_buf_)));
  DSA_RETURN_IF_ERROR(io_->Write(&idx_,
                                 IdxPointersOffset(total) + kIdxPointerBytes * meta_first_row_,
                                 std::move(pointers_buf_)));
  sizes_buf_ = io_->TakeBuffer(4 * kMetaBatchRows);
  pointers_buf_ = io_->TakeBuffer(8 * kMetaBatchRows);
  meta_first_row_ += meta_rows_;
  meta_rows_ = 0;
  return Status::OK();
}

// Without a row count: the kept sizes, and pointers derived from them in
// bounded batches.
Status IndexedWriter::WriteSizesAndPointers() {
  if (options_.rows) return FlushMeta();
  // Written in place rather than copied into a buffer: it may be large.
  DSA_RETURN_IF_ERROR(io_->Drain());
  DSA_RETURN_IF_ERROR(idx_.WriteAt(IdxSizesOffset(), all_sizes_.data(), kIdxSizeBytes * rows_));
  int64_t pointer = 0;
  for (uint64_t start = 0; start < rows_; start += kMetaBatchRows) {
    const uint64_t end = std::min<uint64_t>(rows_, start + kMetaBatchRows);
    WriteBuffer b = io_->TakeBuffer(8 * (end - start));
    int64_t* out = reinterpret_cast<int64_t*>(b.data.get());
    for (uint64_t i = start; i < end; ++i) {
      out[i - start] = pointer;
      pointer += static_cast<int64_t>(all_sizes_[i]) * static_cast<int64_t>(itemsize_);
    }
    b.size = 8 * (end - start);
    DSA_RETURN_IF_ERROR(
        io_->Write(&idx_, IdxPointersOffset(rows_) + kIdxPointerBytes * start, std::move(b)));
  }
  return Status::OK();
}

// doc_idx follows the pointers; the per-row form is written in bounded batches.
Status IndexedWriter::WriteDocIdx() {
  const uint64_t base = IdxDocIdxOffset(rows_);
  if (!options_.doc_idx_per_row) {
    const int64_t doc_idx[2] = {0, static_cast<int64_t>(rows_)};
    return WriteBuffered(&idx_, base, doc_idx, sizeof(doc_idx));
  }
  for (uint64_t start = 0; start <= rows_; start += kMetaBatchRows) {
    const uint64_t end = std::min<uint64_t>(rows_ + 1, start + kMetaBatchRows);
    WriteBuffer b = io_->TakeBuffer(8 * (end - start));
    int64_t* out = reinterpret_cast<int64_t*>(b.data.get());
    for (uint64_t i = start; i < end; ++i) out[i - start] = static_cast<int64_t>(i);
    b.size = 8 * (end - start);
    DSA_RETURN_IF_ERROR(io_->Write(&idx_, base + kIdxDocIdxBytes * start, std::move(b)));
  }
  return Status::OK();
}

Status IndexedWriter::Finish() {
  if (finished_) return Status::Internal(prefix_ + ": Finish called twice");
  if (row_start_element_ != elements_)
    return Status::Internal(prefix_ + ": " + std::to_string(elements_ - row_start_element_) +
                            " elements appended after the last row");
  if (options_.rows && rows_ != *options_.rows)
    return Status::Internal(prefix_ + ": " + std::to_string(rows_) + " rows written, " +
                            std::to_string(*options_.rows) + " promised");
  DSA_RETURN_IF_ERROR(FlushBin());
  DSA_RETURN_IF_ERROR(WriteSizesAndPointers());

  IdxHeader header;
  header.dtype_code = *CodeForDType(options_.table, dtype_);
  header.rows = rows_;
  header.doc_count = options_.doc_idx_per_row ? rows_ + 1 : 2;
  const auto header_bytes = SerializeIdxHeader(header);
  DSA_RETURN_IF_ERROR(WriteBuffered(&idx_, 0, header_bytes.data(), header_bytes.size()));
  DSA_RETURN_IF_ERROR(WriteDocIdx());
  DSA_RETURN_IF_ERROR(io_->Drain());

  if (!options_.bin_from.empty()) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(options_.bin_from, ec);
    if (ec || size != elements_ * itemsize_)
      return Status::Internal(prefix_ + ": " + options_.bin_from + " does not hold the " +
                              std::to_string(elements_) + " elements declared");
    DSA_RETURN_IF_ERROR(LinkOrCopyFile(options_.bin_from, prefix_ + ".bin.tmp"));
  }
  DSA_RETURN_IF_ERROR(bin_.Close(options_.sync));
  DSA_RETURN_IF_ERROR(idx_.Close(options_.sync));
  DSA_RETURN_IF_ERROR(RenameFile(prefix_ + ".bin.tmp", prefix_ + ".bin"));
  DSA_RETURN_IF_ERROR(RenameFile(prefix_ + ".idx.tmp", prefix_ + ".idx"));
  finished_ = true;
  io_.reset();
  bin_buf_ = {};
  return Status::OK();
}

}  // namespace dsanalyze
