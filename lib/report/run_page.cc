#include "report/run_page.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "page/numbers.h"
#include "report/chart_svg.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;
using html::Facts;
using html::Finding;
using html::Markup;
using html::Shown;
using Rows = std::vector<std::array<std::string, 2>>;

// Pairs of metrics at or above this ρ would order a curriculum almost alike.
constexpr double kNearDuplicateRho = 0.95;
// The near-duplicate sentences listed before "and N more pairs".
constexpr size_t kNearDuplicatesShown = 10;
// |skew| at or above this is called a heavy tail.
constexpr double kHeavyTailSkew = 2.0;

// A summary.json number as people read it (page/numbers.h): an integer
// exactly, with separators; any other number to 4 significant digits.
std::string Number(const Json& v) {
  if (v.is_number_unsigned()) return Count(v.get<uint64_t>());
  if (v.is_number_integer()) return Count(v.get<int64_t>());
  if (v.is_number_float()) return Significant(v.get<double>());
  if (v.is_null()) return "none";
  return Shown(v);
}

// How a metric's stored integers read: as themselves, or as the scores of a
// score metric with a scale (score_summary.h): v / scale, −v / scale when
// descending.
struct Units {
  double scale = 0;  // 0: the integers themselves
  bool descending = false;

  explicit Units(const Json& entry) {
    if (!entry.contains("score") || !entry["score"].contains("scale")) return;
    scale = entry["score"]["scale"].get<double>();
    descending = entry["score"]["descending"].get<bool>();
  }
  std::string Of(int64_t v) const {
    if (scale == 0) return Count(v);
    return Significant((descending ? 0.0 - static_cast<double>(v) : static_cast<double>(v)) /
                       scale);
  }
};

// The anchor of the metric at `index` in summary.json's order.
std::string MetricId(size_t index) { return "metric-" + std::to_string(index + 1); }

// The alerts of one metric: constant, heavy tail, NaN scores, tokens past
// the vocabulary.
std::vector<Finding> MetricAlerts(const std::string& name, const Json& e, const RunPage& page) {
  std::vector<Finding> out;
  if (e.value("distinct_values", uint64_t{0}) == 1)
    out.push_back(
        {"warning",
         "metric " + name + " is constant: every sample has the value " + Number(e["min"]),
         "a constant metric cannot order a curriculum; leave it out of one"});
  if (e.contains("skew") && std::fabs(e["skew"].get<double>()) >= kHeavyTailSkew)
    out.push_back({"note",
                   "metric " + name + " has a heavy tail (skew " + Number(e["skew"]) +
                       "): a few samples lie far from the median",
                   "its extremes below show them; a curriculum's difficulty range may be better "
                   "set from its percentiles than from its min and max"});
  if (e.contains("score") && e["score"].contains("nan")) {
    const Json& nan = e["score"]["nan"];
    if (nan["samples"].get<uint64_t>() > 0)
      out.push_back({"warning",
                     "metric " + name + ": " + Number(nan["samples"]) +
                         " samples have a NaN score; they took the value " + Number(nan["value"]) +
                         " (params.nan) and are left out of the score statistics",
                     "check those rows of the score file: in the index and in a curriculum the "
                     "samples sort as value " +
                         Number(nan["value"])});
  }
  if (const auto v = page.vocab_counts.find(name);
      v != page.vocab_counts.end() && !v->second.empty() && v->second.back() > 0)
    out.push_back({"note",
                   "metric " + name + ": " + Count(v->second.back()) + " tokens have the id " +
                       Count(static_cast<uint64_t>(v->second.size() - 1)) +
                       " = params.vocab_size, the slot past the vocabulary ids",
                   "if the tokenizer has vocab_size ids, set params.vocab_size to cover them"});
  return out;
}

// A binned score metric's range: its bins' lowest and highest scores.
std::string BinnedRange(const Json& score) {
  std::optional<double> lo, hi;
  for (const Json& r : score["bin_scores"])
    if (!r.is_null()) {
      lo = std::min(lo.value_or(r[0].get<double>()), r[0].get<double>());
      hi = std::max(hi.value_or(r[1].get<double>()), r[1].get<double>());
    }
  if (!lo) return "";
  return "scores " + Significant(*lo) + " … " + Significant(*hi) + " in " + Number(score["bins"]) +
         " bins";
}

// "range, median" of a single-value metric in its units (scores for a score
// metric with a scale); empty without statistics.
std::string RangeAndMedian(const Json& e) {
  if (e.contains("score") && e["score"].contains("bin_scores")) return BinnedRange(e["score"]);
  const Json& s = e.contains("score") && e["score"].contains("min") ? e["score"] : e;
  if (!s.contains("percentiles")) return "";
  return Number(s["min"]) + " … " + Number(s["max"]) + ", median " +
         Number(s["percentiles"]["p50"]) + (&s == &e ? "" : " (scores)");
}

// The metric's one line in the summary box: its range, median, distinct
// values and alerts, linked to its block.
Markup MetricLine(const std::string& name, const Json& e, size_t index, size_t alerts) {
  std::string line;
  if (e.contains("statistics")) {
    line = Shown(e["statistics"]);
  } else if (e.contains("distinct_values")) {
    const std::string range = RangeAndMedian(e);
    line = (range.empty() ? "" : range + "; ") + Number(e["distinct_values"]) + " distinct values";
  } else if (e.contains("length")) {
    line = "accumulated over " + Number(e["length"]) + " elements, sum " + Number(e["sum"]);
  }
  line += alerts == 0 ? "; no alert" : "; " + std::to_string(alerts) + " alert(s)";
  return html::Link(MetricId(index), name) + html::Text(": " + line);
}

// The pairs whose ρ ≥ kNearDuplicateRho, each once, as plain sentences.
std::vector<Finding> NearDuplicates(const Json& spearman) {
  std::vector<Finding> out;
  size_t more = 0;
  for (const auto& [a, row] : spearman.items())
    for (const auto& [b, rho] : row.items()) {
      if (a >= b || !rho.is_number() || rho.get<double>() < kNearDuplicateRho) continue;
      if (out.size() == kNearDuplicatesShown) {
        ++more;
        continue;
      }
      out.push_back({"note",
                     a + " and " + b +
                         " would give almost the same curriculum: their rank "
                         "correlation (Spearman's ρ) is " +
                         Number(rho),
                     "one of them is enough to order by"});
    }
  if (more > 0)
    out.push_back({"note", "and " + std::to_string(more) + " more pairs with ρ ≥ 0.95", ""});
  return out;
}

// What was analysed: samples, tokens (a seqlen metric's sum), the dataset
// and its components, the metrics, how it ran.
Rows AnalysedFacts(const Json& s) {
  Rows rows;
  const Json& dataset = s["config"].value("dataset", Json::object());
  rows.push_back({"dataset", Shown(dataset.value("type", Json("")))});
  if (s.contains("dataset") && s["dataset"].contains("components"))
    rows.push_back({"components", Count(static_cast<uint64_t>(s["dataset"]["components"].size()))});
  for (const auto& [name, m] : s["metrics"].items())
    if (m.contains("samples")) {
      rows.push_back({"samples", Number(m["samples"])});
      break;
    }
  for (const Json& m : s["config"].value("metrics", Json::array()))
    if (m.value("metric", "") == "seqlen" && s["metrics"].contains(m.value("name", "")) &&
        s["metrics"][m.value("name", "")].contains("sum")) {
      rows.push_back({"tokens", Number(s["metrics"][m.value("name", "")]["sum"])});
      break;
    }
  rows.push_back({"metrics", Count(static_cast<uint64_t>(s["metrics"].size()))});
  rows.push_back({"ranks × threads", Number(s["ranks"]) + " × " + Number(s["threads"])});
  return rows;
}

Markup Contents(const Json& s) {
  std::vector<Markup> items = {html::Link("metrics", "The metrics")};
  if (s.contains("spearman")) items.push_back(html::Link("which-metric", "Which metric to use"));
  items.push_back(html::Link("curriculum", "The proposed curriculum"));
  items.push_back(html::Link("run", "The run: timings, memory, config"));
  return html::Paragraph("Contents:") + html::List(items);
}

// The box that opens the page: what was analysed, the verdict, every
// warning and alert with its fix, one line per metric, the contents.
Markup SummaryBox(const RunPage& page) {
  const Json& s = page.summary;
  std::vector<Finding> findings = page.warnings;
  std::vector<Markup> lines;
  size_t index = 0;
  for (const auto& [name, e] : s["metrics"].items()) {
    const std::vector<Finding> alerts = MetricAlerts(name, e, page);
    findings.insert(findings.end(), alerts.begin(), alerts.end());
    lines.push_back(MetricLine(name, e, index++, alerts.size()));
  }
  if (s.contains("spearman")) {
    const std::vector<Finding> near = NearDuplicates(s["spearman"]);
    findings.insert(findings.end(), near.begin(), near.end());
  }
  const auto warnings = std::count_if(findings.begin(), findings.end(),
                                      [](const Finding& f) { return f.severity != "note"; });
  Markup m = Facts(AnalysedFacts(s));
  m += html::Paragraph(warnings == 0 ? "Verdict: no warnings."
                                     : "Verdict: " + std::to_string(warnings) +
                                           " warning(s), each with its fix below.");
  m += html::Findings(findings, "Nothing to fix or note.");
  m += html::Block("Per metric", html::List(lines));
  m += Contents(s);
  return html::Section("Summary", m, "summary");
}

Markup PercentileTable(const Json& percentiles) {
  html::Table t{{"percentile", "value"}, {}};
  for (const auto& [key, value] : percentiles.items()) t.rows.push_back({key, Number(value)});
  return html::TableOf(t);
}

// A sample's first token ids, as ids (no separators), "…" and how many it
// has when they are more.
std::string TokenPreviewText(const Json& x) {
  std::string text;
  for (const Json& id : x["first_tokens"]) {
    if (!text.empty()) text += ' ';
    text += std::to_string(id.get<int64_t>());
  }
  const uint64_t tokens = x["tokens"].get<uint64_t>();
  if (tokens > x["first_tokens"].size()) text += " … (" + Number(x["tokens"]) + " tokens)";
  return tokens == 0 ? "(no tokens)" : text;
}

// The 5 lowest and 5 highest samples by stored value, with their ids and,
// for a dataset of tokens, their first token ids. For a score metric with a
// scale, beside their scores (the ends named by score: descending, the
// lowest values are the highest scores), NaN placeholders named.
Markup ExtremesTable(const Json& e, const Units& units) {
  const Json& extremes = e["extremes"];
  html::Table t{{"end", "sample id", units.scale == 0 ? "value" : "score"}, {}};
  if (units.scale != 0) t.head.push_back("value as stored");
  const bool tokens = !extremes["lowest"].empty() && extremes["lowest"][0].contains("tokens");
  if (tokens) t.head.push_back("first token ids");
  const Json nan = e.contains("score") ? e["score"].value("nan", Json()) : Json();
  for (const char* end : {"lowest", "highest"})
    for (const Json& x : extremes[end]) {
      const int64_t v = x["value"].get<int64_t>();
      const bool is_nan = nan.is_object() && nan["value"].get<int64_t>() == v;
      t.rows.push_back(
          {units.descending == (std::string_view(end) == "lowest") ? "highest" : "lowest",
           Number(x["sample"]), is_nan ? "NaN (placeholder)" : units.Of(v)});
      if (units.scale != 0) t.rows.back().push_back(Number(x["value"]));
      if (tokens) t.rows.back().push_back(TokenPreviewText(x));
    }
  return html::Block("the lowest and highest samples (ties by sample id)", html::TableOf(t));
}

// min, median, max, mean and spread; in scores for a score metric with a
// scale, NaN left out (the stored values' own are then folded).
Rows StatisticsRows(const Json& e) {
  const bool scores = e.contains("score") && e["score"].contains("min");
  const Json& s = scores ? e["score"] : e;
  Rows rows = {{"samples", Number(e["samples"])},
               {"distinct values", Number(e["distinct_values"])}};
  if (e.contains("score") && e["score"].contains("nan"))
    rows.push_back(
        {"NaN scores (left out of the scores below)", Number(e["score"]["nan"]["samples"])});
  if (!s.contains("percentiles")) return rows;
  rows.insert(rows.end(), {{"min", Number(s["min"])},
                           {"median (p50)", Number(s["percentiles"]["p50"])},
                           {"max", Number(s["max"])},
                           {"mean", Number(s["mean"])},
                           {"standard deviation", Number(s["std"])},
                           {"IQR (p75 − p25)", Number(s["iqr"])},
                           {"skew", Number(s["skew"])}});
  return rows;
}

// A score metric's stored integers: what the index files and the proposed
// curriculum's difficulties are in.
Markup StoredValues(const Json& e) {
  Rows rows;
  for (const char* key : {"min", "max", "mean", "sum", "std", "iqr", "skew"})
    if (e.contains(key)) rows.push_back({key, Number(e[key])});
  Markup m = Facts(rows);
  if (e.contains("percentiles")) m += PercentileTable(e["percentiles"]);
  return html::Folded("the values as stored in the metric files (the curriculum's difficulties)",
                      m);
}

Markup BinScores(const Json& score) {
  html::Table bins{{"bin (value)", "lowest score", "highest score"}, {}};
  for (size_t b = 0; b < score["bin_scores"].size(); ++b) {
    const Json& r = score["bin_scores"][b];
    bins.rows.push_back({std::to_string(b), r.is_null() ? "empty" : Number(r[0]),
                         r.is_null() ? "empty" : Number(r[1])});
  }
  return html::Folded("scores of each bin", html::TableOf(bins));
}

Markup SingleValue(const std::string& name, const Json& e, const RunPage& page) {
  const Units units(e);
  Rows rows = StatisticsRows(e);
  rows.push_back(
      {"dtypes (metric, sample)", Shown(e["metric_dtype"]) + ", " + Shown(e["sample_dtype"])});
  Markup m = Facts(rows);
  if (const auto h = page.histograms.find(name); h != page.histograms.end())
    m += html::Chart(h->second, name + ": samples per value; dashed marks at p10, p50 and p90.");
  if (e.contains("per_component"))
    m += html::Chart(ComponentsSvg(name, e["per_component"]),
                     name +
                         " in each component of the blend, on one axis: does it sort by "
                         "difficulty, or by corpus?");
  if (e.contains("extremes")) m += ExtremesTable(e, units);
  const bool scores = units.scale != 0 && e["score"].contains("percentiles");
  if (e.contains("percentiles") && !e.contains("score"))
    m += html::Folded("percentiles p0 … p100 (nearest rank)", PercentileTable(e["percentiles"]));
  if (scores)
    m += html::Folded("score percentiles p0 … p100 (nearest rank, NaN left out)",
                      PercentileTable(e["score"]["percentiles"]));
  if (e.contains("score")) {
    if (e["score"].contains("bin_scores")) m += BinScores(e["score"]);
    m += StoredValues(e);
  }
  return m;
}

Markup Vocabulary(const std::string& name, const std::vector<int64_t>& counts) {
  // The last slot is id vocab_size, past the vocabulary (MetricAlerts): not
  // a token of it, so not in its minimum.
  const auto vocabulary_end = counts.end() - (counts.empty() ? 0 : 1);
  Markup m = Facts(
      {{"min count of a vocabulary id (0 … vocab_size − 1)",
        counts.size() > 1 ? Count(*std::min_element(counts.begin(), vocabulary_end)) : "none"}});
  std::vector<int64_t> ids;
  for (size_t t = 0; t < counts.size(); ++t)
    if (counts[t] > 0) ids.push_back(static_cast<int64_t>(t));
  std::stable_sort(ids.begin(), ids.end(),
                   [&](int64_t a, int64_t b) { return counts[a] > counts[b]; });
  std::vector<int64_t> ranked;
  for (int64_t id : ids) ranked.push_back(counts[id]);
  const int64_t total = std::accumulate(ranked.begin(), ranked.end(), int64_t{0});
  m += html::Chart(ZipfSvg(name, ranked),
                   name + ": each token's count against its rank, both on log scales.");
  html::Table top{{"rank", "token id", "count", "share of all tokens"}, {}};
  for (size_t r = 0; r < std::min(kTopTokens, ids.size()); ++r)
    top.rows.push_back({Count(static_cast<uint64_t>(r + 1)), Count(ids[r]), Count(ranked[r]),
                        Percent(static_cast<double>(ranked[r]) / static_cast<double>(total))});
  return m += html::Folded("the " + std::to_string(top.rows.size()) + " most frequent tokens",
                           html::TableOf(top));
}

Markup Accumulated(const std::string& name, const Json& e, const RunPage& page) {
  const auto v = page.vocab_counts.find(name);
  Rows rows = {{"length", Number(e["length"])}, {"sum", Number(e["sum"])}};
  if (v == page.vocab_counts.end()) rows.push_back({"min", Number(e["min"])});
  rows.push_back({"max", Number(e["max"])});
  rows.push_back({"dtype", Shown(e["dtype"])});
  Markup m = Facts(rows);
  if (v == page.vocab_counts.end()) return m;
  m += Vocabulary(name, v->second);
  return m += html::Folded("the metric_value row as stored",
                           Facts({{"min (with the slot past the vocabulary)", Number(e["min"])}}));
}

Markup MetricBlock(const std::string& name, const Json& e, size_t index, const RunPage& page) {
  Markup m = html::Paragraph("type: " + Shown(e["type"]));
  if (e.contains("statistics")) m += html::Paragraph(Shown(e["statistics"]));
  if (e.contains("not_mergeable"))
    m += html::Paragraph("not mergeable: " + Shown(e["not_mergeable"]));
  const std::vector<Finding> alerts = MetricAlerts(name, e, page);
  if (!alerts.empty()) m += html::Findings(alerts, "");
  if (e.contains("metric_dtype")) m += SingleValue(name, e, page);
  if (e.contains("length")) m += Accumulated(name, e, page);
  return html::Block(name, m, MetricId(index));
}

// Spearman's ρ between every pair of single-value metrics, and the pairs
// that would order a curriculum alike.
Markup WhichMetricSection(const Json& spearman) {
  html::Table t{{"ρ"}, {}};
  for (const auto& [name, row] : spearman.items()) t.head.push_back(name);
  for (const auto& [a, row] : spearman.items()) {
    t.rows.push_back({a});
    for (const auto& [b, unused] : spearman.items())
      t.rows.back().push_back(a == b ? "1" : row[b].is_null() ? "n/a (constant)" : Number(row[b]));
  }
  const std::vector<Finding> near = NearDuplicates(spearman);
  Markup m = html::Paragraph(
      "Spearman's rank correlation ρ between the metrics, over every sample (ties take their "
      "average rank): 1 means two metrics order the samples the same way, as two curricula "
      "would; 0, unrelated; −1, the reverse order.");
  m += html::TableOf(t);
  m += html::Findings(near, "No two metrics order the samples almost alike (ρ ≥ 0.95).");
  return html::Section("Which metric to use", m, "which-metric");
}

Markup CurriculumSection(const RunPage& page) {
  Markup m = html::Paragraph(page.curriculum_note);
  if (!page.curriculum_svg.empty())
    m += html::Chart(page.curriculum_svg,
                     "The proposed schedule: difficulty and eligible share over training steps (as "
                     "dsanalyze curriculum --svg draws it).");
  if (!page.curriculum_svg.empty())
    m += html::Block("findings of the replay (those that depend on the batch size left out)",
                     html::Findings(page.curriculum_findings, "No finding."));
  if (!page.curriculum_config.is_null())
    m += html::Folded("curriculum_config.json", html::Preformatted(page.curriculum_config.dump(2)));
  return html::Section("The proposed curriculum", m, "curriculum");
}

Markup TimingsBlock(const Json& timings) {
  double total = 0;
  html::Table t{{"stage", "rank 0", "slowest rank"}, {}};
  for (const Json& s : timings) {
    total += s["rank0_seconds"].get<double>();
    t.rows.push_back({Shown(s["stage"]), Seconds(s["rank0_seconds"].get<double>()),
                      Seconds(s["max_seconds"].get<double>())});
  }
  return html::Folded(
      "the timings: " + Seconds(total) +
          " over the stages (rank 0; the report and commit not counted)",
      html::Chart(TimingsSvg(timings), "Time per stage: rank 0 and the slowest rank.") +
          html::TableOf(t));
}

Markup MemoryOf(const Json& summary) {
  html::Table ranks{{"rank", "peak resident (RSS)", "peak anonymous"}, {}};
  const Json& rss = summary["peak_rss_bytes"];
  const Json& anon = summary["peak_anon_bytes"];
  for (size_t r = 0; r < rss.size(); ++r)
    ranks.rows.push_back({std::to_string(r), Bytes(rss[r].get<uint64_t>()),
                          r < anon.size() ? Bytes(anon[r].get<uint64_t>()) : ""});
  Markup m = html::TableOf(ranks);
  if (!summary.contains("memory"))
    return m += html::Paragraph("memory plan: in memory (no memory.limit_per_rank)");
  return m += html::JsonFacts(summary["memory"], "memory plan: ");
}

// The run, last: its dataset's keys, how it ran, and folded its timings and
// config.
Markup RunSection(const Json& s) {
  const Json& config = s["config"];
  Rows rows;
  const Json dataset = config.value("dataset", Json::object());
  for (const auto& [key, value] : dataset.items()) rows.push_back({"dataset " + key, Shown(value)});
  if (s.contains("merged_from"))
    for (const Json& input : s["merged_from"]) rows.push_back({"merged from", Shown(input)});
  rows.push_back({"config hash", Shown(s["config_hash"])});
  rows.push_back({"tool version", Shown(s["tool_version"])});
  if (s.contains("files")) rows.push_back({"chosen outputs (output.files)", Shown(s["files"])});
  Markup m = Facts(rows);
  m += TimingsBlock(s["timings"]);
  m += html::Block("peak memory per rank", MemoryOf(s));
  m += html::Folded("the full config (defaults filled in)", html::Preformatted(config.dump(2)));
  return html::Section("The run", m, "run");
}

}  // namespace

std::string RunPageHtml(const RunPage& page) {
  const Json& s = page.summary;
  Markup body = SummaryBox(page);
  Markup metrics;
  size_t index = 0;
  for (const auto& [name, entry] : s["metrics"].items())
    metrics += MetricBlock(name, entry, index++, page);
  body += html::Section("The metrics", metrics, "metrics");
  if (s.contains("spearman")) body += WhichMetricSection(s["spearman"]);
  body += CurriculumSection(page);
  body += RunSection(s);
  return html::Document("dsanalyze analysis: " + page.save_path,
                        std::string(s.contains("merged_from") ? "a merge" : "a run") +
                            " of dsanalyze " + Shown(s["tool_version"]) + ", " +
                            std::to_string(s["metrics"].size()) + " metric(s)",
                        body);
}

}  // namespace dsanalyze
