#include "report/report.h"

#include <filesystem>
#include <limits>
#include <string_view>

#include "curriculum/proposal_chart.h"
#include "output/analysis_files.h"
#include "output/analysis_layout.h"
#include "page/histogram_svg.h"
#include "report/curriculum_config.h"
#include "report/metric_stats.h"
#include "report/rank_correlation.h"
#include "report/run_page.h"
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

// The statistics follow "type" in the entry `j`.
// samples, distinct values, min, max, sum, mean and percentiles of `d`.
void AddDistributionSummary(const CountedValues& d, Json& j) {
  j["samples"] = d.samples;
  j["distinct_values"] = d.values.size();
  if (d.samples == 0) return;
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
  const Spread spread = SpreadOf(d);
  j["std"] = spread.std;
  j["iqr"] = spread.iqr;
  j["skew"] = spread.skew;
}

// {"lowest": [{"sample", "value"}, ...], "highest": [...]} (metric_stats.h
// ReadExtremes), each sample with "first_tokens" and "tokens" when the run
// can read them (RunInfo::sample_tokens).
Result<Json> ExtremesJson(const Extremes& e, const RunInfo& info) {
  Json j;
  for (const auto& [key, list] :
       {std::pair{"lowest", &e.lowest}, std::pair{"highest", &e.highest}}) {
    Json& out = j[key] = Json::array();
    for (const Extreme& x : *list) {
      Json sample = {{"sample", x.sample}, {"value", x.value}};
      if (info.sample_tokens) {
        DSA_ASSIGN_OR_RETURN(const TokenPreview preview, info.sample_tokens(x.sample));
        sample["first_tokens"] = preview.first;
        sample["tokens"] = preview.tokens;
      }
      out.push_back(std::move(sample));
    }
  }
  return j;
}

void AddSingleValueSummary(const ValueDistribution& d, Json& j) {
  j["metric_dtype"] = std::string(DTypeName(d.metric_dtype));
  j["sample_dtype"] = std::string(DTypeName(d.sample_dtype));
  AddDistributionSummary(d, j);
}

// "per_component": a blend's statistics of each component, in its order.
Status AddPerComponent(const std::string& dir, const std::string& metric, const RunInfo& info,
                       Json& j) {
  DSA_ASSIGN_OR_RETURN(
      const std::vector<CountedValues> parts,
      ReadComponentDistributions(dir, metric, TableOf(info), info.component_prefixes.size(),
                                 info.components_of));
  Json list = Json::array();
  for (size_t k = 0; k < parts.size(); ++k) {
    Json c = {{"prefix", info.component_prefixes[k]}};
    AddDistributionSummary(parts[k], c);
    list.push_back(std::move(c));
  }
  j["per_component"] = std::move(list);
  return Status::OK();
}

void AddAccumulateSummary(const AccumulateStats& s, Json& j) {
  j["dtype"] = std::string(DTypeName(s.dtype));
  j["length"] = s.length;
  j["sum"] = Int128Json(s.sum);
  j["min"] = Int128Json(s.min);
  j["max"] = Int128Json(s.max);
}

// summary.json's fields about the run itself: tool, version, config hash, ranks,
// threads, peak memory and stage timings.
Json SummaryRunFields(const RunInfo& info) {
  Json timings = Json::array();
  for (const StageTime& t : info.timings)
    timings.push_back({{"stage", t.stage}, {"rank0_seconds", t.rank0}, {"max_seconds", t.slowest}});
  Json j;
  j[std::string(kSummaryToolKey)] = std::string(kSummaryTool);
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
  const std::vector<std::string_view> left_out =
      LeftOutKinds(files, TraitsOf(type).statistics_kinds);
  std::string names;
  for (std::string_view k : left_out) names += (names.empty() ? "" : ", ") + std::string(k);
  return "no statistics: output.files left out " + names + ", which they are read from";
}

// The final save path, absolute and normalized: the paths of
// curriculum_config.json are under it.
Result<std::string> AbsoluteSavePath(const std::string& dir, const RunInfo& info) {
  std::error_code ec;
  const std::filesystem::path save_path =
      std::filesystem::absolute(info.save_path.empty() ? dir : info.save_path, ec)
          .lexically_normal();
  if (ec)
    return Status::IoError(info.save_path + ": cannot make the path absolute: " + ec.message());
  return save_path.string();
}

// D/curriculum_config.json, with paths under the final save path, and its
// replayed chart for the page (or, when the replay fails, why there is none).
Status WriteCurriculumConfig(const std::string& dir,
                             const std::vector<CurriculumMetric>& curriculum, const RunInfo& info,
                             uint64_t samples, RunPage* page) {
  DSA_ASSIGN_OR_RETURN(const std::string save_path, AbsoluteSavePath(dir, info));
  page->curriculum_config =
      CurriculumConfig(save_path, curriculum, info.total_curriculum_step, info.curriculum_metric);
  DSA_RETURN_IF_ERROR(WriteFileAtomic((std::filesystem::path(dir) / kCurriculumConfigFile).string(),
                                      page->curriculum_config.dump(2) + "\n"));
  // The chart is for people: a replay that fails leaves the page without it,
  // never the run without its analysis.
  Result<ProposalChart> chart = ReplayProposal(dir, save_path, samples, TableOf(info));
  if (!chart.ok()) {
    page->curriculum_note = "No chart: the replay failed: " + chart.status().message();
    return Status::OK();
  }
  page->curriculum_svg = std::move(chart->svg);
  page->curriculum_note = std::move(chart->note);
  page->curriculum_findings = std::move(chart->findings);
  return Status::OK();
}

// The `metric` key (the kind) of the config's metric `name`.
std::string MetricKind(const nlohmann::json& config, const std::string& name) {
  if (config.contains("metrics"))
    for (const nlohmann::json& m : config["metrics"])
      if (m.value("name", "") == name) return m.value("metric", "");
  return "";
}

// A total_vocab_freq metric's counts by token id, for the page's Zipf chart.
Status ReadVocabCounts(const std::string& dir, const std::string& metric, const RunInfo& info,
                       RunPage* page) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset file,
                       OpenMetricFile(MetricFilePrefix(dir, metric, kMetricValue), TableOf(info)));
  if (file.num_rows() != 1) return Status::OK();  // ReadAccumulateStats said so already
  std::vector<int64_t>& counts = page->vocab_counts[metric];
  counts.resize(file.row(0).count);
  WidenElements(file.row(0), 0, counts);
  return Status::OK();
}

// The warnings the run gives about its analysis, as the page lists them.
std::vector<html::Finding> RunWarnings(const std::vector<MetricEntry>& metrics, const RunInfo& info,
                                       bool wrote_curriculum) {
  std::vector<html::Finding> out;
  for (const auto& [message, fix] : info.warnings) out.push_back({"warning", message, fix});
  for (const MetricEntry& m : metrics)
    if (m.not_mergeable)
      out.push_back({"warning", NotMergeableWarning(m.name, *m.not_mergeable), ""});
  if (wrote_curriculum && info.total_curriculum_step == 0)
    out.push_back({"warning", PlaceholderStepWarning(), PlaceholderStepFix()});
  return out;
}

// A single-value metric's statistics and histogram, and its curriculum entry
// when its files are all chosen.
Status ReportSingleValue(const std::string& dir, const MetricEntry& m, const RunInfo& info,
                         Json* entry, std::vector<CurriculumMetric>* curriculum, RunPage* page) {
  DSA_ASSIGN_OR_RETURN(ValueDistribution d, ReadValueDistribution(dir, m.name, TableOf(info)));
  AddSingleValueSummary(d, *entry);
  if (!info.component_prefixes.empty())
    DSA_RETURN_IF_ERROR(AddPerComponent(dir, m.name, info, *entry));
  if (d.samples > 0) {
    DSA_ASSIGN_OR_RETURN(const Extremes extremes,
                         ReadExtremes(dir, m.name, d, TableOf(info), kExtremeSamples));
    DSA_ASSIGN_OR_RETURN((*entry)["extremes"], ExtremesJson(extremes, info));
  }
  if (m.score && d.samples > 0)
    (*entry)["score"] = ScoreSummary(d, *m.score, m.bin_ranges, m.nan_scores);
  const ValueAxis axis = m.score ? ScoreAxis(m.name, *m.score, m.bin_ranges) : IntegerAxis(m.name);
  std::string& histogram = page->histograms[m.name];
  histogram = HistogramSvg(m.name, d, axis);
  DSA_RETURN_IF_ERROR(WriteFileAtomic(HistogramFile(dir, m.name), histogram));
  if (d.samples > 0 && WritesCurriculumEntry(info.files))
    curriculum->push_back({m.name, d.values.front(), d.values.back()});
  if (d.samples > 0 && WritesKind(info.files, kSampleToMetric))
    page->distributions.emplace(m.name, std::move(d));
  return Status::OK();
}

// One metric's summary entry, and what it adds to the curriculum and the page.
// Without a file its statistics are read from (output.files) it has none: the
// entry says so.
Status ReportMetric(const std::string& dir, const MetricEntry& m, const RunInfo& info, Json* entry,
                    std::vector<CurriculumMetric>* curriculum, RunPage* page) {
  (*entry)["type"] = std::string(MetricTypeName(m.type));
  if (!WritesStatisticsOf(info.files, m.type)) {
    (*entry)["statistics"] = NoStatisticsNote(info.files, m.type);
  } else if (TraitsOf(m.type).per_sample) {
    DSA_RETURN_IF_ERROR(ReportSingleValue(dir, m, info, entry, curriculum, page));
  } else {
    DSA_ASSIGN_OR_RETURN(AccumulateStats s, ReadAccumulateStats(dir, m.name, TableOf(info)));
    AddAccumulateSummary(s, *entry);
    if (MetricKind(info.config, m.name) == "total_vocab_freq")
      DSA_RETURN_IF_ERROR(ReadVocabCounts(dir, m.name, info, page));
  }
  if (m.not_mergeable) {
    (*entry)["mergeable"] = false;
    (*entry)["not_mergeable"] = *m.not_mergeable;
  }
  if (!m.index_path.empty()) (*entry)["index_path"] = m.index_path;
  return Status::OK();
}

// summary.json's "spearman" (rank_correlation.h): every pair of the
// single-value metrics with samples and a sample_to_metric file, both ways;
// null for a constant metric's. No key for fewer than two such metrics.
Status AddSpearman(const std::string& dir, const RunInfo& info, const RunPage& page,
                   Json* summary) {
  if (page.distributions.size() < 2) return Status::OK();
  std::vector<RankedMetric> ranked;
  for (const auto& [name, m] : (*summary)["metrics"].items())
    if (const auto d = page.distributions.find(name); d != page.distributions.end())
      ranked.push_back({name, &d->second});
  DSA_ASSIGN_OR_RETURN(const auto rho, SpearmanMatrix(dir, ranked, TableOf(info),
                                                      info.rank_sums ? &*info.rank_sums : nullptr));
  Json& out = (*summary)["spearman"] = Json::object();
  for (size_t a = 0; a < ranked.size(); ++a)
    for (size_t b = 0; b < ranked.size(); ++b)
      if (a != b) out[ranked[a].name][ranked[b].name] = rho[a][b] ? Json(*rho[a][b]) : Json();
  return Status::OK();
}

// N: the first single-value metric's samples.
uint64_t SamplesOf(const Json& per_metric) {
  for (const auto& [name, entry] : per_metric.items())
    if (entry.contains("samples")) return entry["samples"].get<uint64_t>();
  return 0;
}

}  // namespace

RunInfo ConfigRunInfo(const Config& config) {
  RunInfo info;
  info.tool_version = DSANALYZE_VERSION;
  info.config = ConfigToJson(config);
  info.save_path = config.output.path;
  info.total_curriculum_step = config.output.total_curriculum_step;
  info.curriculum_metric = config.output.curriculum_metric;
  return info;
}

std::string NotMergeableWarning(const std::string& metric, const std::string& why) {
  return "metric " + metric +
         ": this part's values cannot be merged with other parts' (dsanalyze merge refuses "
         "it): " +
         why;
}

Status WriteReports(const std::string& dir, const std::vector<MetricEntry>& metrics,
                    const RunInfo& info) {
  Json summary = SummaryRunFields(info);
  summary["percentile_method"] = kPercentileMethod;
  if (info.files != AllOutputFiles()) summary[kSummaryFilesKey] = info.files;
  if (!info.memory.is_null()) summary["memory"] = Json::parse(info.memory.dump());
  if (!info.dataset.is_null()) summary["dataset"] = Json::parse(info.dataset.dump());
  Json per_metric = Json::object();
  std::vector<CurriculumMetric> curriculum;
  RunPage page;
  for (const MetricEntry& m : metrics)
    DSA_RETURN_IF_ERROR(ReportMetric(dir, m, info, &per_metric[m.name], &curriculum, &page));
  summary["metrics"] = std::move(per_metric);
  DSA_RETURN_IF_ERROR(AddSpearman(dir, info, page, &summary));
  // nlohmann::json and ordered_json do not convert into each other directly.
  summary["config"] = Json::parse(info.config.dump());
  page.curriculum_note =
      "No curriculum_config.json: no single-value metric has samples and all "
      "its index files.";
  if (!curriculum.empty()) {
    DSA_RETURN_IF_ERROR(
        WriteCurriculumConfig(dir, curriculum, info, SamplesOf(summary["metrics"]), &page));
  }
  page.warnings = RunWarnings(metrics, info, !curriculum.empty());
  page.save_path = info.save_path.empty() ? dir : info.save_path;
  const std::string summary_text = summary.dump(2) + "\n";
  page.summary = std::move(summary);
  DSA_RETURN_IF_ERROR(
      WriteFileAtomic((std::filesystem::path(dir) / kReportHtmlFile).string(), RunPageHtml(page)));
  return WriteFileAtomic((std::filesystem::path(dir) / kSummaryFile).string(), summary_text);
}

}  // namespace dsanalyze
