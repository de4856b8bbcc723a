// dsanalyze_token_quality_bench: the token-quality metrics' cost a token, and
// the floor under it (issue 47's case Q, docs/benchmarks.md). Not a test; one
// thread, no MPI, the samples in batches of 1024 as the map hands them over.
//
//   dsanalyze_token_quality_bench PREFIX [ROUNDS]
//       PREFIX.idx/.bin a uint16 token file (`dsanalyze generate`); prints, for
//       each pass over every token, the fastest of ROUNDS rounds (default 7)
//       in CPU ns a token:
//         read     sum the tokens: what any pass over them costs;
//         count    the floor of counting: ++count[id] in a table of every id,
//                  the ids a sample touched reset after it (what
//                  unique_token_ratio and token_entropy cannot do without);
//         floor    count, plus one store a window of 3 tokens into a slot of
//                  a per-sample table at its hash (the least an n-gram count
//                  does: no load, no comparison, no second probe);
//         unique, entropy, ngram   each metric alone (Metric::Compute);
//         all3     the three in one shared pass, as case Q runs them.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "format/indexed_dataset.h"
#include "metrics/builtin_metrics.h"

namespace {

using dsanalyze::SampleBatch;

constexpr size_t kBatch = 1024;

// The file's samples as the map's batches: offsets into the mapped elements.
struct Batches {
  const std::byte* elements = nullptr;
  std::vector<std::vector<uint64_t>> offsets;  // each kBatch + 1 entries at most
  uint64_t tokens = 0;

  SampleBatch Get(size_t b) const {
    SampleBatch batch;
    batch.first = b * kBatch;
    batch.dtype = dsanalyze::DType::kU16;
    batch.elements = elements;
    batch.offsets = offsets[b];
    return batch;
  }
};

Batches BatchesOf(const dsanalyze::IndexedDataset& data) {
  Batches out;
  out.elements = data.elements().data;
  for (uint64_t first = 0; first < data.num_rows(); first += kBatch) {
    std::vector<uint64_t> offsets;
    for (uint64_t i = first; i <= std::min<uint64_t>(first + kBatch, data.num_rows()); ++i)
      offsets.push_back(data.row_begin(i));
    out.offsets.push_back(std::move(offsets));
  }
  out.tokens = data.row_begin(data.num_rows());
  return out;
}

// The thread's CPU time in ns: on a shared machine, wall time would count the
// time other processes held the core.
double CpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The fastest of `rounds` calls of pass(), in CPU ns a token.
double NsPerToken(const Batches& batches, int rounds, const std::function<void()>& pass) {
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = CpuNs();
    pass();
    best = std::min(best, (CpuNs() - t0) / static_cast<double>(batches.tokens));
  }
  return best;
}

// The floor's per-sample work (see the header): the dense count, and with
// `windows` one store a window of 3 at its hash in a table 32 slots a window.
struct Floor {
  std::vector<uint32_t> count = std::vector<uint32_t>(65536, 0);
  std::vector<uint16_t> touched = std::vector<uint16_t>(65537);
  std::vector<uint64_t> slots;
  uint64_t sink = 0;  // keeps the work observable

  template <bool kWindows>
  void Sample(const uint16_t* t, uint64_t n) {
    const int bits = std::bit_width(n) + 5;
    if (kWindows && slots.size() < (size_t{1} << bits)) slots.resize(size_t{1} << bits);
    uint32_t* c = count.data();
    uint16_t* seen = touched.data();
    uint64_t* slot = slots.data();
    uint64_t distinct = 0, key = 0, total = 0;
    for (uint64_t k = 0; k < n; ++k) {
      seen[distinct] = t[k];
      distinct += c[t[k]]++ == 0;
      if constexpr (kWindows) {
        key = ((key << 16) | t[k]) & 0xFFFFFFFFFFFFu;
        if (k >= 2) slot[(key * 0x9E3779B97F4A7C15u) >> (64 - bits)] = key;
      }
    }
    for (uint64_t k = 0; k < distinct; ++k) {
      total += c[seen[k]];
      c[seen[k]] = 0;
    }
    sink += total;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s PREFIX [ROUNDS]\n", argv[0]);
    return 2;
  }
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 7;
  auto data = dsanalyze::IndexedDataset::Open(
      argv[1], dsanalyze::IndexedDataset::Options(dsanalyze::CodeTable::kMegatron, true));
  if (!data.ok()) return std::fprintf(stderr, "%s\n", data.status().message().c_str()), 2;
  if (data->dtype() != dsanalyze::DType::kU16)
    return std::fprintf(stderr, "%s: not uint16 tokens\n", argv[1]), 2;
  const Batches batches = BatchesOf(*data);
  const auto* tokens = reinterpret_cast<const uint16_t*>(batches.elements);

  uint64_t sum = 0;
  const auto read = [&] {
    uint64_t local = 0;
    for (uint64_t k = 0; k < batches.tokens; ++k) local += tokens[k];
    sum += local;
  };
  Floor floor;
  const auto floor_pass = [&](auto windows) {
    return [&] {
      for (const auto& offsets : batches.offsets)
        for (size_t i = 0; i + 1 < offsets.size(); ++i)
          floor.Sample<decltype(windows)::value>(tokens + offsets[i], offsets[i + 1] - offsets[i]);
    };
  };
  std::vector<std::unique_ptr<dsanalyze::Metric>> metrics;
  metrics.push_back(dsanalyze::NewUniqueTokenRatioMetric("unique", {}, 1000));
  metrics.push_back(dsanalyze::NewTokenEntropyMetric("entropy", {}, 1000));
  metrics.push_back(dsanalyze::NewRepeatedNgramRatioMetric("ngram", {}, 3, 1000));
  std::vector<const dsanalyze::Metric*> group;
  for (const auto& m : metrics) group.push_back(m.get());
  std::vector<std::vector<int64_t>> values(3, std::vector<int64_t>(kBatch));
  std::vector<std::span<int64_t>> spans(values.begin(), values.end());
  const auto metric_pass = [&](int which) {
    return [&, which] {
      for (size_t b = 0; b < batches.offsets.size(); ++b) {
        const SampleBatch batch = batches.Get(b);
        std::vector<std::span<int64_t>> out;
        for (auto& v : spans) out.push_back(v.first(batch.size()));
        const dsanalyze::Status st = which < 0 ? metrics[0]->ComputeTogether(batch, group, out)
                                               : metrics[which]->Compute(batch, out[which]);
        if (!st.ok()) std::fprintf(stderr, "%s\n", st.message().c_str()), std::exit(3);
      }
    };
  };
  std::printf("%s: %llu tokens, %llu samples, fastest of %d rounds, ns a token\n", argv[1],
              static_cast<unsigned long long>(batches.tokens),
              static_cast<unsigned long long>(data->num_rows()), rounds);
  std::printf("read     %.3f\n", NsPerToken(batches, rounds, read));
  std::printf("count    %.3f\n", NsPerToken(batches, rounds, floor_pass(std::false_type{})));
  std::printf("floor    %.3f\n", NsPerToken(batches, rounds, floor_pass(std::true_type{})));
  std::printf("unique   %.3f\n", NsPerToken(batches, rounds, metric_pass(0)));
  std::printf("entropy  %.3f\n", NsPerToken(batches, rounds, metric_pass(1)));
  std::printf("ngram    %.3f\n", NsPerToken(batches, rounds, metric_pass(2)));
  std::printf("all3     %.3f\n", NsPerToken(batches, rounds, metric_pass(-1)));
  return sum + floor.sink == 42 ? 1 : 0;  // never: only keeps the passes' results alive
}
