#include "pipeline/dependencies.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "metrics/registry.h"
#include "pipeline/map.h"

namespace dsanalyze {
namespace {

// Elements per Allreduce round: bounds the messages (2 int64 per element).
constexpr size_t kSumChunk = size_t{1} << 16;

// One distinct dependency and the metric instance that computes it.
struct Needed {
  MetricConfig config;
  std::unique_ptr<Metric> metric;
  std::vector<int64_t> result;
};

// Dependencies are the same when they run the same code with the same params.
bool SameDependency(const MetricConfig& a, const MetricConfig& b) {
  return a.plugin == b.plugin && a.metric == b.metric && a.params == b.params;
}

}  // namespace

Result<std::vector<int64_t>> AllreduceSumChecked(const Comm& comm, std::span<const int64_t> local,
                                                 const std::string& what) {
  // Each value is split as x = hi·2^32 + lo with lo in [0, 2^32): the ranks'
  // sums of hi and of lo cannot overflow int64 for any realistic rank count
  // (< 2^31), and recombining them in 128 bits gives the exact total.
  std::vector<int64_t> total(local.size());
  std::vector<int64_t> parts(2 * std::min(kSumChunk, local.size()));
  for (size_t begin = 0; begin < local.size(); begin += kSumChunk) {
    const size_t n = std::min(kSumChunk, local.size() - begin);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = local[begin + i];
      parts[2 * i] = x >> 32;  // arithmetic shift: floor(x / 2^32)
      parts[2 * i + 1] = x & 0xffffffff;
    }
    const std::vector<int64_t> sums =
        comm.Allreduce<int64_t>(std::span<const int64_t>(parts.data(), 2 * n), MPI_SUM);
    for (size_t i = 0; i < n; ++i) {
      const __int128 exact = (static_cast<__int128>(sums[2 * i]) << 32) + sums[2 * i + 1];
      if (exact > std::numeric_limits<int64_t>::max() ||
          exact < std::numeric_limits<int64_t>::min())
        return Status::BadInput(what + ": the sum of element " + std::to_string(begin + i) +
                                " over all samples overflows int64");
      total[begin + i] = static_cast<int64_t>(exact);
    }
  }
  return total;
}

Status ResolveDependencies(const Comm& comm, const Dataset& dataset, SampleRange range,
                           std::span<Metric* const> metrics, unsigned threads, uint64_t batch_size,
                           std::span<const MetricConfig* const> accumulate_outputs,
                           std::vector<std::optional<std::vector<int64_t>>>* output_results) {
  output_results->assign(accumulate_outputs.size(), std::nullopt);
  // The distinct dependencies, and for each metric which of them it uses.
  std::vector<Needed> needed;
  std::vector<std::vector<size_t>> uses(metrics.size());
  for (size_t m = 0; m < metrics.size(); ++m) {
    for (MetricConfig& dep : metrics[m]->dependencies()) {
      auto it = std::find_if(needed.begin(), needed.end(),
                             [&](const Needed& n) { return SameDependency(n.config, dep); });
      if (it == needed.end()) it = needed.insert(needed.end(), Needed{std::move(dep), {}, {}});
      uses[m].push_back(static_cast<size_t>(it - needed.begin()));
    }
  }
  // Every rank has the same metrics, so every rank returns here or none does.
  if (needed.empty()) return Status::OK();

  Status st = [&]() -> Status {
    for (Needed& n : needed) {
      DSA_ASSIGN_OR_RETURN(n.metric, CreateMetric(n.config, dataset));
      if (!n.metric->dependencies().empty())
        return Status::Internal("metric " + n.config.name + " has dependencies of its own");
    }
    return Status::OK();
  }();
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(st));

  std::vector<MapMetric> single, accumulate;
  std::string names;
  for (const Needed& n : needed) {
    auto& list = n.metric->type() == MetricType::kSingleValuePerSample ? single : accumulate;
    list.push_back({n.metric.get(), n.config.name});
    names += (names.empty() ? "" : ", ") + n.config.name;
  }
  if (comm.is_root()) spdlog::info("dependency pass over {} samples: {}", dataset.size(), names);
  MapJob job(dataset, single, accumulate, range, threads, batch_size);
  job.Start();
  Result<MapResult> mapped = job.Finish();
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(mapped.status()));

  // Global results, in the order the lists were built.
  size_t s = 0, a = 0;
  for (Needed& n : needed) {
    if (n.metric->type() == MetricType::kSingleValuePerSample) {
      const std::vector<int64_t>& values = mapped->values[s++];
      int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
      if (!values.empty()) {
        const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
        lo = *mn;
        hi = *mx;
      }
      n.result = {comm.Allreduce(lo, MPI_MIN), comm.Allreduce(hi, MPI_MAX)};
    } else {
      // The same inputs on every rank give the same Status on every rank.
      DSA_ASSIGN_OR_RETURN(n.result,
                           AllreduceSumChecked(comm, mapped->sums[a++], "metric " + n.config.name));
    }
  }

  for (size_t o = 0; o < accumulate_outputs.size(); ++o)
    for (const Needed& n : needed)
      if (n.metric->type() == MetricType::kAccumulateValueOverSamples &&
          SameDependency(n.config, *accumulate_outputs[o]))
        (*output_results)[o] = n.result;

  st = Status::OK();
  for (size_t m = 0; m < metrics.size() && st.ok(); ++m) {
    if (uses[m].empty()) continue;
    std::vector<std::vector<int64_t>> results;
    for (size_t i : uses[m]) results.push_back(needed[i].result);
    st = metrics[m]->SetDependencyResults(results);
  }
  return comm.AgreeOnStatus(st);
}

}  // namespace dsanalyze
