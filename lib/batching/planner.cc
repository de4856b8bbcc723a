#include "batching/planner.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace dsanalyze {
namespace {

constexpr size_t kChunk = size_t{1} << 16;

// The samples read but not yet packed, long ones left out, read a chunk at
// a time as the planner asks for more; counts what it reads into `counts`.
class Window {
 public:
  Window(SampleSource& source, int64_t max_tokens, PlanCounts* counts)
      : source_(source), max_tokens_(max_tokens), counts_(counts), chunk_(kChunk) {}

  // Whether at least n samples are (or can be) buffered.
  Result<bool> Has(size_t n) {
    while (buf_.size() < n && !ended_) DSA_RETURN_IF_ERROR(ReadChunk());
    return buf_.size() >= n;
  }
  const Sample& operator[](size_t i) const { return buf_[i]; }
  void Drop(size_t n) { buf_.erase(buf_.begin(), buf_.begin() + static_cast<ptrdiff_t>(n)); }

  // Reads to the end without keeping anything; returns the samples left
  // (buffered or read) that are not too long.
  Result<uint64_t> DrainRest() {
    uint64_t rest = buf_.size();
    buf_.clear();
    while (!ended_) {
      DSA_RETURN_IF_ERROR(ReadChunk());
      rest += buf_.size();
      buf_.clear();
    }
    return rest;
  }

 private:
  Status ReadChunk() {
    DSA_ASSIGN_OR_RETURN(const size_t n, source_.Read(chunk_));
    if (n == 0) ended_ = true;
    counts_->samples_in += n;
    for (size_t i = 0; i < n; ++i) {
      const Sample& s = chunk_[i];
      if (s.value <= max_tokens_) {
        buf_.push_back(s);
        continue;
      }
      ++counts_->too_long;
      counts_->longest_left_out = std::max(counts_->longest_left_out, s.value);
    }
    return Status::OK();
  }

  SampleSource& source_;
  int64_t max_tokens_;
  PlanCounts* counts_;
  std::vector<Sample> chunk_;
  std::deque<Sample> buf_;
  bool ended_ = false;
};

// Collects micro-batches E at a time and emits each full batch.
class Grouper {
 public:
  Grouper(int64_t e, const std::function<Status(const PlannedBatch&)>& emit, PlanCounts* counts)
      : e_(static_cast<size_t>(e)), emit_(emit), counts_(counts) {}

  // Adds the micro-batch of window positions first, first + step, ... (`mb.samples` of them).
  Status Add(const Window& w, size_t first, size_t step, const MicroBatch& mb) {
    for (uint64_t j = 0; j < mb.samples; ++j) ids_.push_back(w[first + j * step].id);
    micro_.push_back(mb);
    if (micro_.size() < e_) return Status::OK();
    PlannedBatch batch{ids_, micro_, ids_.size(), 0};
    for (const MicroBatch& m : micro_) {
      batch.longest = std::max(batch.longest, m.longest);
      counts_->tokens += static_cast<uint64_t>(m.tokens);
    }
    counts_->microbatches += e_;
    ++counts_->batches;
    DSA_RETURN_IF_ERROR(emit_(batch));
    ids_.clear();
    micro_.clear();
    return Status::OK();
  }
  // The micro-batches of a last, incomplete batch: trimmed.
  uint64_t pending_micro() const { return micro_.size(); }
  uint64_t pending_samples() const { return ids_.size(); }

 private:
  size_t e_;
  const std::function<Status(const PlannedBatch&)>& emit_;
  PlanCounts* counts_;
  std::vector<int64_t> ids_;
  std::vector<MicroBatch> micro_;
};

struct Candidate {
  uint64_t k = 0;              // samples per micro-batch
  bool tokens_failed = false;  // k + 1 would exceed max_tokens
};

// The largest k for the batch at the window's front: each of the `step`
// micro-batches takes one more sample while all stay within max_tokens,
// k < the rule's max and one sample remains after the batch. `mbs` gets the
// micro-batches of that k; it is sized only once step + 1 samples are there,
// so an effective batch size beyond the data is not allocated.
Result<Candidate> LongestBatch(Window& w, const BatchingRule& rule, size_t step,
                               std::vector<MicroBatch>& mbs) {
  const uint64_t cap = rule.max_batch_size > 0 ? static_cast<uint64_t>(rule.max_batch_size)
                                               : std::numeric_limits<uint64_t>::max();
  Candidate c;
  DSA_ASSIGN_OR_RETURN(const bool one, w.Has(step + 1));
  if (!one) return c;
  mbs.assign(step, MicroBatch{});
  while (c.k < cap) {
    DSA_ASSIGN_OR_RETURN(const bool more, w.Has((c.k + 1) * step + 1));
    if (!more) break;
    for (size_t b = 0; b < step && !c.tokens_failed; ++b)
      c.tokens_failed = w[c.k * step + b].value > rule.max_tokens - mbs[b].tokens;
    if (c.tokens_failed) break;
    for (size_t b = 0; b < step; ++b) {
      const int64_t v = w[c.k * step + b].value;
      mbs[b].tokens += v;
      mbs[b].longest = std::max(mbs[b].longest, v);
      ++mbs[b].samples;
    }
    ++c.k;
  }
  return c;
}

}  // namespace

Result<PlanCounts> PlanBatches(SampleSource& source, const BatchingRule& rule,
                               const std::function<Status(const PlannedBatch&)>& emit) {
  PlanCounts counts;
  Window window(source, rule.max_tokens, &counts);
  Grouper grouper(rule.effective_batch_size, emit, &counts);
  const size_t step = rule.same_size ? static_cast<size_t>(rule.effective_batch_size) : 1;
  const uint64_t min_k = static_cast<uint64_t>(std::max<int64_t>(rule.min_batch_size, 1));
  std::vector<MicroBatch> mbs;
  for (;;) {
    DSA_ASSIGN_OR_RETURN(const bool any, window.Has(1));
    if (!any) break;
    DSA_ASSIGN_OR_RETURN(const Candidate c, LongestBatch(window, rule, step, mbs));
    if (c.k < min_k) {
      counts.stopped_by_tokens = c.tokens_failed;
      break;
    }
    for (size_t b = 0; b < step; ++b) DSA_RETURN_IF_ERROR(grouper.Add(window, b, step, mbs[b]));
    window.Drop(c.k * step);
    counts.packed += c.k * step;
  }
  DSA_ASSIGN_OR_RETURN(counts.stopped, window.DrainRest());
  counts.trimmed_micro = grouper.pending_micro();
  counts.trimmed_samples = grouper.pending_samples();
  if (counts.microbatches == 0)
    return Status::BadInput(
        "the plan has " + std::to_string(counts.trimmed_micro) +
        " micro-batches, fewer than the effective batch size " +
        std::to_string(rule.effective_batch_size) +
        " (DeepSpeed fails: \"not enough datapoints to create a single sample per "
        "dataloader\"): lower the effective batch size or min_batch_size, or raise max_tokens");
  return counts;
}

}  // namespace dsanalyze
