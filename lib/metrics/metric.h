// The Metric interface: what the map stage computes for a batch of samples.
//
// A metric is either single_value_per_sample (one int64 per sample, sorted and
// indexed by the pipeline) or accumulate_value_over_samples (one int64 vector
// summed element-wise over all samples). Metrics are created once per run from
// their config `params` and then called concurrently from all map threads:
// Compute and Accumulate must be thread-safe (they are const; per-call state
// lives on the stack or in the output spans).
//
// A metric may need other metrics' results over the whole dataset before it
// can compute anything (vocab_rarity needs total_vocab_freq). It names them in
// dependencies(); the pipeline runs them first, on all ranks, and hands their
// global results to SetDependencyResults (pipeline/dependencies.h). That call
// happens once, from one thread, before the first Compute or Accumulate.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "dataset/dataset.h"
#include "util/status.h"

namespace dsanalyze {

// What a metric type means to the rest of the tool (its files, whether its
// values are per sample) is output/analysis_layout.h's kMetricTypes table, one
// entry per type. A new type goes last and raises kMetricTypeCount.
enum class MetricType { kSingleValuePerSample, kAccumulateValueOverSamples };
inline constexpr size_t kMetricTypeCount = 2;
static_assert(static_cast<size_t>(MetricType::kAccumulateValueOverSamples) + 1 == kMetricTypeCount);

// The order of an analysis's metrics wherever it has one (mapped, written,
// listed in summary.json, reported, merged): single-value metrics first, then
// accumulate metrics, each in config order. `type_of(item)` gives an item's type.
template <class Item, class TypeOf>
void PutInAnalysisOrder(std::vector<Item>& items, TypeOf type_of) {
  std::stable_partition(items.begin(), items.end(), [&](const Item& item) {
    return type_of(item) == MetricType::kSingleValuePerSample;
  });
}

// Equal-count bins (the score metric's "bins"): the single-value job replaces
// Compute's values, which then only give an order, by bin numbers before it
// writes anything (pipeline/rank_bins.h). Samples are ranked by (value, id);
// the sample of global rank r among N ranked samples gets bin floor(r·B / N).
// A sample whose value is kUnranked takes no part and gets unranked_value.
struct RankBins {
  static constexpr int64_t kUnranked = INT64_MAX;
  uint64_t bins = 0;
  int64_t unranked_value = 0;
};

// What a metric's integers stand for, when they come from float scores (the
// score metric), so reports can show scores: with scale > 0 a value is
// round(s · scale), with bins > 0 a bin of equal count; s is the score, or
// minus the score when descending. A NaN score gives nan_value when the
// config sets one (with bins, NaN samples are in no bin), else it is an error.
struct ScoreMeaning {
  double scale = 0;
  uint64_t bins = 0;
  bool descending = false;
  std::optional<int64_t> nan_value = std::nullopt;
};

std::string_view MetricTypeName(MetricType t);  // DeepSpeed's spelling

class Metric {
 public:
  virtual ~Metric() = default;
  virtual MetricType type() const = 0;
  // Length of the accumulated vector (accumulate metrics only).
  virtual size_t accumulate_length() const { return 0; }
  // False when the metric needs only sample lengths (lets readers skip element data).
  virtual bool needs_elements() const { return true; }
  // Single-value metrics whose values are to be binned by rank (RankBins).
  virtual std::optional<RankBins> rank_bins() const { return std::nullopt; }
  // Metrics whose values come from float scores (ScoreMeaning).
  virtual std::optional<ScoreMeaning> score_meaning() const { return std::nullopt; }
  // Those metrics' count of samples, on this rank, whose score was NaN (and so
  // took ScoreMeaning::nan_value), over every Compute call so far.
  virtual uint64_t nan_scores() const { return 0; }

  // The metrics whose results over the whole dataset this one needs, as
  // config entries for CreateMetric (their `name` is only used in messages).
  // Entries equal in plugin, metric and params are computed once per run.
  virtual std::vector<MetricConfig> dependencies() const { return {}; }
  // results[i] belongs to dependencies()[i]: for an accumulate metric, its
  // element-wise sum over all samples; for a single-value metric, {smallest,
  // largest} value over all samples. Errors are the metric's to explain.
  virtual Status SetDependencyResults(std::span<const std::vector<int64_t>> results);

  // single_value_per_sample: writes one value per sample of `batch` into
  // `values` (values.size() == batch.size()).
  virtual Status Compute(const SampleBatch& batch, std::span<int64_t> values) const;
  // Single-value metrics that are faster computed together, sharing one pass
  // over each sample (the token-quality metrics count a sample's tokens once
  // for all of them): the map computes the metrics of one pass whose
  // shared_pass() is the same non-empty string by one ComputeTogether call of
  // the first of them per batch, in place of a Compute call each.
  virtual std::string_view shared_pass() const { return {}; }
  // Writes values[j] (values[j].size() == batch.size()) for metrics[j], each
  // with this metric's shared_pass(), exactly as their Compute would.
  virtual Status ComputeTogether(const SampleBatch& batch, std::span<const Metric* const> metrics,
                                 std::span<const std::span<int64_t>> values) const;
  // accumulate_value_over_samples: adds the batch's contribution to `acc`
  // (acc.size() == accumulate_length()); reports int64 overflow as an error.
  virtual Status Accumulate(const SampleBatch& batch, std::span<int64_t> acc) const;
};

}  // namespace dsanalyze
