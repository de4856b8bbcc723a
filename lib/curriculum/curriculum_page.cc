#include "curriculum/curriculum_page.h"

#include <algorithm>

#include "curriculum/curriculum_svg.h"
#include "page/numbers.h"

namespace dsanalyze {
namespace {

using html::Markup;

Markup SettingFacts(const CurriculumReport& r) {
  std::string names;
  for (const CurriculumMetricConfig& m : r.metrics) names += (names.empty() ? "" : ", ") + m.name;
  return html::Facts(
      {{"DeepSpeed config", r.ds_config},
       {"metrics", names + (r.legacy ? " (the legacy top-level curriculum_learning)" : "")},
       {"samples (N)", Count(r.samples)},
       {"global batch size",
        r.global_batch_size > 0 ? Count(r.global_batch_size) + " samples" : "not given"},
       {"training steps", Count(r.train_steps) + " (from " +
                              std::string(TrainStepsFromName(r.train_steps_from)) + ")"}});
}

// The verdict in one sentence, by the worst severity found.
std::string VerdictSentence(const CurriculumReport& r) {
  const size_t errors = CountSeverity(r.warnings, Severity::kError),
               warnings = CountSeverity(r.warnings, Severity::kWarning),
               notes = CountSeverity(r.warnings, Severity::kNote);
  const std::string counts = Count(static_cast<uint64_t>(errors)) + " error(s), " +
                             Count(static_cast<uint64_t>(warnings)) + " warning(s), " +
                             Count(static_cast<uint64_t>(notes)) + " note(s)";
  if (errors > 0) return "The curriculum cannot train as configured: " + counts + ".";
  if (warnings > 0) return "The curriculum trains, but not as intended: " + counts + ".";
  return "The curriculum trains as configured: " + counts + ".";
}

// A schedule that ends at DeepSpeed's example step: the placeholder a run
// writes when it is not told the training length.
std::vector<html::Finding> PlaceholderFindings(const CurriculumReport& r) {
  std::vector<html::Finding> out;
  for (const CurriculumMetricConfig& m : r.metrics)
    if (m.schedule.type != ScheduleType::kFixedDiscrete &&
        m.schedule.total_curriculum_step == kPlaceholderCurriculumStep)
      out.push_back({"warning",
                     "placeholder: " + m.name + "'s total_curriculum_step is " +
                         Count(kPlaceholderCurriculumStep) +
                         ", DeepSpeed's example value, which a run writes as a placeholder when "
                         "it is not given output.total_curriculum_step: the difficulty reaches "
                         "its maximum at step " +
                         Count(kPlaceholderCurriculumStep) + " whatever the training length",
                     "set total_curriculum_step to the step at which the curriculum should "
                     "reach full difficulty (this replay trains " +
                         Count(r.train_steps) + " steps)"});
  return out;
}

// Per metric one line: its schedule, its range and where the replay leaves it.
Markup MetricLines(const CurriculumReport& r) {
  html::Table t{{"metric", "schedule", "difficulty", "at the last step"}, {}};
  for (size_t m = 0; m < r.metrics.size(); ++m) {
    const Schedule& s = r.metrics[m].schedule;
    const std::string last = r.replay.steps.empty() ? "not replayed"
                                                    : Count(r.replay.steps.back().difficulty[m]) +
                                                          " of " + Count(s.max_difficulty);
    t.rows.push_back(
        {r.metrics[m].name,
         std::string(ScheduleTypeName(s.type)) + ", full at step " + Count(ScheduleEnd(s)),
         Count(s.min_difficulty) + " .. " + Count(s.max_difficulty), last});
  }
  return html::TableOf(t);
}

Markup PageSummary(const CurriculumReport& r) {
  std::vector<html::Finding> findings = PlaceholderFindings(r);
  for (html::Finding& f : CurriculumFindings(r.warnings)) findings.push_back(std::move(f));
  const std::string pool =
      r.replay.steps.empty()
          ? std::string()
          : " After the last step " + Count(r.replay.covered) + " of " + Count(r.samples) +
                " samples (" +
                Percent(static_cast<double>(r.replay.covered) /
                            static_cast<double>(std::max<uint64_t>(r.samples, 1)),
                        3) +
                ") have been eligible.";
  return html::Section("Summary",
                       html::Paragraph(VerdictSentence(r) + pool) +
                           html::Findings(findings, "No finding.") + SettingFacts(r) +
                           MetricLines(r),
                       "summary");
}

Markup StepsTable(const CurriculumReport& r) {
  html::Table t{{"step"}, {}};
  for (const CurriculumMetricConfig& m : r.metrics) t.head.push_back(m.name + " difficulty");
  t.head.push_back("new cluster");
  t.head.push_back("eligible");
  for (const ReplayStep& s : r.replay.steps) {
    std::vector<std::string> row = {Count(s.step)};
    for (int64_t d : s.difficulty) row.push_back(Count(d));
    row.push_back(Count(s.cluster.size));
    row.push_back(Count(s.eligible));
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
  Markup body = PageSummary(r);
  body += html::Section(
      "Schedule",
      html::Chart(CurriculumSvg(r),
                  "Above, each metric's difficulty (share of its range); below, the eligible "
                  "pool in samples and the global batch size (dashed); shaded, the steps with "
                  "an error."),
      "chart");
  body += html::Section(
      "Steps where a difficulty changes",
      html::Folded(Count(static_cast<uint64_t>(r.replay.steps.size())) + " step(s)", StepsTable(r)),
      "steps");
  return html::Document("dsanalyze curriculum: " + r.ds_config,
                        "DeepSpeed's curriculum replayed on its analysis", body);
}

}  // namespace dsanalyze
