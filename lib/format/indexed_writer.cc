#include "format/indexed_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "format/indexed_dataset.h"

namespace dsanalyze {
namespace {

constexpr size_t kMetaBatchRows = 1 << 16;

template <class T>
void Narrow(const int64_t* in, size_t n, std::byte* out) {
  T* o = reinterpret_cast<T*>(out);
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<T>(in[i]);
}

void PutU64(std::byte* p, uint64_t v) { std::memcpy(p, &v, 8); }

}  // namespace

Result<std::unique_ptr<IndexedWriter>> IndexedWriter::Create(const std::string& prefix, DType dtype,
                                                             const Options& options) {
  if (!IsInteger(dtype))
    return Status::Internal(prefix + ": cannot write float dtype " + std::string(DTypeName(dtype)));
  if (!CodeForDType(options.table, dtype))
    return Status::BadInput(prefix + ": dtype " + std::string(DTypeName(dtype)) +
                            " has no code in the " + std::string(CodeTableName(options.table)) +
                            " table");
  std::unique_ptr<IndexedWriter> w(new IndexedWriter());
  w->prefix_ = prefix;
  w->dtype_ = dtype;
  w->options_ = options;
  w->itemsize_ = ItemSize(dtype);
  w->bin_buf_.resize(std::max<size_t>(options.buffer_bytes, 4096));
  DSA_ASSIGN_OR_RETURN(w->bin_, OutputFile::Create(prefix + ".bin.tmp"));
  w->open_ = true;
  DSA_ASSIGN_OR_RETURN(w->idx_, OutputFile::Create(prefix + ".idx.tmp"));
  if (options.rows) {
    w->sizes_.reserve(kMetaBatchRows);
    w->pointers_.reserve(kMetaBatchRows);
  }
  return w;
}

IndexedWriter::~IndexedWriter() {
  if (open_ && !finished_) {
    bin_.Close(false);
    idx_.Close(false);
    std::remove((prefix_ + ".bin.tmp").c_str());
    std::remove((prefix_ + ".idx.tmp").c_str());
  }
}

Status IndexedWriter::FlushBin() {
  if (bin_used_ == 0) return Status::OK();
  DSA_RETURN_IF_ERROR(bin_.WriteAt(bin_offset_, bin_buf_.data(), bin_used_));
  bin_offset_ += bin_used_;
  bin_used_ = 0;
  return Status::OK();
}

Status IndexedWriter::Append(std::span<const int64_t> elements) {
  const int64_t* p = elements.data();
  size_t n = elements.size();
  while (n > 0) {
    if (bin_used_ == bin_buf_.size()) DSA_RETURN_IF_ERROR(FlushBin());
    size_t take = std::min(n, (bin_buf_.size() - bin_used_) / itemsize_);
    if (take == 0) {
      DSA_RETURN_IF_ERROR(FlushBin());
      continue;
    }
    std::byte* out = bin_buf_.data() + bin_used_;
    VisitIntDType(dtype_, [&](auto t) { Narrow<decltype(t)>(p, take, out); });
    bin_used_ += take * itemsize_;
    p += take;
    n -= take;
  }
  elements_ += elements.size();
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
  sizes_.push_back(static_cast<int32_t>(size));
  if (options_.rows) {
    pointers_.push_back(static_cast<int64_t>(row_start_element_ * itemsize_));
    if (sizes_.size() == kMetaBatchRows) DSA_RETURN_IF_ERROR(FlushIdx());
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

Status IndexedWriter::AddScalarRows(std::span<const int64_t> values) {
  if (row_start_element_ != elements_)
    return Status::Internal(prefix_ + ": scalar rows added while a row is open");
  // Chunked so that metadata buffers stay bounded.
  size_t done = 0;
  while (done < values.size()) {
    size_t take = std::min(values.size() - done, kMetaBatchRows);
    DSA_RETURN_IF_ERROR(Append(values.subspan(done, take)));
    if (options_.rows && rows_ + take > *options_.rows)
      return Status::Internal(prefix_ + ": more rows than the " + std::to_string(*options_.rows) +
                              " promised");
    for (size_t i = 0; i < take; ++i) {
      sizes_.push_back(1);
      if (options_.rows) {
        pointers_.push_back(static_cast<int64_t>(row_start_element_ * itemsize_));
        if (sizes_.size() == kMetaBatchRows) DSA_RETURN_IF_ERROR(FlushIdx());
      }
      ++row_start_element_;
      ++rows_;
    }
    done += take;
  }
  return Status::OK();
}

// With a known row count: writes the buffered sizes and pointers to their final
// .idx offsets. Without one this is only called from Finish().
Status IndexedWriter::FlushIdx() {
  if (sizes_.empty()) return Status::OK();
  const uint64_t total = options_.rows ? *options_.rows : rows_;
  DSA_RETURN_IF_ERROR(
      idx_.WriteAt(kIdxHeaderSize + 4 * meta_first_row_, sizes_.data(), 4 * sizes_.size()));
  if (options_.rows) {
    DSA_RETURN_IF_ERROR(idx_.WriteAt(kIdxHeaderSize + 4 * total + 8 * meta_first_row_,
                                     pointers_.data(), 8 * pointers_.size()));
  } else {
    // Pointers are derived from the sizes in bounded batches.
    std::vector<int64_t> ptrs;
    ptrs.reserve(std::min<size_t>(sizes_.size(), kMetaBatchRows));
    int64_t ptr = 0;
    for (size_t start = 0; start < sizes_.size(); start += kMetaBatchRows) {
      size_t end = std::min(sizes_.size(), start + kMetaBatchRows);
      ptrs.clear();
      for (size_t i = start; i < end; ++i) {
        ptrs.push_back(ptr);
        ptr += static_cast<int64_t>(sizes_[i]) * static_cast<int64_t>(itemsize_);
      }
      DSA_RETURN_IF_ERROR(
          idx_.WriteAt(kIdxHeaderSize + 4 * total + 8 * start, ptrs.data(), 8 * ptrs.size()));
    }
  }
  meta_first_row_ += sizes_.size();
  sizes_.clear();
  pointers_.clear();
  return Status::OK();
}

// doc_idx follows the pointers; the per-row form is written in bounded batches.
Status IndexedWriter::WriteDocIdx() {
  const uint64_t base = kIdxHeaderSize + 12 * rows_;
  if (!options_.doc_idx_per_row) {
    const int64_t doc_idx[2] = {0, static_cast<int64_t>(rows_)};
    return idx_.WriteAt(base, doc_idx, sizeof(doc_idx));
  }
  std::vector<int64_t> batch;
  batch.reserve(kMetaBatchRows);
  for (uint64_t start = 0; start <= rows_; start += kMetaBatchRows) {
    const uint64_t end = std::min<uint64_t>(rows_ + 1, start + kMetaBatchRows);
    batch.clear();
    for (uint64_t i = start; i < end; ++i) batch.push_back(static_cast<int64_t>(i));
    DSA_RETURN_IF_ERROR(idx_.WriteAt(base + 8 * start, batch.data(), 8 * batch.size()));
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
  DSA_RETURN_IF_ERROR(FlushIdx());

  std::byte header[kIdxHeaderSize];
  std::memcpy(header, kIdxMagic, sizeof(kIdxMagic));
  PutU64(header + 9, 1);
  header[17] = static_cast<std::byte>(*CodeForDType(options_.table, dtype_));
  PutU64(header + 18, rows_);
  PutU64(header + 26, options_.doc_idx_per_row ? rows_ + 1 : 2);
  DSA_RETURN_IF_ERROR(idx_.WriteAt(0, header, sizeof(header)));
  DSA_RETURN_IF_ERROR(WriteDocIdx());

  DSA_RETURN_IF_ERROR(bin_.Close(options_.sync));
  DSA_RETURN_IF_ERROR(idx_.Close(options_.sync));
  DSA_RETURN_IF_ERROR(RenameFile(prefix_ + ".bin.tmp", prefix_ + ".bin"));
  DSA_RETURN_IF_ERROR(RenameFile(prefix_ + ".idx.tmp", prefix_ + ".idx"));
  finished_ = true;
  bin_buf_ = {};
  return Status::OK();
}

}  // namespace dsanalyze
