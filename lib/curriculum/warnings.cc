#include "curriculum/warnings.h"

#include <algorithm>
#include <filesystem>

#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using std::to_string;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Why an empty pool cannot train: numpy's choice over no cluster raises.
constexpr std::string_view kNoClusterYet =
    ", and no cluster exists yet: DeepSpeed's sample_from_clusters has nothing to draw the "
    "global batch from and fails";

const std::string kMergedSuffix = "_" + std::string(kIndexToSamplePercentile);
const std::string kPlainSuffix = "_" + std::string(kIndexToSample);

// The files DeepSpeed opens for `m`, as (config key, .bin/.idx prefix).
std::vector<std::pair<std::string_view, std::string>> OpenedFiles(const CurriculumMetricConfig& m) {
  if (m.clustering_type == ClusteringType::kSingleCluster) return {};
  std::vector<std::pair<std::string_view, std::string>> files = {
      {kIndexToSamplePathKey, m.index_to_sample_path}};
  if (m.difficulty_type == DifficultyType::kValue)
    files.emplace_back(kIndexToMetricPathKey, m.index_to_metric_path);
  return files;
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

// The smallest difficulty of `m` whose first cluster holds at least `batch`
// samples, as a fix for a small or empty first cluster.
std::string FirstClusterFix(const ReplayContext& c, size_t m) {
  const CurriculumMetricConfig& metric = c.metrics[m];
  const MetricFiles& index = *c.indexes[m];
  const uint64_t batch = static_cast<uint64_t>(c.global_batch_size);
  if (metric.difficulty_type == DifficultyType::kValue) {
    for (uint64_t r = 0; r < index.index_to_sample.num_rows(); ++r)
      if (index.index_to_sample.row_begin(r + 1) >= batch)
        return "raise " + metric.name + "'s min_difficulty to " + to_string(index.value(r)) +
               ", the smallest value whose first cluster holds at least " + to_string(batch) +
               " samples";
    return "the metric holds fewer than " + to_string(batch) + " samples: lower the global batch";
  }
  const uint64_t per = index.samples() / static_cast<uint64_t>(metric.schedule.max_difficulty);
  if (per == 0) return "lower " + metric.name + "'s max_difficulty (fewer samples than it)";
  return "raise " + metric.name + "'s min_difficulty to " + to_string((batch + per - 1) / per) +
         " (" + to_string(per) + " samples a percentile) so the first cluster holds at least " +
         to_string(batch) + " samples";
}

// The fix for the first cluster: per metric when one metric schedules.
std::string StartFix(const ReplayContext& c) {
  std::vector<size_t> scheduled;
  for (size_t m = 0; m < c.metrics.size(); ++m)
    if (c.indexes[m]) scheduled.push_back(m);
  if (scheduled.size() == 1) return FirstClusterFix(c, scheduled[0]);
  return "raise the metrics' min_difficulty until the samples all of them admit at the start "
         "fill a global batch (" +
         to_string(c.global_batch_size) + ")";
}

std::string Difficulties(const ReplayContext& c, const ReplayStep& s) {
  std::string out;
  for (size_t m = 0; m < c.metrics.size(); ++m)
    out += (m ? ", " : "") + c.metrics[m].name + " " + to_string(s.difficulty[m]);
  return out;
}

// index_mismatch for a value-based metric that reads grouped rows (the
// percentile_merged index, by name or by having fewer rows than values).
void ValueOnGroupedRows(const CurriculumMetricConfig& m, const MetricFiles& index,
                        std::vector<CurriculumWarning>* out) {
  const std::string& path = m.index_to_sample_path;
  const bool merged = EndsWith(path, kMergedSuffix);
  const uint64_t rows = index.index_to_sample.num_rows();
  if (!merged && rows >= index.index_to_metric.num_rows()) return;
  const std::string fix =
      "set index_to_sample_path to " +
      (merged ? path.substr(0, path.size() - kMergedSuffix.size()) + kPlainSuffix
              : "the metric's *" + kPlainSuffix);
  if (rows < index.index_to_metric.num_rows()) {
    out->push_back({.step = 0,
                    .kind = WarningKind::kIndexMismatch,
                    .metric = m.name,
                    .message = m.name + ": difficulty_type value reads " + path + ", whose " +
                               to_string(rows) + " rows group the " +
                               to_string(index.index_to_metric.num_rows()) +
                               " values of index_to_metric (the percentile_merged grouping), yet "
                               "DeepSpeed pairs row r with index_to_metric row r: clusters do not "
                               "follow the metric's values",
                    .fix = fix});
  } else {
    out->push_back(
        {.step = 0,
         .kind = WarningKind::kIndexChoice,
         .metric = m.name,
         .message = m.name + ": difficulty_type value reads the percentile_merged index " + path +
                    "; with fewer than 200 values its rows are one value each, so "
                    "the clusters are right here, but with more they group several values "
                    "and stop matching index_to_metric",
         .fix = fix});
  }
}

}  // namespace

std::vector<CurriculumWarning> CheckMetricPaths(const std::vector<CurriculumMetricConfig>& metrics,
                                                const std::string& analysis, bool* missing) {
  std::vector<CurriculumWarning> out;
  const std::string home = Canonical(analysis);
  for (const CurriculumMetricConfig& m : metrics) {
    for (const auto& [key, prefix] : OpenedFiles(m)) {
      const std::string where = m.name + "." + std::string(key) + " " + prefix;
      std::error_code ec;
      if (!fs::exists(prefix + ".idx", ec) || !fs::exists(prefix + ".bin", ec)) {
        *missing = true;
        out.push_back(
            {.step = 0,
             .kind = WarningKind::kMissingFile,
             .metric = m.name,
             .message =
                 where + ": no such .bin/.idx pair; DeepSpeed's sampler fails when it opens it",
             .fix = "point " + std::string(key) + " at an existing file of " + analysis +
                    " (curriculum_config.json there lists them)"});
        continue;
      }
      const fs::path p(prefix);
      if (Canonical(p.parent_path().parent_path().string()) != home)
        out.push_back(
            {.step = 0,
             .kind = WarningKind::kOtherAnalysis,
             .metric = m.name,
             .message = where + ": is not in the analysis " + analysis,
             .fix = "use " +
                    (fs::path(analysis) / p.parent_path().filename() / p.filename()).string() +
                    ", or check the analysis the config was made for"});
    }
  }
  return out;
}

std::vector<CurriculumWarning> CheckMetricIndexes(
    const std::vector<CurriculumMetricConfig>& metrics,
    const std::vector<std::optional<MetricFiles>>& indexes, uint64_t samples) {
  std::vector<CurriculumWarning> out;
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (!indexes[i]) continue;
    const CurriculumMetricConfig& m = metrics[i];
    const MetricFiles& index = *indexes[i];
    const std::string& path = m.index_to_sample_path;
    if (index.samples() != samples)
      out.push_back({.step = 0,
                     .kind = WarningKind::kOtherDataset,
                     .metric = m.name,
                     .message = m.name + ": " + path + " holds " + to_string(index.samples()) +
                                " samples but the analysis has " + to_string(samples),
                     .fix = "use the index files of the analysis (or analyse this dataset again)"});
    if (m.difficulty_type == DifficultyType::kValue) {
      ValueOnGroupedRows(m, index, &out);
    } else if (EndsWith(path, kPlainSuffix)) {  // percentile on the plain index
      out.push_back(
          {.step = 0,
           .kind = WarningKind::kIndexChoice,
           .metric = m.name,
           .message = m.name + ": difficulty_type percentile reads the plain index " + path +
                      ": the same samples (percentile slices follow the row order only), but "
                      "one row per value makes every lookup walk more rows",
           .fix = "set index_to_sample_path to " +
                  path.substr(0, path.size() - kPlainSuffix.size()) + kMergedSuffix});
    }
  }
  return out;
}

namespace {

// below_min_value: the first step where a value-based metric's difficulty is
// below its smallest value.
void BelowMinValue(const ReplayContext& c, const Replay& replay,
                   std::vector<CurriculumWarning>* out) {
  for (size_t m = 0; m < c.metrics.size(); ++m) {
    if (!c.indexes[m] || c.metrics[m].difficulty_type != DifficultyType::kValue ||
        c.indexes[m]->index_to_sample.num_rows() == 0)
      continue;
    const int64_t smallest = c.indexes[m]->value(0);
    const auto below = [&](const ReplayStep& s) { return s.difficulty[m] < smallest; };
    const auto first = std::find_if(replay.steps.begin(), replay.steps.end(), below);
    if (first == replay.steps.end()) continue;
    const auto until = std::find_if_not(first, replay.steps.end(), below);
    const std::string name = c.metrics[m].name;
    out->push_back(
        {.step = first->step,
         .kind = WarningKind::kBelowMinValue,
         .metric = name,
         .message = name + "'s difficulty " + to_string(first->difficulty[m]) +
                    " is below its smallest value " + to_string(smallest) +
                    (until == replay.steps.end() ? " for the whole run"
                                                 : " until step " + to_string(until->step)) +
                    ": DeepSpeed's value lookup admits no sample of " + name +
                    ", so its clusters hold nothing matching it",
         .fix = "raise " + name + "'s min_difficulty to " + to_string(smallest)});
  }
}

// empty_intersection at step `s`, when the metrics each admit samples.
bool EmptyIntersection(const ReplayContext& c, const ReplayStep& s,
                       std::vector<CurriculumWarning>* out) {
  if (!s.cluster.intersection || *s.cluster.intersection > 0) return false;
  std::string alone;
  bool any = false;
  for (size_t m = 0; m < c.metrics.size(); ++m) {
    if (!c.indexes[m]) continue;
    any = any || s.cluster.admitted[m] > 0;
    alone +=
        (alone.empty() ? "" : ", ") + c.metrics[m].name + " " + to_string(s.cluster.admitted[m]);
  }
  if (!any) return false;
  const bool first = s.eligible == 0;
  out->push_back({.step = s.step,
                  .kind = first ? WarningKind::kEmptyFirstCluster : WarningKind::kEmptyIntersection,
                  .metric = "",
                  .message = "at difficulties " + Difficulties(c, s) +
                             " the metrics admit alone (" + alone +
                             " samples) but none in common: the new cluster is empty" +
                             (first ? std::string(kNoClusterYet) : ""),
                  .fix = "raise min_difficulty of the metrics that admit few samples, or make one "
                         "metric single_cluster"});
  return true;
}

// The only schedule_based metric's name, else "" (the clusters belong to
// the curriculum as a whole).
std::string ScheduledMetric(const ReplayContext& c) {
  std::string name;
  for (size_t m = 0; m < c.metrics.size(); ++m) {
    if (!c.indexes[m]) continue;
    if (!name.empty()) return "";
    name = c.metrics[m].name;
  }
  return name;
}

// The single_cluster metrics whose difficulty changed from `previous` to `s`
// when no schedule_based one did ("" otherwise, and at the first step).
std::string OnlySingleClusterChanged(const ReplayContext& c, const ReplayStep* previous,
                                     const ReplayStep& s) {
  if (!previous) return "";
  std::string names;
  for (size_t m = 0; m < c.metrics.size(); ++m) {
    if (s.difficulty[m] == previous->difficulty[m]) continue;
    if (c.indexes[m]) return "";
    names += (names.empty() ? "" : ", ") + c.metrics[m].name;
  }
  return names;
}

// An empty new cluster at `s` while the pool is not empty.
CurriculumWarning EmptyCluster(const ReplayContext& c, const ReplayStep* previous,
                               const ReplayStep& s) {
  const std::string at = "new cluster at difficulties " + Difficulties(c, s);
  const std::string singles = OnlySingleClusterChanged(c, previous, s);
  if (!singles.empty())
    return {.step = s.step,
            .kind = WarningKind::kSingleClusterChange,
            .metric = singles,
            .message =
                "only single_cluster metrics changed (" + singles + "): the " + at +
                " is empty by design, as a single_cluster difficulty selects no samples (it acts "
                "in the model, e.g. seqlen_truncate), and DeepSpeed's sampler skips it",
            .fix = "nothing to do"};
  return {.step = s.step,
          .kind = WarningKind::kEmptyCluster,
          .metric = ScheduledMetric(c),
          .message = at +
                     " is empty (no sample lies between the previous and current difficulty); "
                     "DeepSpeed skips it and keeps drawing from " +
                     to_string(s.eligible) + " samples",
          .fix = "use a larger difficulty_step so each increase admits samples"};
}

// empty_first_cluster, empty_cluster, single_cluster_change, small_pool or
// small_cluster at step `s` (`previous`: the step before it, if any).
void SmallCluster(const ReplayContext& c, const ReplayStep* previous, const ReplayStep& s,
                  std::vector<CurriculumWarning>* out) {
  const uint64_t batch = static_cast<uint64_t>(c.global_batch_size);
  if (s.cluster.size >= batch) return;
  const std::string at = "new cluster at difficulties " + Difficulties(c, s);
  const std::string pool = to_string(s.eligible);
  if (s.eligible == 0) {
    out->push_back({.step = s.step,
                    .kind = WarningKind::kEmptyFirstCluster,
                    .metric = ScheduledMetric(c),
                    .message = at + " is empty and DeepSpeed skips it" + std::string(kNoClusterYet),
                    .fix = StartFix(c)});
  } else if (s.cluster.size == 0) {
    out->push_back(EmptyCluster(c, previous, s));
  } else if (s.eligible < batch) {
    out->push_back(
        {.step = s.step,
         .kind = WarningKind::kSmallPool,
         .metric = ScheduledMetric(c),
         .message = at + " holds " + to_string(s.cluster.size) + " samples and the pool " + pool +
                    ", fewer than a global batch (" + to_string(batch) +
                    "): every batch repeats samples, and as get_sample_from_cluster wraps a "
                    "cluster once, batches come out short (dropped with drop_last)",
         .fix = StartFix(c)});
  } else {
    out->push_back(
        {.step = s.step,
         .kind = WarningKind::kSmallCluster,
         .metric = ScheduledMetric(c),
         .message = at + " holds " + to_string(s.cluster.size) +
                    " samples, fewer than a global batch (" + to_string(batch) +
                    "); it is drawn with weight " + to_string(s.cluster.size) + "/" + pool +
                    " like any cluster",
         .fix = "nothing needed; a larger difficulty_step makes fewer, larger clusters"});
  }
}

// never_eligible: what keeps samples out by the last step, per metric.
std::string NeverEligibleFix(const ReplayContext& c, const Replay& replay) {
  std::string fix;
  const ReplayStep& last = replay.steps.back();
  for (size_t m = 0; m < c.metrics.size(); ++m) {
    if (!c.indexes[m]) continue;
    const CurriculumMetricConfig& metric = c.metrics[m];
    const Schedule& s = metric.schedule;
    std::string f;
    if (last.difficulty[m] < s.max_difficulty)
      f = metric.name + " reaches only " + to_string(last.difficulty[m]) + " of " +
          to_string(s.max_difficulty) + ": train more steps or shorten its " +
          (s.type == ScheduleType::kFixedDiscrete ? "max_step list" : "total_curriculum_step") +
          " to at most " + to_string(c.train_steps);
    else if (metric.difficulty_type == DifficultyType::kValue && LargestValue(*c.indexes[m]) &&
             s.max_difficulty < *LargestValue(*c.indexes[m]))
      f = "raise " + metric.name + "'s max_difficulty to " +
          to_string(*LargestValue(*c.indexes[m]));
    if (!f.empty()) fix += (fix.empty() ? "" : "; ") + f;
  }
  return fix.empty() ? "raise max_difficulty or train more steps" : fix;
}

}  // namespace

std::vector<CurriculumWarning> CheckReplay(const ReplayContext& c, const Replay& replay) {
  std::vector<CurriculumWarning> out;
  BelowMinValue(c, replay, &out);
  const ReplayStep* previous = nullptr;
  for (const ReplayStep& s : replay.steps) {
    if (!EmptyIntersection(c, s, &out)) SmallCluster(c, previous, s, &out);
    previous = &s;
  }
  if (!replay.steps.empty() && replay.covered < c.samples)
    out.push_back({.step = c.train_steps,
                   .kind = WarningKind::kNeverEligible,
                   .metric = "",
                   .message = to_string(c.samples - replay.covered) + " of " +
                              to_string(c.samples) +
                              " samples are in no cluster by the last step " +
                              to_string(c.train_steps) + ": DeepSpeed never trains on them",
                   .fix = NeverEligibleFix(c, replay)});
  std::stable_sort(
      out.begin(), out.end(),
      [](const CurriculumWarning& a, const CurriculumWarning& b) { return a.step < b.step; });
  return out;
}

}  // namespace dsanalyze
