#include "curriculum/curriculum_page.h"

#include "curriculum/curriculum_svg.h"

namespace dsanalyze {
namespace {

using html::Markup;

Markup Setting(const CurriculumReport& r) {
  return html::Facts(
      {{"DeepSpeed config", r.ds_config},
       {"metrics", std::to_string(r.metrics.size()) +
                       (r.legacy ? " (the legacy top-level curriculum_learning)" : "")},
       {"samples (N)", std::to_string(r.samples)},
       {"global batch size", std::to_string(r.global_batch_size)},
       {"training steps", std::to_string(r.train_steps)},
       {"training steps from", std::string(TrainStepsFromName(r.train_steps_from))}});
}

Markup Steps(const CurriculumReport& r) {
  html::Table t{{"step"}, {}};
  for (const CurriculumMetricConfig& m : r.metrics) t.head.push_back(m.name + " difficulty");
  t.head.push_back("new cluster");
  t.head.push_back("eligible");
  for (const ReplayStep& s : r.replay.steps) {
    std::vector<std::string> row = {std::to_string(s.step)};
    for (int64_t d : s.difficulty) row.push_back(std::to_string(d));
    row.push_back(std::to_string(s.cluster.size));
    row.push_back(std::to_string(s.eligible));
    t.rows.push_back(std::move(row));
  }
  return html::TableOf(t);
}

}  // namespace

std::vector<html::Finding> CurriculumFindings(const std::vector<CurriculumWarning>& warnings) {
  std::vector<html::Finding> out;
  for (const WarningGroup& g : GroupWarnings(warnings))
    out.push_back({std::string(SeverityName(SeverityOf(g.kind))), GroupText(g), g.fix});
  return out;
}

std::string CurriculumPageHtml(const CurriculumReport& r) {
  Markup body = html::Section("The replay", Setting(r), "replay");
  body += html::Section("Schedule",
                        html::Chart(CurriculumSvg(r),
                                    "Each metric's difficulty (share of its range) and the "
                                    "eligible pool (share of N) over training steps."),
                        "chart");
  body += html::Section("Steps where a difficulty changes",
                        html::Folded(std::to_string(r.replay.steps.size()) + " step(s)", Steps(r)),
                        "steps");
  body += html::Section(
      "Findings (" + std::to_string(CountSeverity(r.warnings, Severity::kError)) + " error(s), " +
          std::to_string(CountSeverity(r.warnings, Severity::kWarning)) + " warning(s), " +
          std::to_string(CountSeverity(r.warnings, Severity::kNote)) + " note(s))",
      html::Findings(CurriculumFindings(r.warnings), "No finding."), "findings");
  return html::Document("dsanalyze curriculum: " + r.ds_config,
                        "DeepSpeed's curriculum replayed on its analysis", body);
}

}  // namespace dsanalyze
