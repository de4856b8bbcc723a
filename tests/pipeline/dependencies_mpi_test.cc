// ResolveDependencies and the checked cross-rank sum (global_reduce.h) under mpiexec -n k: results
// are the global ones on every rank, a dependency shared by two metrics reaches both, exact sums
// past int64 in partial sums are right and overflow is reported, and errors (in the pass, or from
// one rank's metric) are the same everywhere. Exits non-zero on the first failure, naming it.
#include <mpi.h>

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "dataset/open_dataset.h"
#include "metrics/registry.h"
#include "pipeline/dependencies.h"
#include "pipeline/global_reduce.h"
#include "support/mpi_suite.h"

namespace dsanalyze::dependencies_test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
using test::Check;

// Declares the given dependencies and keeps what it is handed.
class NeedyMetric : public Metric {
 public:
  NeedyMetric(std::vector<MetricConfig> deps, bool fail_here = false)
      : deps_(std::move(deps)), fail_here_(fail_here) {}
  MetricType type() const override { return MetricType::kSingleValuePerSample; }
  std::vector<MetricConfig> dependencies() const override { return deps_; }
  Status SetDependencyResults(std::span<const std::vector<int64_t>> results) override {
    got.assign(results.begin(), results.end());
    return fail_here_ ? Status::BadInput("needy: refused on this rank") : Status::OK();
  }
  std::vector<std::vector<int64_t>> got;

 private:
  std::vector<MetricConfig> deps_;
  bool fail_here_;
};

MetricConfig Dep(std::string metric, nlohmann::json params = nlohmann::json::object()) {
  MetricConfig c;
  c.name = metric + " (for needy)";
  c.metric = std::move(metric);
  c.params = std::move(params);
  return c;
}

std::unique_ptr<Dataset> SyntheticMod(uint64_t n) {
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = n};
  return std::move(OpenDataset(c)).value();
}

void SumCases(const Comm& comm) {
  const int64_t r = comm.rank(), p = comm.size();
  // Longer than one chunk; negative and positive values.
  std::vector<int64_t> local(200001);
  for (size_t i = 0; i < local.size(); ++i) local[i] = (r + 1) * static_cast<int64_t>(i) - 1000 * r;
  Result<std::vector<int64_t>> sum = AllreduceSumChecked(comm, local, "long");
  bool exact = sum.ok() && sum->size() == local.size();
  for (size_t i = 0; exact && i < local.size(); ++i)
    exact = (*sum)[i] == p * (p + 1) / 2 * static_cast<int64_t>(i) - 1000 * p * (p - 1) / 2;
  Check(comm, exact, "long vector: exact element-wise sums");

  // Partial sums past int64 whose total fits (needs 3 ranks to arise).
  if (p == 3) {
    const int64_t mine[] = {kMax, kMax, -kMax};
    std::vector<int64_t> v = {mine[r], kMin / 3};
    Result<std::vector<int64_t>> s = AllreduceSumChecked(comm, v, "partial");
    Check(comm, s.ok() && *s == std::vector<int64_t>{kMax, kMin / 3 * 3},
          "partial sums past int64 give the exact total");
  }
  // A total past int64, either way.
  for (int64_t v : {kMax / 2 + 1, kMin / 2 - 1}) {
    Result<std::vector<int64_t>> s = AllreduceSumChecked(comm, std::vector<int64_t>{0, v}, "over");
    if (p == 1) {
      Check(comm, s.ok() && (*s)[1] == v, "one rank: no overflow");
    } else {
      Check(comm,
            !s.ok() && s.status().message() ==
                           "over: the sum of element 1 over all samples overflows int64",
            "overflow reported on every rank");
    }
  }
}

// An overflow past the first Allreduce chunk names the element's index in
// the whole vector, not within its chunk (the bug of the old rank-0 sum).
void OverflowIndexCases(const Comm& comm) {
  std::vector<int64_t> local(70001, 1);
  local[70000] = kMax / 2 + 1;
  Result<std::vector<int64_t>> s = AllreduceSumChecked(comm, local, "metric m");
  if (comm.size() == 1) {
    Check(comm, s.ok() && (*s)[70000] == kMax / 2 + 1, "one rank: no overflow past a chunk");
  } else {
    Check(comm,
          !s.ok() && s.status().message() ==
                         "metric m: the sum of element 70000 over all samples overflows int64",
          "overflow past the first chunk names the index in the vector: " + s.status().message());
  }
}

// This rank's share of the samples, as the pipeline splits them.
SampleRange MyRange(const Comm& comm, const Dataset& ds) {
  return SplitRange({0, ds.size()}, static_cast<uint64_t>(comm.size()),
                    static_cast<uint64_t>(comm.rank()));
}

// A plan entry for `metric`, configured by `config` (which must outlive it).
PlannedMetric Planned(const MetricConfig& config, std::unique_ptr<Metric> metric) {
  PlannedMetric m;
  m.config = &config;
  m.metric = std::move(metric);
  return m;
}

MetricPlan PlanOf(const MetricConfig& config, std::unique_ptr<Metric> metric) {
  MetricPlan plan;
  plan.push_back(Planned(config, std::move(metric)));
  return plan;
}

void ResolveCases(const Comm& comm) {
  const uint64_t n = 100003;
  std::unique_ptr<Dataset> ds = SyntheticMod(n);
  int64_t expected_sum = 0;
  for (uint64_t x = 0; x < n; ++x) expected_sum += static_cast<int64_t>((x + 7) % 10000);
  const MapConfig map{2, 1000};

  auto a = std::make_unique<NeedyMetric>(std::vector<MetricConfig>{Dep("sum"), Dep("value")});
  auto b = std::make_unique<NeedyMetric>(std::vector<MetricConfig>{Dep("sum")});
  auto none = std::make_unique<NeedyMetric>(std::vector<MetricConfig>{});
  const NeedyMetric *a_seen = a.get(), *b_seen = b.get(), *none_seen = none.get();
  // Accumulate metrics of the run: "sum" is also a dependency (its result is
  // reused under any output name); "sum" with other params and "value"
  // (single-value) are not.
  const MetricConfig needy = Dep("needy");
  MetricConfig sum_output = Dep("sum"), other_params = Dep("sum", {{"x", 1}});
  sum_output.name = "my_sum";
  const MetricConfig value_output = Dep("value");
  MetricPlan plan;
  plan.push_back(Planned(needy, std::move(a)));
  plan.push_back(Planned(needy, std::move(none)));
  plan.push_back(Planned(needy, std::move(b)));
  plan.push_back(Planned(value_output, std::move(CreateMetric(value_output, *ds)).value()));
  plan.push_back(Planned(other_params, std::move(CreateMetric(Dep("sum"), *ds)).value()));
  plan.push_back(Planned(sum_output, std::move(CreateMetric(sum_output, *ds)).value()));
  Status st = ResolveDependencies(comm, *ds, MyRange(comm, *ds), map, &plan);
  Check(comm, st.ok(), "resolve: " + st.message());
  Check(comm, !plan[3].dependency.total && !plan[4].dependency.total,
        "only equal accumulate metrics");
  Check(comm, plan[5].dependency.total == std::vector<int64_t>{expected_sum},
        "an accumulate metric equal to a dependency gets its global result");
  Check(comm, a_seen->got == std::vector<std::vector<int64_t>>{{expected_sum}, {0, 9999}},
        "first metric: global sum and {min, max}");
  Check(comm, b_seen->got == std::vector<std::vector<int64_t>>{{expected_sum}},
        "second metric: the shared sum");
  Check(comm, none_seen->got.empty(), "a metric without dependencies is left alone");

  // The pass fails (tokens up to 9999 with vocab_size 100): same error everywhere.
  MetricPlan failing = PlanOf(needy, std::make_unique<NeedyMetric>(std::vector<MetricConfig>{
                                         Dep("total_vocab_freq", {{"vocab_size", 100}})}));
  st = ResolveDependencies(comm, *ds, MyRange(comm, *ds), MapConfig{1, 4096}, &failing);
  Check(comm,
        st.code() == Status::Code::kBadInput &&
            st.message().rfind("metric \"total_vocab_freq (for needy)\": ", 0) == 0 &&
            st.message().find("sample 94 has token 101,") != std::string::npos,
        "a failing dependency pass fails every rank alike: " + st.message());

  // One rank's metric refuses its results: every rank returns that error.
  MetricPlan refusing =
      PlanOf(needy, std::make_unique<NeedyMetric>(std::vector<MetricConfig>{Dep("sum")},
                                                  comm.rank() == comm.size() - 1));
  st = ResolveDependencies(comm, *ds, MyRange(comm, *ds), MapConfig{1, 1024}, &refusing);
  Check(comm, st.message() == "needy: refused on this rank", "refusal agreed on all ranks");

  // An unknown dependency is a creation error, agreed before any pass.
  MetricPlan unknown = PlanOf(
      needy, std::make_unique<NeedyMetric>(std::vector<MetricConfig>{Dep("no_such_metric")}));
  st = ResolveDependencies(comm, *ds, MyRange(comm, *ds), MapConfig{1, 1024}, &unknown);
  Check(comm, st.message().rfind("config: metrics[0].metric: unknown metric", 0) == 0,
        "unknown dependency: " + st.message());
}

}  // namespace
}  // namespace dsanalyze::dependencies_test

DSA_MPI_SUITE(dependencies) {
  using namespace dsanalyze;
  using namespace dsanalyze::dependencies_test;
  SumCases(comm);
  OverflowIndexCases(comm);
  ResolveCases(comm);
}
