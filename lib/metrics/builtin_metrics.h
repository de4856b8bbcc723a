// The built-in metrics, constructed by the registry (registry.h) once the
// config entry has been validated. Each keeps the entry's output name for its
// error messages. All are immutable after construction and thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/metric.h"

namespace dsanalyze {

// value: single_value_per_sample, the sample's single integer.
std::unique_ptr<Metric> NewValueMetric(std::string name);
// sum: accumulate_value_over_samples of length 1, the int64 sum of the samples'
// single integers; overflow is an error.
std::unique_ptr<Metric> NewSumMetric(std::string name);
// seqlen: single_value_per_sample, the number of elements of the sample that
// are not in `ignore_token_ids` (sorted, unique).
std::unique_ptr<Metric> NewSeqlenMetric(std::string name,
                                        std::span<const int64_t> ignore_token_ids);

// total_vocab_freq: accumulate_value_over_samples of length vocab_size + 1,
// the number of times each token id occurs. Ignored ids are not counted; any
// other id outside 0..vocab_size is a BadInput error naming the sample.
std::unique_ptr<Metric> NewTotalVocabFreqMetric(std::string name, uint64_t vocab_size,
                                                std::span<const int64_t> ignore_token_ids);

struct VocabRarityOptions {
  std::string name;
  size_t config_index = 0;  // metrics[i], for the dependencies' messages
  uint64_t vocab_size = 0;
  std::span<const int64_t> ignore_token_ids;  // left out of sums and seqlen
  // seqlen_vocab_rarity: seqlen · C + vocab_rarity (rarity.h, SeqlenCoefficient).
  bool with_seqlen = false;
  // seqlen_vocab_rarity's seq_length; 0: the longest sample's seqlen, found by
  // a dependency pass.
  uint64_t seq_length = 0;
  // The corpus token counts (vocab_size + 1), e.g. read from a previous run's
  // total_vocab_freq; without them they are a dependency (total_vocab_freq).
  std::optional<std::vector<int64_t>> counts;
};
// vocab_rarity / seqlen_vocab_rarity: single_value_per_sample,
// int64(Σ_t -ln p_t) over the sample's tokens, summed exactly (rarity.h).
// Errors only if the given counts are invalid.
Result<std::unique_ptr<Metric>> NewVocabRarityMetric(const VocabRarityOptions& options);

// The token-quality metrics (token_quality.cc): single_value_per_sample, each
// over the sample's tokens with `ignore_token_ids` (sorted, unique) removed,
// times `scale` (>= 1) and rounded to the nearest integer, ties to even.
//
// unique_token_ratio: distinct tokens / tokens, in exact integer arithmetic;
// 0 for a sample without tokens.
std::unique_ptr<Metric> NewUniqueTokenRatioMetric(std::string name,
                                                  std::span<const int64_t> ignore_token_ids,
                                                  uint64_t scale);
// token_entropy: the Shannon entropy in bits of the sample's token
// distribution, H = -Σ p·log2(p) with p = count / tokens; 0 for a sample
// without tokens. A double computation in a fixed order (by ascending count),
// rounded with std::nearbyint; scale must be at most kMaxEntropyScale.
std::unique_ptr<Metric> NewTokenEntropyMetric(std::string name,
                                              std::span<const int64_t> ignore_token_ids,
                                              uint64_t scale);
// H < 64 bits (a sample has fewer than 2^64 tokens), so H · scale < 2^63.
inline constexpr uint64_t kMaxEntropyScale = uint64_t{1} << 57;
// repeated_ngram_ratio: Σ count over the n-grams (n >= 1) that occur more than
// once in the sample / the number of n-grams (tokens - n + 1), in exact integer
// arithmetic; 0 for a sample of fewer than n tokens. The n-grams are windows
// of the tokens left after removing the ignored ids.
std::unique_ptr<Metric> NewRepeatedNgramRatioMetric(std::string name,
                                                    std::span<const int64_t> ignore_token_ids,
                                                    uint64_t n, uint64_t scale);

class JsonFields;
// score: single_value_per_sample, a per-document or per-sample score read from
// a .npy or .jsonl file, validated from the entry's params (docs/config.md).
// The metric reads document pieces from `dataset`, which must outlive it.
Result<std::unique_ptr<Metric>> MakeScoreMetric(const MetricConfig& config,
                                                const JsonFields& params, const Dataset& dataset);
// The score entry's params.scale or params.bins, params.descending and params.nan.
Status ParseScoreMeaning(const JsonFields& params, ScoreMeaning* meaning);

// Writes each sample's single integer to out[i] (out.size() == batch.size()),
// dispatching on the dtype once. A sample without exactly one element, or a
// uint64 value past INT64_MAX, is a BadInput error naming `metric_name` and
// the sample's position.
Status ExtractSingleValues(const SampleBatch& batch, std::string_view metric_name,
                           std::span<int64_t> out);

}  // namespace dsanalyze
