#include "check/compare_page.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "config/config.h"
#include "metrics/registry.h"
#include "output/analysis_folder.h"
#include "page/histogram_svg.h"
#include "page/html.h"
#include "page/numbers.h"
#include "report/metric_stats.h"
#include "report/score_summary.h"

namespace dsanalyze {
namespace {

using html::Markup;

// The single-value metrics whose distribution `analysis` holds, sorted.
std::vector<std::string> Distributions(const AnalysisFolder& analysis) {
  std::vector<std::string> names;
  if (!WritesDistribution(analysis.files)) return names;
  if (analysis.has_summary) {
    for (const ListedMetric& m : analysis.listed)
      if (m.type && TraitsOf(*m.type).per_sample) names.push_back(m.name);
  } else {
    for (const MetricFolder& f : analysis.folders)
      if (TraitsOf(f.types.front()).per_sample) names.push_back(f.name);
  }
  return names;
}

// A metric's two distributions, read (either may have failed). A score
// metric with a scale (the same on both sides) has them in ascending score
// order, the NaN placeholder left out: the values of a descending score
// negated, so that its percentiles are the scores' own; `unit` (1 / scale)
// turns a value into its score.
struct MetricPair {
  std::string name;
  Result<ValueDistribution> a, b;
  double unit = 1;
  std::optional<ScoreMeaning> score;  // ascending, for the chart's axis
};

double MeanOf(const ValueDistribution& d) {
  return static_cast<double>(static_cast<long double>(SumOfValues(d)) /
                             static_cast<long double>(d.samples));
}

// The score metrics with a scale that `folder`'s recorded config names
// (none without a readable config: their values are then shown as they are).
std::map<std::string, ScoreMeaning> ScaledScores(const AnalysisFolder& folder) {
  std::map<std::string, ScoreMeaning> out;
  if (folder.config.is_null()) return out;
  const Result<Config> config = ParseConfig(folder.config);
  if (!config.ok()) return out;
  for (const MetricConfig& m : config->metrics) {
    const Result<std::optional<ScoreMeaning>> meaning = ScoreMeaningOf(m);
    if (meaning.ok() && *meaning && (*meaning)->bins == 0) out[m.name] = **meaning;
  }
  return out;
}

// `d` in ascending score order without the NaN placeholder (see MetricPair).
void InScoreOrder(const ScoreMeaning& meaning, ValueDistribution* d) {
  ValueDistribution out = *d;
  out.values.clear();
  out.counts.clear();
  out.samples = 0;
  for (size_t i = 0; i < d->values.size(); ++i) {
    if (meaning.nan_value && d->values[i] == *meaning.nan_value) continue;
    out.values.push_back(meaning.descending ? -d->values[i] : d->values[i]);
    out.counts.push_back(d->counts[i]);
    out.samples += d->counts[i];
  }
  if (meaning.descending) {
    std::reverse(out.values.begin(), out.values.end());
    std::reverse(out.counts.begin(), out.counts.end());
  }
  *d = std::move(out);
}

// `text` with a "+" before it when `v` > 0. Appends, not `literal +
// temporary`: the latter trips GCC 12's -Wrestrict false positive (GCC bug
// 105329).
std::string Signed(double v, const std::string& text) {
  std::string s = v > 0 ? "+" : "";
  s += text;
  return s;
}

// The change from `a` to `b` in percent of |a|, signed: "+12.3%", "-0.5%",
// "0%"; from 0 it has no percentage and says so.
std::string Shift(double a, double b) {
  if (a == b) return "0%";
  if (a == 0) return "from 0";
  const double change = (b - a) / std::fabs(a);
  return Signed(change, Percent(change, 3));
}

// "A → B (shift)" for a value of both sides.
std::string Moved(double a, double b) {
  return Significant(a) + " → " + Significant(b) + " (" + Shift(a, b) + ")";
}

// Samples of each side, when summary.json lists them, and whether the two
// analyses are of different datasets (a different recorded dataset, or
// different samples).
std::string DatasetSentence(const AnalysisFolder& fa, const AnalysisFolder& fb,
                            const CompareReport& r) {
  const bool other_data =
      r.samples_differ.has_value() ||
      (!fa.dataset.is_null() && !fb.dataset.is_null() && fa.dataset != fb.dataset) ||
      (!fa.config.is_null() && !fb.config.is_null() &&
       fa.config.value("dataset", nlohmann::json()) !=
           fb.config.value("dataset", nlohmann::json()));
  if (!other_data) return "";
  return "A and B are analyses of different datasets, so their files are bound to differ: "
         "what to read is how each metric's distribution shifted from A to B, below" +
         (r.samples_differ ? " (" + *r.samples_differ + "). " : std::string(". "));
}

std::string VerdictSentence(const CompareReport& r) {
  const auto n = [](size_t k) { return Count(static_cast<uint64_t>(k)); };
  return (r.same() ? "The analyses are the same: " : "The analyses differ: ") +
         n(r.different.size()) + " file(s) differ, " + n(r.equal.size()) + " are equal, " +
         n(r.equal_except_doc_idx.size()) + " equal except doc_idx, " +
         n(r.skipped_by_choice.size()) + " skipped by choice.";
}

// One row per metric: N, mean, median, p10, p90, A → B with the shift.
Markup Shifts(const std::vector<MetricPair>& metrics) {
  html::Table t{{"metric", "samples", "mean", "median", "p10", "p90"}, {}};
  // A score metric's row is in scores; its name says so.
  std::vector<std::string> unreadable;
  for (const MetricPair& m : metrics) {
    if (!m.a.ok() || !m.b.ok() || m.a->samples == 0 || m.b->samples == 0) {
      unreadable.push_back(m.name);
      continue;
    }
    const auto p = [&](int q) {
      return Moved(static_cast<double>(NearestRankPercentile(*m.a, q)) * m.unit,
                   static_cast<double>(NearestRankPercentile(*m.b, q)) * m.unit);
    };
    t.rows.push_back(
        {m.score ? m.name + " (score)" : m.name,
         Count(m.a->samples) + " → " + Count(m.b->samples) + " (" +
             Shift(static_cast<double>(m.a->samples), static_cast<double>(m.b->samples)) + ")",
         Moved(MeanOf(*m.a) * m.unit, MeanOf(*m.b) * m.unit), p(50), p(10), p(90)});
  }
  Markup out = t.rows.empty() ? html::Paragraph(
                                    "No single-value metric has its distribution on "
                                    "both sides.")
                              : html::TableOf(t);
  if (!unreadable.empty()) {
    std::string names;
    for (const std::string& n : unreadable) names += (names.empty() ? "" : ", ") + n;
    out += html::Paragraph("No distribution to compare for " + names + " (see below).");
  }
  return out;
}

// The files compared: the counts and every file that is not equal, folded.
Markup FileList(const CompareReport& r) {
  html::Table t{{"", "file (prefix)", "first differing row", "difference"}, {}};
  const auto add = [&](const char* what, const std::vector<FileDifference>& list) {
    for (const FileDifference& d : list)
      t.rows.push_back({what, d.prefix, d.row ? Count(*d.row) : "", d.message});
  };
  add("different", r.different);
  add("equal except doc_idx", r.equal_except_doc_idx);
  add("skipped by choice", r.skipped_by_choice);
  if (t.rows.empty()) return html::Paragraph("Every file is equal.");
  return html::Folded(Count(static_cast<uint64_t>(t.rows.size())) + " file(s) not equal",
                      html::TableOf(t));
}

// The nearest-rank percentiles p0 ... p100 that moved, with the shift:
// integer values as exact counts, scores (`unit` != 1) to 4 digits.
Markup MovedPercentiles(const ValueDistribution& a, const ValueDistribution& b, double unit) {
  if (a.samples == 0 || b.samples == 0) return html::Paragraph("A side has no samples.");
  html::Table t{{"percentile", "A", "B", "B − A", "shift"}, {}};
  const auto shown = [unit](int64_t v) {
    return unit == 1 ? Count(v) : Significant(static_cast<double>(v) * unit);
  };
  for (int p = 0; p <= 100; p += kSummaryPercentileStep) {
    const int64_t va = NearestRankPercentile(a, p), vb = NearestRankPercentile(b, p);
    const double change = static_cast<double>(static_cast<__int128>(vb) - va) * unit;
    if (va != vb)
      t.rows.push_back({PercentileKey(p), shown(va), shown(vb), Signed(change, Significant(change)),
                        Shift(static_cast<double>(va), static_cast<double>(vb))});
  }
  if (t.rows.empty()) return html::Paragraph("No percentile p0 ... p100 moved.");
  return html::Paragraph(Count(static_cast<uint64_t>(t.rows.size())) + " of the " +
                         Count(static_cast<uint64_t>(100 / kSummaryPercentileStep + 1)) +
                         " percentiles p0 ... p100 moved:") +
         html::TableOf(t);
}

Markup MetricBlock(const MetricPair& m) {
  if (!m.a.ok() || !m.b.ok())
    return html::Block(
        m.name, html::Paragraph("no distribution: " + (m.a.ok() ? m.b : m.a).status().message()));
  const ValueAxis axis = m.score ? ScoreAxis(m.name, *m.score, {}) : IntegerAxis(m.name);
  return html::Block(
      m.name, html::Chart(OverlaySvg(m.name, *m.a, *m.b, axis, "A", "B"),
                          m.name + ": samples per value, A as bars, B as a dashed outline.") +
                  MovedPercentiles(*m.a, *m.b, m.unit));
}

std::vector<MetricPair> ReadPairs(const std::string& a, const AnalysisFolder& fa,
                                  const std::string& b, const AnalysisFolder& fb) {
  std::vector<MetricPair> out;
  const std::vector<std::string> in_b = Distributions(fb);
  const std::map<std::string, ScoreMeaning> scores_a = ScaledScores(fa),
                                            scores_b = ScaledScores(fb);
  for (const std::string& name : Distributions(fa)) {
    if (!std::binary_search(in_b.begin(), in_b.end(), name)) continue;
    MetricPair m{name, ReadValueDistribution(a, name, fa.table.value_or(CodeTable::kDeepSpeed)),
                 ReadValueDistribution(b, name, fb.table.value_or(CodeTable::kDeepSpeed)), 1,
                 std::nullopt};
    const auto sa = scores_a.find(name), sb = scores_b.find(name);
    if (m.a.ok() && m.b.ok() && sa != scores_a.end() && sb != scores_b.end() &&
        sa->second.scale == sb->second.scale && sa->second.descending == sb->second.descending) {
      InScoreOrder(sa->second, &*m.a);
      InScoreOrder(sb->second, &*m.b);
      m.unit = 1 / sa->second.scale;
      m.score = ScoreMeaning{sa->second.scale, 0, false, std::nullopt};
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

std::string ComparePageHtml(const std::string& a, const std::string& b, const CompareReport& r) {
  Result<AnalysisFolder> fa = ReadAnalysisFolder(a), fb = ReadAnalysisFolder(b);
  const bool read = fa.ok() && fb.ok();
  const std::vector<MetricPair> metrics =
      read ? ReadPairs(a, *fa, b, *fb) : std::vector<MetricPair>{};
  Markup summary =
      html::Paragraph((read ? DatasetSentence(*fa, *fb, r) : std::string()) + VerdictSentence(r));
  summary += html::Facts({{"A", a}, {"B", b}});
  summary += Shifts(metrics);
  Markup body = html::Section("Summary: distribution shifts from A to B", summary, "summary");
  Markup details;
  for (const MetricPair& m : metrics) details += MetricBlock(m);
  if (!details.html.empty()) body += html::Section("Distributions", details, "distributions");
  body += html::Section("Files", FileList(r), "files");
  return html::Document("dsanalyze compare: " + a + " and " + b,
                        r.same() ? "the analyses are the same" : "the analyses differ", body);
}

}  // namespace dsanalyze
