// `dsanalyze compare A B [--strict]`: compares two outputs by content
// (check/compare.h). Exit 0 when equal, 1 when the metric lists or any pair
// differ (with --strict, doc_idx too), 2 when a side is not an analysis folder.
#include "check/compare.h"

#include <cstdio>
#include <string>

#include "check/compare_page.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "output/output_paths.h"
#include "output/save_lock.h"
#include "util/file_util.h"

namespace dsanalyze::cli {
namespace {

void PrintDifference(const char* label, const FileDifference& d) {
  std::printf("%s: %s: %s%s\n", label, d.prefix.c_str(),
              d.row ? ("row " + std::to_string(*d.row) + ": ").c_str() : "", d.message.c_str());
}

}  // namespace

int Compare(const CompareOptions& options) {
  if (!options.html.empty())
    if (Status st = CheckOutputFile("--html", options.html, {options.a, options.b}); !st.ok())
      return ReportFailure(st);
  const Result<std::vector<SaveLock>> reading = LockForReading({options.a, options.b});
  if (!reading.ok()) return ReportFailure(reading.status());
  Result<CompareReport> report = CompareOutputs(options.a, options.b, options.strict);
  if (!report.ok()) return ReportFailure(report.status());
  if (!options.html.empty())
    if (Status st = WriteFileAtomic(options.html, ComparePageHtml(options.a, options.b, *report));
        !st.ok())
      return ReportFailure(st);
  if (report->samples_differ) std::printf("note: %s\n", report->samples_differ->c_str());
  for (const FileDifference& d : report->different) PrintDifference("different", d);
  for (const FileDifference& d : report->equal_except_doc_idx)
    PrintDifference("equal except doc_idx", d);
  for (const FileDifference& d : report->skipped_by_choice) PrintDifference("skipped by choice", d);
  const std::string skipped =
      report->skipped_by_choice.empty()
          ? ""
          : ", " + std::to_string(report->skipped_by_choice.size()) + " skipped by choice";
  std::printf("compare: A = %s, B = %s: %zu equal, %zu equal except doc_idx, %zu different%s%s\n",
              options.a.c_str(), options.b.c_str(), report->equal.size(),
              report->equal_except_doc_idx.size(), report->different.size(), skipped.c_str(),
              options.strict ? " (strict)" : "");
  return report->same() ? kExitOk : kExitDifferent;
}

}  // namespace dsanalyze::cli
