// A ValueDistribution from distinct values and their counts, for report tests.
#pragma once

#include <vector>

#include "report/metric_stats.h"

namespace dsanalyze::test {

inline ValueDistribution Distribution(std::vector<int64_t> values, std::vector<uint64_t> counts) {
  ValueDistribution d;
  d.values = std::move(values);
  d.counts = std::move(counts);
  for (uint64_t c : d.counts) d.samples += c;
  return d;
}

}  // namespace dsanalyze::test
