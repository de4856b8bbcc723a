#include "pipeline/map.h"

#include <algorithm>

#include "config/memory_budget.h"
#include "util/checked_add.h"
#include "util/exception_status.h"
#include "util/fault_point.h"
#include "util/huge_pages.h"
#include "util/interrupt.h"

namespace dsanalyze {

Status CheckMapMemory(const std::vector<MapMetric>& accumulate, unsigned threads,
                      uint64_t batch_size) {
  const std::string reading =
      std::to_string(threads) + " map threads (map.threads) reading batches of ";
  DSA_RETURN_IF_ERROR(CheckMemoryNeed(
      {.key = "config: map.batch_size",
       .what = reading + std::to_string(batch_size) + " samples, 8 bytes of offsets a sample,",
       .bytes = SaturatingProduct(SaturatingProduct(batch_size + 1, 8), threads)}));
  for (const MapMetric& m : accumulate) {
    const uint64_t length = m.metric->accumulate_length();
    DSA_RETURN_IF_ERROR(CheckMemoryNeed(
        {.key = "config: map.threads",
         .what = std::to_string(threads) + " map threads each summing metric \"" + m.name +
                 "\"'s " + std::to_string(length) + " values (8 bytes each), and 2 totals,",
         .bytes = SaturatingProduct(SaturatingProduct(length, 8), uint64_t{threads} + 2)}));
  }
  return Status::OK();
}

MapJob::MapJob(const Dataset& dataset, std::vector<MapMetric> single,
               std::vector<MapMetric> accumulate, SampleRange range, unsigned threads,
               uint64_t batch_size, std::vector<std::vector<int64_t>> buffers)
    : dataset_(dataset),
      single_(std::move(single)),
      accumulate_(std::move(accumulate)),
      range_(range),
      batch_size_(std::max<uint64_t>(1, batch_size)) {
  for (size_t m = 0; m < single_.size(); ++m) {
    const std::string_view pass = single_[m].metric->shared_pass();
    auto same = std::find_if(passes_.begin(), passes_.end(), [&](const std::vector<size_t>& p) {
      return !pass.empty() && single_[p.front()].metric->shared_pass() == pass;
    });
    if (same == passes_.end()) same = passes_.insert(passes_.end(), std::vector<size_t>{});
    same->push_back(m);
  }
  threads = std::max(1u, threads);
  workers_.resize(threads);
  for (unsigned t = 0; t < threads; ++t) workers_[t].range = SplitRange(range, threads, t);
  result_.values = std::move(buffers);
  result_.values.resize(single_.size());
  for (auto& v : result_.values) {
    ReserveReusing(v, range.size());
    v.resize(range.size());
  }
}

MapJob::~MapJob() {
  for (WorkerThread& t : threads_) t.JoinDiscardingException();
}

void MapJob::Start() {
  for (auto& w : workers_) threads_.push_back(StartWorkerThread(&MapJob::Work, this, &w));
}

bool MapJob::WaitFor(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return Done(); });
}

void MapJob::Work(Worker* w) {
  // An exception (a failed allocation: a reader's buffer, a metric's
  // scratch) ends this worker with an error, as a Status would; Finish()
  // reports it and the ranks agree on it (util/exception_status.h).
  w->status = CatchAsStatus("map", [&] { return MapRange(w); });
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_.fetch_add(1);
  }
  cv_.notify_all();
}

Status MapJob::MapRange(Worker* w) {
  bool need_elements = false;
  for (const auto& m : single_) need_elements |= m.metric->needs_elements();
  for (const auto& m : accumulate_) need_elements |= m.metric->needs_elements();
  w->sums.resize(accumulate_.size());
  for (size_t a = 0; a < accumulate_.size(); ++a)
    w->sums[a].assign(accumulate_[a].metric->accumulate_length(), 0);

  std::unique_ptr<SampleReader> reader = dataset_.NewReader();
  SampleBatch batch;
  for (uint64_t begin = w->range.begin; begin < w->range.end; begin += batch_size_) {
    const uint64_t end = std::min(w->range.end, begin + batch_size_);
    Status st = CheckInterrupt();  // a caught signal stops the map within a batch
    if (st.ok()) st = reader->Read(begin, end, need_elements, &batch);
    if (st.ok()) st = ComputeSingle(batch, begin - range_.begin);
    for (size_t a = 0; st.ok() && a < accumulate_.size(); ++a)
      st = accumulate_[a].metric->Accumulate(batch, w->sums[a]);
    DSA_RETURN_IF_ERROR(st);
    done_.fetch_add(end - begin, std::memory_order_relaxed);
    FaultPoint("map");  // test-only (util/fault_point.h)
  }
  return Status::OK();
}

Status MapJob::ComputeSingle(const SampleBatch& batch, uint64_t offset) {
  std::vector<const Metric*> metrics;
  std::vector<std::span<int64_t>> values;
  for (const std::vector<size_t>& pass : passes_) {
    metrics.clear();
    values.clear();
    for (size_t m : pass) {
      metrics.push_back(single_[m].metric);
      values.emplace_back(result_.values[m].data() + offset, batch.size());
    }
    const Metric& first = *metrics.front();
    // Errors name the metric.
    DSA_RETURN_IF_ERROR(first.shared_pass().empty()
                            ? first.Compute(batch, values.front())
                            : first.ComputeTogether(batch, metrics, values));
  }
  return Status::OK();
}

Result<MapResult> MapJob::Finish() {
  for (auto& t : threads_) t.join();
  threads_.clear();
  for (auto& w : workers_) DSA_RETURN_IF_ERROR(w.status);
  result_.sums.resize(accumulate_.size());
  for (size_t a = 0; a < accumulate_.size(); ++a) {
    result_.sums[a].assign(accumulate_[a].metric->accumulate_length(), 0);
    for (auto& w : workers_)
      DSA_RETURN_IF_ERROR(AddChecked(result_.sums[a], w.sums[a], "metric " + accumulate_[a].name));
  }
  return std::move(result_);
}

}  // namespace dsanalyze
