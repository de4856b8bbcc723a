// The human- and tool-facing files written next to a finished analysis.
//
// The pipeline calls WriteReports on rank 0 after every metric file is in the
// output directory D (before D is moved into place). It reads the metric files
// back — index_to_metric values and index_to_sample row sizes, and for
// "spearman" each sample_to_metric in chunks, so memory is O(distinct values),
// never O(N) — and writes, each atomically:
//  - D/summary.json: per metric its type, dtypes, samples, distinct values,
//    min, max, exact mean and sum, the nearest-rank percentiles 0, 5, ..., 100
//    (see metric_stats.h), std, IQR, skew and the 5 lowest and highest
//    samples (ReadExtremes: the ends of index_to_sample only), each with its
//    first tokens when RunInfo::sample_tokens is set; for accumulate
//    metrics length, sum, min and max; "spearman" between the single-value
//    metrics (rank_correlation.h: from RunInfo::rank_sums, else their
//    sample_to_metric streamed, O(distinct values) held);
//    plus the run's stage timings (all but report_commit, which is still
//    running), ranks, threads, peak RSS and peak anonymous memory per rank,
//    tool version, config hash and config;
//    a score metric's entry adds a "score" block in score units (score_summary.h);
//    a metric of a part that cannot be merged adds "mergeable": false and why;
//  - D/M/M_histogram.svg for each single-value metric (histogram_svg.h);
//  - D/curriculum_config.json: the DeepSpeed data_efficiency block for the
//    single-value metrics that have samples and all their index files, with paths under
//    RunInfo::save_path (curriculum_config.h); not written when there is none.
//  - D/report.html: all of it as one page (run_page.h), with the proposed
//    curriculum's chart and the warnings the run gives.
// Only the chosen files (RunInfo::files) are read: a metric whose files the
// choice leaves out gets its type and a "statistics" note naming the outputs
// left out instead of numbers, and no histogram. The files are read with the
// code table RunInfo::config records (output/analysis_files.h).
// Errors: BadInput naming the file when a metric file is missing or invalid,
// IoError when a report cannot be written.
// Not thread-safe with respect to other writers of D.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "metrics/metric.h"
#include "report/metric_stats.h"      // ComponentsOfIds
#include "report/rank_correlation.h"  // RankSums
#include "util/stage_clock.h"         // StageTime
#include "util/status.h"

namespace dsanalyze {

// The start of one sample's tokens, for the extremes' preview.
struct TokenPreview {
  std::vector<int64_t> first;  // its first token ids (at most kPreviewTokens)
  uint64_t tokens = 0;         // how many it has
};
// Token ids previewed per extreme sample.
inline constexpr size_t kPreviewTokens = 8;

struct RunInfo {
  std::string tool_version;
  int ranks = 1;
  unsigned threads = 1;
  std::string config_hash;
  nlohmann::json config;
  std::vector<StageTime> timings;
  std::vector<int64_t> peak_rss_bytes;   // one per rank
  std::vector<int64_t> peak_anon_bytes;  // one per rank (util/memory_usage.h)
  // The final save path, for the paths in curriculum_config.json; made
  // absolute so the config works from any directory. Empty: D is used.
  std::string save_path;
  uint64_t total_curriculum_step = 0;  // 0: a placeholder (curriculum_config.h)
  std::string curriculum_metric;       // output.curriculum_metric (curriculum_config.h)
  // A merged analysis's inputs (merge/merge.h), written as "merged_from"
  // after "timings"; empty for a run, which writes no such key.
  std::vector<std::string> merged_from;
  // The chosen outputs (config output.files); summary.json lists them when
  // they are not all (output/analysis_layout.h).
  std::vector<std::string> files = AllOutputFiles();
  // The run's memory plan (pipeline/memory_plan.h), written as "memory";
  // null (no key) for a run without a memory limit.
  nlohmann::json memory;
  // What the config does not say about the dataset (Dataset::DescribeJson:
  // a blend's components and draws), written as "dataset"; null: no key.
  nlohmann::json dataset;
  // A blend's components (Dataset::ComponentPrefixes) and the component of
  // sample id s: each single-value metric's summary.json entry then gets
  // "per_component" statistics, and the page a chart of them. Empty: none.
  std::vector<std::string> component_prefixes;
  ComponentsOfIds components_of;
  // Warnings the run gave before the analysis (message, fix), such as more
  // ranks than cores on rank 0's node: report.html's summary box lists them
  // with the rest.
  std::vector<std::array<std::string, 2>> warnings;
  // The first tokens of the sample with id s, for the extremes' preview
  // (summary.json "first_tokens" and "tokens"); read for the 10 extreme
  // samples of each metric only. Unset (no preview): a dataset without
  // tokens, or sample ids that are not positions.
  std::function<Result<TokenPreview>(uint64_t)> sample_tokens;
  // The run's rank product sums of its single-value metrics
  // (pipeline/rank_sums.h), from which "spearman" is computed; without them
  // it streams their sample_to_metric files (rank_correlation.h).
  std::optional<RankSums> rank_sums;
};

// The RunInfo fields an analysis takes from its config (a run's, or the
// merged config of merge/merge_inputs.h): version, config, save path and
// curriculum settings; the caller adds how it ran.
RunInfo ConfigRunInfo(const Config& config);

struct MetricEntry {
  std::string name;
  MetricType type;
  // A score metric's: what its integers stand for, and with bins each bin's
  // ordered-score range (score_summary.h). summary.json then gets a "score"
  // block and the histogram a score axis.
  std::optional<ScoreMeaning> score = std::nullopt;
  std::vector<std::array<int64_t, 2>> bin_ranges = {};
  // Set for a part's metric that `dsanalyze merge` refuses (metrics/registry.h
  // NotMergeableBecause): summary.json's entry then has "mergeable": false and
  // this reason as "not_mergeable".
  std::optional<std::string> not_mergeable = std::nullopt;
  // Its samples whose score was NaN, over all ranks (Metric::nan_scores).
  uint64_t nan_scores = 0;
  // How a run wrote its index files (pipeline/index_path.h IndexPathName),
  // written as "index_path"; empty (no key) when it wrote none, or merged.
  std::string index_path = {};
};

// The warning a run of a part gives for a metric `dsanalyze merge` refuses
// (MetricEntry::not_mergeable `why`), in its log and on its report page.
std::string NotMergeableWarning(const std::string& metric, const std::string& why);

// Writes curriculum_config.json (when a metric has a curriculum), report.html
// and, last, summary.json in `dir` (output/analysis_layout.h), each atomically.
Status WriteReports(const std::string& dir, const std::vector<MetricEntry>& metrics,
                    const RunInfo& info);

}  // namespace dsanalyze
