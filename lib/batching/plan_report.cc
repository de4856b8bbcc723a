#include "batching/plan_report.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>

#include "page/histogram_svg.h"
#include "page/numbers.h"
#include "page/svg.h"

namespace dsanalyze {
namespace {

using nlohmann::ordered_json;
using std::to_string;

// The terminal's share: "22.3%".
std::string OneDecimalShare(uint64_t part, uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", whole ? 100.0 * part / whole : 0.0);
  return text;
}

uint64_t PlannedSamples(const PlanCounts& c) { return c.packed - c.trimmed_samples; }

double Efficiency(unsigned __int128 tokens, double padded) {
  return padded > 0 ? static_cast<double>(tokens) / padded : 1.0;
}

// The token total in decimal, exact.
std::string TokensText(unsigned __int128 tokens) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(tokens % 10)));
    tokens /= 10;
  } while (tokens > 0);
  return digits;
}

// plan.json's token total: an exact integer up to 2^64 - 1 (JSON readers
// hold no more), past that the nearest double.
ordered_json TokensJson(unsigned __int128 tokens) {
  if (tokens <= std::numeric_limits<uint64_t>::max()) return static_cast<uint64_t>(tokens);
  return static_cast<double>(tokens);
}

void AddPackingWarning(const PlanReport& r, std::vector<PlanWarning>* out) {
  const PlanCounts& c = r.counts;
  // DeepSpeed never packs the last sample: one sample left is the rule, not a problem.
  if (c.stopped <= 1 && !c.stopped_by_tokens) return;
  const std::string what = "packing stopped at sample position " + to_string(c.packed) + ": " +
                           to_string(c.stopped) + " samples (" +
                           OneDecimalShare(c.stopped, c.samples_in) +
                           " of the data) are never trained on";
  if (c.stopped_by_tokens)
    out->push_back({"packing_stopped", what + ": min_batch_size samples there exceed max_tokens",
                    "raise max_tokens or lower min_batch_size"});
  else
    out->push_back(
        {"packing_stopped",
         what + ": too few remain for one more batch (DeepSpeed never packs the last "
                "sample)",
         "lower min_batch_size" +
             std::string(r.params.rule.same_size ? " or the effective batch size" : "")});
}

// The LR-scale lint (plan_report.h). A batch's samples are at most the
// analysis's N, so 100 x the smallest batch cannot overflow.
void AddLrScaleWarning(const PlanReport& r, std::vector<PlanWarning>* out) {
  const PlanStats& s = r.stats;
  if (!(s.lr_max > kLrSpreadLimit * s.lr_min)) return;
  const int64_t smallest = s.batch_sizes.begin()->first;
  const int64_t e = r.params.rule.effective_batch_size;
  const int64_t bound = (r.params.lr_scaling == LrScaling::kSqrt ? 100 : 10) * smallest / e;
  const double capped = LrScale(r.params.lr_scaling, static_cast<uint64_t>(bound * e), e);
  out->push_back(
      {"lr_scale",
       "the LR scale spans x" + Significant(s.lr_min) + " to x" + Significant(s.lr_max) + " (" +
           std::string(LrScalingName(r.params.lr_scaling)) + " scaling, batches of " +
           to_string(smallest) + " to " + to_string(s.batch_sizes.rbegin()->first) +
           " samples): the largest batches train at " + Significant(s.lr_max / s.lr_min) +
           " times the learning rate of the smallest, and DeepSpeed says nothing",
       "max_batch_size " + to_string(bound) + " (--max-batch-size " + to_string(bound) +
           ") caps a batch at " + to_string(bound * e) + " samples and the LR scale at x" +
           Significant(capped) + ", " + Significant(kLrSpreadLimit) +
           " times this plan's smallest"});
}

ordered_json Parameters(const PlanReport& r) {
  const BatchParams& p = r.params;
  const auto entry = [&](const std::string& key, ordered_json value) {
    return ordered_json{{"value", std::move(value)}, {"from", p.from.at(key)}};
  };
  ordered_json j;
  j["max_tokens"] = entry("max_tokens", p.rule.max_tokens);
  j["effective_batch_size"] = entry("effective_batch_size", p.rule.effective_batch_size);
  j["min_batch_size"] = entry("min_batch_size", p.rule.min_batch_size);
  j["max_batch_size"] =
      entry("max_batch_size", p.rule.max_batch_size > 0 ? ordered_json(p.rule.max_batch_size)
                                                        : ordered_json(nullptr));
  j["sequence_picking_order"] = entry("sequence_picking_order", PickingOrderName(p.order));
  j["seed"] = entry("seed", p.seed);
  j["lr_scaling_method"] = entry("lr_scaling_method", LrScalingName(p.lr_scaling));
  j["epochs"] = entry("epochs", p.epochs);
  j["same_size_microbatches"] = p.rule.same_size;
  j["sample_ids"] = r.sample_ids.empty() ? ordered_json(nullptr) : ordered_json(r.sample_ids);
  return j;
}

ordered_json Counts(const PlanCounts& c) {
  return {{"samples_in", c.samples_in},
          {"too_long", c.too_long},
          {"packing_stopped_at", c.packed},
          {"left_where_packing_stopped", c.stopped},
          {"trimmed_microbatches", c.trimmed_micro},
          {"trimmed_samples", c.trimmed_samples},
          {"samples", PlannedSamples(c)},
          {"microbatches", c.microbatches},
          {"batches", c.batches},
          {"tokens", TokensJson(c.tokens)}};
}

// The histogram of `counts` (value -> count) as HistogramSvg draws it.
std::string Chart(const std::string& title, const std::map<int64_t, uint64_t>& counts,
                  const std::string& axis_title, const std::string& counted,
                  bool log_from_a_decade = false) {
  ValueAxis axis = IntegerAxis(title);
  axis.title = axis_title;
  axis.counted = counted;
  axis.log_from_a_decade = log_from_a_decade;
  return HistogramSvg(title, Counted(counts), axis);
}

}  // namespace

CountedValues Counted(const std::map<int64_t, uint64_t>& counts) {
  CountedValues d;
  for (const auto& [v, n] : counts) {
    d.values.push_back(v);
    d.counts.push_back(n);
    d.samples += n;
  }
  return d;
}

void PlanStats::Add(const PlannedBatch& batch, double lr_scale) {
  ++batch_sizes[static_cast<int64_t>(batch.samples)];
  for (const MicroBatch& m : batch.micro) {
    ++micro_tokens[m.tokens];
    padded_micro += static_cast<double>(m.samples) * static_cast<double>(m.longest);
  }
  padded_batch += static_cast<double>(batch.samples) * static_cast<double>(batch.longest);
  lr_min = batches == 0 ? lr_scale : std::min(lr_min, lr_scale);
  lr_max = batches == 0 ? lr_scale : std::max(lr_max, lr_scale);
  ++batches;
  steps.Add(static_cast<int64_t>(batch.samples), lr_scale);
}

std::vector<PlanWarning> PlanWarnings(const PlanReport& r) {
  const PlanCounts& c = r.counts;
  std::vector<PlanWarning> out;
  if (c.too_long > 0)
    out.push_back({"too_long",
                   to_string(c.too_long) + " samples (" +
                       OneDecimalShare(c.too_long, c.samples_in) + ") are longer than max_tokens " +
                       to_string(r.params.rule.max_tokens) + " and left out (the longest has " +
                       to_string(c.longest_left_out) + ")",
                   "raise max_tokens to " + to_string(c.longest_left_out) + " to keep them"});
  AddPackingWarning(r, &out);
  if (c.trimmed_samples > 0)
    out.push_back({"trimmed",
                   "the last " + to_string(c.trimmed_micro) + " micro-batches (" +
                       to_string(c.trimmed_samples) + " samples) do not fill a batch of " +
                       to_string(r.params.rule.effective_batch_size) + " and are trimmed",
                   "none needed for a long run; a smaller effective batch size trims fewer"});
  AddLrScaleWarning(r, &out);
  return out;
}

ordered_json PlanJson(const PlanReport& r) {
  const PlanStats& s = r.stats;
  ordered_json j;
  j["analysis"] = r.params.analysis;
  j["metric"] = r.metric;
  j["dataset_samples"] = r.dataset_samples;
  j["parameters"] = Parameters(r);
  j["counts"] = Counts(r.counts);
  j["padding_efficiency"] = {{"microbatch", Efficiency(r.counts.tokens, s.padded_micro)},
                             {"batch", Efficiency(r.counts.tokens, s.padded_batch)}};
  j["batch_size"] = {{"min", s.batch_sizes.begin()->first}, {"max", s.batch_sizes.rbegin()->first}};
  j["lr_scale"] = {{"min", s.lr_min}, {"max", s.lr_max}};
  ordered_json warnings = ordered_json::array();
  for (const PlanWarning& w : PlanWarnings(r))
    warnings.push_back({{"kind", w.kind}, {"message", w.message}, {"fix", w.fix}});
  j["warnings"] = std::move(warnings);
  return j;
}

std::string PlanSummary(const PlanReport& r, const std::string& out) {
  const PlanCounts& c = r.counts;
  const PlanStats& s = r.stats;
  char line[512];
  std::string text;
  std::snprintf(line, sizeof line,
                "batches: wrote %s: %llu batches of %lld micro-batches, %llu of %llu samples, "
                "%s tokens\n",
                out.c_str(), static_cast<unsigned long long>(c.batches),
                static_cast<long long>(r.params.rule.effective_batch_size),
                static_cast<unsigned long long>(PlannedSamples(c)),
                static_cast<unsigned long long>(c.samples_in), TokensText(c.tokens).c_str());
  text += line;
  std::snprintf(line, sizeof line,
                "  order %s, max_tokens %lld; batch size %lld..%lld, LR scale %.4g..%.4g (%s)\n",
                std::string(PickingOrderName(r.params.order)).c_str(),
                static_cast<long long>(r.params.rule.max_tokens),
                static_cast<long long>(s.batch_sizes.begin()->first),
                static_cast<long long>(s.batch_sizes.rbegin()->first), s.lr_min, s.lr_max,
                std::string(LrScalingName(r.params.lr_scaling)).c_str());
  text += line;
  std::snprintf(
      line, sizeof line,
      "  padding efficiency %.1f%% per micro-batch, %.1f%% per batch; left out: %llu "
      "too long, %llu where packing stopped, %llu trimmed\n",
      100 * Efficiency(c.tokens, s.padded_micro), 100 * Efficiency(c.tokens, s.padded_batch),
      static_cast<unsigned long long>(c.too_long), static_cast<unsigned long long>(c.stopped),
      static_cast<unsigned long long>(c.trimmed_samples));
  text += line;
  if (r.params.epochs > 1) {
    std::snprintf(line, sizeof line,
                  "  %lld epochs: epoch 1 as DeepSpeed plans it, each later epoch e its batches "
                  "reshuffled by random.Random(seed + e - 1); %llu batches in all\n",
                  static_cast<long long>(r.params.epochs),
                  static_cast<unsigned long long>(s.steps.steps()));
    text += line;
  }
  for (const PlanWarning& w : PlanWarnings(r))
    text += "warning: " + w.kind + ": " + w.message + "; fix: " + w.fix + "\n";
  return text;
}

std::string BatchSizeSvg(const PlanReport& r) {
  // Sizes are read by ratio (8 against 16, not against 366): a log axis from a decade.
  return Chart("batch sizes", r.stats.batch_sizes, "samples per batch", "batches", true);
}

std::string MicroBatchTokensSvg(const PlanReport& r) {
  return Chart("tokens per micro-batch", r.stats.micro_tokens, "tokens (padding excluded)",
               "micro-batches");
}

std::string StepsSvg(const PlanReport& r) {
  return StepsSvg(StepsChart{r.stats.steps, r.params.epochs > 1 ? r.counts.batches : 0,
                             std::string(LrScalingName(r.params.lr_scaling))});
}

std::string PlanSvg(const PlanReport& r) {
  // Standalone charts stacked in one document: drop their XML declarations
  // and move each one below the previous.
  const std::string charts[] = {BatchSizeSvg(r), MicroBatchTokensSvg(r), StepsSvg(r)};
  std::string body;
  for (size_t i = 0; i < std::size(charts); ++i) {
    std::string chart = charts[i].substr(charts[i].find("<svg"));
    if (i > 0) chart.insert(4, " y=\"" + svg::Px(static_cast<double>(i) * svg::kHeight) + "\"");
    body += chart;
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         svg::Px(svg::kWidth) + "\" height=\"" + svg::Px(std::size(charts) * svg::kHeight) +
         "\">\n" + body + "</svg>\n";
}

}  // namespace dsanalyze
