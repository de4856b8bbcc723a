#include "batching/plan_page.h"

#include "page/html.h"

namespace dsanalyze {

std::string PlanPageHtml(const PlanReport& r, const std::string& out) {
  const nlohmann::ordered_json plan = PlanJson(r);
  html::Markup body = html::Section(
      "The plan",
      html::Facts({{"analysis", html::Shown(plan["analysis"])},
                   {"metric", html::Shown(plan["metric"])},
                   {"samples in the analysis (len(dataset))", html::Shown(plan["dataset_samples"])},
                   {"written to", out}}) +
          html::JsonFacts(plan["counts"], "counts.") +
          html::JsonFacts(plan["padding_efficiency"], "padding_efficiency.") +
          html::JsonFacts(plan["batch_size"], "batch_size.") +
          html::JsonFacts(plan["lr_scale"], "lr_scale."),
      "plan");
  body += html::Section("Parameters", html::JsonFacts(plan["parameters"]), "parameters");
  body += html::Section(
      "Distributions",
      html::Chart(BatchSizeSvg(r), "Samples per batch: how many batches have each size.") +
          html::Chart(MicroBatchTokensSvg(r), "Tokens per micro-batch (padding excluded)."),
      "distributions");
  std::vector<html::Finding> left_out, lr;
  for (const PlanWarning& w : PlanWarnings(r))
    (w.kind == "lr_scale" ? lr : left_out).push_back({"warning", w.kind + ": " + w.message, w.fix});
  body += html::Section(
      "Over training",
      html::Chart(StepsSvg(r),
                  "Samples per batch and LR scale at each optimizer step" +
                      std::string(r.params.epochs > 1 ? ", epoch after epoch." : ".")) +
          html::Findings(lr, "The LR scale stays within x" +
                                 std::to_string(static_cast<int>(kLrSpreadLimit)) +
                                 " of its smallest across batches."),
      "steps");
  body += html::Section("What was left out, and why",
                        html::Findings(left_out, "Nothing was left out: every sample is planned."),
                        "left-out");
  return html::Document("dsanalyze batches: " + out,
                        "DeepSpeed's variable batch size planned from an analysis", body);
}

}  // namespace dsanalyze
