// total_vocab_freq, vocab_rarity and seqlen_vocab_rarity (builtin_metrics.h;
// the arithmetic is in rarity.h, the exact per-sample sum in exact_sum.h).
#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "metrics/builtin_metrics.h"
#include "metrics/exact_sum.h"
#include "metrics/ignore_set.h"
#include "metrics/rarity.h"
#include "metrics/word_sums.h"
#include "util/checked_add.h"

namespace dsanalyze {
namespace {

// True if `v` is a token id of a vocabulary with ids 0..vocab_size.
template <class T>
bool InVocab(T v, uint64_t vocab_size) {
  if constexpr (std::is_signed_v<T>) {
    if (v < 0) return false;
  }
  return static_cast<uint64_t>(v) <= vocab_size;
}

template <class T>
Status OutOfVocab(const std::string& name, uint64_t position, T token, uint64_t vocab_size) {
  return Status::BadInput("metric \"" + name + "\": sample " + std::to_string(position) +
                          " has token " + std::to_string(token) + ", outside the vocabulary 0.." +
                          std::to_string(vocab_size) + " of params.vocab_size " +
                          std::to_string(vocab_size) +
                          " (list it in dataset.ignore_token_ids to leave it out)");
}

Status CheckOutputSize(const std::string& name, size_t got, size_t expected) {
  if (got == expected) return Status::OK();
  return Status::Internal("metric \"" + name + "\": output of length " + std::to_string(got) +
                          ", expected " + std::to_string(expected));
}

// Tokens are visited in pieces of at most this many: a piece stays in the L1
// cache from the range check to the loop that uses it.
constexpr uint64_t kPieceTokens = 8192;

// True if all of tokens[0, n) are vocabulary ids: one branch-free maximum (it
// vectorises), after which the loops that use the ids need no per-token test.
template <class T>
bool AllInVocab(const T* tokens, uint64_t n, uint64_t vocab_size) {
  using U = std::make_unsigned_t<T>;
  constexpr uint64_t kLine = 64 / sizeof(T);
  // A negative id, as U, is above any limit up to T's largest value.
  const U limit = static_cast<U>(std::min<uint64_t>(vocab_size, std::numeric_limits<T>::max()));
  U high = 0;
  uint64_t k = 0;
  for (; k + kLine <= n; k += kLine) {
    __builtin_prefetch(tokens + k + kTokenPrefetchBytes / sizeof(T));
    for (uint64_t j = k; j < k + kLine; ++j) high = std::max(high, static_cast<U>(tokens[j]));
  }
  for (; k < n; ++k) high = std::max(high, static_cast<U>(tokens[k]));
  return high <= limit;
}

// Adds the terms of tokens[0, n) (vocabulary ids, n <= kPieceTokens) to the
// word column sums, W words a term (WordTable).
template <int W, class T>
void AddWordColumns(const T* tokens, uint64_t n, const uint64_t* words, Units* sums) {
  using U = std::make_unsigned_t<T>;
  if constexpr (W == 1) {
    sums[0] += SumWords(tokens, n, words);
  } else {
    Units s[W] = {};
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t* term = words + size_t{static_cast<U>(tokens[k])} * W;
      for (int w = 0; w < W; ++w) s[w] += term[w];
    }
    for (int w = 0; w < W; ++w) sums[w] += s[w];
  }
}

template <class T>
void AddWordColumns(const T* tokens, uint64_t n, const WordTable& table, Units* sums) {
  if (table.count == 1) return AddWordColumns<1>(tokens, n, table.words.data(), sums);
  return AddWordColumns<2>(tokens, n, table.words.data(), sums);
}

// The ignored ids that are also vocabulary ids (the others never reach a table).
std::vector<size_t> IgnoredInVocab(const IgnoreSet& ignore, uint64_t vocab_size) {
  std::vector<size_t> ids;
  for (int64_t id : ignore.ids())
    if (InVocab(id, vocab_size)) ids.push_back(static_cast<size_t>(id));
  return ids;
}

class TotalVocabFreqMetric : public Metric {
 public:
  TotalVocabFreqMetric(std::string name, uint64_t vocab_size, std::span<const int64_t> ignore)
      : name_(std::move(name)),
        vocab_size_(vocab_size),
        ignore_(ignore),
        ignored_in_vocab_(IgnoredInVocab(ignore_, vocab_size)) {}

  MetricType type() const override { return MetricType::kAccumulateValueOverSamples; }
  size_t accumulate_length() const override { return static_cast<size_t>(vocab_size_) + 1; }

  Status Accumulate(const SampleBatch& batch, std::span<int64_t> acc) const override {
    DSA_RETURN_IF_ERROR(CheckOutputSize(name_, acc.size(), accumulate_length()));
    // A count cannot overflow: it is at most the number of elements read.
    // The samples' tokens lie in a row, counted in pieces across samples.
    const Status st = VisitIntDType(batch.dtype, [&](auto zero) -> Status {
      using T = decltype(zero);
      const uint64_t first = batch.offsets.front(), last = batch.offsets.back();
      if constexpr (sizeof(T) <= 2) {
        if (last - first >= kMinNarrowTokens) return CountNarrow<T>(batch, acc);
      }
      for (uint64_t b = first; b < last; b += kPieceTokens)
        DSA_RETURN_IF_ERROR(CountPiece<T>(batch, b, std::min(kPieceTokens, last - b), acc));
      return Status::OK();
    });
    // Ignored vocabulary ids were counted above like any other (one test less
    // per token); their entries are zero before every batch, so reset them.
    for (size_t id : ignored_in_vocab_) acc[id] = 0;
    return st;
  }

 private:
  // Ids of one or two bytes are counted in a table with an entry for every
  // value of the type (2^16 uint32 at most, 256 KiB: the L2 cache), so no id
  // is range-checked before it is counted, and a repeated id's count is not
  // a long chain of 64-bit adds. The entries past the vocabulary are looked at
  // once a run of tokens; the table costs a pass over its 2^16 entries, which
  // only a batch of kMinNarrowTokens tokens or more repays.
  static constexpr uint64_t kMinNarrowTokens = uint64_t{1} << 15;

  template <class T>
  Status CountNarrow(const SampleBatch& batch, std::span<int64_t> acc) const {
    // Runs of 2^20 tokens: far from a uint32 count's overflow, and a batch's
    // worth (1024 samples of ~500 tokens) needs the table added only once.
    constexpr uint64_t kRunTokens = uint64_t{1} << 20;
    const T* elements = reinterpret_cast<const T*>(batch.elements);
    std::vector<uint32_t> counts(size_t{1} << (8 * sizeof(T)));
    const uint64_t last = batch.offsets.back();
    for (uint64_t b = batch.offsets.front(); b < last; b += kRunTokens) {
      const uint64_t n = std::min(kRunTokens, last - b);
      CountRun(elements + b, n, counts.data());
      // Ids outside the vocabulary that are not ignored: the per-token loop
      // finds the first of them, to name its sample.
      if (!AddNarrowCounts<T>(counts, acc)) return CountChecked<T>(batch, b, n, acc);
    }
    return Status::OK();
  }

  // counts[id] += 1 for each of tokens[0, n), prefetching (kTokenPrefetchBytes).
  template <class T>
  static void CountRun(const T* tokens, uint64_t n, uint32_t* counts) {
    using U = std::make_unsigned_t<T>;
    constexpr uint64_t kLine = 64 / sizeof(T);
    uint64_t k = 0;
    for (; k + kLine <= n; k += kLine) {
      __builtin_prefetch(tokens + k + kTokenPrefetchBytes / sizeof(T));
      for (uint64_t j = k; j < k + kLine; ++j) ++counts[static_cast<U>(tokens[j])];
    }
    for (; k < n; ++k) ++counts[static_cast<U>(tokens[k])];
  }

  // Moves the table's vocabulary entries to acc, leaving the table zero for
  // the next run; false if an id outside the vocabulary that is not ignored
  // has a count.
  template <class T>
  bool AddNarrowCounts(std::vector<uint32_t>& counts, std::span<int64_t> acc) const {
    using U = std::make_unsigned_t<T>;
    const size_t limit = std::min<uint64_t>(vocab_size_, std::numeric_limits<T>::max());
    for (size_t u = 0; u <= limit; ++u) acc[u] += std::exchange(counts[u], 0);
    uint32_t outside = 0;
    for (size_t u = limit + 1; u < counts.size(); ++u) outside |= counts[u];
    if (outside == 0) return true;
    for (size_t u = limit + 1; u < counts.size(); ++u)
      if (counts[u] != 0 && !ignore_.contains(static_cast<T>(static_cast<U>(u)))) return false;
    std::fill(counts.begin() + limit + 1, counts.end(), 0);
    return true;
  }

  // Counts the vocabulary ids of the batch's elements [b, b + n): one test a
  // piece when all are (the loop then vectorises the test away), else the
  // per-token loop.
  template <class T>
  Status CountPiece(const SampleBatch& batch, uint64_t b, uint64_t n,
                    std::span<int64_t> acc) const {
    using U = std::make_unsigned_t<T>;
    const T* piece = reinterpret_cast<const T*>(batch.elements) + b;
    if (!AllInVocab(piece, n, vocab_size_)) return CountChecked<T>(batch, b, n, acc);
    for (uint64_t k = 0; k < n; ++k) ++acc[static_cast<U>(piece[k])];
    return Status::OK();
  }

  // The per-token loop over elements [b, b + n) of the batch, for a piece
  // with ids outside the vocabulary: ignored ones, or an error naming the sample.
  template <class T>
  Status CountChecked(const SampleBatch& batch, uint64_t b, uint64_t n,
                      std::span<int64_t> acc) const {
    const T* elements = reinterpret_cast<const T*>(batch.elements);
    for (uint64_t k = b; k < b + n; ++k) {
      const T v = elements[k];
      if (InVocab(v, vocab_size_)) {
        ++acc[static_cast<size_t>(v)];
      } else if (!ignore_.contains(v)) {
        // The sample holding element k: the last whose tokens start at or before it.
        const auto next = std::upper_bound(batch.offsets.begin(), batch.offsets.end(), k);
        const uint64_t i = static_cast<uint64_t>(next - batch.offsets.begin()) - 1;
        return OutOfVocab(name_, batch.first + i, v, vocab_size_);
      }
    }
    return Status::OK();
  }

  std::string name_;
  uint64_t vocab_size_;
  IgnoreSet ignore_;
  std::vector<size_t> ignored_in_vocab_;
};

// vocab_rarity, and seqlen_vocab_rarity when options.with_seqlen is set. Not
// ready to compute until it has the corpus counts and (seqlen_vocab_rarity)
// the sequence length: from the options, or as dependency results.
class VocabRarityMetric : public Metric {
 public:
  explicit VocabRarityMetric(const VocabRarityOptions& o)
      : name_(o.name),
        index_(o.config_index),
        vocab_size_(o.vocab_size),
        ignore_(o.ignore_token_ids),
        with_seqlen_(o.with_seqlen),
        seq_length_(o.seq_length) {}

  MetricType type() const override { return MetricType::kSingleValuePerSample; }

  std::vector<MetricConfig> dependencies() const override {
    std::vector<MetricConfig> deps;
    if (!have_counts_)
      deps.push_back(Dependency("total_vocab_freq", {{"vocab_size", vocab_size_}}));
    if (with_seqlen_ && seq_length_ == 0)
      deps.push_back(Dependency("seqlen", nlohmann::json::object()));
    return deps;
  }

  Status SetDependencyResults(std::span<const std::vector<int64_t>> results) override {
    const size_t expected = dependencies().size();
    if (results.size() != expected)
      return Status::Internal("metric \"" + name_ + "\": " + std::to_string(results.size()) +
                              " dependency results for " + std::to_string(expected) +
                              " dependencies");
    size_t next = 0;
    std::span<const int64_t> counts;
    if (!have_counts_) counts = results[next++];
    if (with_seqlen_ && seq_length_ == 0) {
      const std::vector<int64_t>& seqlen_range = results[next++];
      if (seqlen_range.size() != 2 || seqlen_range[1] < 0)
        return Status::Internal("metric \"" + name_ + "\": bad seqlen range from the dependency");
      // An all-empty dataset has no longest sample; 1 keeps the coefficient defined.
      seq_length_ = std::max<uint64_t>(1, static_cast<uint64_t>(seqlen_range[1]));
    }
    if (!have_counts_) DSA_RETURN_IF_ERROR(SetCounts(counts));
    return Finish();
  }

  // Builds the per-token table from the corpus counts (size vocab_size + 1).
  Status SetCounts(std::span<const int64_t> counts) {
    if (counts.size() != vocab_size_ + 1)
      return Status::Internal("metric \"" + name_ + "\": " + std::to_string(counts.size()) +
                              " token counts for vocab_size " + std::to_string(vocab_size_));
    Result<std::vector<double>> rarity = TokenRarities(counts);
    if (!rarity.ok()) return rarity.status().WithPrefix("metric \"" + name_ + "\"");
    DSA_ASSIGN_OR_RETURN(scale_, ScaleFor(*rarity));
    max_rarity_ = *std::max_element(rarity->begin(), rarity->end());
    std::vector<Units> units(rarity->size());
    for (size_t t = 0; t < units.size(); ++t) units[t] = ToUnits((*rarity)[t], scale_);
    // Ignored tokens add nothing to the sum.
    ignored_.assign(ignore_.empty() ? 0 : units.size(), 0);
    for (size_t id : IgnoredInVocab(ignore_, vocab_size_)) {
      units[id] = 0;
      ignored_[id] = 1;
    }
    terms_ = WordTable::From(units);
    // One word a term: an entry for every 16-bit id (zero past the
    // vocabulary), so that SumWordsAvx512UpTo can gather any id it meets.
    if (terms_.count == 1 && terms_.words.size() < kWords16) terms_.words.resize(kWords16, 0);
    have_counts_ = true;
    return Status::OK();
  }

  // Completes the setup once counts and seq_length are known.
  Status Finish() {
    if (!have_counts_ || (with_seqlen_ && seq_length_ == 0)) return Status::OK();
    if (with_seqlen_) {
      Result<int64_t> c = SeqlenCoefficient(seq_length_, max_rarity_);
      if (!c.ok()) return c.status().WithPrefix("metric \"" + name_ + "\"");
      coefficient_ = *c;
    }
    ready_ = true;
    return Status::OK();
  }

  Status Compute(const SampleBatch& batch, std::span<int64_t> values) const override {
    if (!ready_)
      return Status::Internal("metric \"" + name_ + "\": computed before its dependencies");
    DSA_RETURN_IF_ERROR(CheckOutputSize(name_, values.size(), batch.size()));
    const uint64_t* offsets = batch.offsets.data();
    return VisitIntDType(batch.dtype, [&](auto zero) -> Status {
      using T = decltype(zero);
      const T* elements = reinterpret_cast<const T*>(batch.elements);
      for (size_t i = 0; i < batch.size(); ++i) {
        ExactSum sum;
        uint64_t ignored = 0;
        for (uint64_t b = offsets[i]; b < offsets[i + 1]; b += kPieceTokens) {
          const uint64_t n = std::min(kPieceTokens, offsets[i + 1] - b);
          DSA_RETURN_IF_ERROR(SumPiece(elements + b, n, batch.first + i, &sum, &ignored));
        }
        const double rarity = sum.ToDouble(scale_);
        if (!(rarity < 0x1p63))
          return Status::BadInput("metric \"" + name_ + "\": the rarity of sample " +
                                  std::to_string(batch.first + i) + " does not fit in int64");
        // int() in DeepSpeed: truncation (the sum is never negative).
        values[i] = static_cast<int64_t>(rarity);
        if (with_seqlen_)
          DSA_RETURN_IF_ERROR(
              AddSeqlen(batch.first + i, offsets[i + 1] - offsets[i] - ignored, &values[i]));
      }
      return Status::OK();
    });
  }

 private:
  static constexpr size_t kWords16 = size_t{1} << 16;

  // Adds the rarities of tokens[0, n) of sample `position` to *sum, and counts
  // its ignored tokens in *ignored when seqlen_vocab_rarity needs them.
  template <class T>
  Status SumPiece(const T* tokens, uint64_t n, uint64_t position, ExactSum* sum,
                  uint64_t* ignored) const {
    Units word_sums[2] = {};
    const bool count_ignored = with_seqlen_ && !ignored_.empty();
    if (count_ignored || !AddIfAllInVocab(tokens, n, word_sums)) {
      for (uint64_t k = 0; k < n; ++k) {
        const T v = tokens[k];
        if (InVocab(v, vocab_size_)) {
          AddWordColumns(&tokens[k], 1, terms_, word_sums);
          if (count_ignored) *ignored += ignored_[static_cast<size_t>(v)];
        } else if (ignore_.contains(v)) {
          ++*ignored;
        } else {
          return OutOfVocab(name_, position, v, vocab_size_);
        }
      }
    }
    sum->AddWordSums(std::span<const Units>(word_sums, terms_.count));
    return Status::OK();
  }

  // Adds the terms of tokens[0, n) to word_sums if all are vocabulary ids;
  // false, with nothing added, if not. 16-bit ids with AVX-512 are checked in
  // the pass that sums them; others by one vectorised maximum first.
  template <class T>
  bool AddIfAllInVocab(const T* tokens, uint64_t n, Units* word_sums) const {
    if constexpr (sizeof(T) == 2) {
      if (terms_.count == 1 && HaveAvx512Gathers()) {
        // A negative int16 id, as uint16, is above the limit.
        const auto limit =
            static_cast<uint32_t>(std::min<uint64_t>(vocab_size_, std::numeric_limits<T>::max()));
        const std::optional<Units> s = SumWordsAvx512UpTo(reinterpret_cast<const uint16_t*>(tokens),
                                                          n, terms_.words.data(), limit);
        if (s) word_sums[0] += *s;
        return s.has_value();
      }
    }
    if (!AllInVocab(tokens, n, vocab_size_)) return false;
    AddWordColumns(tokens, n, terms_, word_sums);
    return true;
  }

  MetricConfig Dependency(std::string metric, nlohmann::json params) const {
    MetricConfig c;
    c.name = metric + " (for " + name_ + ")";
    c.metric = std::move(metric);
    c.params = std::move(params);
    c.index = index_;
    return c;
  }

  // *value = seqlen · C + *value, checked.
  Status AddSeqlen(uint64_t position, uint64_t seqlen, int64_t* value) const {
    if (seqlen > seq_length_)
      return Status::BadInput("metric \"" + name_ + "\": sample " + std::to_string(position) +
                              " has " + std::to_string(seqlen) + " tokens, more than " +
                              "params.seq_length " + std::to_string(seq_length_));
    int64_t scaled = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(seqlen), coefficient_, &scaled) ||
        !AddChecked(value, scaled))
      return Status::BadInput("metric \"" + name_ + "\": sample " + std::to_string(position) +
                              ": seqlen " + std::to_string(seqlen) + " x coefficient " +
                              std::to_string(coefficient_) + " + rarity overflows int64");
    return Status::OK();
  }

  std::string name_;
  size_t index_;
  uint64_t vocab_size_;
  IgnoreSet ignore_;
  bool with_seqlen_;
  uint64_t seq_length_;  // 0 until known

  // Set up by SetCounts and Finish, then read-only.
  bool have_counts_ = false;
  bool ready_ = false;
  FixedPointScale scale_;
  WordTable terms_;               // per token id: -ln p exactly, in units of 2^-F (0 if ignored)
  std::vector<uint8_t> ignored_;  // per token id: 1 if ignored (empty if nothing is)
  double max_rarity_ = 0;
  int64_t coefficient_ = 0;
};

}  // namespace

std::unique_ptr<Metric> NewTotalVocabFreqMetric(std::string name, uint64_t vocab_size,
                                                std::span<const int64_t> ignore_token_ids) {
  return std::make_unique<TotalVocabFreqMetric>(std::move(name), vocab_size, ignore_token_ids);
}

Result<std::unique_ptr<Metric>> NewVocabRarityMetric(const VocabRarityOptions& options) {
  auto metric = std::make_unique<VocabRarityMetric>(options);
  if (options.counts) DSA_RETURN_IF_ERROR(metric->SetCounts(*options.counts));
  DSA_RETURN_IF_ERROR(metric->Finish());
  return std::unique_ptr<Metric>(std::move(metric));
}

}  // namespace dsanalyze
