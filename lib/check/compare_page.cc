#include "check/compare_page.h"

#include <algorithm>

#include "output/analysis_folder.h"
#include "page/histogram_svg.h"
#include "page/html.h"
#include "report/metric_stats.h"

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

Markup Verdict(const std::string& a, const std::string& b, const CompareReport& r) {
  Markup m = html::Facts({{"A", a},
                          {"B", b},
                          {"verdict", r.same() ? "same" : "different"},
                          {"equal", std::to_string(r.equal.size())},
                          {"equal except doc_idx", std::to_string(r.equal_except_doc_idx.size())},
                          {"different", std::to_string(r.different.size())},
                          {"skipped by choice", std::to_string(r.skipped_by_choice.size())}});
  if (r.samples_differ) m += html::Paragraph("note: " + *r.samples_differ);
  html::Table t{{"", "file (prefix)", "first differing row", "difference"}, {}};
  const auto add = [&](const char* what, const std::vector<FileDifference>& list) {
    for (const FileDifference& d : list)
      t.rows.push_back({what, d.prefix, d.row ? std::to_string(*d.row) : "", d.message});
  };
  add("different", r.different);
  add("equal except doc_idx", r.equal_except_doc_idx);
  add("skipped by choice", r.skipped_by_choice);
  if (!t.rows.empty()) m += html::TableOf(t);
  return m;
}

// vb - va with its sign, exact over all int64 values.
std::string Change(int64_t va, int64_t vb) {
  const __int128 d = static_cast<__int128>(vb) - va;
  const unsigned __int128 mag = d < 0 ? -d : d;
  std::string digits;
  for (unsigned __int128 m = mag; m > 0 || digits.empty(); m /= 10)
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return (d < 0 ? "-" : "+") + digits;
}

Markup Moved(const ValueDistribution& a, const ValueDistribution& b) {
  if (a.samples == 0 || b.samples == 0) return html::Paragraph("A side has no samples.");
  html::Table t{{"percentile", "A", "B", "B - A"}, {}};
  for (int p = 0; p <= 100; p += kSummaryPercentileStep) {
    const int64_t va = NearestRankPercentile(a, p), vb = NearestRankPercentile(b, p);
    if (va != vb)
      t.rows.push_back({PercentileKey(p), std::to_string(va), std::to_string(vb), Change(va, vb)});
  }
  if (t.rows.empty()) return html::Paragraph("No percentile p0 ... p100 moved.");
  return html::Paragraph(std::to_string(t.rows.size()) + " of the " +
                         std::to_string(100 / kSummaryPercentileStep + 1) +
                         " percentiles p0 ... p100 moved:") +
         html::TableOf(t);
}

Markup MetricOf(const std::string& name, const std::string& a, const AnalysisFolder& fa,
                const std::string& b, const AnalysisFolder& fb) {
  Result<ValueDistribution> da =
      ReadValueDistribution(a, name, fa.table.value_or(CodeTable::kDeepSpeed));
  Result<ValueDistribution> db =
      ReadValueDistribution(b, name, fb.table.value_or(CodeTable::kDeepSpeed));
  if (!da.ok() || !db.ok())
    return html::Block(
        name, html::Paragraph("no distribution: " + (da.ok() ? db : da).status().message()));
  return html::Block(name,
                     html::Chart(OverlaySvg(name, *da, *db, IntegerAxis(name), "A", "B"),
                                 name + ": samples per value, A as bars, B as a dashed outline.") +
                         Moved(*da, *db));
}

}  // namespace

std::string ComparePageHtml(const std::string& a, const std::string& b, const CompareReport& r) {
  Markup body = html::Section("The comparison", Verdict(a, b, r), "verdict");
  Result<AnalysisFolder> fa = ReadAnalysisFolder(a), fb = ReadAnalysisFolder(b);
  Markup metrics;
  if (fa.ok() && fb.ok()) {
    const std::vector<std::string> in_a = Distributions(*fa), in_b = Distributions(*fb);
    for (const std::string& name : in_a)
      if (std::binary_search(in_b.begin(), in_b.end(), name))
        metrics += MetricOf(name, a, *fa, b, *fb);
  }
  if (metrics.html.empty())
    metrics = html::Paragraph("No single-value metric has its distribution on both sides.");
  body += html::Section("Distributions", metrics, "distributions");
  return html::Document("dsanalyze compare: " + a + " and " + b,
                        r.same() ? "the analyses are the same" : "the analyses differ", body);
}

}  // namespace dsanalyze
