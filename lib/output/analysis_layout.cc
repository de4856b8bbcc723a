#include "output/analysis_layout.h"

#include <algorithm>
#include <filesystem>

namespace dsanalyze {

std::string MetricFilePrefix(const std::string& save_path, const std::string& metric,
                             std::string_view kind) {
  return (std::filesystem::path(save_path) / metric / (metric + "_" + std::string(kind))).string();
}

std::string_view OutputChoiceOf(std::string_view kind) {
  return kind == kIndexToSamplePercentile ? "percentile_merged" : kind;
}

bool WritesKind(const std::vector<std::string>& files, std::string_view kind) {
  return std::find(files.begin(), files.end(), OutputChoiceOf(kind)) != files.end();
}

namespace {

// True when every one of `kinds` is chosen.
bool WritesAllKinds(const std::vector<std::string>& files,
                    std::span<const std::string_view> kinds) {
  return std::all_of(kinds.begin(), kinds.end(),
                     [&](std::string_view kind) { return WritesKind(files, kind); });
}

}  // namespace

bool WritesAnyKindOf(const std::vector<std::string>& files, MetricType type) {
  const std::span<const std::string_view> kinds = TraitsOf(type).kinds;
  return std::any_of(kinds.begin(), kinds.end(),
                     [&](std::string_view kind) { return WritesKind(files, kind); });
}

bool WritesStatisticsOf(const std::vector<std::string>& files, MetricType type) {
  return WritesAllKinds(files, TraitsOf(type).statistics_kinds);
}

std::optional<MetricType> MetricTypeNamed(std::string_view name) {
  for (const MetricTypeTraits& t : kMetricTypes)
    if (MetricTypeName(t.type) == name) return t.type;
  return std::nullopt;
}

bool WritesDistribution(const std::vector<std::string>& files) {
  return WritesAllKinds(files, kDistributionKinds);
}

bool WritesCurriculumEntry(const std::vector<std::string>& files) {
  return WritesAllKinds(files, kCurriculumEntryKinds);
}

std::string HistogramFile(const std::string& save_path, const std::string& metric) {
  return MetricFilePrefix(save_path, metric, "histogram") + ".svg";
}

bool IsHiddenName(std::string_view name) { return !name.empty() && name.front() == '.'; }

IdSpan SampleIdSpan(uint64_t samples, int64_t min_id, int64_t max_id) {
  const int64_t last_position = static_cast<int64_t>(samples) - 1;
  return {std::min<int64_t>(0, min_id), std::max(last_position, max_id)};
}

DType MetricValueDType(std::span<const int64_t> row) {
  const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
  return FitIntDType(*lo, *hi);
}

}  // namespace dsanalyze
