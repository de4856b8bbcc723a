#include "pipeline/dependencies.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

#include "metrics/registry.h"
#include "output/analysis_layout.h"
#include "pipeline/global_reduce.h"
#include "pipeline/map.h"
#include "util/exception_status.h"

namespace dsanalyze {
namespace {

// One distinct dependency and the metric instance that computes it.
struct Needed {
  MetricConfig config;
  std::unique_ptr<Metric> metric;
  std::vector<int64_t> result;
};

// The distinct dependencies, and for each planned metric which of them it uses.
struct DependencyTable {
  std::vector<Needed> needed;
  std::vector<std::vector<size_t>> uses;  // per plan entry, indices into needed
};

// Dependencies are the same when they run the same code with the same params.
bool SameDependency(const MetricConfig& a, const MetricConfig& b) {
  return a.plugin == b.plugin && a.metric == b.metric && a.params == b.params;
}

DependencyTable CollectDependencies(const MetricPlan& plan) {
  DependencyTable t;
  t.uses.resize(plan.size());
  for (size_t m = 0; m < plan.size(); ++m) {
    for (MetricConfig& dep : plan[m].metric->dependencies()) {
      auto it = std::find_if(t.needed.begin(), t.needed.end(),
                             [&](const Needed& n) { return SameDependency(n.config, dep); });
      if (it == t.needed.end())
        it = t.needed.insert(t.needed.end(), Needed{std::move(dep), {}, {}});
      t.uses[m].push_back(static_cast<size_t>(it - t.needed.begin()));
    }
  }
  return t;
}

Status CreateDependencyMetrics(const Dataset& dataset, std::vector<Needed>& needed) {
  for (Needed& n : needed) {
    DSA_ASSIGN_OR_RETURN(n.metric, CreateMetric(n.config, dataset));
    if (!n.metric->dependencies().empty())
      return Status::Internal("metric " + n.config.name + " has dependencies of its own");
  }
  return Status::OK();
}

// The map pass over this rank's samples, then the global results.
Status ComputeDependencies(const Comm& comm, const Dataset& dataset, SampleRange range,
                           const MapConfig& map, std::vector<Needed>& needed) {
  std::vector<MapMetric> single, accumulate;
  std::string names;
  for (const Needed& n : needed) {
    auto& list = TraitsOf(n.metric->type()).per_sample ? single : accumulate;
    list.push_back({n.metric.get(), n.config.name});
    names += (names.empty() ? "" : ", ") + n.config.name;
  }
  if (comm.is_root()) spdlog::info("dependency pass over {} samples: {}", dataset.size(), names);
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(CheckMapMemory(accumulate, map.threads, map.batch_size)));
  Result<MapResult> mapped = Status::Internal("dependency pass: not mapped");
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(CatchAsStatus("dependency pass", [&] {
    MapJob job(dataset, single, accumulate, range, map.threads, map.batch_size);
    job.Start();
    mapped = job.Finish();
    return mapped.status();
  })));

  size_t s = 0, a = 0;  // the lists above, in the order they were built
  for (Needed& n : needed) {
    if (TraitsOf(n.metric->type()).per_sample) {
      const ValueRange r = GlobalMinMax(comm, mapped->values[s++]);
      n.result = {r.min, r.max};
    } else {
      // The same inputs on every rank give the same Status on every rank.
      DSA_ASSIGN_OR_RETURN(n.result,
                           AllreduceSumChecked(comm, mapped->sums[a++], "metric " + n.config.name));
    }
  }
  return Status::OK();
}

// Gives each planned metric its dependencies' results, and an accumulate
// metric that is itself a dependency its global result.
Status HandOutResults(const DependencyTable& t, MetricPlan& plan) {
  for (PlannedMetric& m : plan)
    for (const Needed& n : t.needed)
      if (!TraitsOf(m.type()).per_sample && !TraitsOf(n.metric->type()).per_sample &&
          SameDependency(n.config, *m.config))
        m.dependency.total = n.result;
  for (size_t m = 0; m < plan.size(); ++m) {
    if (t.uses[m].empty()) continue;
    std::vector<std::vector<int64_t>> results;
    for (size_t i : t.uses[m]) results.push_back(t.needed[i].result);
    DSA_RETURN_IF_ERROR(plan[m].metric->SetDependencyResults(results));
  }
  return Status::OK();
}

}  // namespace

Status ResolveDependencies(const Comm& comm, const Dataset& dataset, SampleRange range,
                           const MapConfig& map, MetricPlan* plan) {
  DependencyTable table = CollectDependencies(*plan);
  // Every rank has the same metrics, so every rank returns here or none does.
  if (table.needed.empty()) return Status::OK();
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(CreateDependencyMetrics(dataset, table.needed)));
  DSA_RETURN_IF_ERROR(ComputeDependencies(comm, dataset, range, map, table.needed));
  return comm.AgreeOnStatus(HandOutResults(table, *plan));
}

}  // namespace dsanalyze
