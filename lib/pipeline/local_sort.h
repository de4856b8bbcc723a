// Sorting one rank's keys in memory.
//
// SortKeys orders keys ascending. When the caller knows the keys already
// arrive in ascending id order (ids_ascending: default sample ids, one rank's
// contiguous range), a stable sort on the value bits alone gives full (value,
// id) order, so only the value bits are sorted on: with a small value range
// that is a single counting pass. Packed keys use an LSD radix sort with up to
// 16-bit digits; wide keys fall back to comparison sorting.
// `threads` may be used to parallelize; the result does not depend on it.
#pragma once

#include <cstdint>
#include <vector>

#include "pipeline/sort_key.h"

namespace dsanalyze {

void SortKeys(std::vector<uint64_t>& keys, const KeyLayout& layout, bool ids_ascending,
              unsigned threads);
void SortKeys(std::vector<WideKey>& keys, const KeyLayout& layout, bool ids_ascending,
              unsigned threads);

}  // namespace dsanalyze
