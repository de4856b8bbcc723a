#include "report/report.h"

#include <filesystem>
#include <limits>

#include "output/analysis_files.h"
#include "output/analysis_layout.h"
#include "report/curriculum_config.h"
#include "report/histogram_svg.h"
#include "report/metric_stats.h"
#include "report/score_summary.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kPercentileMethod[] =
    "nearest rank: the p-th percentile is the value of the ceil(p/100 * N)-th smallest sample "
    "(counting from 1; the smallest for p = 0)";

// The table the metric files were written with: the one the config records,
// as every later reader of the analysis takes it (output/analysis_files.h).
CodeTable TableOf(const RunInfo& info) {
  return RecordedCodeTable(info.config).value_or(CodeTable::kDeepSpeed);
}

// 128-bit sums as JSON integers while they fit 64 bits (they almost always do).
Json Int128Json(__int128 v) {
  if (v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max())
    return static_cast<int64_t>(v);
  if (v > 0 && v <= static_cast<__int128>(std::numeric_limits<uint64_t>::max()))
    return static_cast<uint64_t>(v);
  return static_cast<double>(v);
}

Json SingleValueSummary(const ValueDistribution& d) {
  Json j;
  j["type"] = std::string(MetricTypeName(MetricType::kSingleValuePerSample));
  j["metric_dtype"] = std::string(DTypeName(d.metric_dtype));
  j["sample_dtype"] = std::string(DTypeName(d.sample_dtype));
  j["samples"] = d.samples;
  j["distinct_values"] = d.values.size();
  if (d.samples == 0) return j;
  const __int128 sum = SumOfValues(d);
  j["min"] = d.values.front();
  j["max"] = d.values.back();
  j["sum"] = Int128Json(sum);
  j["mean"] = static_cast<double>(static_cast<long double>(sum) / d.samples);
  Json percentiles = Json::object();
  for (int p = 0; p <= 100; p += kSummaryPercentileStep) {
    percentiles[PercentileKey(p)] = NearestRankPercentile(d, p);
  }
  j["percentiles"] = std::move(percentiles);
  return j;
}

Json AccumulateSummary(const AccumulateStats& s) {
  Json j;
  j["type"] = std::string(MetricTypeName(MetricType::kAccumulateValueOverSamples));
  j["dtype"] = std::string(DTypeName(s.dtype));
  j["length"] = s.length;
  j["sum"] = Int128Json(s.sum);
  j["min"] = Int128Json(s.min);
  j["max"] = Int128Json(s.max);
  return j;
}

// summary.json's fields about the run itself: tool, version, config hash, ranks,
// threads, peak memory and stage timings.
Json SummaryRunFields(const RunInfo& info) {
  Json timings = Json::array();
  for (const StageTiming& t : info.timings)
    timings.push_back(
        {{"stage", t.stage}, {"rank0_seconds", t.rank0_seconds}, {"max_seconds", t.max_seconds}});
  Json j;
  j["tool"] = "dsanalyze";
  j["tool_version"] = info.tool_version;
  j["config_hash"] = info.config_hash;
  j["ranks"] = info.ranks;
  j["threads"] = info.threads;
  j["peak_rss_bytes"] = info.peak_rss_bytes;
  j["peak_anon_bytes"] = info.peak_anon_bytes;
  j["timings"] = std::move(timings);
  if (!info.merged_from.empty()) j["merged_from"] = info.merged_from;
  return j;
}

// Why a metric of `type` has no statistics under the chosen `files`: the
// outputs they are read from that output.files left out; "not computed" only
// when it left out every file of the metric, which is then not mapped at all.
std::string NoStatisticsNote(const std::vector<std::string>& files, MetricType type) {
  if (!WritesAnyKindOf(files, type)) return "not computed: output.files left out all its files";
  const std::vector<std::string_view> left_out = type == MetricType::kSingleValuePerSample
                                                     ? LeftOutKinds(files, kDistributionKinds)
                                                     : LeftOutKinds(files, kAccumulateKinds);
  std::string names;
  for (std::string_view k : left_out) names += (names.empty() ? "" : ", ") + std::string(k);
  return "no statistics: output.files left out " + names + ", which they are read from";
}

// D/curriculum_config.json, with paths under the final save path, absolute.
Status WriteCurriculumConfig(const std::string& dir,
                             const std::vector<CurriculumMetric>& curriculum, const RunInfo& info) {
  std::error_code ec;
  const std::filesystem::path save_path =
      std::filesystem::absolute(info.save_path.empty() ? dir : info.save_path, ec)
          .lexically_normal();
  if (ec)
    return Status::IoError(info.save_path + ": cannot make the path absolute: " + ec.message());
  return WriteFileAtomic((std::filesystem::path(dir) / kCurriculumConfigFile).string(),
                         CurriculumConfig(save_path.string(), curriculum,
                                          info.total_curriculum_step, info.curriculum_metric)
                                 .dump(2) +
                             "\n");
}

// A single-value metric's summary entry and histogram, and its curriculum
// entry when its files are all chosen. Without its index_to_metric or
// index_to_sample (output.files) there is no distribution: the entry says so.
Status ReportSingleValue(const std::string& dir, const MetricEntry& m, const RunInfo& info,
                         Json* entry, std::vector<CurriculumMetric>* curriculum) {
  if (!WritesDistribution(info.files)) {
    (*entry)["type"] = std::string(MetricTypeName(MetricType::kSingleValuePerSample));
    (*entry)["statistics"] = NoStatisticsNote(info.files, MetricType::kSingleValuePerSample);
    return Status::OK();
  }
  DSA_ASSIGN_OR_RETURN(ValueDistribution d, ReadValueDistribution(dir, m.name, TableOf(info)));
  *entry = SingleValueSummary(d);
  if (m.score && d.samples > 0)
    (*entry)["score"] = ScoreSummary(d, *m.score, m.bin_ranges, m.nan_scores);
  const ValueAxis axis = m.score ? ScoreAxis(m.name, *m.score, m.bin_ranges) : IntegerAxis(m.name);
  DSA_RETURN_IF_ERROR(WriteFileAtomic(HistogramFile(dir, m.name), HistogramSvg(m.name, d, axis)));
  if (d.samples > 0 && WritesCurriculumEntry(info.files))
    curriculum->push_back({m.name, d.values.front(), d.values.back()});
  return Status::OK();
}

}  // namespace

Result<std::vector<std::string>> WriteReports(const std::string& dir,
                                              const std::vector<MetricEntry>& metrics,
                                              const RunInfo& info) {
  Json summary = SummaryRunFields(info);
  summary["percentile_method"] = kPercentileMethod;
  if (info.files != AllOutputFiles()) summary[kSummaryFilesKey] = info.files;
  if (!info.memory.is_null()) summary["memory"] = Json::parse(info.memory.dump());
  if (!info.dataset.is_null()) summary["dataset"] = Json::parse(info.dataset.dump());
  Json per_metric = Json::object();
  std::vector<CurriculumMetric> curriculum;
  for (const MetricEntry& m : metrics) {
    if (m.type == MetricType::kSingleValuePerSample) {
      DSA_RETURN_IF_ERROR(ReportSingleValue(dir, m, info, &per_metric[m.name], &curriculum));
    } else if (WritesKind(info.files, kMetricValue)) {
      DSA_ASSIGN_OR_RETURN(AccumulateStats s, ReadAccumulateStats(dir, m.name, TableOf(info)));
      per_metric[m.name] = AccumulateSummary(s);
    } else {
      per_metric[m.name] = {
          {"type", std::string(MetricTypeName(MetricType::kAccumulateValueOverSamples))},
          {"statistics", NoStatisticsNote(info.files, MetricType::kAccumulateValueOverSamples)}};
    }
    if (m.not_mergeable) {
      per_metric[m.name]["mergeable"] = false;
      per_metric[m.name]["not_mergeable"] = *m.not_mergeable;
    }
  }
  summary["metrics"] = std::move(per_metric);
  // nlohmann::json and ordered_json do not convert into each other directly.
  summary["config"] = Json::parse(info.config.dump());
  std::vector<std::string> written;
  if (!curriculum.empty()) {
    DSA_RETURN_IF_ERROR(WriteCurriculumConfig(dir, curriculum, info));
    written.emplace_back(kCurriculumConfigFile);
  }
  DSA_RETURN_IF_ERROR(WriteFileAtomic((std::filesystem::path(dir) / kSummaryFile).string(),
                                      summary.dump(2) + "\n"));
  written.emplace_back(kSummaryFile);
  return written;
}

}  // namespace dsanalyze
