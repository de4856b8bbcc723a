// SAVE/report.html: the page of one analysis (a run's or a merge's), built
// from what the report step has already made, so that no number is computed
// twice: summary.json's document (the run, every metric's statistics, its
// score block), the histograms (histogram_svg.h), each total_vocab_freq
// metric's counts, the proposed curriculum (curriculum_config.json and its
// replayed chart, curriculum/curriculum_svg.h) and the warnings the run gives.
// Sections: the run (dataset, ranks x threads, timings chart, peak memory per
// rank, memory plan, config hash, config folded), the metrics, the curriculum,
// the warnings. The writer is html.h.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "page/html.h"
#include "report/metric_stats.h"

namespace dsanalyze {

struct RunPage {
  std::string save_path;                          // the page's title
  nlohmann::ordered_json summary;                 // as written to summary.json
  std::map<std::string, std::string> histograms;  // single-value metric -> its SVG
  std::map<std::string, std::vector<int64_t>>
      vocab_counts;                          // total_vocab_freq metric -> counts by token id
  nlohmann::ordered_json curriculum_config;  // null: none written
  std::string curriculum_svg;                // empty: no chart
  std::string curriculum_note;               // how the chart was replayed, or why there is none
  std::vector<html::Finding> curriculum_findings;  // the replay's, without a batch size
  std::vector<html::Finding> warnings;             // the warnings the run gives, with their fixes
  // The single-value metrics with samples and a sample_to_metric file, for
  // summary.json's "spearman" (rank_correlation.h).
  std::map<std::string, ValueDistribution> distributions;
};

std::string RunPageHtml(const RunPage& page);

// The tokens shown by count in the page's top-tokens table.
inline constexpr size_t kTopTokens = 20;
// The samples at each end of a metric that summary.json and the page list.
inline constexpr size_t kExtremeSamples = 5;

}  // namespace dsanalyze
