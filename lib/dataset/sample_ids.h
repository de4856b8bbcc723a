// SampleIds: the config's `sample_indices` array, which gives the sample at
// iteration position i the id ids()[i] instead of i (format.md §2, DeepSpeed's
// "user defined shuffling of indices").
//
// Open() reads a 1-D .npy of any integer dtype (format/npy.h) and checks that
// it has exactly one id per sample, that every id fits int64 and that no id
// repeats; negative ids are allowed (the sample dtype then fits min(0, smallest
// id), format.md §2). An int64 array whose data is 8-byte aligned in the file
// (every file numpy writes) is used in place, zero copy; other dtypes are
// widened into an owned copy. Checking distinctness takes a bitmap of
// (max - min + 1) bits when the ids lie within 64·N of each other (N/8 bytes
// for the usual permutation of 0..N-1), else a sorted copy of the ids.
//
// Errors are BadInput lines starting "dataset.sample_indices: <path>: ".
// Move-only; ids() stays valid across moves. Const accessors are thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "format/npy.h"
#include "util/status.h"

namespace dsanalyze {

class SampleIds {
 public:
  static Result<SampleIds> Open(const std::string& npy_path, uint64_t num_samples);

  std::span<const int64_t> ids() const { return ids_; }
  // Smallest and largest id (0 and 0 when there are no samples).
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }

 private:
  NpyArray array_;                // the mapping ids_ may point into
  std::vector<int64_t> widened_;  // the ids, when they could not be used in place
  std::span<const int64_t> ids_;
  int64_t min_ = 0;
  int64_t max_ = 0;
};

}  // namespace dsanalyze
