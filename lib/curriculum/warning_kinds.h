// The kinds of what `dsanalyze curriculum` reports, each with its one
// severity, and the grouping of their occurrences (one line per kind and
// metric, however many steps it concerns).
//
// Severities (docs/usage.md §11):
//  error    the curriculum cannot train as configured (DeepSpeed fails, or
//           trains on ids that are not this dataset's): exit 1
//  warning  it trains, but not as intended: exit 1 with --strict
//  note     harmless, said so that the table's zeros are explained: never
//           changes the exit code
// The severity of each kind is kKinds in warning_kinds.cc, and only there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dsanalyze {

enum class Severity { kError, kWarning, kNote };

enum class WarningKind {
  kMissingFile,          // a .bin/.idx pair the config names does not exist
  kOtherDataset,         // an index_to_sample whose sample count is not the analysis's
  kEmptyFirstCluster,    // no cluster holds a sample yet: DeepSpeed cannot draw a batch
  kBelowMinValue,        // a value metric's difficulty is below its smallest value
  kEmptyCluster,         // a schedule_based difficulty rose, the new cluster is empty
  kEmptyIntersection,    // the metrics each admit samples, none in common
  kSmallPool,            // all clusters together hold fewer samples than a global batch
  kNeverEligible,        // samples in no cluster by the last step
  kIndexMismatch,        // a value metric on rows that group several values
  kOtherAnalysis,        // a file outside the analysis folder
  kSmallCluster,         // a new cluster smaller than a global batch, the pool is not
  kSingleClusterChange,  // only single_cluster metrics changed: empty cluster by design
  kIndexChoice,          // an index that gives the right clusters but is not the usual one
};

std::string_view KindName(WarningKind kind);  // "missing_file", ...
Severity SeverityOf(WarningKind kind);
std::string_view SeverityName(Severity severity);  // "error", "warning", "note"

// One occurrence: the training step it concerns (0: before the first step,
// when DeepSpeed's sampler opens the files), the metric (empty: the
// curriculum as a whole; several single_cluster metrics: "a, b"), what
// happens in DeepSpeed, and a concrete fix.
struct CurriculumWarning {
  int64_t step = 0;
  WarningKind kind = WarningKind::kEmptyCluster;
  std::string metric;
  std::string message;
  std::string fix;
};

// The occurrences of one kind for one metric: their number, first and last
// step, and the first occurrence's message and fix.
struct WarningGroup {
  WarningKind kind = WarningKind::kEmptyCluster;
  std::string metric;
  size_t count = 0;
  int64_t first_step = 0;
  int64_t last_step = 0;
  std::string message;
  std::string fix;
};

// Groups by (kind, metric); errors first, then warnings, then notes, each by
// first step.
std::vector<WarningGroup> GroupWarnings(const std::vector<CurriculumWarning>& warnings);

// A group in one line without its severity and fix, as `dsanalyze curriculum`
// prints it and its page shows it: "step S: KIND: MESSAGE" for one
// occurrence, "steps F..L, N times: KIND: first at step F: MESSAGE" for more.
std::string GroupText(const WarningGroup& group);

// Occurrences of severity `severity`.
size_t CountSeverity(const std::vector<CurriculumWarning>& warnings, Severity severity);

}  // namespace dsanalyze
