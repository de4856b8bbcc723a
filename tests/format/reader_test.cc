// IndexedDataset: the golden token dataset checked against an independent
// parse of its raw bytes, and corrupt pairs (built by patching a valid pair)
// each rejected with a message naming the file and the problem.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "format/indexed_dataset.h"
#include "format/indexed_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

template <class T>
T Get(const std::vector<uint8_t>& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}

template <class T>
void Put(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof(T));
}

const std::string kTokens = "tokens/data/tok_d20000_v50000_s1234";

}  // namespace

TEST_CASE("reader reads the golden token dataset like a raw parse does",
          "[format][reader][golden]") {
  const std::string prefix = (test::GoldenDir() / kTokens).string();
  const auto idx = test::ReadBytes(prefix + ".idx");
  const auto bin = test::ReadBytes(prefix + ".bin");
  // Raw parse, format.md §1 offsets.
  REQUIRE(idx.size() >= 34);
  REQUIRE(std::memcmp(idx.data(), "MMIDIDX\0\0", 9) == 0);
  const uint8_t raw_code = idx[17];
  const uint64_t raw_len = Get<uint64_t>(idx, 18);
  const uint64_t raw_docs = Get<uint64_t>(idx, 26);
  auto raw_size = [&](uint64_t i) { return Get<int32_t>(idx, 34 + 4 * i); };
  auto raw_ptr = [&](uint64_t i) { return Get<int64_t>(idx, 34 + 4 * raw_len + 8 * i); };
  auto raw_doc = [&](uint64_t i) { return Get<int64_t>(idx, 34 + 12 * raw_len + 8 * i); };
  auto raw_token = [&](uint64_t byte_offset) { return Get<uint16_t>(bin, byte_offset); };
  uint64_t raw_elements = 0;
  for (uint64_t i = 0; i < raw_len; ++i) raw_elements += static_cast<uint64_t>(raw_size(i));

  auto ds = IndexedDataset::Open(prefix, {CodeTable::kDeepSpeed, true});
  INFO(ds.status().message());
  REQUIRE(ds.ok());
  CHECK(raw_code == 6);
  CHECK(ds->dtype_code() == 6);
  CHECK(ds->dtype() == DType::kU16);
  CHECK(ds->num_rows() == 20000);
  CHECK(ds->num_rows() == raw_len);
  CHECK(ds->num_elements() == 5256782);
  CHECK(ds->num_elements() == raw_elements);
  CHECK(ds->doc_count() == 20001);
  CHECK(ds->doc_count() == raw_docs);
  CHECK(ds->elements().count == bin.size() / 2);

  for (uint64_t i = 0; i < raw_docs; ++i)
    if (ds->doc_idx(i) != raw_doc(i)) FAIL("doc_idx[" << i << "] differs");
  CHECK(ds->doc_idx(0) == 0);
  CHECK(ds->doc_idx(20000) == 20000);

  for (uint64_t i : {0ull, 1ull, 2ull, 777ull, 4096ull, 12345ull, 19998ull, 19999ull}) {
    INFO("row " << i);
    REQUIRE(ds->row_size(i) == raw_size(i));
    REQUIRE(ds->row_pointer(i) == raw_ptr(i));
    auto row = ds->typed_row<uint16_t>(i);
    REQUIRE(row.size() == static_cast<size_t>(raw_size(i)));
    for (size_t k = 0; k < row.size(); ++k) REQUIRE(row[k] == raw_token(raw_ptr(i) + 2 * k));
    CHECK(ds->row_begin(i) == static_cast<uint64_t>(raw_ptr(i)) / 2);
  }
  // A multi-row view is the rows back to back.
  ElementView v = ds->rows(100, 110);
  uint64_t expect = 0;
  for (uint64_t i = 100; i < 110; ++i) expect += static_cast<uint64_t>(raw_size(i));
  CHECK(v.count == expect);
  CHECK(v.as<uint16_t>()[0] == raw_token(raw_ptr(100)));
  CHECK(ds->row_begin(ds->num_rows()) == ds->num_elements());
  // Every token is below the vocabulary (golden/README.md).
  uint16_t max_token = 0;
  for (uint16_t t : ds->elements().as<uint16_t>()) max_token = std::max(max_token, t);
  CHECK(max_token < 50000);
}

TEST_CASE("token dataset read with a table where its code is a float is rejected",
          "[format][reader][golden]") {
  const std::string prefix = (test::GoldenDir() / kTokens).string();
  for (CodeTable t : {CodeTable::kMegatron, CodeTable::kDeepSpeedLegacy}) {
    auto ds = IndexedDataset::Open(prefix, {t, true});
    REQUIRE_FALSE(ds.ok());
    CHECK(ds.status().code() == Status::Code::kBadInput);
    const std::string m = ds.status().message();
    CHECK_THAT(m, Contains(prefix + ".idx"));
    CHECK_THAT(
        m, Contains("dtype code 6 is float64 in the " + std::string(CodeTableName(t)) + " table"));
    CHECK_THAT(m, Contains("integer dtype is required"));
  }
  // Allowing floats only moves the failure: 8-byte items do not match the
  // pointers, and the message says which element size does.
  auto ds = IndexedDataset::Open(prefix, {CodeTable::kMegatron, false});
  REQUIRE_FALSE(ds.ok());
  CHECK_THAT(ds.status().message(), Contains("pointer of row 1"));
  CHECK_THAT(ds.status().message(),
             Contains("; they fit 2-byte elements, so the dtype code table is probably wrong "
                      "(code 6 is float64 in the megatron table)"));
}

TEST_CASE("a Megatron uint16 file read with the deepspeed table names the likely cause",
          "[format][reader]") {
  test::ScratchDir dir;
  IndexedWriter::Options o;
  o.table = CodeTable::kMegatron;
  auto w = IndexedWriter::Create(dir / "m", DType::kU16, o);
  REQUIRE(w.ok());
  REQUIRE((*w)->AddRow(std::vector<int64_t>{1, 2, 3}).ok());
  REQUIRE((*w)->AddRow(std::vector<int64_t>{4}).ok());
  REQUIRE((*w)->Finish().ok());
  REQUIRE(IndexedDataset::Open(dir / "m", {CodeTable::kMegatron, true}).ok());
  auto ds = IndexedDataset::Open(dir / "m", {CodeTable::kDeepSpeed, true});
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() ==
        dir / "m.idx" +
            ": pointer of row 1 is 6 but the sizes before it give 24; they fit 2-byte elements, "
            "so the dtype code table is probably wrong (code 8 is uint64 in the deepspeed table)");
}

TEST_CASE("the table setting is named with a table that fits", "[format][reader]") {
  test::ScratchDir dir;
  IndexedWriter::Options o;
  o.table = CodeTable::kMegatron;
  auto w = IndexedWriter::Create(dir / "m", DType::kU16, o);
  REQUIRE(w.ok());
  REQUIRE((*w)->AddRow(std::vector<int64_t>{1, 2, 3}).ok());
  REQUIRE((*w)->Finish().ok());
  // One row: no pointer to disagree, so the .bin size names the cause.
  IndexedDataset::Options ro{CodeTable::kDeepSpeed, true, "dataset.dtype_codes"};
  auto ds = IndexedDataset::Open(dir / "m", ro);
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() ==
        dir / "m.bin: file is 6 bytes but " + dir / "m.idx" +
            " describes 24 (3 uint64 elements); .bin is too short; it fits 2-byte elements, so "
            "the dtype code table is probably wrong; dataset.dtype_codes megatron reads it as "
            "uint16");
}

TEST_CASE("DetectCodeTable picks the table the .bin size fits", "[format][reader]") {
  test::ScratchDir dir;
  auto write = [&](const std::string& name, DType t, CodeTable table, std::vector<int64_t> row) {
    IndexedWriter::Options o;
    o.table = table;
    auto w = IndexedWriter::Create(dir / name, t, o);
    REQUIRE(w.ok());
    REQUIRE((*w)->AddRow(row).ok());
    REQUIRE((*w)->Finish().ok());
  };
  write("meg", DType::kU16, CodeTable::kMegatron, {1, 2});   // code 8 = uint16
  write("ds", DType::kU64, CodeTable::kDeepSpeed, {1, 2});   // code 8 = uint64
  write("ds7", DType::kU32, CodeTable::kDeepSpeed, {1, 2});  // code 7: float32 to Megatron
  write("empty", DType::kU64, CodeTable::kDeepSpeed, {});    // code 8, no elements
  const IndexedDataset::Options ro;
  struct {
    const char* name;
    CodeTable fallback, want;
    bool ambiguous;
  } const cases[] = {
      {"meg", CodeTable::kMegatron, CodeTable::kMegatron, false},
      {"meg", CodeTable::kDeepSpeed, CodeTable::kMegatron, false},
      {"ds", CodeTable::kMegatron, CodeTable::kDeepSpeed, false},
      {"ds7", CodeTable::kMegatron, CodeTable::kDeepSpeed, false},
      {"empty", CodeTable::kMegatron, CodeTable::kMegatron, true},
      {"empty", CodeTable::kDeepSpeed, CodeTable::kDeepSpeed, true},
  };
  for (const auto& c : cases) {
    INFO(c.name << " fallback " << CodeTableName(c.fallback));
    auto d = DetectCodeTable(dir / c.name, c.fallback, ro);
    REQUIRE(d.ok());
    CHECK(d->table == c.want);
    CHECK(d->ambiguous == c.ambiguous);
    CHECK(IndexedDataset::Open(dir / c.name, {d->table, true}).ok());
  }
  // A missing file is left to Open to report.
  auto missing = DetectCodeTable(dir / "none", CodeTable::kMegatron, ro);
  REQUIRE(missing.ok());
  CHECK(missing->table == CodeTable::kMegatron);
}

namespace {

// A valid pair: uint16 rows {1,2,3} {4} {} {5,6}: .idx 98 bytes, .bin 12 bytes.
// sizes at 34, pointers at 50, doc_idx at 82.
struct SmallPair {
  explicit SmallPair(const test::ScratchDir& dir, bool doc_idx_per_row = false)
      : prefix(dir / "small") {
    IndexedWriter::Options o;
    o.doc_idx_per_row = doc_idx_per_row;
    auto w = IndexedWriter::Create(prefix, DType::kU16, o);
    REQUIRE(w.ok());
    for (std::vector<int64_t> r : {std::vector<int64_t>{1, 2, 3}, {4}, {}, {5, 6}})
      REQUIRE((*w)->AddRow(r).ok());
    REQUIRE((*w)->Finish().ok());
    idx = test::ReadBytes(idx_path());
    bin = test::ReadBytes(bin_path());
    REQUIRE(IndexedDataset::Open(prefix).ok());
  }
  std::string idx_path() const { return prefix + ".idx"; }
  std::string bin_path() const { return prefix + ".bin"; }
  void Save() const {
    test::WriteBytes(idx_path(), idx);
    test::WriteBytes(bin_path(), bin);
  }
  // Saves the (patched) bytes and returns the reader's error message.
  std::string Error(CodeTable table = CodeTable::kDeepSpeed) const {
    Save();
    auto ds = IndexedDataset::Open(prefix, {table, true});
    if (ds.ok()) return "<opened without error>";
    CHECK(ds.status().code() == Status::Code::kBadInput);
    return ds.status().message();
  }

  std::string prefix;
  std::vector<uint8_t> idx, bin;
};

constexpr size_t kSizes = 34, kPointers = 50, kDocIdx = 82;

}  // namespace

TEST_CASE("the small valid pair is laid out as format.md says", "[format][reader]") {
  test::ScratchDir dir;
  SmallPair p(dir);
  REQUIRE(p.idx.size() == 98);
  REQUIRE(p.bin.size() == 12);
  CHECK(Get<int32_t>(p.idx, kSizes + 4) == 1);
  CHECK(Get<int64_t>(p.idx, kPointers + 24) == 8);
  CHECK(Get<int64_t>(p.idx, kDocIdx + 8) == 4);
  auto ds = IndexedDataset::Open(p.prefix);
  REQUIRE(ds.ok());
  CHECK(ds->row(2).count == 0);
  CHECK(ds->typed_row<uint16_t>(3)[1] == 6);
}

TEST_CASE("corrupt pairs are rejected with the file and the problem", "[format][reader][corrupt]") {
  test::ScratchDir dir;

  SECTION("missing .idx") {
    SmallPair p(dir);
    fs::remove(p.idx_path());
    auto ds = IndexedDataset::Open(p.prefix);
    REQUIRE_FALSE(ds.ok());
    CHECK(ds.status().message() == p.idx_path() + ": file not found");
  }
  SECTION("missing .bin") {
    SmallPair p(dir);
    fs::remove(p.bin_path());
    auto ds = IndexedDataset::Open(p.prefix);
    REQUIRE_FALSE(ds.ok());
    CHECK(ds.status().message() == p.bin_path() + ": file not found");
  }
  SECTION(".idx is a directory") {
    SmallPair p(dir);
    fs::remove(p.idx_path());
    fs::create_directory(p.idx_path());
    auto ds = IndexedDataset::Open(p.prefix);
    REQUIRE_FALSE(ds.ok());
    CHECK(ds.status().message() == p.idx_path() + ": not a regular file (a directory)");
  }
  SECTION("empty .idx") {
    SmallPair p(dir);
    p.idx.clear();
    CHECK(p.Error() == p.idx_path() + ": file is 0 bytes, shorter than the 34-byte header");
  }
  SECTION("short header") {
    SmallPair p(dir);
    p.idx.resize(20);
    CHECK(p.Error() == p.idx_path() + ": file is 20 bytes, shorter than the 34-byte header");
  }
  SECTION("bad magic") {
    SmallPair p(dir);
    p.idx[3] = 'X';
    CHECK_THAT(p.Error(), Contains(p.idx_path() + ": bad magic"));
  }
  SECTION("version 2") {
    SmallPair p(dir);
    Put<uint64_t>(p.idx, 9, 2);
    CHECK(p.Error() == p.idx_path() + ": unsupported version 2 (expected 1)");
  }
  SECTION("unknown dtype codes") {
    SmallPair p(dir);
    for (uint8_t code : {0, 11, 9, 10, 200}) {
      p.idx[17] = code;
      CHECK(p.Error() == p.idx_path() + ": unknown dtype code " + std::to_string(code) +
                             " in the deepspeed table");
    }
    p.idx[17] = 9;
    CHECK(p.Error(CodeTable::kMegatron) ==
          p.idx_path() + ": unknown dtype code 9 in the megatron table");
  }
  SECTION("float dtype") {
    SmallPair p(dir);
    p.idx[17] = 7;
    CHECK(p.Error(CodeTable::kMegatron) ==
          p.idx_path() +
              ": dtype code 7 is float32 in the megatron table; an integer dtype is required");
  }
  SECTION(".idx too short for its rows") {
    SmallPair p(dir);
    p.idx.pop_back();
    CHECK(p.Error() == p.idx_path() +
                           ": size mismatch: header says 4 rows and 2 doc_idx entries, which "
                           "needs 98 bytes, but the file has 97");
  }
  SECTION(".idx too long") {
    SmallPair p(dir);
    p.idx.resize(p.idx.size() + 8, 0);
    CHECK(p.Error() == p.idx_path() +
                           ": size mismatch: header says 4 rows and 2 doc_idx entries, which "
                           "needs 98 bytes, but the file has 106");
  }
  SECTION("row count so large that 12*len wraps to the file's size") {
    SmallPair p(dir);
    // 12 * 2^62 wraps to 0 and 8 * 8 = 64 is the real body size: a naive check passes.
    Put<uint64_t>(p.idx, 18, uint64_t{1} << 62);
    Put<uint64_t>(p.idx, 26, 8);
    CHECK(p.Error() == p.idx_path() +
                           ": size mismatch: header says 4611686018427387904 rows and 8 doc_idx "
                           "entries, which needs more bytes, but the file has 98");
  }
  SECTION("doc_count so large that 8*doc_count wraps") {
    SmallPair p(dir);
    // 8 * (2^61 + 2) wraps to 16 = the real doc_idx size.
    Put<uint64_t>(p.idx, 26, (uint64_t{1} << 61) + 2);
    CHECK(p.Error() == p.idx_path() +
                           ": size mismatch: header says 4 rows and 2305843009213693954 doc_idx "
                           "entries, which needs more bytes, but the file has 98");
  }
  SECTION("negative row size") {
    SmallPair p(dir);
    Put<int32_t>(p.idx, kSizes + 4, -1);
    CHECK(p.Error() == p.idx_path() + ": row 1 has negative size -1");
  }
  SECTION("pointer[0] is not 0") {
    SmallPair p(dir);
    Put<int64_t>(p.idx, kPointers, 2);
    CHECK(p.Error() == p.idx_path() + ": pointer of row 0 is 2 but the sizes before it give 0");
  }
  SECTION("pointer does not follow the sizes") {
    SmallPair p(dir);
    Put<int64_t>(p.idx, kPointers + 16, 10);
    CHECK(p.Error() == p.idx_path() + ": pointer of row 2 is 10 but the sizes before it give 8");
  }
  SECTION("negative pointer") {
    SmallPair p(dir);
    Put<int64_t>(p.idx, kPointers + 8, -6);
    CHECK(p.Error() == p.idx_path() + ": pointer of row 1 is -6 but the sizes before it give 6");
  }
  SECTION(".bin too short") {
    SmallPair p(dir);
    p.bin.resize(10);
    CHECK(p.Error() == p.bin_path() + ": file is 10 bytes but " + p.idx_path() +
                           " describes 12 (6 uint16 elements); .bin is too short");
  }
  SECTION(".bin too long") {
    SmallPair p(dir);
    p.bin.resize(14, 0);
    CHECK(p.Error() == p.bin_path() + ": file is 14 bytes but " + p.idx_path() +
                           " describes 12 (6 uint16 elements); .bin is too long");
  }
  SECTION("doc_idx[0] is not 0") {
    SmallPair p(dir);
    Put<int64_t>(p.idx, kDocIdx, 1);
    CHECK(p.Error() == p.idx_path() + ": doc_idx[0] is 1, expected 0");
  }
  SECTION("doc_idx decreasing") {
    SmallPair p(dir, /*doc_idx_per_row=*/true);  // doc_idx [0, 1, 2, 3, 4]
    REQUIRE(p.idx.size() == 34 + 48 + 40);
    Put<int64_t>(p.idx, kDocIdx + 16, 0);  // [0, 1, 0, 3, 4]
    CHECK(p.Error() == p.idx_path() + ": doc_idx decreases at entry 2 (1 then 0)");
  }
  SECTION("doc_idx beyond the row count") {
    SmallPair p(dir);
    Put<int64_t>(p.idx, kDocIdx + 8, 5);
    CHECK(p.Error() == p.idx_path() + ": doc_idx[1] = 5 is out of range [0, 4]");
  }
  SECTION("negative doc_idx") {
    SmallPair p(dir);
    Put<int64_t>(p.idx, kDocIdx + 8, -1);
    CHECK(p.Error() == p.idx_path() + ": doc_idx[1] = -1 is out of range [0, 4]");
  }
}

}  // namespace dsanalyze

namespace dsanalyze {

// Open reads the rows and doc_idx in blocks of 2^16 entries: errors past the
// first block, and at a block's first entry, name the right entry.
TEST_CASE("errors past the first block of rows name the right row", "[format][reader]") {
  test::ScratchDir dir;
  constexpr uint64_t kRows = 200000;
  IndexedWriter::Options o;
  o.rows = kRows;
  o.doc_idx_per_row = true;
  auto w = IndexedWriter::Create(dir / "big", DType::kU16, o);
  REQUIRE(w.ok());
  for (uint64_t i = 0; i < kRows; ++i)
    REQUIRE((*w)->AddRow(std::vector<int64_t>{int64_t(i % 3), 1}).ok());
  REQUIRE((*w)->Finish().ok());
  REQUIRE(IndexedDataset::Open(dir / "big").ok());
  const std::vector<uint8_t> good = test::ReadBytes(dir / "big.idx");
  const auto with = [&](uint64_t offset, int64_t value, int bytes) {
    std::vector<uint8_t> b = good;
    std::memcpy(b.data() + offset, &value, bytes);
    test::WriteBytes(dir / "big.idx", b);
    return IndexedDataset::Open(dir / "big").status().message();
  };
  const uint64_t pointers = IdxPointersOffset(kRows), docs = IdxDocIdxOffset(kRows);
  CHECK_THAT(with(pointers + 8 * 65536, 7, 8), Contains("pointer of row 65536 is 7 but the sizes "
                                                        "before it give 262144"));
  CHECK_THAT(with(IdxSizesOffset() + 4 * 131073, -2, 4),
             Contains("row 131073 has negative size -2"));
  CHECK_THAT(with(docs + 8 * 131072, 5, 8),
             Contains("doc_idx decreases at entry 131072 (131071 then 5)"));
  CHECK_THAT(with(docs + 8 * 199999, 0, 8), Contains("doc_idx decreases at entry 199999 (199998 "
                                                     "then 0)"));
}

}  // namespace dsanalyze

namespace dsanalyze {

// OpenScalarRows checks what needs no pass over the rows; CheckRows the rest,
// with the message Open gives for the same file.
TEST_CASE("OpenScalarRows then CheckRows reports what Open reports", "[format][reader]") {
  test::ScratchDir dir;
  constexpr uint64_t kRows = 70000;  // past one block of rows
  const std::string prefix = dir / "s2m";
  {
    IndexedWriter::Options o;
    o.rows = kRows;
    auto w = IndexedWriter::Create(prefix, DType::kU16, o);
    REQUIRE(w.ok());
    std::vector<int64_t> values(kRows);
    for (uint64_t i = 0; i < kRows; ++i) values[i] = static_cast<int64_t>(i * 7 % 1000);
    REQUIRE((*w)->AddScalarRows(values).ok());
    REQUIRE((*w)->Finish().ok());
  }
  const std::vector<uint8_t> idx = test::ReadBytes(prefix + ".idx");
  const std::vector<uint8_t> bin = test::ReadBytes(prefix + ".bin");
  const IndexedDataset::Options options;

  SECTION("a valid pair opens, checks and reads as Open reads it") {
    auto whole = IndexedDataset::Open(prefix);
    auto scalar = IndexedDataset::OpenScalarRows(prefix, options);
    REQUIRE(whole.ok());
    REQUIRE(scalar.ok());
    CHECK(scalar->CheckRows(options).ok());
    CHECK(scalar->num_rows() == kRows);
    REQUIRE(scalar->elements().count == kRows);
    CHECK(std::memcmp(scalar->elements().data, whole->elements().data, 2 * kRows) == 0);
  }
  SECTION("corrupt rows: opened, then the check gives Open's message") {
    const uint64_t pointers = IdxPointersOffset(kRows), docs = IdxDocIdxOffset(kRows);
    struct Patch {
      uint64_t offset;
      int64_t value;
      int bytes;
    };
    for (const Patch& p : {Patch{pointers + 8 * 65536, 7, 8}, Patch{IdxSizesOffset() + 12, -1, 4},
                           Patch{IdxSizesOffset() + 20, 2, 4}, Patch{docs + 8, 70001, 8}}) {
      std::vector<uint8_t> b = idx;
      std::memcpy(b.data() + p.offset, &p.value, p.bytes);
      test::WriteBytes(prefix + ".idx", b);
      const Status open = IndexedDataset::Open(prefix).status();
      REQUIRE_FALSE(open.ok());
      auto scalar = IndexedDataset::OpenScalarRows(prefix, options);
      REQUIRE(scalar.ok());
      CHECK(scalar->CheckRows(options).message() == open.message());
    }
  }
  SECTION("a .bin that is not one element a row is refused at once, as Open refuses it") {
    test::WriteBytes(prefix + ".bin", std::vector<uint8_t>(bin.begin(), bin.end() - 2));
    const Status open = IndexedDataset::Open(prefix).status();
    const Status scalar = IndexedDataset::OpenScalarRows(prefix, options).status();
    REQUIRE_FALSE(open.ok());
    CHECK(scalar.message() == open.message());
    CHECK_THAT(scalar.message(), Contains(".bin is too short"));
  }
  SECTION("a bad header is refused at once, as Open refuses it") {
    std::vector<uint8_t> b = idx;
    b[17] = 200;  // no dtype has this code
    test::WriteBytes(prefix + ".idx", b);
    const Status scalar = IndexedDataset::OpenScalarRows(prefix, options).status();
    REQUIRE_FALSE(scalar.ok());
    CHECK(scalar.message() == IndexedDataset::Open(prefix).status().message());
  }
  SECTION("an .idx replaced by one of another size before the check") {
    auto scalar = IndexedDataset::OpenScalarRows(prefix, options);
    REQUIRE(scalar.ok());
    std::vector<uint8_t> longer = idx;
    longer.resize(idx.size() + 8);
    test::WriteBytes(prefix + ".idx", longer);
    CHECK(scalar->CheckRows(options).message() == prefix + ".idx: changed while it was read (" +
                                                      std::to_string(idx.size()) + " bytes, now " +
                                                      std::to_string(longer.size()) + ")");
  }
}

}  // namespace dsanalyze
