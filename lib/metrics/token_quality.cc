// unique_token_ratio, token_entropy and repeated_ngram_ratio (builtin_metrics.h).
//
// Each metric sees a sample's tokens with dataset.ignore_token_ids removed and
// counts them in per-thread scratch (thread_local, reused from call to call):
// - token counts: for tokens of at most 16 bits a dense table of 65536 counts,
//   reset through the list of ids the sample touched; for wider tokens (or a
//   sample of 2^32 tokens or more) a sorted copy of the sample;
// - n-gram counts: an open-addressing table keyed by the window packed into 48
//   bits when its n tokens fit there, else by a rolling hash of the window; a
//   hashed key only finds candidates, equality is decided on the windows. Its
//   8-byte slots number 2 to 64 per window of the longest sample seen.
// The map computes the metrics of a run in one shared pass (Metric::
// shared_pass): the ignored ids are removed and the tokens counted once per
// sample for all of them, and the windows of one repeated_ngram_ratio whose
// n tokens pack into 48 bits are counted in the same loop (the count's and the
// table's cache misses then overlap). token_entropy's terms p · -log2(p) are
// cached by (tokens, count), the same doubles. Every value depends on the
// sample's tokens alone, never on the order in which a table is visited, on
// the metrics computed with it, nor on the rank or thread computing it.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/memory_budget.h"
#include "metrics/builtin_metrics.h"
#include "metrics/ignore_set.h"

namespace dsanalyze {
namespace {

// count · scale / total rounded to the nearest integer, ties to even, in exact
// integer arithmetic. Requires count <= total and total > 0; the result is at
// most scale.
int64_t RoundedRatio(uint64_t count, uint64_t total, uint64_t scale) {
  const unsigned __int128 scaled = static_cast<unsigned __int128>(count) * scale;
  uint64_t quotient = static_cast<uint64_t>(scaled / total);
  const unsigned __int128 twice_remainder = (scaled % total) * 2;
  if (twice_remainder > total || (twice_remainder == total && quotient % 2 == 1)) ++quotient;
  return static_cast<int64_t>(quotient);
}

// The sample's tokens without the ignored ids: the sample itself when nothing
// is ignored, else a copy in a per-thread buffer (valid until the next call).
template <class T>
std::span<const T> KeptTokens(std::span<const T> sample, const IgnoreSet& ignore) {
  if (ignore.empty()) return sample;
  thread_local std::vector<T> kept;
  kept.clear();
  for (T v : sample)
    if (!ignore.contains(v)) kept.push_back(v);
  return kept;
}

// Per-thread scratch of the dense count: count[id] is zero between calls.
struct DenseCounts {
  std::vector<uint32_t> count = std::vector<uint32_t>(65536, 0);
  // One more entry than ids: the loop below writes one past the last new id.
  std::vector<uint16_t> touched = std::vector<uint16_t>(65537);
};

// One per thread, shared by every metric and dtype (calls never nest).
DenseCounts& ThreadDenseCounts() {
  thread_local DenseCounts counts;
  return counts;
}

// Does nothing with each token (a count without a visit).
struct NoVisit {
  void operator()(uint64_t, uint64_t) const {}
};

template <class T, class F, class Visit>
void ForEachDenseCount(std::span<const T> tokens, F& f, Visit& visit) {
  DenseCounts& s = ThreadDenseCounts();
  uint32_t* count = s.count.data();
  uint16_t* touched = s.touched.data();
  size_t distinct = 0;
  for (uint64_t k = 0; k < tokens.size(); ++k) {
    const auto id = static_cast<std::make_unsigned_t<T>>(tokens[k]);
    touched[distinct] = id;  // kept only if the id is new
    distinct += count[id]++ == 0;
    visit(k, id);
  }
  for (size_t k = 0; k < distinct; ++k) {
    f(uint64_t{count[touched[k]]});
    count[touched[k]] = 0;
  }
}

template <class T, class F, class Visit>
void ForEachSortedCount(std::span<const T> tokens, F& f, Visit& visit) {
  using U = std::make_unsigned_t<T>;
  for (uint64_t k = 0; k < tokens.size(); ++k) visit(k, static_cast<U>(tokens[k]));
  thread_local std::vector<T> sorted;
  sorted.assign(tokens.begin(), tokens.end());
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    f(uint64_t{j - i});
    i = j;
  }
}

// Calls f(c) once per distinct token of `tokens`, c its number of occurrences,
// in an unspecified order, after visit(k, u) for each token in order (k its
// index, u its bits as unsigned): in the counting loop itself when the tokens
// are counted densely, so that a visit's memory waits overlap the count's.
template <class T, class F, class Visit>
void ForEachTokenCount(std::span<const T> tokens, F&& f, Visit& visit) {
  if constexpr (sizeof(T) <= 2) {
    if (tokens.size() <= UINT32_MAX) return ForEachDenseCount(tokens, f, visit);
  }
  ForEachSortedCount(tokens, f, visit);
}

// The n-gram table: open addressing with linear probing over 2^bits slots of
// 8 bytes, a mark in the top 16 bits and a payload in the other 48. A slot holds
// an n-gram of the current sample if its mark is the table's epoch (seen once
// so far) or epoch + 1 (seen more than once); a lower mark is empty (an older
// sample's). Reset empties the table by moving to the next epoch; only every
// 32767th Reset, when the marks run out, clears the slots used since the last
// clear. One slot a window keeps a short sample's table in the first levels of
// the cache, so the table can be sparse: most windows of a text are new, and
// each probe past the first costs a mispredicted branch.
class NgramTable {
 public:
  static constexpr uint64_t kSlotBytes = sizeof(uint64_t);
  static constexpr int kPayloadBits = 48;
  static constexpr uint64_t kPayloadMask = (uint64_t{1} << kPayloadBits) - 1;

  // One sample's use of the table, from Reset (valid until the next Reset).
  // It holds what a probe needs by value: the table's members would be read
  // again after every store to a slot, which the compiler cannot tell apart.
  class Sample {
   public:
    // Counts a window whose key is `key` (any 64 bits that equal windows
    // share) and whose slot is to hold `payload` (< 2^48); same(p) says
    // whether the window whose slot holds payload p (each one the probe meets)
    // is the same n-gram.
    // Returns how much Σ count over the n-grams seen more than once grows.
    template <class Same>
    uint64_t Add(uint64_t key, uint64_t payload, const Same& same) const {
      for (size_t s = (key * 0x9E3779B97F4A7C15u) >> shift_;; s = (s + 1) & mask_) {
        const uint64_t slot = slots_[s];
        if (slot < seen_once_) {
          slots_[s] = seen_once_ | payload;
          return 0;
        }
        if (same(slot & kPayloadMask)) {
          if (slot >= seen_more_) return 1;
          slots_[s] = seen_more_ | (slot & kPayloadMask);
          return 2;  // its first occurrence counts now too
        }
      }
    }

   private:
    friend class NgramTable;
    uint64_t* slots_ = nullptr;
    int shift_ = 0;                           // 64 - bits
    size_t mask_ = 0;                         // 2^bits - 1
    uint64_t seen_once_ = 0, seen_more_ = 0;  // the marks of this sample, shifted
  };

  // Empties the table and sizes it for `windows` windows (>= 1): at most 1/32
  // full below 2^13 windows, else at most 1/2.
  Sample Reset(uint64_t windows) {
    const int bits = BitsFor(windows);
    const size_t capacity = size_t{1} << bits;
    if (slots_.size() < capacity) slots_.resize(capacity);  // new slots: mark 0, empty
    used_ = std::max(used_, capacity);
    epoch_ += 2;
    if (epoch_ + 1 > kMarkMax) {
      std::fill_n(slots_.begin(), used_, 0);
      used_ = capacity;
      epoch_ = 2;
    }
    Sample sample;
    sample.slots_ = slots_.data();
    sample.shift_ = 64 - bits;
    sample.mask_ = capacity - 1;
    sample.seen_once_ = epoch_ << kPayloadBits;
    sample.seen_more_ = (epoch_ + 1) << kPayloadBits;
    return sample;
  }
  // The slots Reset(windows) sizes the table to.
  static uint64_t SlotsFor(uint64_t windows) { return uint64_t{1} << BitsFor(windows); }

 private:
  static constexpr uint64_t kMarkMax = 65535;

  static int BitsFor(uint64_t windows) {
    return std::bit_width(windows) + (windows < (1u << 13) ? 5 : 1);
  }

  uint64_t epoch_ = 0;  // even, 2 to kMarkMax - 1 once Reset
  size_t used_ = 0;     // slots [0, used_) may hold marks above 0
  std::vector<uint64_t> slots_;
};

// One per thread, shared by every repeated_ngram_ratio metric and dtype.
NgramTable& ThreadNgramTable() {
  thread_local NgramTable table;
  return table;
}

// The largest n whose windows of T pack into a slot's payload (0 for 8-byte T).
template <class T>
constexpr uint64_t kPackedN = NgramTable::kPayloadBits / (8 * sizeof(T));

// The windows of one sample when its n tokens pack into the slot's payload
// (n · bits per token <= 48), counted as the tokens are visited in order (a
// visit of ForEachTokenCount): the packed window is the key and the payload,
// and equal keys are equal windows. `repeated` is Σ count over the n-grams
// seen more than once so far.
template <class T>
struct PackedWindows {
  static constexpr unsigned kWidth = 8 * sizeof(T);

  // The sample has at least n tokens.
  PackedWindows(uint64_t n, uint64_t tokens)
      : n(n),
        mask((uint64_t{1} << (n * kWidth)) - 1),
        table(ThreadNgramTable().Reset(tokens - n + 1)) {}

  void operator()(uint64_t k, uint64_t id) {
    key = ((key << kWidth) | id) & mask;
    if (k + 1 >= n)
      repeated += table.Add(key, key, [key = key](uint64_t other) { return other == key; });
  }

  uint64_t n, mask;
  NgramTable::Sample table;
  uint64_t key = 0, repeated = 0;
};

// The same for wider windows: keyed by a polynomial hash mod 2^64, rolled along
// the sample; the payload is where the window starts (below 2^48, CheckScratch),
// and the windows a probe meets are compared token by token (their keys are not
// kept). The sample has at least n tokens.
template <class T>
uint64_t RepeatedHashedWindows(std::span<const T> tokens, uint64_t n) {
  using U = std::make_unsigned_t<T>;
  constexpr uint64_t kBase = 0x100000001B3u;
  const NgramTable::Sample table = ThreadNgramTable().Reset(tokens.size() - n + 1);
  uint64_t top = 1;  // kBase^(n-1): the weight of the token leaving the window
  for (uint64_t b = kBase, e = n - 1; e != 0; e >>= 1, b *= b)
    if (e & 1) top *= b;
  uint64_t hash = 0;
  uint64_t repeated = 0;
  for (uint64_t k = 0; k < tokens.size(); ++k) {
    if (k >= n) hash -= static_cast<U>(tokens[k - n]) * top;
    hash = hash * kBase + static_cast<U>(tokens[k]);
    if (k + 1 < n) continue;
    const uint64_t start = k + 1 - n;
    const auto same = [&](uint64_t other) {
      return std::equal(tokens.begin() + start, tokens.begin() + start + n, tokens.begin() + other);
    };
    repeated += table.Add(hash, start, same);
  }
  return repeated;
}

// Per-thread scratch of token_entropy: the counts of a sample's distinct
// tokens as a multiset, zero between calls. with_count[c] is the number of
// distinct tokens occurring c times for 2 <= c < kDense, and the lanes
// with_count[kDense + l] summed are the number occurring once; larger counts
// (at most tokens / kDense of them) go to `large`. Most tokens of a text occur
// once: the k-th distinct token goes to lane k mod kLanes, so that each
// increment waits on the last of its lane, not on the previous token's.
struct CountMultiset {
  static constexpr uint64_t kDense = 4096;
  static constexpr uint64_t kLanes = 4;
  std::vector<uint64_t> with_count = std::vector<uint64_t>(kDense + kLanes, 0);
  std::vector<uint64_t> large;

  // Where a count c < kDense of the lane-th distinct token is counted (an
  // index, not a branch: c = 1 or not is as good as a coin toss).
  static uint64_t Index(uint64_t c, uint64_t lane) { return c == 1 ? kDense + lane % kLanes : c; }
};

// What the metrics of one sample share, from one count of its tokens.
struct SampleCounts {
  uint64_t distinct = 0;
  double entropy_bits = 0;  // computed only when a token_entropy metric asks
  uint64_t ngram_n = 0;     // when not 0, the n of `repeated`
  uint64_t repeated = 0;    // Σ count over the n-grams seen more than once
};

// p · -log2(p) for p = c / tokens: the entropy's term of one token occurring
// c times in `tokens`.
double EntropyTerm(uint64_t c, uint64_t tokens) {
  const double p = static_cast<double>(c) / static_cast<double>(tokens);
  return p * -std::log2(p);
}

// Per-thread cache of EntropyTerm for counts below kCounts: a row per sample
// length (lengths equal mod kRows share a row, tagged with the length it
// holds), each term computed the first time it is asked for. A sample needs a
// log2 for each of its distinct counts, and text has few distinct lengths
// (documents under a few thousand tokens, or samples of one length), so most
// terms are found here; a found term is the double EntropyTerm returns.
class EntropyTerms {
 public:
  double Term(uint64_t c, uint64_t tokens) {
    if (c >= kCounts) return EntropyTerm(c, tokens);
    const uint64_t row = tokens % kRows;
    if (row_tokens_[row] != tokens) {
      row_tokens_[row] = tokens;
      std::fill_n(terms_.begin() + row * kCounts, kCounts, kNotYet);
    }
    double& term = terms_[row * kCounts + c];
    if (std::isnan(term)) term = EntropyTerm(c, tokens);
    return term;
  }

 private:
  static constexpr uint64_t kRows = 1024, kCounts = 64;
  static constexpr double kNotYet = std::numeric_limits<double>::quiet_NaN();  // no term is NaN
  std::vector<uint64_t> row_tokens_ = std::vector<uint64_t>(kRows, 0);  // 0: a row of nothing
  std::vector<double> terms_ = std::vector<double>(kRows * kCounts, kNotYet);
};

// H = Σ_c m_c · p_c · -log2(p_c), p_c = c / tokens, m_c the number of distinct
// tokens occurring c times, summed in double by ascending c. Empties `counts`.
double EntropyBits(CountMultiset& counts, uint64_t most, uint64_t tokens) {
  thread_local EntropyTerms terms;
  double bits = 0;
  const auto add = [&](uint64_t c, uint64_t m) {
    bits += static_cast<double>(m) * terms.Term(c, tokens);
  };
  uint64_t once = 0;
  for (uint64_t l = 0; l < CountMultiset::kLanes; ++l)
    once += std::exchange(counts.with_count[CountMultiset::kDense + l], 0);
  if (once != 0) add(1, once);
  for (uint64_t c = 2; c <= most; ++c) {
    if (counts.with_count[c] == 0) continue;
    add(c, counts.with_count[c]);
    counts.with_count[c] = 0;
  }
  std::vector<uint64_t>& large = counts.large;
  std::sort(large.begin(), large.end());
  for (size_t i = 0, j = 0; i < large.size(); i = j) {
    while (j < large.size() && large[j] == large[i]) ++j;
    add(large[i], j - i);
  }
  large.clear();
  return bits;
}

// One count of the sample's tokens: the distinct ones, the entropy's bits when
// `entropy` is set, and the n-grams when the visit counts them (PackedWindows).
template <class T, class Visit>
SampleCounts CountTokens(std::span<const T> tokens, bool entropy, Visit& visit) {
  thread_local CountMultiset multiset;
  SampleCounts counts;
  uint64_t most = 0;  // the largest count below kDense
  ForEachTokenCount(
      tokens,
      [&](uint64_t c) {
        const uint64_t lane = counts.distinct++;
        if (!entropy) return;
        if (c < CountMultiset::kDense) {
          ++multiset.with_count[CountMultiset::Index(c, lane)];
          most = std::max(most, c);
        } else {
          multiset.large.push_back(c);
        }
      },
      visit);
  if (entropy) counts.entropy_bits = EntropyBits(multiset, most, tokens.size());
  return counts;
}

// The same, the windows of n tokens counted in the same loop when n is not 0
// (n tokens of T pack into a slot's payload).
template <class T>
SampleCounts CountTokensAndWindows(std::span<const T> tokens, bool entropy, uint64_t n) {
  if constexpr (kPackedN < T >> 0) {
    if (n != 0 && tokens.size() >= n) {
      PackedWindows<T> windows(n, tokens.size());
      SampleCounts counts = CountTokens(tokens, entropy, windows);
      counts.ngram_n = n;
      counts.repeated = windows.repeated;
      return counts;
    }
  }
  NoVisit none;
  return CountTokens(tokens, entropy, none);
}

enum class Quality { kUniqueTokenRatio, kTokenEntropy, kRepeatedNgramRatio };

// The three metrics, one class: computed together (Metric::shared_pass), they
// remove the ignored ids and count each sample's tokens once for all of them,
// and visit the sample's n-grams while its tokens are in the cache.
class TokenQualityMetric : public Metric {
 public:
  TokenQualityMetric(Quality quality, std::string name, std::span<const int64_t> ignore_token_ids,
                     uint64_t n, uint64_t scale)
      : quality_(quality),
        n_(n),
        scale_(scale),
        name_(std::move(name)),
        ignore_(ignore_token_ids) {}

  MetricType type() const override { return MetricType::kSingleValuePerSample; }
  std::string_view shared_pass() const override { return "token_quality"; }

  Status Compute(const SampleBatch& batch, std::span<int64_t> values) const override {
    const Metric* self = this;
    return ComputeTogether(batch, {&self, 1}, {&values, 1});
  }

  Status ComputeTogether(const SampleBatch& batch, std::span<const Metric* const> metrics,
                         std::span<const std::span<int64_t>> values) const override {
    std::vector<const TokenQualityMetric*> group;
    bool entropy = false, counts = false;
    for (size_t j = 0; j < metrics.size(); ++j) {
      const auto* m = dynamic_cast<const TokenQualityMetric*>(metrics[j]);
      if (m == nullptr || m->ignore_.ids() != ignore_.ids() || values[j].size() != batch.size())
        return Status::Internal("metric \"" + name_ + "\": computed together with \"" +
                                (m ? m->name_ : "another metric") + "\", which it cannot be");
      group.push_back(m);
      entropy |= m->quality_ == Quality::kTokenEntropy;
      counts |= m->quality_ != Quality::kRepeatedNgramRatio;
    }
    Status st;
    VisitIntDType(batch.dtype, [&](auto zero) {
      using T = decltype(zero);
      const uint64_t fused_n = counts ? FusedN<T>(group) : 0;
      for (size_t i = 0; i < batch.size() && st.ok(); ++i) {
        for (size_t j = 0; j < group.size() && st.ok(); ++j)
          st = group[j]->CheckScratch(batch.length(i));
        if (!st.ok()) break;
        const std::span<const T> tokens = KeptTokens(batch.sample(i).template as<T>(), ignore_);
        const SampleCounts c =
            counts ? CountTokensAndWindows(tokens, entropy, fused_n) : SampleCounts{};
        for (size_t j = 0; j < group.size(); ++j) values[j][i] = group[j]->Value(tokens, c);
      }
    });
    return st;
  }

 private:
  template <class T>
  int64_t Value(std::span<const T> tokens, const SampleCounts& counts) const {
    switch (quality_) {
      case Quality::kUniqueTokenRatio:
        return tokens.empty() ? 0 : RoundedRatio(counts.distinct, tokens.size(), scale_);
      case Quality::kTokenEntropy:
        return static_cast<int64_t>(
            std::nearbyint(counts.entropy_bits * static_cast<double>(scale_)));
      case Quality::kRepeatedNgramRatio:
      default:
        return RepeatedNgramRatio(tokens, counts);
    }
  }

  // The n of the group's first repeated_ngram_ratio whose windows of T pack
  // into a slot's payload, counted in the loop that counts the tokens; 0 if
  // none.
  template <class T>
  static uint64_t FusedN(std::span<const TokenQualityMetric* const> group) {
    for (const TokenQualityMetric* m : group)
      if (m->quality_ == Quality::kRepeatedNgramRatio && m->n_ <= kPackedN<T>) return m->n_;
    return 0;
  }

  template <class T>
  int64_t RepeatedNgramRatio(std::span<const T> tokens, const SampleCounts& counts) const {
    if (tokens.size() < n_) return 0;
    const uint64_t windows = tokens.size() - n_ + 1;
    if (counts.ngram_n == n_) return RoundedRatio(counts.repeated, windows, scale_);
    if constexpr (kPackedN < T >> 0) {
      if (n_ <= kPackedN<T>) {
        PackedWindows<T> packed(n_, tokens.size());
        using U = std::make_unsigned_t<T>;
        for (uint64_t k = 0; k < tokens.size(); ++k) packed(k, static_cast<U>(tokens[k]));
        return RoundedRatio(packed.repeated, windows, scale_);
      }
    }
    return RoundedRatio(RepeatedHashedWindows(tokens, n_), windows, scale_);
  }

  // BadInput when a sample of `tokens` tokens needs more scratch than the
  // memory budget (config/memory_budget.h): the n-gram table grows with the
  // longest sample a thread has seen, checked each time it would grow past
  // what was checked. A sample of 2^48 tokens or more, whose window starts
  // would not fit a slot's payload, needs a table of 2^52 bytes or more: no
  // budget holds it.
  Status CheckScratch(uint64_t tokens) const {
    if (quality_ != Quality::kRepeatedNgramRatio || tokens < n_) return Status::OK();
    const uint64_t slots = NgramTable::SlotsFor(tokens - n_ + 1);
    thread_local uint64_t checked = 0;  // the most slots checked on this thread
    if (slots <= checked) return Status::OK();
    DSA_RETURN_IF_ERROR(
        CheckMemoryNeed({.key = "metric \"" + name_ + "\"",
                         .what = "the n-gram table for a sample of " + std::to_string(tokens) +
                                 " tokens (" + std::to_string(slots) + " slots of " +
                                 std::to_string(NgramTable::kSlotBytes) + " bytes)",
                         .bytes = SaturatingProduct(slots, NgramTable::kSlotBytes)}));
    checked = slots;
    return Status::OK();
  }

  Quality quality_;
  uint64_t n_;  // repeated_ngram_ratio's n
  uint64_t scale_;
  std::string name_;
  IgnoreSet ignore_;
};

}  // namespace

std::unique_ptr<Metric> NewUniqueTokenRatioMetric(std::string name,
                                                  std::span<const int64_t> ignore_token_ids,
                                                  uint64_t scale) {
  return std::make_unique<TokenQualityMetric>(Quality::kUniqueTokenRatio, std::move(name),
                                              ignore_token_ids, 0, scale);
}

std::unique_ptr<Metric> NewTokenEntropyMetric(std::string name,
                                              std::span<const int64_t> ignore_token_ids,
                                              uint64_t scale) {
  return std::make_unique<TokenQualityMetric>(Quality::kTokenEntropy, std::move(name),
                                              ignore_token_ids, 0, scale);
}

std::unique_ptr<Metric> NewRepeatedNgramRatioMetric(std::string name,
                                                    std::span<const int64_t> ignore_token_ids,
                                                    uint64_t n, uint64_t scale) {
  return std::make_unique<TokenQualityMetric>(Quality::kRepeatedNgramRatio, std::move(name),
                                              ignore_token_ids, n, scale);
}

}  // namespace dsanalyze
