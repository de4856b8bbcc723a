// Locating elements in a mapped .bin/.idx pair: shared by verify and compare,
// which both report the first row where two element streams part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "format/indexed_dataset.h"

namespace dsanalyze {

// The row of `ds` holding element `e` (e < ds.num_elements()): the last row
// that starts at or before e, which skips empty rows. O(log rows).
uint64_t RowOfElement(const IndexedDataset& ds, uint64_t e);

// Offset of the first byte where a[0, size) and b[0, size) differ, or nullopt.
std::optional<uint64_t> FirstDifferentByte(const std::byte* a, const std::byte* b, uint64_t size);

}  // namespace dsanalyze
