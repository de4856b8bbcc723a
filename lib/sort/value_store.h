// ValueStore: one rank's values of one metric, in iteration order, held in
// little memory, for runs under a memory limit (config "memory").
//
// Values are appended in order and kept in blocks of 2^20 values, each
// stored as offsets from the block's smallest value in the narrowest of 1, 2,
// 4 or 8 bytes (a sequence length fits in 2 bytes, not 8). Blocks stay in
// memory while they fit `memory_bytes`; the rest go to a ScratchFile
// (util/scratch_file.h) in the scratch directory, which the kernel frees when
// the store is destroyed or the process dies. Reads decode a block at a time,
// in any order, any number of times.
//
// Not thread-safe: one thread appends and reads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "util/scratch_file.h"
#include "util/status.h"

namespace dsanalyze {

class ValueStore {
 public:
  static constexpr uint64_t kBlockValues = uint64_t{1} << 20;

  // `block_values`: tests make it small, to spill and read many blocks.
  ValueStore(uint64_t memory_bytes, std::string scratch_dir, uint64_t block_values = kBlockValues)
      : memory_bytes_(memory_bytes),
        scratch_dir_(std::move(scratch_dir)),
        block_values_(std::max<uint64_t>(1, block_values)) {}

  // Appends values after those appended before.
  Status Append(std::span<const int64_t> values);
  // Stores the last, partial block. Call once, after the last Append.
  Status Seal();

  uint64_t size() const { return size_; }
  // Over every value appended; min > max when there is none.
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }
  size_t num_blocks() const { return blocks_.size(); }
  // Block b's first position, and its smallest and largest value.
  uint64_t block_begin(size_t b) const { return blocks_[b].begin; }
  int64_t block_min(size_t b) const { return blocks_[b].min; }
  int64_t block_max(size_t b) const { return blocks_[b].max; }
  // Bytes written to the scratch file (0: everything stayed in memory).
  uint64_t spilled_bytes() const { return spill_.size(); }

  // Decodes block b into `out` (resized to the block's length).
  Status ReadBlock(size_t b, std::vector<int64_t>* out);
  // Decodes values [offset, offset + out.size()) into `out`.
  Status Read(uint64_t offset, std::span<int64_t> out);
  // Decodes block b as offsets from `base` (value - base) into `out`, resized
  // to the block's length. Every value of the block must lie in [base,
  // base + 65535] (so it is stored at 1 or 2 bytes); else an internal error.
  Status ReadBlockOffsets(size_t b, int64_t base, std::vector<uint16_t>* out);

 private:
  struct Block {
    uint64_t begin = 0;  // position of the first value
    uint32_t count = 0;
    uint8_t width = 0;  // bytes per stored offset: 1, 2, 4 or 8
    int64_t min = 0, max = 0;
    bool spilled = false;
    uint64_t spill_offset = 0;   // when spilled
    std::vector<uint8_t> bytes;  // when in memory
  };
  Status StoreBlock(std::span<const int64_t> values);
  // Block b's stored bytes: its own, or read from the scratch file into io_.
  Result<const uint8_t*> BlockBytes(size_t b);

  uint64_t memory_bytes_;
  std::string scratch_dir_;
  uint64_t block_values_;
  uint64_t held_bytes_ = 0;  // block bytes kept in memory
  uint64_t size_ = 0;
  int64_t min_ = std::numeric_limits<int64_t>::max();
  int64_t max_ = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> pending_;  // the block being filled
  std::vector<Block> blocks_;
  ScratchFile spill_;
  std::vector<uint8_t> io_;        // a spilled block's bytes while decoding
  std::vector<int64_t> read_buf_;  // Read's block
  size_t read_block_ = SIZE_MAX;   // which block read_buf_ holds
};

}  // namespace dsanalyze
