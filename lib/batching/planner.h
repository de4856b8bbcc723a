// DeepSpeed's batch_by_seqlens (deepspeed/runtime/data_pipeline/data_sampling/
// variable_batch_size_and_lr.py), element for element, in linear time over a
// stream of (value, id) samples already in picking order.
//
// DeepSpeed's rules, as implemented here:
//  - samples whose value exceeds max_tokens are left out (after the order
//    was made);
//  - with E' = E (the effective batch size) when microbatches must be of the
//    same size, else E' = 1, a batch starting at position i spans positions
//    [i, i + k·E') and its micro-batch b holds positions i + b, i + b + E',
//    ... (k samples each). k is the largest value such that every micro-batch
//    holds at most max_tokens tokens, k >= min_batch_size, k <= max_batch_size
//    (0: none) and i + k·E' < L (the batch never reaches the last sample);
//    when no k qualifies, packing stops there (the rest is never trained on);
//  - micro-batches are grouped E at a time into batches; a last group of
//    fewer than E is trimmed; fewer than E micro-batches in all is an error.
// Values must be >= 0, so a micro-batch's token sum grows with k: every
// condition but k >= min_batch_size holds for all k up to some bound, and k
// is found by adding one sample per micro-batch until one fails (each sample
// is looked at once, plus E' once per batch). Memory: one batch of samples.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

struct Sample {
  int64_t value = 0;  // tokens
  int64_t id = 0;
};

// Hands out the samples in picking order: fills `out` from the front and
// returns how many it wrote, 0 at the end.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual Result<size_t> Read(std::span<Sample> out) = 0;
};

struct BatchingRule {
  int64_t max_tokens = 0;            // > 0
  int64_t min_batch_size = 1;        // >= 0; 0 and 1 both mean no minimum
  int64_t max_batch_size = 0;        // >= 0; 0: none
  int64_t effective_batch_size = 1;  // E >= 1
  bool same_size = false;            // required_microbatches_of_same_size
};

struct MicroBatch {
  uint64_t samples = 0;
  int64_t tokens = 0;
  int64_t longest = 0;  // its largest value
};

// One batch as it is emitted: its E micro-batches' ids back to back.
struct PlannedBatch {
  std::span<const int64_t> ids;
  std::span<const MicroBatch> micro;  // E entries, in order
  uint64_t samples = 0;               // DeepSpeed's batch_sizes entry
  int64_t longest = 0;                // DeepSpeed's batch_max_seqlens entry
};

struct PlanCounts {
  uint64_t samples_in = 0;
  uint64_t too_long = 0;           // value > max_tokens
  int64_t longest_left_out = 0;    // the largest of those
  uint64_t packed = 0;             // samples in micro-batches before the trim
  uint64_t stopped = 0;            // left out where packing stopped
  bool stopped_by_tokens = false;  // a batch of min_batch_size samples exceeded max_tokens
  uint64_t trimmed_micro = 0;
  uint64_t trimmed_samples = 0;
  uint64_t microbatches = 0;  // in the plan (after the trim)
  uint64_t batches = 0;
  // In the plan. Fewer than 2^64 samples of values below 2^63 sum to less
  // than 2^127, so the total cannot overflow (an int64 total wrapped to a
  // negative count for values near 2^53).
  unsigned __int128 tokens = 0;
};

// Plans `source` under `rule`, calling `emit` for each batch in order.
// BadInput when the plan holds fewer than E micro-batches; errors of the
// source or of `emit` are passed on.
Result<PlanCounts> PlanBatches(SampleSource& source, const BatchingRule& rule,
                               const std::function<Status(const PlannedBatch&)>& emit);

}  // namespace dsanalyze
