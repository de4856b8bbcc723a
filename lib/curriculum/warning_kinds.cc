#include "curriculum/warning_kinds.h"

#include <algorithm>
#include <map>
#include <utility>

namespace dsanalyze {
namespace {

struct KindInfo {
  WarningKind kind;
  std::string_view name;
  Severity severity;
};

// The one table of kinds and severities, in WarningKind's order.
constexpr KindInfo kKinds[] = {
    {WarningKind::kMissingFile, "missing_file", Severity::kError},
    {WarningKind::kOtherDataset, "other_dataset", Severity::kError},
    {WarningKind::kEmptyFirstCluster, "empty_first_cluster", Severity::kError},
    {WarningKind::kBelowMinValue, "below_min_value", Severity::kWarning},
    {WarningKind::kEmptyCluster, "empty_cluster", Severity::kWarning},
    {WarningKind::kEmptyIntersection, "empty_intersection", Severity::kWarning},
    {WarningKind::kSmallPool, "small_pool", Severity::kWarning},
    {WarningKind::kNeverEligible, "never_eligible", Severity::kWarning},
    {WarningKind::kIndexMismatch, "index_mismatch", Severity::kWarning},
    {WarningKind::kOtherAnalysis, "other_analysis", Severity::kWarning},
    {WarningKind::kSmallCluster, "small_cluster", Severity::kNote},
    {WarningKind::kSingleClusterChange, "single_cluster_change", Severity::kNote},
    {WarningKind::kIndexChoice, "index_choice", Severity::kNote},
};

constexpr bool InEnumOrder() {
  for (size_t i = 0; i < std::size(kKinds); ++i)
    if (static_cast<size_t>(kKinds[i].kind) != i) return false;
  return true;
}
static_assert(InEnumOrder() && std::size(kKinds) == 13, "kKinds lists every WarningKind in order");

const KindInfo& Info(WarningKind kind) { return kKinds[static_cast<size_t>(kind)]; }

}  // namespace

std::string_view KindName(WarningKind kind) { return Info(kind).name; }

Severity SeverityOf(WarningKind kind) { return Info(kind).severity; }

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "";
}

std::vector<WarningGroup> GroupWarnings(const std::vector<CurriculumWarning>& warnings) {
  std::vector<WarningGroup> groups;
  std::map<std::pair<WarningKind, std::string>, size_t> at;
  for (const CurriculumWarning& w : warnings) {
    const auto [it, added] = at.try_emplace({w.kind, w.metric}, groups.size());
    if (added)
      groups.push_back({.kind = w.kind,
                        .metric = w.metric,
                        .first_step = w.step,
                        .last_step = w.step,
                        .message = w.message,
                        .fix = w.fix});
    WarningGroup& g = groups[it->second];
    ++g.count;
    g.first_step = std::min(g.first_step, w.step);
    g.last_step = std::max(g.last_step, w.step);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const WarningGroup& a, const WarningGroup& b) {
    const Severity sa = SeverityOf(a.kind), sb = SeverityOf(b.kind);
    return sa != sb ? sa < sb : a.first_step < b.first_step;
  });
  return groups;
}

std::string GroupText(const WarningGroup& g) {
  const std::string kind(KindName(g.kind));
  if (g.count == 1) return "step " + std::to_string(g.first_step) + ": " + kind + ": " + g.message;
  return "steps " + std::to_string(g.first_step) + ".." + std::to_string(g.last_step) + ", " +
         std::to_string(g.count) + " times: " + kind + ": first at step " +
         std::to_string(g.first_step) + ": " + g.message;
}

size_t CountSeverity(const std::vector<CurriculumWarning>& warnings, Severity severity) {
  return static_cast<size_t>(std::count_if(
      warnings.begin(), warnings.end(),
      [severity](const CurriculumWarning& w) { return SeverityOf(w.kind) == severity; }));
}

}  // namespace dsanalyze
