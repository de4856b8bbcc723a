// Builds SampleBatches from literal rows for metric tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "dataset/dataset.h"

namespace dsanalyze::test {

// Owns the element bytes and offsets a SampleBatch points into.
template <class T>
struct OwnedBatch {
  std::vector<T> elements;
  std::vector<uint64_t> offsets{0};
  SampleBatch batch;

  OwnedBatch(uint64_t first, DType dtype, const std::vector<std::vector<T>>& rows) {
    for (const auto& row : rows) {
      elements.insert(elements.end(), row.begin(), row.end());
      offsets.push_back(elements.size());
    }
    batch.first = first;
    batch.dtype = dtype;
    batch.elements = reinterpret_cast<const std::byte*>(elements.data());
    batch.offsets = offsets;
  }
};

}  // namespace dsanalyze::test
