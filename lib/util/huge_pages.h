// Big arrays on transparent huge pages.
//
// Why: the first touch of every 4 KiB page of a fresh array is a page fault,
// and in a virtual machine each one is costly. A run at 10^9 samples
// allocates several arrays of gigabytes per rank (the map's values, the
// keys, the received keys, the merge buffer); measured on the 2-core VM of
// docs/benchmarks.md at 10^8 samples, 2 ranks, asking for 2 MiB pages cut the
// exchange from 1.94 s to 0.09 s and the whole run from 9.5 s to 5.7 s.
// The kernel honours the request when
// /sys/kernel/mm/transparent_hugepage/enabled is "madvise" or "always"; with
// "never" nothing changes. The contents and the result never depend on it.
#pragma once

#include <cstddef>
#include <vector>

namespace dsanalyze {

// Asks for huge pages for the whole 2 MiB pages inside [data, data + bytes).
// Call before the memory is first touched. Arrays under 4 MiB and errors are
// ignored (it is only advice).
void AdviseHugePages(const void* data, size_t bytes);

// Reserves room for `n` elements in the empty vector `v`, advised for huge
// pages before anything touches it.
template <class T>
void ReserveOnHugePages(std::vector<T>& v, size_t n) {
  v.reserve(n);
  AdviseHugePages(v.data(), n * sizeof(T));
}

// Gives `v` room for `n` elements: its own memory when it has room (pages
// already faulted in, so reusing them costs no page faults), else fresh
// memory on huge pages, the old freed first. Keeps v's elements only in the
// first case; callers that reuse a buffer resize() or clear() it after.
template <class T>
void ReserveReusing(std::vector<T>& v, size_t n) {
  if (v.capacity() >= n) return;
  std::vector<T>().swap(v);
  ReserveOnHugePages(v, n);
}

// A vector of `n` value-initialized elements on huge pages.
template <class T>
std::vector<T> HugePageVector(size_t n) {
  std::vector<T> v;
  ReserveOnHugePages(v, n);
  v.resize(n);
  return v;
}

}  // namespace dsanalyze
