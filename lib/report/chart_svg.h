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

}  // namespace dsanalyze
