#include "batching/plan_page.h"

#include <limits>

#include "page/histogram_svg.h"
#include "page/html.h"
#include "page/numbers.h"

namespace dsanalyze {
namespace {

using html::Markup;
using Rows = std::vector<std::array<std::string, 2>>;

// A token total (up to 2^128) for people: exact up to 2^64 - 1, then 4 digits.
std::string TokensShown(unsigned __int128 tokens) {
  if (tokens <= std::numeric_limits<uint64_t>::max()) return Count(static_cast<uint64_t>(tokens));
  return Significant(static_cast<double>(tokens));
}

// An LR scale: "x1.414". Appends, not `literal + temporary`: the latter
// trips GCC 12's -Wrestrict false positive (GCC bug 105329).
std::string Times(double scale) {
  std::string s = "x";
  s += Significant(scale);
  return s;
}

std::string SamplesText(uint64_t n) { return Count(n) + (n == 1 ? " sample" : " samples"); }

// The verdict: how much of the data the plan trains on, and how many warnings.
std::string VerdictSentence(const PlanReport& r, uint64_t planned, size_t warnings) {
  const PlanCounts& c = r.counts;
  const double share = c.samples_in ? static_cast<double>(planned) / c.samples_in : 1.0;
  return "Planned " + Count(c.batches) + " batches (" + Count(c.microbatches) +
         " micro-batches) from " + Percent(share, 3) + " of the samples: " + Count(planned) +
         " of " + SamplesText(c.samples_in) + ", " + TokensShown(c.tokens) + " tokens. " +
         (warnings == 0 ? "No warning."
                        : Count(static_cast<uint64_t>(warnings)) +
                              (warnings == 1 ? " warning" : " warnings") + ", each with its fix:");
}

// One line per distribution: range, median, the exact percentiles.
Rows AtAGlance(const PlanReport& r, const nlohmann::ordered_json& plan) {
  const PlanStats& s = r.stats;
  const CountedValues sizes = Counted(s.batch_sizes), tokens = Counted(s.micro_tokens);
  const auto p = [](const CountedValues& d, int q) { return Count(NearestRankPercentile(d, q)); };
  return {
      {"analysis",
       r.params.analysis + " (metric " + r.metric + ", " + SamplesText(r.dataset_samples) + ")"},
      {"batch size", p(sizes, 0) + " .. " + p(sizes, 100) + " samples, median " + p(sizes, 50) +
                         ", " + Count(static_cast<uint64_t>(sizes.values.size())) + " distinct"},
      {"tokens per micro-batch",
       "p10 " + p(tokens, 10) + ", median " + p(tokens, 50) + ", p90 " + p(tokens, 90) +
           " tokens; " + Count(static_cast<uint64_t>(tokens.values.size())) + " distinct values"},
      {"padding efficiency",
       Percent(plan["padding_efficiency"]["microbatch"].get<double>(), 3) + " per micro-batch, " +
           Percent(plan["padding_efficiency"]["batch"].get<double>(), 3) + " per batch"},
      {"LR scale", Times(s.lr_min) + " .. " + Times(s.lr_max) + " (" +
                       std::string(LrScalingName(r.params.lr_scaling)) + " scaling)"}};
}

Markup PageSummary(const PlanReport& r, const nlohmann::ordered_json& plan,
                   const std::string& out) {
  std::vector<html::Finding> findings;
  for (const PlanWarning& w : PlanWarnings(r))
    findings.push_back({"warning", w.kind + ": " + w.message, w.fix});
  const uint64_t planned = plan["counts"]["samples"].get<uint64_t>();
  Rows rows = AtAGlance(r, plan);
  rows.push_back({"written to", out});
  return html::Section("Summary",
                       html::Paragraph(VerdictSentence(r, planned, findings.size())) +
                           (findings.empty() ? Markup{} : html::Findings(findings, "")) +
                           html::Facts(rows),
                       "summary");
}

// Each parameter in one row: what it is (its DeepSpeed key), its value and
// where it came from.
Markup ParameterTable(const PlanReport& r) {
  const BatchParams& p = r.params;
  const auto row = [&](const std::string& what, const std::string& key, std::string value) {
    return std::vector<std::string>{what + " (" + key + ")", std::move(value), p.from.at(key)};
  };
  const int64_t max_batch = p.rule.max_batch_size;
  html::Table t{{"parameter", "value", "from"}, {}};
  t.rows = {
      row("tokens a micro-batch holds at most", "max_tokens", Count(p.rule.max_tokens) + " tokens"),
      row("micro-batches a batch", "effective_batch_size", Count(p.rule.effective_batch_size)),
      row("samples a micro-batch holds at least", "min_batch_size",
          SamplesText(static_cast<uint64_t>(p.rule.min_batch_size))),
      row("samples a micro-batch holds at most", "max_batch_size",
          max_batch > 0 ? SamplesText(static_cast<uint64_t>(max_batch)) : "no limit"),
      row("order samples are picked in", "sequence_picking_order",
          std::string(PickingOrderName(p.order))),
      row("random seed", "seed", std::to_string(p.seed)),
      row("how the LR follows the batch size", "lr_scaling_method",
          std::string(LrScalingName(p.lr_scaling))),
      row("epochs planned", "epochs", Count(p.epochs)),
      {"micro-batches of one size in a batch (same_size_microbatches)",
       p.rule.same_size ? "yes" : "no", p.rule.same_size ? "--same-size-microbatches" : "default"},
      {"samples planned from", r.sample_ids.empty() ? "all samples" : r.sample_ids,
       r.sample_ids.empty() ? "default" : "--sample-ids"}};
  return html::TableOf(t);
}

// plan.json's counts, labelled as the terminal words them.
Markup CountsOf(const PlanCounts& c, uint64_t planned) {
  return html::Facts(
      {{"samples in", SamplesText(c.samples_in)},
       {"left out: longer than max_tokens", SamplesText(c.too_long)},
       {"packing stopped at sample position", Count(c.packed)},
       {"left out: where packing stopped", SamplesText(c.stopped)},
       {"left out: trimmed (the last, partial batch)",
        SamplesText(c.trimmed_samples) + " in " + Count(c.trimmed_micro) + " micro-batches"},
       {"samples planned", SamplesText(planned)},
       {"micro-batches", Count(c.microbatches)},
       {"batches", Count(c.batches)},
       {"tokens (padding excluded)", TokensShown(c.tokens)}});
}

}  // namespace

std::string PlanPageHtml(const PlanReport& r, const std::string& out) {
  const nlohmann::ordered_json plan = PlanJson(r);
  Markup body = PageSummary(r, plan, out);
  body += html::Section(
      "Distributions",
      html::Chart(BatchSizeSvg(r), "Samples per batch: how many batches have each size.") +
          html::Chart(MicroBatchTokensSvg(r),
                      "Tokens per micro-batch (padding excluded), from the exact values."),
      "distributions");
  body += html::Section(
      "Over training",
      html::Chart(StepsSvg(r), "Samples per batch and LR scale at each optimizer step" +
                                   std::string(r.params.epochs > 1 ? ", epoch after epoch." : ".")),
      "steps");
  body += html::Section("Parameters", ParameterTable(r), "parameters");
  body += html::Section("Counts", CountsOf(r.counts, plan["counts"]["samples"].get<uint64_t>()),
                        "counts");
  return html::Document("dsanalyze batches: " + out,
                        "DeepSpeed's variable batch size planned from an analysis", body);
}

}  // namespace dsanalyze
