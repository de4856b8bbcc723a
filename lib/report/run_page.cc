#include "report/run_page.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "config/byte_size.h"
#include "report/chart_svg.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;
using html::Facts;
using html::Markup;

using html::Shown;

std::string Bytes(const Json& j) {
  return j.dump() + " (" + FormatByteSizeRounded(j.get<uint64_t>()) + ")";
}

// The dataset, as its config describes it: the type first, then each key
// (files, sizes; a blend's components as the config lists them).
std::vector<std::array<std::string, 2>> DatasetFacts(const Json& dataset, const Json& metrics) {
  std::vector<std::array<std::string, 2>> rows = {
      {"dataset type", Shown(dataset.value("type", Json("")))}};
  for (const auto& [key, value] : dataset.items())
    if (key != "type") rows.push_back({"dataset." + key, Shown(value)});
  for (const auto& [name, m] : metrics.items())
    if (m.contains("samples")) {
      rows.push_back({"samples (N)", Shown(m["samples"])});
      break;
    }
  return rows;
}

std::string StagesTotal(const Json& timings) {
  double total = 0;
  for (const Json& t : timings) total += t["rank0_seconds"].get<double>();
  char text[32];
  std::snprintf(text, sizeof text, "%.3f s", total);
  return text;
}

// The timings as summary.json records them, under their chart.
Markup TimingsTable(const Json& timings) {
  html::Table t{{"stage", "rank 0 seconds", "slowest rank seconds"}, {}};
  for (const Json& s : timings)
    t.rows.push_back({Shown(s["stage"]), Shown(s["rank0_seconds"]), Shown(s["max_seconds"])});
  return html::Folded("the timings in seconds", html::TableOf(t));
}

Markup MemoryOf(const Json& summary) {
  html::Table ranks{{"rank", "peak resident (RSS) bytes", "peak anonymous bytes"}, {}};
  const Json& rss = summary["peak_rss_bytes"];
  const Json& anon = summary["peak_anon_bytes"];
  for (size_t r = 0; r < rss.size(); ++r)
    ranks.rows.push_back({std::to_string(r), Bytes(rss[r]), r < anon.size() ? Bytes(anon[r]) : ""});
  Markup m = html::TableOf(ranks);
  if (!summary.contains("memory"))
    return m += html::Paragraph("memory plan: in memory (no memory.limit_per_rank)");
  return m += html::JsonFacts(summary["memory"], "memory.");
}

Markup RunSection(const Json& s) {
  const Json& config = s["config"];
  std::vector<std::array<std::string, 2>> rows =
      DatasetFacts(config.value("dataset", Json::object()), s["metrics"]);
  rows.push_back({"ranks x threads", Shown(s["ranks"]) + " x " + Shown(s["threads"])});
  rows.push_back({"wall time of the stages (rank 0, report and commit not counted)",
                  StagesTotal(s["timings"])});
  if (s.contains("merged_from"))
    for (const Json& input : s["merged_from"]) rows.push_back({"merged from", Shown(input)});
  rows.push_back({"config hash", Shown(s["config_hash"])});
  rows.push_back({"tool version", Shown(s["tool_version"])});
  if (s.contains("files")) rows.push_back({"chosen outputs (output.files)", Shown(s["files"])});
  Markup m = Facts(rows);
  m += html::Chart(TimingsSvg(s["timings"]), "Time per stage: rank 0 and the slowest rank.");
  m += TimingsTable(s["timings"]);
  m += html::Block("peak memory per rank", MemoryOf(s));
  m += html::Folded("the full config (defaults filled in)", html::Preformatted(config.dump(2)));
  return html::Section("The run", m, "run");
}

Markup PercentileTable(const Json& percentiles, const std::string& what) {
  html::Table t{{"percentile", what}, {}};
  for (const auto& [key, value] : percentiles.items()) t.rows.push_back({key, Shown(value)});
  return html::TableOf(t);
}

Markup ScoreBlock(const Json& score) {
  Json plain = score;
  plain.erase("percentiles");
  plain.erase("bin_scores");
  Markup m = html::JsonFacts(plain, "score.");
  if (score.contains("percentiles"))
    m += html::Folded("score percentiles", PercentileTable(score["percentiles"], "score"));
  if (score.contains("bin_scores")) {
    html::Table bins{{"bin (value)", "lowest score", "highest score"}, {}};
    for (size_t b = 0; b < score["bin_scores"].size(); ++b) {
      const Json& r = score["bin_scores"][b];
      bins.rows.push_back({std::to_string(b), r.is_null() ? "empty" : Shown(r[0]),
                           r.is_null() ? "empty" : Shown(r[1])});
    }
    m += html::Folded("scores of each bin", html::TableOf(bins));
  }
  return html::Block("scores (in the units of the score file)", m);
}

Markup SingleValue(const std::string& name, const Json& e, const RunPage& page) {
  std::vector<std::array<std::string, 2>> rows;
  for (const char* key :
       {"samples", "distinct_values", "min", "max", "mean", "sum", "metric_dtype", "sample_dtype"})
    if (e.contains(key)) rows.push_back({key, Shown(e[key])});
  if (e.contains("percentiles"))
    rows.insert(rows.begin() + 3, {"median (p50)", Shown(e["percentiles"]["p50"])});
  Markup m = Facts(rows);
  if (const auto h = page.histograms.find(name); h != page.histograms.end())
    m += html::Chart(h->second, name + ": samples per value; dashed marks at p10, p50 and p90.");
  if (e.contains("per_component"))
    m += html::Chart(ComponentsSvg(name, e["per_component"]),
                     name +
                         " in each component of the blend, on one axis: does it sort by "
                         "difficulty, or by corpus?");
  if (e.contains("percentiles"))
    m += html::Folded("percentiles p0 ... p100 (nearest rank)",
                      PercentileTable(e["percentiles"], "value"));
  if (e.contains("score")) m += ScoreBlock(e["score"]);
  return m;
}

Markup Vocabulary(const std::string& name, const std::vector<int64_t>& counts) {
  std::vector<int64_t> ids;
  for (size_t t = 0; t < counts.size(); ++t)
    if (counts[t] > 0) ids.push_back(static_cast<int64_t>(t));
  std::stable_sort(ids.begin(), ids.end(),
                   [&](int64_t a, int64_t b) { return counts[a] > counts[b]; });
  std::vector<int64_t> ranked;
  for (int64_t id : ids) ranked.push_back(counts[id]);
  const int64_t total = std::accumulate(ranked.begin(), ranked.end(), int64_t{0});
  Markup m = html::Chart(ZipfSvg(name, ranked),
                         name + ": each token's count against its rank, both on log scales.");
  html::Table top{{"rank", "token id", "count", "share of all tokens"}, {}};
  for (size_t r = 0; r < std::min(kTopTokens, ids.size()); ++r)
    top.rows.push_back(
        {std::to_string(r + 1), std::to_string(ids[r]), std::to_string(ranked[r]),
         Json(100.0 * static_cast<double>(ranked[r]) / static_cast<double>(total)).dump() + "%"});
  return m += html::Folded("the " + std::to_string(top.rows.size()) + " most frequent tokens",
                           html::TableOf(top));
}

Markup MetricBlock(const std::string& name, const Json& e, const RunPage& page) {
  Markup m = html::Paragraph("type: " + Shown(e["type"]));
  if (e.contains("statistics")) m += html::Paragraph(Shown(e["statistics"]));
  if (e.contains("not_mergeable"))
    m += html::Paragraph("not mergeable: " + Shown(e["not_mergeable"]));
  if (e.contains("percentiles") || e.contains("metric_dtype")) m += SingleValue(name, e, page);
  if (e.contains("length")) {
    std::vector<std::array<std::string, 2>> rows;
    for (const char* key : {"length", "sum", "min", "max", "dtype"})
      rows.push_back({key, Shown(e[key])});
    m += Facts(rows);
    if (const auto v = page.vocab_counts.find(name); v != page.vocab_counts.end())
      m += Vocabulary(name, v->second);
  }
  return html::Block(name, m);
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

}  // namespace

std::string RunPageHtml(const RunPage& page) {
  const Json& s = page.summary;
  Markup body = RunSection(s);
  Markup metrics;
  for (const auto& [name, entry] : s["metrics"].items()) metrics += MetricBlock(name, entry, page);
  body += html::Section("The metrics", metrics, "metrics");
  body += CurriculumSection(page);
  body += html::Section("Warnings", html::Findings(page.warnings, "The run gave no warning."),
                        "warnings");
  return html::Document("dsanalyze analysis: " + page.save_path,
                        std::string(s.contains("merged_from") ? "a merge" : "a run") +
                            " of dsanalyze " + Shown(s["tool_version"]) + ", " +
                            std::to_string(s["metrics"].size()) + " metric(s)",
                        body);
}

}  // namespace dsanalyze
