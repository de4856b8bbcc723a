// The map stage: runs every metric over one rank's samples.
//
// The rank's range is split among `threads` worker threads exactly as
// format.md §2 says; each reads batches of `batch_size` consecutive samples
// through its own SampleReader and calls each metric once per batch.
// Single-value metrics that share a pass (Metric::shared_pass) are computed by
// one call for all of them. Single-value metrics write straight into the rank's value arrays (each
// thread owns a disjoint slice); accumulate metrics sum into per-thread
// vectors that are added in thread order with overflow checks. The result
// never depends on the thread count.
//
// MapJob runs in the background so that the calling (MPI) thread can report
// progress meanwhile: Start(), then WaitFor() until Done(), then Finish().
// The dataset and metrics must outlive the job.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "dataset/dataset.h"
#include "metrics/metric.h"
#include "util/status.h"
#include "util/work_split.h"
#include "util/worker_thread.h"

namespace dsanalyze {

struct MapResult {
  // Per single-value metric (in the order given), one value per local sample.
  std::vector<std::vector<int64_t>> values;
  // Per accumulate metric, the element-wise sum over local samples.
  std::vector<std::vector<int64_t>> sums;
};

struct MapMetric {
  const Metric* metric;
  std::string name;  // for error messages
};

// Before a MapJob over these metrics is made: what it allocates besides the
// single-value metrics' values (the memory plan's to check,
// memory_plan.h), against the memory budget (config/memory_budget.h): each
// thread's batch offsets and each accumulate metric's sums, one array per
// thread plus the job's and the run's totals. BadInput naming map.batch_size
// or map.threads and the metric.
Status CheckMapMemory(const std::vector<MapMetric>& accumulate, unsigned threads,
                      uint64_t batch_size);

class MapJob {
 public:
  // `buffers`: arrays to map the single-value metrics into, one per metric,
  // reused (a previous result's values, handed back) so that a run of
  // windows touches their memory once; missing or small ones are allocated.
  MapJob(const Dataset& dataset, std::vector<MapMetric> single, std::vector<MapMetric> accumulate,
         SampleRange range, unsigned threads, uint64_t batch_size,
         std::vector<std::vector<int64_t>> buffers = {});
  ~MapJob();  // joins the workers
  MapJob(const MapJob&) = delete;
  MapJob& operator=(const MapJob&) = delete;

  void Start();
  // Samples finished so far (batch granularity); safe from any thread.
  uint64_t samples_done() const { return done_.load(std::memory_order_relaxed); }
  bool Done() const { return finished_.load() == workers_.size(); }
  // Blocks until the job is done or `timeout` has passed; returns Done().
  bool WaitFor(std::chrono::milliseconds timeout);
  // Joins the workers and returns the result or the first error (in thread order).
  Result<MapResult> Finish();

 private:
  struct Worker {
    SampleRange range;
    Status status;
    std::vector<std::vector<int64_t>> sums;
  };
  void Work(Worker* w);
  Status MapRange(Worker* w);  // Work's batches
  // The single-value metrics' values for `batch`, whose first sample is
  // `offset` into this rank's arrays: per entry of passes_, one Compute call,
  // or one ComputeTogether call for the metrics of a shared pass.
  Status ComputeSingle(const SampleBatch& batch, uint64_t offset);

  const Dataset& dataset_;
  std::vector<MapMetric> single_, accumulate_;
  // single_ as indices, grouped by Metric::shared_pass (a metric without one
  // alone), in order of each group's first metric.
  std::vector<std::vector<size_t>> passes_;
  SampleRange range_;
  uint64_t batch_size_;
  MapResult result_;
  std::vector<Worker> workers_;
  std::vector<WorkerThread> threads_;
  std::atomic<uint64_t> done_{0};
  std::atomic<size_t> finished_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace dsanalyze
