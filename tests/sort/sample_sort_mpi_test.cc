// Runs the distributed sample sort under mpiexec -n k and checks, for several
// inputs (random, all one value, fewer keys than ranks, wide keys): every rank's
// slice is sorted, slices are in rank order, the balance is exact
// (rank r holds floor((r+1)M/p) - floor(rM/p) keys), and no key is lost or made.
// Exits non-zero on the first failure, naming it.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "sort/local_sort.h"
#include "sort/sample_sort.h"
#include "support/mpi_suite.h"
#include "util/work_split.h"

namespace dsanalyze::sample_sort_test {
namespace {

using test::Check;

template <class Key>
void RunCase(const Comm& comm, const std::string& name, uint64_t n, const KeyLayout& layout,
             const std::vector<int64_t>& values_by_id) {
  KeyCodec<Key> codec{layout};
  const SampleRange range = SplitRange({0, n}, comm.size(), comm.rank());
  std::vector<int64_t> values(values_by_id.begin() + range.begin, values_by_id.begin() + range.end);
  LocalIds ids;
  ids.first_id = static_cast<int64_t>(range.begin);
  std::vector<Key> keys = SortPairs(std::move(values), ids, codec, 2);
  const unsigned bits = layout.fits_u64() ? layout.total_bits() : 64 + layout.value_bits;
  Result<std::vector<Key>> sorted = SampleSort(comm, keys, bits, nullptr);
  Check(comm, sorted.ok(), name + ": SampleSort succeeds");
  const std::vector<Key> out = std::move(sorted).value();

  Check(comm, std::is_sorted(out.begin(), out.end()), name + ": slice sorted");
  const uint64_t p = comm.size(), r = comm.rank();
  const uint64_t expect = (n * (r + 1)) / p - (n * r) / p;
  Check(comm, out.size() == expect,
        name + ": exact balance, got " + std::to_string(out.size()) + " expected " +
            std::to_string(expect));

  // Gather everything on rank 0 and compare with a sequential sort.
  std::vector<uint64_t> counts = comm.Allgather<uint64_t>(out.size());
  bool same = true;
  if (comm.is_root()) {
    std::vector<Key> all(out);
    for (int src = 1; src < comm.size(); ++src) {
      std::vector<Key> part(counts[src]);
      comm.Recv(std::span<Key>(part), src, 7);
      all.insert(all.end(), part.begin(), part.end());
    }
    std::vector<Key> expected;
    for (uint64_t i = 0; i < n; ++i)
      expected.push_back(codec.Encode(values_by_id[i], static_cast<int64_t>(i)));
    std::sort(expected.begin(), expected.end());
    same = all == expected;
  } else {
    comm.Send(std::span<const Key>(out), 0, 7);
  }
  Check(comm, same, name + ": concatenated slices equal the sequentially sorted keys");
}

KeyLayout Layout(int64_t vmin, int64_t vmax, uint64_t n) {
  KeyLayout l;
  l.value_min = vmin;
  l.value_bits = BitsFor(static_cast<uint64_t>(vmax) - static_cast<uint64_t>(vmin));
  l.id_bits = BitsFor(n == 0 ? 0 : n - 1);
  return l;
}

}  // namespace
}  // namespace dsanalyze::sample_sort_test

DSA_MPI_SUITE(sample_sort) {
  using namespace dsanalyze;
  using namespace dsanalyze::sample_sort_test;
  std::mt19937_64 rng(123);  // same sequence on every rank

  const uint64_t n = 100003;
  std::vector<int64_t> random(n), skew(n, 42), few{5, 3};
  for (auto& v : random) v = static_cast<int64_t>(rng() % 1000) - 500;
  RunCase<uint64_t>(comm, "random values", n, Layout(-500, 499, n), random);
  RunCase<uint64_t>(comm, "all samples one value", n, Layout(42, 42, n), skew);
  RunCase<uint64_t>(comm, "fewer samples than ranks", 2, Layout(3, 5, 2), few);
  RunCase<uint64_t>(comm, "one sample", 1, Layout(5, 5, 1), std::vector<int64_t>{5});
  std::vector<int64_t> wide(5000);
  for (auto& v : wide) v = (rng() % 2) ? INT64_MIN + static_cast<int64_t>(rng() % 3) : INT64_MAX;
  RunCase<WideKey>(comm, "wide keys", wide.size(), Layout(INT64_MIN, INT64_MAX, wide.size()), wide);
}
