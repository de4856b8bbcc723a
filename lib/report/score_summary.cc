#include "report/score_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "util/ordered_double.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;

// -x, but +0.0 for x = 0: a score of 0 is never shown as "-0".
double Negated(double x) { return 0.0 - x; }

std::string Short(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", x + 0.0);  // -0.0 + 0.0 == +0.0
  return buf;
}

// The scores of d's values ascending: the same distribution, reversed and
// negated when descending (values never reach INT64_MIN: score_metric.cc).
ValueDistribution ScoreOrder(const ValueDistribution& d, bool descending) {
  if (!descending) return d;
  ValueDistribution r = d;
  std::reverse(r.values.begin(), r.values.end());
  std::reverse(r.counts.begin(), r.counts.end());
  for (int64_t& v : r.values) v = -v;
  return r;
}

Json ScaleSummary(const ValueDistribution& d, const ScoreMeaning& m, uint64_t nan_scores) {
  const ValueDistribution s = ScoreOrder(WithoutNanScores(d, m, nan_scores), m.descending);
  const double sum = static_cast<double>(static_cast<long double>(SumOfValues(s)));
  Json j;
  j["scale"] = m.scale;
  j["descending"] = m.descending;
  if (s.samples == 0) return j;  // every score was NaN
  j["min"] = static_cast<double>(s.values.front()) / m.scale;
  j["max"] = static_cast<double>(s.values.back()) / m.scale;
  j["mean"] = sum / static_cast<double>(s.samples) / m.scale;
  Json percentiles = Json::object();
  for (int p = 0; p <= 100; p += kSummaryPercentileStep) {
    percentiles[PercentileKey(p)] = static_cast<double>(NearestRankPercentile(s, p)) / m.scale;
  }
  j["percentiles"] = std::move(percentiles);
  const Spread spread = SpreadOf(s);
  j["std"] = spread.std / m.scale;
  j["iqr"] = spread.iqr / m.scale;
  j["skew"] = spread.skew;
  return j;
}

// A bin's lowest and highest score; none for an empty bin.
std::optional<std::array<double, 2>> BinScores(const BinRange& r, bool descending) {
  if (r[0] > r[1]) return std::nullopt;
  const double lo = FromOrderedBits(r[0]), hi = FromOrderedBits(r[1]);
  if (descending) return std::array<double, 2>{Negated(hi), Negated(lo)};
  return std::array<double, 2>{lo, hi};
}

// {"value": V, "samples": N}: what NaN scores became and how many there were.
Json NanSummary(int64_t nan_value, uint64_t nan_scores) {
  Json j;
  j["value"] = nan_value;
  j["samples"] = nan_scores;
  return j;
}

Json BinsSummary(const ScoreMeaning& meaning, std::span<const BinRange> bins) {
  Json j;
  j["bins"] = meaning.bins;
  j["descending"] = meaning.descending;
  Json scores = Json::array();
  for (const BinRange& r : bins) {
    const auto s = BinScores(r, meaning.descending);
    scores.push_back(s ? Json::array({(*s)[0], (*s)[1]}) : Json());
  }
  j["bin_scores"] = std::move(scores);
  return j;
}

}  // namespace

Json ScoreSummary(const ValueDistribution& d, const ScoreMeaning& meaning,
                  std::span<const BinRange> bins, uint64_t nan_scores) {
  Json j = meaning.bins == 0 ? ScaleSummary(d, meaning, nan_scores) : BinsSummary(meaning, bins);
  if (meaning.nan_value) j["nan"] = NanSummary(*meaning.nan_value, nan_scores);
  return j;
}

ValueDistribution WithoutNanScores(const ValueDistribution& d, const ScoreMeaning& meaning,
                                   uint64_t nan_scores) {
  if (!meaning.nan_value || nan_scores == 0) return d;
  ValueDistribution out = d;
  const auto it = std::lower_bound(out.values.begin(), out.values.end(), *meaning.nan_value);
  if (it == out.values.end() || *it != *meaning.nan_value) return out;
  const size_t i = static_cast<size_t>(it - out.values.begin());
  const uint64_t taken = std::min(nan_scores, out.counts[i]);
  out.samples -= taken;
  if ((out.counts[i] -= taken) == 0) {
    out.values.erase(it);
    out.counts.erase(out.counts.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return out;
}

ValueAxis ScoreAxis(const std::string& metric, const ScoreMeaning& meaning,
                    std::span<const BinRange> bins) {
  const auto percentile = [](int p) { return std::string("p") + std::to_string(p); };
  if (meaning.bins == 0) {
    const double unit = (meaning.descending ? -1.0 : 1.0) / meaning.scale;
    const auto label = [unit](__int128 v) { return Short(static_cast<double>(v) * unit); };
    ValueAxis axis{metric + " score (value " + (meaning.descending ? "-" : "") +
                       Short(meaning.scale) + " x score)",
                   label,
                   [unit](__int128 w) { return Short(static_cast<double>(w) * std::fabs(unit)); }};
    // Descending, the values' p10 is near the scores' p90: say whose it is.
    if (meaning.descending)
      axis.mark = [=](int p, __int128 v) {
        return percentile(p) + " of values = score " + label(v);
      };
    return axis;
  }
  // A bin is labelled with the score it starts at: its lowest score, or its
  // highest when descending (bin 0 holds the highest scores).
  std::vector<BinRange> ranges(bins.begin(), bins.end());
  const bool descending = meaning.descending;
  const std::optional<int64_t> nan_value = meaning.nan_value;
  const auto scores = [ranges, descending](__int128 b) {
    return b >= 0 && b < static_cast<__int128>(ranges.size())
               ? BinScores(ranges[static_cast<size_t>(b)], descending)
               : std::nullopt;
  };
  const auto integer = [](__int128 v) { return std::to_string(static_cast<long long>(v)); };
  const auto label = [=](__int128 b) {
    const auto s = scores(b);
    return s ? Short((*s)[descending ? 1 : 0]) : integer(b);
  };
  // A mark is a percentile of bins, not of scores: it names the bin and
  // the scores in it, in the axis's direction.
  const auto mark = [=](int p, __int128 b) {
    const auto s = scores(b);
    if (!s) return percentile(p) + " = value " + integer(b) + (b == nan_value ? " (NaN)" : "");
    const int first = descending ? 1 : 0;
    return percentile(p) + " = bin " + integer(b) + " (scores " + Short((*s)[first]) + " to " +
           Short((*s)[1 - first]) + ")";
  };
  return {metric + " bin, labelled with the score it starts at", label,
          [integer](__int128 w) { return integer(w) + " bins"; }, mark};
}

}  // namespace dsanalyze
