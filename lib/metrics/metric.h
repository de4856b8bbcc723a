// The Metric interface: what the map stage computes for a batch of samples.
//
// A metric is either single_value_per_sample (one int64 per sample, sorted and
// indexed by the pipeline) or accumulate_value_over_samples (one int64 vector
// summed element-wise over all samples). Metrics are created once per run from
// their config `params` and then called concurrently from all map threads:
// Compute and Accumulate must be thread-safe (they are const; per-call state
// lives on the stack or in the output spans).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "dataset/dataset.h"
#include "util/status.h"

namespace dsanalyze {

enum class MetricType { kSingleValuePerSample, kAccumulateValueOverSamples };

std::string_view MetricTypeName(MetricType t);  // DeepSpeed's spelling

class Metric {
 public:
  virtual ~Metric() = default;
  virtual MetricType type() const = 0;
  // Length of the accumulated vector (accumulate metrics only).
  virtual size_t accumulate_length() const { return 0; }
  // False when the metric needs only sample lengths (lets readers skip element data).
  virtual bool needs_elements() const { return true; }

  // single_value_per_sample: writes one value per sample of `batch` into
  // `values` (values.size() == batch.size()).
  virtual Status Compute(const SampleBatch& batch, std::span<int64_t> values) const;
  // accumulate_value_over_samples: adds the batch's contribution to `acc`
  // (acc.size() == accumulate_length()); reports int64 overflow as an error.
  virtual Status Accumulate(const SampleBatch& batch, std::span<int64_t> acc) const;
};

}  // namespace dsanalyze
