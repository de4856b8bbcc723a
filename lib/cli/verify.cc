// `dsanalyze verify SAVE_PATH [--json]`: checks a finished output (check/verify.h).
// Exit 0 when every invariant holds, 1 when any is violated (including metric
// folders that disagree with summary.json), 2 for a save path that is not an
// analysis folder.
#include "check/verify.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "output/analysis_layout.h"
#include "output/save_lock.h"

namespace dsanalyze::cli {
namespace {

std::string Count(const std::optional<uint64_t>& n) { return n ? std::to_string(*n) : "?"; }

std::string MetricLine(const VerifiedMetric& m) {
  std::string s = m.name + " (" + std::string(MetricTypeName(m.type));
  if (TraitsOf(m.type).per_sample)
    s += ", " + Count(m.samples) + " samples, " + Count(m.distinct_values) + " distinct values)";
  else
    s += ", length " + Count(m.length) + ")";
  return s;
}

nlohmann::ordered_json OptionalJson(const std::optional<uint64_t>& n) {
  return n ? nlohmann::ordered_json(*n) : nlohmann::ordered_json(nullptr);
}

size_t ViolationsOf(const VerifyReport& report, const std::string& metric) {
  size_t n = 0;
  for (const Violation& v : report.violations) n += v.metric == metric;
  return n;
}

void PrintText(const std::string& save_path, const VerifyReport& report) {
  size_t failed = 0;
  for (const VerifiedMetric& m : report.metrics) {
    const size_t n = ViolationsOf(report, m.name);
    failed += n > 0;
    std::printf("%s: %s\n", MetricLine(m).c_str(),
                n == 0 ? "ok" : (std::to_string(n) + " violation(s)").c_str());
    for (const std::string& f : m.skipped)
      std::printf("  skipped by choice (output.files): %s\n", f.c_str());
    for (const Violation& v : report.violations)
      if (v.metric == m.name) std::printf("  FAIL %s\n", FormatViolation(v).c_str());
  }
  if (report.ok())
    std::printf("verify: %s: all invariants hold for %zu metric(s)\n", save_path.c_str(),
                report.metrics.size());
  else
    std::printf("verify: %s: %zu violation(s) in %zu of %zu metric(s)\n", save_path.c_str(),
                report.violations.size(), failed, report.metrics.size());
}

void PrintJson(const std::string& save_path, const VerifyReport& report) {
  nlohmann::ordered_json metrics = nlohmann::ordered_json::array();
  for (const VerifiedMetric& m : report.metrics) {
    nlohmann::ordered_json j = {{"name", m.name}, {"type", std::string(MetricTypeName(m.type))}};
    if (TraitsOf(m.type).per_sample) {
      j["samples"] = OptionalJson(m.samples);
      j["distinct_values"] = OptionalJson(m.distinct_values);
    } else {
      j["length"] = OptionalJson(m.length);
    }
    if (!m.skipped.empty()) j["skipped_by_choice"] = m.skipped;
    j["ok"] = ViolationsOf(report, m.name) == 0;
    metrics.push_back(std::move(j));
  }
  nlohmann::ordered_json violations = nlohmann::ordered_json::array();
  for (const Violation& v : report.violations) {
    violations.push_back({{"metric", v.metric},
                          {"file", v.file},
                          {"row", OptionalJson(v.row)},
                          {"message", v.message}});
  }
  nlohmann::ordered_json doc = {{"save_path", save_path},
                                {"ok", report.ok()},
                                {"metrics", std::move(metrics)},
                                {"violations", std::move(violations)}};
  std::printf("%s\n", doc.dump(2).c_str());
}

}  // namespace

int Verify(const VerifyOptions& options) {
  const Result<std::vector<SaveLock>> reading = LockForReading({options.save_path});
  if (!reading.ok()) return ReportFailure(reading.status());
  Result<VerifyReport> report = VerifyOutput(options.save_path);
  if (!report.ok()) return ReportFailure(report.status());
  if (options.json)
    PrintJson(options.save_path, *report);
  else
    PrintText(options.save_path, *report);
  return report->ok() ? kExitOk : kExitDifferent;
}

}  // namespace dsanalyze::cli
