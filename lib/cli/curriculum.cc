// `dsanalyze curriculum --analysis OUT [...]`: DeepSpeed's curriculum replayed
// on an analysis (curriculum/curriculum_check.h). Prints the steps where a
// difficulty changes and one line per kind of finding (curriculum/
// warning_kinds.h); --json and --svg write files, `--json -` writes the JSON
// to stdout instead of the table. Exit 0 without errors, 1 with errors (or
// with warnings under --strict), 2 for bad input, 3 for I/O failures.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "curriculum/curriculum_check.h"
#include "curriculum/curriculum_page.h"
#include "curriculum/curriculum_svg.h"
#include "output/output_paths.h"
#include "output/save_lock.h"
#include "util/file_util.h"

namespace dsanalyze::cli {
namespace {

constexpr std::string_view kStdout = "-";

std::string StepsSource(const CurriculumReport& r) {
  if (r.train_steps_from == TrainStepsFrom::kScheduleEnd)
    return " (largest total_curriculum_step; --train-steps to change)";
  return " (" + std::string(TrainStepsFromName(r.train_steps_from)) + ")";
}

void PrintTable(const CurriculumReport& r) {
  std::printf("curriculum: %s: %zu metric(s)%s, %llu samples, global batch %lld, %lld steps%s\n",
              r.ds_config.c_str(), r.metrics.size(),
              r.legacy ? " (the legacy top-level curriculum_learning)" : "",
              static_cast<unsigned long long>(r.samples),
              static_cast<long long>(r.global_batch_size), static_cast<long long>(r.train_steps),
              StepsSource(r).c_str());
  std::vector<int> widths = {10};
  std::string head = "      step";
  for (const CurriculumMetricConfig& m : r.metrics) {
    widths.push_back(std::max<int>(10, static_cast<int>(m.name.size())));
    head += "  " + std::string(widths.back() - m.name.size(), ' ') + m.name;
  }
  std::printf("%s  new_cluster    eligible\n", head.c_str());
  for (const ReplayStep& s : r.replay.steps) {
    std::printf("%10lld", static_cast<long long>(s.step));
    for (size_t m = 0; m < r.metrics.size(); ++m)
      std::printf("  %*lld", widths[m + 1], static_cast<long long>(s.difficulty[m]));
    std::printf("  %11llu  %10llu\n", static_cast<unsigned long long>(s.cluster.size),
                static_cast<unsigned long long>(s.eligible));
  }
}

// One line per kind and metric: "SEVERITY: " and its GroupText, then its fix.
void PrintFindings(const CurriculumReport& r) {
  for (const WarningGroup& g : GroupWarnings(r.warnings))
    std::printf("%s: %s; fix: %s\n", std::string(SeverityName(SeverityOf(g.kind))).c_str(),
                GroupText(g).c_str(), g.fix.c_str());
  std::printf("curriculum: %zu error(s), %zu warning(s), %zu note(s)\n",
              CountSeverity(r.warnings, Severity::kError),
              CountSeverity(r.warnings, Severity::kWarning),
              CountSeverity(r.warnings, Severity::kNote));
}

// Bad output paths, and those inside an analysis or an input (output/
// output_paths.h), are refused before any work, as `order --out` is.
Status CheckOutputs(const CurriculumOptions& o) {
  const std::vector<std::string> inputs = {o.analysis, o.ds_config};
  for (const auto& [flag, path] : {std::pair{"--svg", &o.svg}, std::pair{"--html", &o.html}})
    if (!path->empty()) DSA_RETURN_IF_ERROR(CheckOutputFile(flag, *path, inputs));
  if (!o.json.empty() && o.json != kStdout)
    DSA_RETURN_IF_ERROR(CheckOutputFile("--json", o.json, inputs));
  return Status::OK();
}

Status WriteOutputs(const CurriculumOptions& o, const CurriculumReport& r) {
  if (!o.json.empty() && o.json != kStdout)
    DSA_RETURN_IF_ERROR(WriteFileAtomic(o.json, CurriculumReportJson(r).dump(2) + "\n"));
  if (!o.svg.empty()) DSA_RETURN_IF_ERROR(WriteFileAtomic(o.svg, CurriculumSvg(r)));
  if (!o.html.empty()) DSA_RETURN_IF_ERROR(WriteFileAtomic(o.html, CurriculumPageHtml(r)));
  return Status::OK();
}

}  // namespace

int Curriculum(const CurriculumOptions& options) {
  CurriculumRequest request{options.analysis, options.ds_config, std::nullopt,
                            options.data_parallel_size, std::nullopt};
  if (options.global_batch_size > 0) request.global_batch_size = options.global_batch_size;
  if (options.train_steps > 0) request.train_steps = options.train_steps;
  Status status = CheckOutputs(options);
  const Result<std::vector<SaveLock>> reading =
      status.ok() ? LockForReading({options.analysis}) : status;
  status = reading.status();
  Result<CurriculumReport> report = status.ok() ? CheckCurriculum(request) : status;
  if (status.ok()) status = report.status();
  if (status.ok()) status = WriteOutputs(options, *report);
  if (!status.ok()) return ReportFailure(status);
  if (options.json == kStdout) {
    std::printf("%s\n", CurriculumReportJson(*report).dump(2).c_str());
  } else {
    PrintTable(*report);
    PrintFindings(*report);
  }
  const bool failed = CountSeverity(report->warnings, Severity::kError) > 0 ||
                      (options.strict && CountSeverity(report->warnings, Severity::kWarning) > 0);
  return failed ? kExitDifferent : kExitOk;
}

}  // namespace dsanalyze::cli
