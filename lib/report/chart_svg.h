// The report page's own charts, in the histograms' style (page/svg.h): the
// run's per-stage timings as bars, and a total_vocab_freq metric's
// rank-frequency (Zipf) curve on log-log axes. Standalone SVG documents.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dsanalyze {

// summary.json's "timings" (objects stage, rank0_seconds, max_seconds): per
// stage a solid bar for rank 0 and an outlined bar for the slowest rank, each
// labelled with its seconds.
std::string TimingsSvg(const nlohmann::ordered_json& timings);

// `ranked`: the tokens' counts, largest first, zeros left out (rank 1 is the
// most frequent token).
std::string ZipfSvg(const std::string& metric, const std::vector<int64_t>& ranked);

// A metric's "per_component" list (summary.json): one row per component on
// one value axis, a line from p5 to p95, a box from p25 to p75, a tick at the
// median and a dot at the mean, labelled with its prefix's file name and
// samples. Components without samples get a row saying so.
std::string ComponentsSvg(const std::string& metric, const nlohmann::ordered_json& per_component);

}  // namespace dsanalyze
