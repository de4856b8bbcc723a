// What the reports show of a score metric (metrics/metric.h ScoreMeaning):
// summary.json's "score" block and the histogram's x axis, both in the
// units of the original scores rather than the integers in the files.
//
// With "scale" a value v stands for the score v / scale (−v / scale when
// descending). With "bins" a value is a bin; the pipeline reports each bin's
// smallest and largest ordered score (util/ordered_double.h), from which the
// bin's score range follows. Pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "metrics/metric.h"
#include "page/histogram_svg.h"
#include "report/metric_stats.h"

namespace dsanalyze {

// Per bin: the smallest and largest ordered score in it (INT64_MAX, INT64_MIN
// for an empty bin).
using BinRange = std::array<int64_t, 2>;

// {"scale", "descending", "min", "max", "mean", "percentiles", "std", "iqr",
// "skew"} (scale: of
// the scores that are not NaN, so without the `nan_scores` samples of
// meaning.nan_value; only the first two when every score is NaN) or
// {"bins", "descending", "bin_scores": [[low, high] or null per bin]} (bins),
// then, when meaning.nan_value is set, "nan": {"value", "samples"}: the value
// NaN scores took and how many samples had one (`nan_scores`). A score of 0
// is 0, never -0. Requires d.samples > 0.
nlohmann::ordered_json ScoreSummary(const ValueDistribution& d, const ScoreMeaning& meaning,
                                    std::span<const BinRange> bins, uint64_t nan_scores);

// `d` without its NaN placeholders: `nan_scores` samples of the value
// meaning.nan_value taken out (real scores that round to the same value stay).
ValueDistribution WithoutNanScores(const ValueDistribution& d, const ScoreMeaning& meaning,
                                   uint64_t nan_scores);

// Labels in scores. Its percentile marks, for bins or descending scores,
// say whose percentile they are: "p10 = bin 1 (scores 0.9 to 0.8)",
// "p10 of values = score 0.9" (ascending scores keep "p10 = 0.1").
ValueAxis ScoreAxis(const std::string& metric, const ScoreMeaning& meaning,
                    std::span<const BinRange> bins);

}  // namespace dsanalyze
