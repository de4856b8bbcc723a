#include "output/analysis_layout.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dsanalyze {
namespace {

TEST_CASE("Percentile step follows DeepSpeed", "[layout]") {
  CHECK(PercentileStep(0) == 1);
  CHECK(PercentileStep(1) == 1);
  CHECK(PercentileStep(199) == 1);
  CHECK(PercentileStep(200) == 2);
  CHECK(PercentileStep(1834) == 18);
  CHECK(PercentileStep(5541) == 55);
}

TEST_CASE("Percentile rows are ceil(U / step), the last group possibly short", "[layout]") {
  CHECK(PercentileRows(0) == 0);
  CHECK(PercentileRows(1) == 1);
  CHECK(PercentileRows(99) == 99);
  CHECK(PercentileRows(199) == 199);
  CHECK(PercentileRows(200) == 100);
  CHECK(PercentileRows(201) == 101);   // step 2: 100 pairs and one single row
  CHECK(PercentileRows(1834) == 102);  // step 18: 101 full groups and one of 16
}

TEST_CASE("Sample ids are fitted with the iteration positions", "[layout]") {
  // Default ids are the positions 0..N-1.
  CHECK(SampleIdSpan(10, 0, 9).lo == 0);
  CHECK(SampleIdSpan(10, 0, 9).hi == 9);
  CHECK(SampleIdDType(256, 0, 255) == DType::kU8);
  CHECK(SampleIdDType(257, 0, 256) == DType::kU16);
  // Explicit ids: the span also covers 0 and N-1.
  CHECK(SampleIdSpan(10, 5, 3000).lo == 0);
  CHECK(SampleIdSpan(10, 5, 3000).hi == 3000);
  CHECK(SampleIdSpan(1000, 5, 7).hi == 999);
  CHECK(SampleIdSpan(10, -4, 3).lo == -4);
  CHECK(SampleIdDType(10, -4, 3) == FitIntDType(-4, 9));
  CHECK(SampleIdDType(10, 0, std::numeric_limits<int64_t>::max()) == DType::kU64);
}

TEST_CASE("Metric files and reports are named by the layout", "[layout]") {
  CHECK(MetricFilePrefix("/s", "seqlen", kIndexToSample) == "/s/seqlen/seqlen_index_to_sample");
  CHECK(HistogramFile("/s", "seqlen") == "/s/seqlen/seqlen_histogram.svg");
  CHECK(IsHiddenName(".dsanalyze-staging-x"));
  CHECK_FALSE(IsHiddenName("seqlen"));
}

TEST_CASE("Every metric type has its entry in the type table", "[layout]") {
  REQUIRE(kMetricTypes.size() == kMetricTypeCount);
  std::set<std::string_view> all_kinds;
  for (size_t i = 0; i < kMetricTypeCount; ++i) {
    const MetricType type = static_cast<MetricType>(i);
    const MetricTypeTraits& t = TraitsOf(type);
    CHECK(t.type == type);
    CHECK(MetricTypeNamed(MetricTypeName(type)) == type);
    CHECK_FALSE(t.kinds.empty());
    // Its statistics come from its own files; no kind belongs to two types.
    for (std::string_view kind : t.statistics_kinds)
      CHECK(std::find(t.kinds.begin(), t.kinds.end(), kind) != t.kinds.end());
    for (std::string_view kind : t.kinds) CHECK(all_kinds.insert(kind).second);
  }
  CHECK_FALSE(MetricTypeNamed("single_value"));
}

TEST_CASE("The type table says what each type writes and whether it is per sample", "[layout]") {
  const MetricTypeTraits& single = TraitsOf(MetricType::kSingleValuePerSample);
  CHECK(single.per_sample);
  CHECK(std::equal(single.kinds.begin(), single.kinds.end(), kSingleValueKinds.begin(),
                   kSingleValueKinds.end()));
  CHECK(std::equal(single.statistics_kinds.begin(), single.statistics_kinds.end(),
                   kDistributionKinds.begin(), kDistributionKinds.end()));
  const MetricTypeTraits& accumulate = TraitsOf(MetricType::kAccumulateValueOverSamples);
  CHECK_FALSE(accumulate.per_sample);
  REQUIRE(accumulate.kinds.size() == 1);
  CHECK(accumulate.kinds[0] == kMetricValue);

  const std::vector<std::string> no_index = {"sample_to_metric", "metric_value", "reports"};
  CHECK(WritesAnyKindOf(no_index, MetricType::kSingleValuePerSample));
  CHECK_FALSE(WritesStatisticsOf(no_index, MetricType::kSingleValuePerSample));
  CHECK(WritesStatisticsOf(no_index, MetricType::kAccumulateValueOverSamples));
  const std::vector<std::string> reports_only = {"reports"};
  CHECK_FALSE(WritesAnyKindOf(reports_only, MetricType::kAccumulateValueOverSamples));
  CHECK(WritesStatisticsOf(AllOutputFiles(), MetricType::kSingleValuePerSample));
}

}  // namespace
}  // namespace dsanalyze
