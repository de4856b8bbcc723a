#include "pipeline/rank_sums.h"

#include <algorithm>
#include <chrono>
#include <span>

#include "output/analysis_layout.h"
#include "pipeline/global_reduce.h"
#include "pipeline/run_stages.h"

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

// Adds `len` samples from local row `from`, rows[a] metric a's values.
Status AddChunk(const std::vector<PlannedMetric*>& metrics, const std::vector<const int64_t*>& rows,
                uint64_t from, size_t len, RankProductSums* sums) {
  if (const auto missing = sums->Add(rows, len))
    return Status::Internal("rank sums: metric " + metrics[missing->first]->name() +
                            ": local sample " + std::to_string(from + missing->second) +
                            " has a value that was not counted");
  return Status::OK();
}

// Adds this rank's samples into `sums`, a chunk of every metric at a time:
// the pass of their own the sums take across nodes.
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
    DSA_RETURN_IF_ERROR(AddChunk(metrics, rows, from, len, sums));
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

RankSumsPass::~RankSumsPass() {
  if (!metrics_.empty() && metrics_[0]->job.rank_sums == this) metrics_[0]->job.rank_sums = nullptr;
}

Status RankSumsPass::Begin(RunState& run, MetricPlan& plan) {
  const std::vector<bool> counted = CountedForRankSums(run, plan);
  for (size_t i = 0; i < plan.size(); ++i)
    if (counted[i]) metrics_.push_back(&plan[i]);
  const bool narrow = std::all_of(metrics_.begin(), metrics_.end(), [](const PlannedMetric* m) {
    const ValueRange r = m->job.range;
    return static_cast<unsigned __int128>(static_cast<__int128>(r.max) - r.min) <=
           kRankSumsMaxRange;
  });
  for (PlannedMetric* m : metrics_) {
    if (narrow && run.samples.count > 0)
      distributions_.push_back(GlobalCounts(run.comm, m->job.counts, m->job.range));
    m->job.counts = ValueCounts();  // frees its table
  }
  if (distributions_.empty()) return Status::OK();
  std::vector<const CountedValues*> pointers;
  for (const CountedValues& d : distributions_) pointers.push_back(&d);
  sums_.emplace(pointers);
  samples_ = LocalCount(*metrics_[0]);
  if (run.comm.OnOneNode()) {
    metrics_[0]->job.rank_sums = this;  // its job writes the counted metrics' rows
    return Status::OK();
  }
  run.Begin("sort", "rank sums", run.samples.count, "samples");
  rows_ = samples_;
  return run.comm.AgreeOnStatus(SumLocal(metrics_, &*sums_));
}

Status RankSumsPass::Add(RunState& run, uint64_t from,
                         std::span<const std::span<const int64_t>> parts) {
  const size_t len = parts.empty() ? 0 : parts[0].size();
  if (from != rows_ || parts.size() != metrics_.size() ||
      std::any_of(parts.begin(), parts.end(), [&](const auto& p) { return p.size() != len; }))
    return Status::Internal("rank sums: rows from " + std::to_string(from) + " of " +
                            std::to_string(parts.size()) + " metrics added after " +
                            std::to_string(rows_) + " of " + std::to_string(metrics_.size()));
  const auto start = std::chrono::steady_clock::now();
  std::vector<const int64_t*> rows;
  for (const std::span<const int64_t> part : parts) rows.push_back(part.data());
  DSA_RETURN_IF_ERROR(AddChunk(metrics_, rows, from, len, &*sums_));
  rows_ += len;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The writes' stage is lapped after this: its time less the sums'.
  run.clock.Add(kStageRankSums, seconds);
  run.clock.Add(kStageSampleToMetric, -seconds);
  return Status::OK();
}

Result<std::optional<RankSums>> RankSumsPass::Finish(RunState& run) {
  if (!sums_) return std::optional<RankSums>();
  Status st;
  if (rows_ != samples_)
    st = Status::Internal("rank sums: " + std::to_string(rows_) + " of this rank's " +
                          std::to_string(samples_) + " samples were summed");
  DSA_RETURN_IF_ERROR(run.comm.AgreeOnStatus(st));
  std::vector<std::string> names;
  for (const PlannedMetric* m : metrics_) names.push_back(m->name());
  return std::optional<RankSums>(
      RankSums{std::move(names), run.samples.count, AddOverRanks(run.comm, sums_->cross())});
}

}  // namespace dsanalyze
