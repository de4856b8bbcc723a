// The built-in metrics, constructed by the registry (registry.h) once the
// config entry has been validated. Each keeps the entry's output name for its
// error messages. All are immutable after construction and thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

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

// Writes each sample's single integer to out[i] (out.size() == batch.size()),
// dispatching on the dtype once. A sample without exactly one element, or a
// uint64 value past INT64_MAX, is a BadInput error naming `metric_name` and
// the sample's position.
Status ExtractSingleValues(const SampleBatch& batch, std::string_view metric_name,
                           std::span<int64_t> out);

}  // namespace dsanalyze
