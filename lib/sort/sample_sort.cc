#include "sort/sample_sort.h"

#include <mpi.h>

#include <algorithm>

#include "util/exception_status.h"
#include "util/fault_point.h"
#include "util/huge_pages.h"

namespace dsanalyze {
namespace {

// Merges consecutive sorted runs of `data` (lengths `runs`) into one sorted
// array, with *tmp (any contents) as the second buffer; *tmp is left holding
// whichever buffer the result is not in.
template <class Key>
std::vector<Key> MergeRuns(std::vector<Key> data, std::vector<uint64_t> runs,
                           std::vector<Key>* tmp_buffer) {
  if (runs.size() <= 1) return data;
  std::vector<Key>& tmp = *tmp_buffer;
  ReserveReusing(tmp, data.size());  // never three buffers at once
  tmp.resize(data.size());
  while (runs.size() > 1) {
    std::vector<uint64_t> merged;
    uint64_t off = 0;
    for (size_t i = 0; i < runs.size(); i += 2) {
      if (i + 1 == runs.size()) {
        std::copy(data.begin() + off, data.begin() + off + runs[i], tmp.begin() + off);
        merged.push_back(runs[i]);
        off += runs[i];
        continue;
      }
      auto a = data.begin() + off, b = a + runs[i], e = b + runs[i + 1];
      std::merge(a, b, b, e, tmp.begin() + off);
      merged.push_back(runs[i] + runs[i + 1]);
      off += runs[i] + runs[i + 1];
    }
    data.swap(tmp);
    runs.swap(merged);
  }
  return data;
}

double Now() { return MPI_Wtime(); }

}  // namespace

template <class Key>
std::vector<uint64_t> SelectExactSplits(const Comm& comm, const std::vector<Key>& sorted,
                                        unsigned key_bits) {
  const size_t p = static_cast<size_t>(comm.size());
  const uint64_t total = comm.Allreduce<uint64_t>(sorted.size(), MPI_SUM);
  if (p == 1) return {0, sorted.size()};
  // Splitter j (1..p-1) is the key of global rank target[j]. A rank whose
  // slice would be empty gets target == total and split == size.
  std::vector<uint64_t> target(p - 1);
  for (size_t j = 1; j < p; ++j) target[j - 1] = static_cast<uint64_t>((u128{total} * j) / p);
  std::vector<uint64_t> split{0};
  for (uint64_t cut : LocalCutsAtGlobalRanks(comm, sorted, key_bits, target, total))
    split.push_back(cut);
  split.push_back(sorted.size());
  return split;
}

template <class Key>
Result<std::vector<Key>> SampleSort(const Comm& comm, std::vector<Key> sorted, unsigned key_bits,
                                    SampleSortTimes* times, std::vector<Key>* spare) {
  if (comm.size() == 1) {
    DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(Status::OK()));  // the checkpoint it ends with
    return sorted;
  }
  double t0 = Now();
  std::vector<uint64_t> split = SelectExactSplits(comm, sorted, key_bits);
  std::vector<uint64_t> send_counts(split.size() - 1);
  for (size_t r = 0; r + 1 < split.size(); ++r) send_counts[r] = split[r + 1] - split[r];
  double t1 = Now();
  std::vector<uint64_t> recv_counts;
  FaultPoint("exchange");  // test-only (util/fault_point.h)
  DSA_ASSIGN_OR_RETURN(std::vector<Key> received,
                       comm.Alltoallv<Key>(std::span<const Key>(sorted), send_counts, &recv_counts,
                                           spare ? std::move(*spare) : std::vector<Key>{}));
  double t2 = Now();
  // The sent keys' memory is the merge's second buffer: a fresh one would
  // be faulted in and zeroed page by page (the peak is the same).
  std::vector<Key> merged;
  DSA_RETURN_IF_ERROR(comm.AgreeOnStatus(CatchAsStatus("exchange", [&] {
    merged = MergeRuns(std::move(received), std::move(recv_counts), &sorted);
    return Status::OK();
  })));
  if (spare) *spare = std::move(sorted);
  double t3 = Now();
  if (times) {
    times->splitters += t1 - t0;
    times->exchange += t2 - t1;
    times->merge += t3 - t2;
  }
  return merged;
}

template std::vector<uint64_t> SelectExactSplits(const Comm&, const std::vector<uint64_t>&,
                                                 unsigned);
template std::vector<uint64_t> SelectExactSplits(const Comm&, const std::vector<WideKey>&,
                                                 unsigned);
template Result<std::vector<uint64_t>> SampleSort(const Comm&, std::vector<uint64_t>, unsigned,
                                                  SampleSortTimes*, std::vector<uint64_t>*);
template Result<std::vector<WideKey>> SampleSort(const Comm&, std::vector<WideKey>, unsigned,
                                                 SampleSortTimes*, std::vector<WideKey>*);

}  // namespace dsanalyze
