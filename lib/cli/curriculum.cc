// `dsanalyze curriculum --analysis OUT [...]`: DeepSpeed's curriculum replayed
// on an analysis (curriculum/curriculum_check.h). Prints the steps where a
// difficulty changes and the warnings; --json and --svg write files. Exit 0
// without warnings, 1 with warnings, 2 for bad input.
#include <algorithm>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "curriculum/curriculum_check.h"
#include "curriculum/curriculum_svg.h"
#include "util/file_util.h"

namespace dsanalyze::cli {
namespace {

void PrintTable(const CurriculumReport& r) {
  std::printf("curriculum: %s: %zu metric(s), %llu samples, global batch %lld, %lld steps\n",
              r.ds_config.c_str(), r.metrics.size(), static_cast<unsigned long long>(r.samples),
              static_cast<long long>(r.global_batch_size), static_cast<long long>(r.train_steps));
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

void PrintWarnings(const CurriculumReport& r) {
  for (const CurriculumWarning& w : r.warnings)
    std::printf("warning: step %lld: %s: %s; fix: %s\n", static_cast<long long>(w.step),
                w.kind.c_str(), w.message.c_str(), w.fix.c_str());
  if (r.warnings.empty())
    std::printf("curriculum: no warnings\n");
  else
    std::printf("curriculum: %zu warning(s)\n", r.warnings.size());
}

Status WriteOutputs(const CurriculumOptions& o, const CurriculumReport& r) {
  if (!o.json.empty())
    DSA_RETURN_IF_ERROR(WriteFileAtomic(o.json, CurriculumReportJson(r).dump(2) + "\n"));
  if (!o.svg.empty()) DSA_RETURN_IF_ERROR(WriteFileAtomic(o.svg, CurriculumSvg(r)));
  return Status::OK();
}

}  // namespace

int Curriculum(const CurriculumOptions& options) {
  CurriculumRequest request{options.analysis, options.ds_config, std::nullopt,
                            options.data_parallel_size, std::nullopt};
  if (options.global_batch_size > 0) request.global_batch_size = options.global_batch_size;
  if (options.train_steps > 0) request.train_steps = options.train_steps;
  Result<CurriculumReport> report = CheckCurriculum(request);
  Status status = report.status();
  if (status.ok()) status = WriteOutputs(options, *report);
  if (!status.ok()) {
    std::fprintf(stderr, "dsanalyze: error: %s\n", status.message().c_str());
    return status.exit_code();
  }
  PrintTable(*report);
  PrintWarnings(*report);
  return report->warnings.empty() ? kExitOk : kExitDifferent;
}

}  // namespace dsanalyze::cli
