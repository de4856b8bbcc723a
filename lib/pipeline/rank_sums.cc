#include "pipeline/rank_sums.h"

#include <algorithm>
#include <span>

#include "output/analysis_layout.h"
#include "pipeline/global_reduce.h"

namespace dsanalyze {
namespace {

uint64_t LocalCount(const PlannedMetric& m) {
  return m.map.store ? m.map.store->size() : m.map.values.size();
}

// This rank's values of `m` [from, from + len): where the map left them, or
// read from its store into `buffer`.
Result<const int64_t*> ValuesAt(PlannedMetric& m, uint64_t from, size_t len,
                                std::vector<int64_t>* buffer) {
  if (!m.map.store) return m.map.values.data() + from;
  buffer->resize(len);
  DSA_RETURN_IF_ERROR(m.map.store->Read(from, *buffer));
  return buffer->data();
}

// Collective: how many samples of all ranks have each value in `range`, from
// each rank's counts, as the metric's distribution.
CountedValues GlobalCounts(const Comm& comm, const ValueCounts& local, ValueRange range) {
  std::vector<uint64_t> counts(static_cast<size_t>(range.max - range.min) + 1);
  for (size_t i = 0; i < counts.size(); ++i)
    counts[i] = local.of(range.min + static_cast<int64_t>(i));
  counts = comm.Allreduce<uint64_t>(counts, MPI_SUM);
  CountedValues d;
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] > 0) {
      d.values.push_back(range.min + static_cast<int64_t>(i));
      d.counts.push_back(counts[i]);
      d.samples += counts[i];
    }
  return d;
}

// Adds this rank's samples into `sums`, a chunk of every metric at a time.
Status SumLocal(const std::vector<PlannedMetric*>& metrics, RankProductSums* sums) {
  const size_t k = metrics.size();
  const uint64_t n = LocalCount(*metrics[0]);
  std::vector<std::vector<int64_t>> buffers(k);
  std::vector<const int64_t*> rows(k);
  for (uint64_t from = 0; from < n; from += kRankSumsChunk) {
    const size_t len = static_cast<size_t>(std::min(kRankSumsChunk, n - from));
    for (size_t a = 0; a < k; ++a) {
      DSA_ASSIGN_OR_RETURN(rows[a], ValuesAt(*metrics[a], from, len, &buffers[a]));
    }
    if (const auto missing = sums->Add(rows, len))
      return Status::Internal("rank sums: metric " + metrics[missing->first]->name() +
                              ": local sample " + std::to_string(from + missing->second) +
                              " has a value that was not counted");
  }
  return Status::OK();
}

// Collective: the element-wise sum of every rank's `local`, exact: each value
// goes as four 32-bit limbs in 64-bit words, whose sums over < 2^32 ranks
// cannot overflow, and is put together again with its carries.
std::vector<unsigned __int128> AddOverRanks(const Comm& comm,
                                            const std::vector<unsigned __int128>& local) {
  std::vector<uint64_t> limbs;
  for (const unsigned __int128 v : local)
    for (int l = 0; l < 4; ++l) limbs.push_back(static_cast<uint64_t>(v >> (32 * l)) & 0xffffffffu);
  limbs = comm.Allreduce<uint64_t>(limbs, MPI_SUM);
  std::vector<unsigned __int128> out(local.size(), 0);
  for (size_t i = 0; i < out.size(); ++i)
    for (int l = 0; l < 4; ++l)
      out[i] += static_cast<unsigned __int128>(limbs[4 * i + l]) << (32 * l);
  return out;
}

}  // namespace

std::vector<bool> CountedForRankSums(const RunState& run, const MetricPlan& plan) {
  std::vector<bool> counted;
  const std::vector<std::string>& files = run.config.output.files;
  for (const PlannedMetric& m : plan)
    counted.push_back(TraitsOf(m.type()).per_sample && WritesStatisticsOf(files, m.type()) &&
                      WritesKind(files, kSampleToMetric));
  if (std::count(counted.begin(), counted.end(), true) < 2) counted.assign(plan.size(), false);
  return counted;
}

Result<std::optional<RankSums>> SumRankProducts(RunState& run, MetricPlan& plan) {
  const std::vector<bool> counted = CountedForRankSums(run, plan);
  std::vector<PlannedMetric*> metrics;
  for (size_t i = 0; i < plan.size(); ++i)
    if (counted[i]) metrics.push_back(&plan[i]);
  const bool narrow = std::all_of(metrics.begin(), metrics.end(), [](const PlannedMetric* m) {
    const ValueRange r = m->job.range;
    return static_cast<unsigned __int128>(static_cast<__int128>(r.max) - r.min) <=
           kRankSumsMaxRange;
  });
  std::vector<CountedValues> distributions;
  std::vector<std::string> names;
  for (PlannedMetric* m : metrics) {
    if (narrow && run.samples.count > 0)
      distributions.push_back(GlobalCounts(run.comm, m->job.counts, m->job.range));
    m->job.counts = ValueCounts();  // frees its table
    names.push_back(m->name());
  }
  if (distributions.empty()) return std::optional<RankSums>();
  run.Begin("sort", "rank sums", run.samples.count, "samples");
  std::vector<const CountedValues*> pointers;
  for (const CountedValues& d : distributions) pointers.push_back(&d);
  RankProductSums sums(pointers);
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(SumLocal(metrics, &sums)));
  return std::optional<RankSums>(
      RankSums{std::move(names), run.samples.count, AddOverRanks(run.comm, sums.cross())});
}

}  // namespace dsanalyze
