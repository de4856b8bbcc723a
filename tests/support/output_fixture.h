// Test fixtures for analysis outputs: writable copies of DeepSpeed's golden
// outputs, row-level reading and rewriting of one .bin/.idx pair, and a tiny
// independent writer of a single-value metric folder (format.md §2), so tests
// can break one invariant at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "format/dtype.h"

namespace dsanalyze::test {

using Rows = std::vector<std::vector<int64_t>>;

// Copies golden/<name> (e.g. "seedmod-100k/dda") to `to`, made writable.
void CopyGolden(const std::string& name, const std::filesystem::path& to);

// All rows of PREFIX.{bin,idx} (deepspeed dtype table) and its dtype.
Rows ReadRows(const std::string& prefix);
DType ReadDType(const std::string& prefix);

// Replaces PREFIX.{bin,idx} with `rows` of `dtype` (IndexedWriter, doc_idx [0, len]).
void WriteRows(const std::string& prefix, DType dtype, const Rows& rows);

// Writes save_path/metric/ for a single-value metric whose i-th sample (in
// iteration order) has value values[i] and id ids[i], following format.md §2
// directly: fitted dtypes, ascending values, ids ascending per value, the
// percentile grouping.
void WriteSingleValueMetric(const std::filesystem::path& save_path, const std::string& metric,
                            const std::vector<int64_t>& values, const std::vector<int64_t>& ids);

}  // namespace dsanalyze::test
