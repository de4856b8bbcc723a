// Fuzz target for the .idx reader (format/indexed_dataset.h).
//
// Input: one options byte, then the .idx bytes. The options byte picks the
// dtype code table (bits 0-1, mod 3), whether float dtypes are allowed (bit 2)
// and the .bin written next to the .idx (bits 3-4): exactly the size the .idx
// describes, one byte short, one byte long, or half of it. The .bin size is
// computed by a tolerant pre-scan of the .idx so that the fuzzer reaches the
// row-access code, not only the size checks.
//
// On success the target reads every row (and every document range of doc_idx)
// the way the metrics do, and checks the contract of the header: views lie
// inside the .bin, sizes add up, doc_idx is in range and sorted. On failure it
// checks that the error is one BadInput line naming the file.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "format/indexed_dataset.h"
#include "fuzz_support.h"

namespace dsanalyze {
namespace {

constexpr uint64_t kMaxBin = 64 << 10;  // larger .bin files are replaced by an empty one

CodeTable TableOf(uint8_t options) {
  switch (options & 3) {
    case 0:
      return CodeTable::kDeepSpeed;
    case 1:
      return CodeTable::kDeepSpeedLegacy;
    default:
      return CodeTable::kMegatron;
  }
}

// The .bin size the .idx asks for, read without validating anything.
uint64_t DescribedBinSize(const uint8_t* idx, size_t size, CodeTable table) {
  if (size < kIdxHeaderSize) return 0;
  const std::optional<DType> dtype = DTypeFromCode(table, idx[17]);
  const uint64_t item = dtype ? ItemSize(*dtype) : 1;
  uint64_t rows;
  std::memcpy(&rows, idx + 18, 8);
  const uint64_t present = (size - kIdxHeaderSize) / 4;
  uint64_t total = 0;
  for (uint64_t i = 0; i < rows && i < present && total <= kMaxBin; ++i) {
    int32_t n;
    std::memcpy(&n, idx + kIdxHeaderSize + 4 * i, 4);
    if (n > 0) total += static_cast<uint64_t>(n) * item;
  }
  return total;
}

uint64_t BinSize(uint8_t options, uint64_t described) {
  switch ((options >> 3) & 3) {
    case 0:
      return described;
    case 1:
      return described == 0 ? 0 : described - 1;
    case 2:
      return described + 1;
    default:
      return described / 2;
  }
}

// Reads every element of `v` as a consumer would and returns a checksum.
uint64_t Touch(const ElementView& v) {
  uint64_t sum = 0;
  if (IsInteger(v.dtype)) {
    VisitIntDType(v.dtype, [&](auto tag) {
      for (auto x : v.as<decltype(tag)>()) sum += static_cast<uint64_t>(x);
    });
  } else {
    for (uint64_t i = 0; i < v.count * ItemSize(v.dtype); ++i)
      sum += static_cast<uint64_t>(v.data[i]);
  }
  return sum;
}

void CheckDataset(const IndexedDataset& ds, uint64_t bin_size, CodeTable table) {
  const size_t item = ItemSize(ds.dtype());
  FUZZ_CHECK(DTypeFromCode(table, ds.dtype_code()) == ds.dtype(), "dtype matches its code");
  const ElementView all = ds.elements();
  FUZZ_CHECK(all.count * item == bin_size, "elements() covers the whole .bin");

  uint64_t sum = 0, total = 0;
  for (uint64_t i = 0; i < ds.num_rows(); ++i) {
    FUZZ_CHECK(ds.row_size(i) >= 0, "row " + std::to_string(i) + " has a negative size");
    const uint64_t begin = ds.row_begin(i), end = ds.row_begin(i + 1);
    FUZZ_CHECK(begin <= end && end <= ds.num_elements(), "row " + std::to_string(i) + " bounds");
    const ElementView row = ds.row(i);
    FUZZ_CHECK(row.count == static_cast<uint64_t>(ds.row_size(i)), "row count is its size");
    FUZZ_CHECK(row.data == all.data + begin * item, "row view starts at its pointer");
    total += row.count;
    sum += Touch(row);
  }
  FUZZ_CHECK(total == ds.num_elements(), "row sizes add up to the element count");
  FUZZ_CHECK(sum == Touch(all), "rows and elements() see the same tokens");

  for (uint64_t d = 0; d < ds.doc_count(); ++d) {
    const int64_t first = ds.doc_idx(d);
    FUZZ_CHECK(first >= 0 && static_cast<uint64_t>(first) <= ds.num_rows(), "doc_idx in range");
    if (d + 1 == ds.doc_count()) break;
    const int64_t last = ds.doc_idx(d + 1);
    FUZZ_CHECK(first <= last, "doc_idx sorted");
    const ElementView doc = ds.rows(static_cast<uint64_t>(first), static_cast<uint64_t>(last));
    FUZZ_CHECK(doc.data + doc.count * item <= all.data + all.count * item, "document inside .bin");
    Touch(doc);
  }
}

void CheckError(const Status& status, const std::string& prefix) {
  const std::string& m = status.message();
  FUZZ_CHECK(status.code() == Status::Code::kBadInput, "bad bytes are bad input: " + m);
  FUZZ_CHECK(m.rfind(prefix, 0) == 0, "the error names the file: " + m);
  FUZZ_CHECK(m.find('\n') == std::string::npos, "the error is one line: " + m);
}

}  // namespace
}  // namespace dsanalyze

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dsanalyze;
  if (size < 1) return 0;
  const uint8_t options = data[0];
  const uint8_t* idx = data + 1;
  const size_t idx_size = size - 1;

  IndexedDataset::Options open_options;
  open_options.table = TableOf(options);
  open_options.require_integer = (options & 4) == 0;

  const std::string prefix = fuzz::ScratchDir() + "/data";
  fuzz::WriteFileOrDie(prefix + ".idx", idx, idx_size);
  uint64_t bin_size = BinSize(options, DescribedBinSize(idx, idx_size, open_options.table));
  if (bin_size > kMaxBin) bin_size = 0;
  static std::vector<uint8_t> pattern;
  if (pattern.empty()) {
    pattern.resize(kMaxBin + 1);
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 131 + 7);
  }
  fuzz::WriteFileOrDie(prefix + ".bin", pattern.data(), bin_size);

  // DetectCodeTable (inspect's --dtype-codes auto) reads the same bytes: it
  // must stay in bounds, and a table it picks must be one the file can be
  // opened with (it fits the .bin size, so only the other checks may fail).
  Result<DetectedTable> detected = DetectCodeTable(prefix, open_options.table, open_options);
  if (!detected.ok()) CheckError(detected.status(), prefix);

  Result<IndexedDataset> ds = IndexedDataset::Open(prefix, open_options);
  if (ds.ok()) {
    CheckDataset(*ds, bin_size, open_options.table);
    // Moving keeps the views valid (the header's promise).
    IndexedDataset moved = std::move(ds).value();
    CheckDataset(moved, bin_size, open_options.table);
  } else {
    CheckError(ds.status(), prefix);
  }
  return 0;
}
