#include "report/score_summary.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "report/distribution.h"
#include "util/ordered_double.h"

namespace dsanalyze {
namespace {

using test::Distribution;

TEST_CASE("score summary: scaled values as scores, ascending and descending", "[score_summary]") {
  // Values -30 (1 sample), 10 (2), 250 (1) at scale 100.
  const ValueDistribution d = Distribution({-30, 10, 250}, {1, 2, 1});
  const auto up = ScoreSummary(d, ScoreMeaning{100, 0, false}, {}, 0);
  CHECK(up["scale"] == 100.0);
  CHECK(up["min"] == -0.3);
  CHECK(up["max"] == 2.5);
  CHECK(up["mean"] == (-30 + 20 + 250) / 4.0 / 100);
  CHECK(up["percentiles"]["p0"] == -0.3);
  CHECK(up["percentiles"]["p50"] == 0.1);
  CHECK(up["percentiles"]["p100"] == 2.5);
  // Descending: value = round(-score · scale), so the scores are -values / 100.
  const auto down = ScoreSummary(d, ScoreMeaning{100, 0, true}, {}, 0);
  CHECK(down["descending"] == true);
  CHECK(down["min"] == -2.5);
  CHECK(down["max"] == 0.3);
  CHECK(down["percentiles"]["p0"] == -2.5);
  CHECK(down["percentiles"]["p75"] == -0.1);  // scores -2.5, -0.1, -0.1, 0.3
  CHECK(down["percentiles"]["p100"] == 0.3);
}

TEST_CASE("score summary: each bin's score range, empty bins null", "[score_summary]") {
  const ValueDistribution d = Distribution({0, 2}, {3, 3});
  const std::vector<BinRange> bins = {{OrderedBits(-1.5), OrderedBits(0.25)},
                                      {INT64_MAX, INT64_MIN},
                                      {OrderedBits(0.5), OrderedBits(7.0)}};
  const auto up = ScoreSummary(d, ScoreMeaning{0, 3, false}, bins, 0);
  CHECK(up["bins"] == 3);
  CHECK(up["bin_scores"][0] == nlohmann::ordered_json::array({-1.5, 0.25}));
  CHECK(up["bin_scores"][1].is_null());
  CHECK(up["bin_scores"][2] == nlohmann::ordered_json::array({0.5, 7.0}));
  // Descending ranks -score: the ordered values are of -score.
  const auto down = ScoreSummary(d, ScoreMeaning{0, 3, true}, bins, 0);
  CHECK(down["bin_scores"][0] == nlohmann::ordered_json::array({-0.25, 1.5}));
}

TEST_CASE("score axis: labels in scores", "[score_summary]") {
  const ValueAxis scaled = ScoreAxis("q", ScoreMeaning{1000, 0, false}, {});
  CHECK(scaled.label(1500) == "1.5");
  CHECK(scaled.width(5) == "0.005");
  CHECK(scaled.title.find("q score") == 0);
  CHECK(ScoreAxis("q", ScoreMeaning{1000, 0, true}, {}).label(1500) == "-1.5");
  const std::vector<BinRange> bins = {{OrderedBits(0.125), OrderedBits(0.5)},
                                      {OrderedBits(0.75), OrderedBits(2.0)}};
  const ValueAxis binned = ScoreAxis("q", ScoreMeaning{0, 2, false}, bins);
  CHECK(binned.label(0) == "0.125");
  CHECK(binned.label(1) == "0.75");
  CHECK(binned.label(-1) == "-1");  // a "nan" value outside the bins: the integer
  CHECK(ScoreAxis("q", ScoreMeaning{0, 2, true}, bins).label(0) == "-0.125");
}

TEST_CASE("score summary: a score of 0 is 0, never -0, also descending", "[score_summary]") {
  const ValueDistribution d = Distribution({0, 1}, {2, 2});
  const std::vector<BinRange> bins = {{OrderedBits(-0.5), OrderedBits(0.0)},
                                      {OrderedBits(0.0), OrderedBits(0.0)}};
  const auto down = ScoreSummary(d, ScoreMeaning{0, 2, true}, bins, 0);
  CHECK(down["bin_scores"].dump() == "[[0.0,0.5],[0.0,0.0]]");
  CHECK(down["bin_scores"][1].dump() == "[0.0,0.0]");
  CHECK_FALSE(std::signbit(down["bin_scores"][0][0].get<double>()));
  CHECK(ScoreAxis("q", ScoreMeaning{0, 2, true}, bins).label(1) == "0");
  CHECK(ScoreAxis("q", ScoreMeaning{1000, 0, true}, {}).label(0) == "0");
}

TEST_CASE("score summary: the nan block counts NaN scores and names their value",
          "[score_summary]") {
  const ValueDistribution d = Distribution({-1, 10}, {3, 2});
  ScoreMeaning scaled{100, 0, false};
  CHECK_FALSE(ScoreSummary(d, scaled, {}, 0).contains("nan"));  // NaN is an error then
  scaled.nan_value = -1;
  const auto s = ScoreSummary(d, scaled, {}, 3);
  CHECK(s["nan"] == nlohmann::ordered_json{{"value", -1}, {"samples", 3}});
  CHECK(s.back() == s["nan"]);  // after the scores
  ScoreMeaning binned{0, 1, false, 7};
  const std::vector<BinRange> bins = {{OrderedBits(0.5), OrderedBits(0.5)}};
  CHECK(ScoreSummary(d, binned, bins, 0)["nan"] ==
        nlohmann::ordered_json{{"value", 7}, {"samples", 0}});
}

TEST_CASE("score histogram: percentile marks of bins name the bin, not a score percentile",
          "[score_summary]") {
  // Descending: bin 0 holds the highest scores, so its p10 is among the top scores.
  const std::vector<BinRange> bins = {{OrderedBits(-2.0), OrderedBits(-0.75)},
                                      {OrderedBits(-0.5), OrderedBits(-0.125)}};
  const ValueAxis down = ScoreAxis("q", ScoreMeaning{0, 2, true}, bins);
  REQUIRE(down.mark);
  CHECK(down.mark(10, 0) == "p10 = bin 0 (scores 2 to 0.75)");
  CHECK(down.mark(90, 1) == "p90 = bin 1 (scores 0.5 to 0.125)");
  CHECK(down.mark(50, 9) == "p50 = value 9");  // a value outside the bins
  ScoreMeaning with_nan{0, 2, true, 9};
  CHECK(ScoreAxis("q", with_nan, bins).mark(50, 9) == "p50 = value 9 (NaN)");
  const ValueDistribution d = Distribution({0, 1}, {5, 5});
  const std::string svg = HistogramSvg("q", d, down);
  CHECK_THAT(svg, Catch::Contains("p10 = bin 0 (scores 2 to 0.75)"));
  CHECK_THAT(svg, !Catch::Contains("p10 = 2<"));
  CHECK(ScoreAxis("q", ScoreMeaning{0, 2, false}, bins).mark(10, 0) ==
        "p10 = bin 0 (scores -2 to -0.75)");
  // Descending scale: the values' percentile, shown as a score.
  const ValueAxis scaled = ScoreAxis("q", ScoreMeaning{10, 0, true}, {});
  CHECK(scaled.mark(10, -9) == "p10 of values = score 0.9");
  CHECK_FALSE(ScoreAxis("q", ScoreMeaning{10, 0, false}, {}).mark);  // "p10 = 0.9" is right
}

}  // namespace
}  // namespace dsanalyze
