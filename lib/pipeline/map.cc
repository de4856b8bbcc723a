#include "pipeline/map.h"

#include <string>
#include <thread>

namespace dsanalyze {

Status AddChecked(std::span<int64_t> acc, std::span<const int64_t> add, const std::string& what) {
  for (size_t i = 0; i < acc.size(); ++i) {
    if (__builtin_add_overflow(acc[i], add[i], &acc[i]))
      return Status::BadInput(what + ": sum of element " + std::to_string(i) +
                              " overflows int64");
  }
  return Status::OK();
}

namespace {

struct ThreadOutput {
  Status status;
  std::vector<std::vector<int64_t>> sums;
};

void MapThread(const Dataset& dataset, std::span<const Metric* const> single,
               std::span<const Metric* const> accumulate, SampleRange rank_range,
               SampleRange range, uint64_t batch_size, MapResult* result, ThreadOutput* out,
               std::atomic<uint64_t>* progress) {
  bool need_elements = false;
  for (const Metric* m : single) need_elements |= m->needs_elements();
  for (const Metric* m : accumulate) need_elements |= m->needs_elements();
  out->sums.resize(accumulate.size());
  for (size_t a = 0; a < accumulate.size(); ++a)
    out->sums[a].assign(accumulate[a]->accumulate_length(), 0);

  std::unique_ptr<SampleReader> reader = dataset.NewReader();
  SampleBatch batch;
  for (uint64_t begin = range.begin; begin < range.end; begin += batch_size) {
    const uint64_t end = std::min(range.end, begin + batch_size);
    Status st = reader->Read(begin, end, need_elements, &batch);
    for (size_t m = 0; st.ok() && m < single.size(); ++m) {
      std::span<int64_t> dst(result->values[m].data() + (begin - rank_range.begin), end - begin);
      st = single[m]->Compute(batch, dst);
    }
    for (size_t a = 0; st.ok() && a < accumulate.size(); ++a)
      st = accumulate[a]->Accumulate(batch, out->sums[a]);
    if (!st.ok()) {
      out->status = st;
      return;
    }
    if (progress) progress->fetch_add(end - begin, std::memory_order_relaxed);
  }
}

}  // namespace

Result<MapResult> RunMap(const Dataset& dataset, std::span<const Metric* const> single,
                         std::span<const Metric* const> accumulate, SampleRange range,
                         unsigned threads, uint64_t batch_size,
                         std::atomic<uint64_t>* progress) {
  MapResult result;
  result.values.resize(single.size());
  for (auto& v : result.values) v.resize(range.size());
  threads = std::max(1u, threads);
  std::vector<ThreadOutput> outputs(threads);
  if (threads == 1) {
    MapThread(dataset, single, accumulate, range, range, batch_size, &result, &outputs[0],
              progress);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(MapThread, std::cref(dataset), single, accumulate, range,
                        SplitRange(range, threads, t), batch_size, &result, &outputs[t],
                        progress);
    for (auto& th : pool) th.join();
  }
  for (auto& o : outputs) DSA_RETURN_IF_ERROR(o.status);
  result.sums.resize(accumulate.size());
  for (size_t a = 0; a < accumulate.size(); ++a) {
    result.sums[a].assign(accumulate[a]->accumulate_length(), 0);
    for (auto& o : outputs)
      DSA_RETURN_IF_ERROR(AddChecked(result.sums[a], o.sums[a], "accumulate metric"));
  }
  return result;
}

}  // namespace dsanalyze
