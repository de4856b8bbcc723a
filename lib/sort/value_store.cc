#include "sort/value_store.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace dsanalyze {
namespace {

uint8_t WidthFor(uint64_t span) {
  if (span <= 0xFF) return 1;
  if (span <= 0xFFFF) return 2;
  if (span <= 0xFFFFFFFFULL) return 4;
  return 8;
}

template <class T>
void Encode(std::span<const int64_t> values, int64_t base, uint8_t* out) {
  T* dst = reinterpret_cast<T*>(out);
  for (size_t i = 0; i < values.size(); ++i)
    dst[i] = static_cast<T>(static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(base));
}

template <class T>
void Decode(const uint8_t* in, size_t n, int64_t base, int64_t* out) {
  const T* src = reinterpret_cast<const T*>(in);
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<int64_t>(static_cast<uint64_t>(src[i]) + static_cast<uint64_t>(base));
}

// Offsets of at most 16 bits: the stored ones plus `shift`.
template <class T>
void Shift(const uint8_t* in, size_t n, uint16_t shift, uint16_t* out) {
  const T* src = reinterpret_cast<const T*>(in);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint16_t>(src[i] + shift);
}

}  // namespace

Status ValueStore::Append(std::span<const int64_t> values) {
  while (!values.empty()) {
    const size_t n = std::min<size_t>(values.size(), block_values_ - pending_.size());
    pending_.insert(pending_.end(), values.begin(), values.begin() + n);
    values = values.subspan(n);
    if (pending_.size() == block_values_) {
      DSA_RETURN_IF_ERROR(StoreBlock(pending_));
      pending_.clear();
    }
  }
  return Status::OK();
}

Status ValueStore::Seal() {
  if (!pending_.empty()) DSA_RETURN_IF_ERROR(StoreBlock(pending_));
  std::vector<int64_t>().swap(pending_);
  return Status::OK();
}

Status ValueStore::StoreBlock(std::span<const int64_t> values) {
  Block b;
  b.begin = size_;
  b.count = static_cast<uint32_t>(values.size());
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  b.min = *mn;
  b.max = *mx;
  b.width = WidthFor(static_cast<uint64_t>(b.max) - static_cast<uint64_t>(b.min));
  std::vector<uint8_t> bytes(values.size() * b.width);
  switch (b.width) {
    case 1:
      Encode<uint8_t>(values, b.min, bytes.data());
      break;
    case 2:
      Encode<uint16_t>(values, b.min, bytes.data());
      break;
    case 4:
      Encode<uint32_t>(values, b.min, bytes.data());
      break;
    default:
      Encode<uint64_t>(values, b.min, bytes.data());
      break;
  }
  if (held_bytes_ + bytes.size() <= memory_bytes_) {
    held_bytes_ += bytes.size();
    b.bytes = std::move(bytes);
  } else {
    if (!spill_.is_open()) {
      DSA_ASSIGN_OR_RETURN(spill_, ScratchFile::Create(scratch_dir_));
    }
    b.spilled = true;
    b.spill_offset = spill_.size();
    DSA_RETURN_IF_ERROR(spill_.Append(bytes.data(), bytes.size()));
  }
  size_ += values.size();
  min_ = std::min(min_, b.min);
  max_ = std::max(max_, b.max);
  blocks_.push_back(std::move(b));
  return Status::OK();
}

Result<const uint8_t*> ValueStore::BlockBytes(size_t index) {
  const Block& b = blocks_[index];
  if (!b.spilled) return b.bytes.data();
  io_.resize(size_t{b.count} * b.width);
  DSA_RETURN_IF_ERROR(spill_.ReadAt(b.spill_offset, io_.data(), io_.size()));
  return static_cast<const uint8_t*>(io_.data());
}

Status ValueStore::ReadBlock(size_t index, std::vector<int64_t>* out) {
  const Block& b = blocks_[index];
  DSA_ASSIGN_OR_RETURN(const uint8_t* bytes, BlockBytes(index));
  out->resize(b.count);
  switch (b.width) {
    case 1:
      Decode<uint8_t>(bytes, b.count, b.min, out->data());
      break;
    case 2:
      Decode<uint16_t>(bytes, b.count, b.min, out->data());
      break;
    case 4:
      Decode<uint32_t>(bytes, b.count, b.min, out->data());
      break;
    default:
      Decode<uint64_t>(bytes, b.count, b.min, out->data());
      break;
  }
  return Status::OK();
}

Status ValueStore::ReadBlockOffsets(size_t index, int64_t base, std::vector<uint16_t>* out) {
  const Block& b = blocks_[index];
  if (b.min < base || static_cast<uint64_t>(b.max) - static_cast<uint64_t>(base) > 0xFFFF)
    return Status::Internal("value store: block " + std::to_string(index) +
                            " has values outside a 16-bit range from " + std::to_string(base));
  DSA_ASSIGN_OR_RETURN(const uint8_t* bytes, BlockBytes(index));
  out->resize(b.count);
  const auto shift = static_cast<uint16_t>(b.min - base);
  if (b.width == 1) {
    Shift<uint8_t>(bytes, b.count, shift, out->data());
  } else {
    Shift<uint16_t>(bytes, b.count, shift, out->data());
  }
  return Status::OK();
}

Status ValueStore::Read(uint64_t offset, std::span<int64_t> out) {
  while (!out.empty()) {
    const size_t index = static_cast<size_t>(offset / block_values_);
    if (index != read_block_) {
      DSA_RETURN_IF_ERROR(ReadBlock(index, &read_buf_));
      read_block_ = index;
    }
    const uint64_t at = offset - blocks_[index].begin;
    const size_t n = std::min<size_t>(out.size(), read_buf_.size() - at);
    std::copy_n(read_buf_.begin() + static_cast<ptrdiff_t>(at), n, out.begin());
    out = out.subspan(n);
    offset += n;
  }
  return Status::OK();
}

}  // namespace dsanalyze
