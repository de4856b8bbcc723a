// Helpers for the token dataset tests: write rows as an MMapIndexedDataset,
// read samples back as int64 rows.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "dataset/dataset.h"
#include "format/indexed_writer.h"

namespace dsanalyze::test {

using Rows = std::vector<std::vector<int64_t>>;

// One row per document (doc_idx [0, 1, ..., rows]), as Megatron's builder writes.
inline void WriteRows(const std::string& prefix, DType dtype, CodeTable table, const Rows& rows) {
  IndexedWriter::Options options;
  options.table = table;
  options.doc_idx_per_row = true;
  Result<std::unique_ptr<IndexedWriter>> w = IndexedWriter::Create(prefix, dtype, options);
  REQUIRE(w.ok());
  for (const auto& row : rows) REQUIRE((*w)->AddRow(row).ok());
  REQUIRE((*w)->Finish().ok());
}

// The samples of a batch, widened to int64.
inline Rows SamplesOf(const SampleBatch& b) {
  Rows out;
  for (size_t i = 0; i < b.size(); ++i) {
    const ElementView v = b.sample(i);
    VisitIntDType(v.dtype, [&](auto zero) {
      const auto s = v.as<decltype(zero)>();
      out.emplace_back(s.begin(), s.end());
    });
  }
  return out;
}

// All samples of `ds`, read through one reader in batches of `batch` samples.
inline Rows ReadAll(const Dataset& ds, uint64_t batch) {
  std::unique_ptr<SampleReader> r = ds.NewReader();
  Rows out;
  SampleBatch b;
  for (uint64_t begin = 0; begin < ds.size(); begin += batch) {
    const uint64_t end = std::min(ds.size(), begin + batch);
    REQUIRE(r->Read(begin, end, true, &b).ok());
    REQUIRE(b.first == begin);
    REQUIRE(b.size() == end - begin);
    const Rows part = SamplesOf(b);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// The lengths of all samples from a lengths-only read of the whole dataset.
inline std::vector<uint64_t> Lengths(const Dataset& ds) {
  std::unique_ptr<SampleReader> r = ds.NewReader();
  SampleBatch b;
  REQUIRE(r->Read(0, ds.size(), false, &b).ok());
  CHECK(b.elements == nullptr);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < b.size(); ++i) out.push_back(b.length(i));
  return out;
}

}  // namespace dsanalyze::test
