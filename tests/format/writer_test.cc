// IndexedWriter behaviour: temporary names, cleanup, promised row counts, empty
// rows, EndRowOfSize, code tables, I/O errors, per-row doc_idx, and bounded
// memory with millions of rows.
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <new>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "format/indexed_dataset.h"
#include "format/indexed_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

std::unique_ptr<IndexedWriter> MakeWriter(const std::string& prefix, DType dtype,
                                          IndexedWriter::Options o = {}) {
  auto w = IndexedWriter::Create(prefix, dtype, o);
  INFO(w.status().message());
  REQUIRE(w.ok());
  return std::move(w).value();
}

IndexedWriter::Options KnownRows(uint64_t rows) {
  IndexedWriter::Options o;
  o.rows = rows;
  return o;
}

IndexedWriter::Options InTable(CodeTable table) {
  IndexedWriter::Options o;
  o.table = table;
  return o;
}

// Live heap bytes: small blocks plus the large ones malloc maps directly.
size_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// mallinfo2 sees glibc's heap only; under a sanitizer's allocator it reports nothing.
bool HeapIsMeasurable() {
  const size_t before = HeapInUse();
  void* volatile block = std::malloc(size_t{1} << 20);
  const bool seen = HeapInUse() >= before + (size_t{1} << 20);
  std::free(block);
  return seen;
}

std::vector<std::string> FilesIn(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("writer uses temporary names until Finish", "[format][writer]") {
  test::ScratchDir dir;
  const std::string prefix = dir / "d";
  auto w = MakeWriter(prefix, DType::kI32);
  REQUIRE(w->AddRow(std::vector<int64_t>{-5, 7}).ok());
  CHECK(FilesIn(dir.path()) == std::vector<std::string>{"d.bin.tmp", "d.idx.tmp"});
  REQUIRE(w->Finish().ok());
  CHECK(FilesIn(dir.path()) == std::vector<std::string>{"d.bin", "d.idx"});
  CHECK(w->rows_written() == 1);
  CHECK(w->elements_written() == 2);
  CHECK_THAT(w->Finish().message(), Contains("Finish called twice"));

  auto ds = IndexedDataset::Open(prefix);
  REQUIRE(ds.ok());
  CHECK(ds->dtype() == DType::kI32);
  CHECK(ds->typed_row<int32_t>(0)[0] == -5);
  CHECK(ds->typed_row<int32_t>(0)[1] == 7);
}

TEST_CASE("a writer destroyed without Finish leaves nothing behind", "[format][writer]") {
  test::ScratchDir dir;
  {
    auto w = MakeWriter(dir / "d", DType::kU8, KnownRows(3));
    REQUIRE(w->AddRow(std::vector<int64_t>{1, 2, 3}).ok());
  }
  CHECK(FilesIn(dir.path()).empty());
}

TEST_CASE("Finish fails when the promised row count is not met", "[format][writer]") {
  test::ScratchDir dir;
  SECTION("too few rows") {
    {
      auto w = MakeWriter(dir / "d", DType::kU8, KnownRows(3));
      REQUIRE(w->AddRow(std::vector<int64_t>{1}).ok());
      REQUIRE(w->AddRow(std::vector<int64_t>{2}).ok());
      Status st = w->Finish();
      REQUIRE_FALSE(st.ok());
      CHECK_THAT(st.message(), Contains("2 rows written, 3 promised"));
      CHECK_THAT(st.message(), Contains(dir / "d"));
    }
    CHECK(FilesIn(dir.path()).empty());
  }
  SECTION("too many rows") {
    auto w = MakeWriter(dir / "d", DType::kU8, KnownRows(1));
    REQUIRE(w->AddRow(std::vector<int64_t>{1}).ok());
    CHECK_THAT(w->AddRow(std::vector<int64_t>{2}).message(), Contains("more rows than the 1"));
    CHECK_FALSE(w->AddScalarRows(std::vector<int64_t>{3, 4}).ok());
  }
  SECTION("elements after the last row") {
    auto w = MakeWriter(dir / "d", DType::kU8);
    REQUIRE(w->AddRow(std::vector<int64_t>{1}).ok());
    REQUIRE(w->Append(std::vector<int64_t>{2, 3}).ok());
    CHECK_THAT(w->Finish().message(), Contains("2 elements appended after the last row"));
  }
}

TEST_CASE("rows of zero elements", "[format][writer]") {
  test::ScratchDir dir;
  for (bool known : {false, true}) {
    IndexedWriter::Options o;
    if (known) o.rows = 5;
    auto w = MakeWriter(dir / "z", DType::kU16, o);
    REQUIRE(w->EndRow().ok());
    REQUIRE(w->AddRow(std::vector<int64_t>{9}).ok());
    REQUIRE(w->AddRow({}).ok());
    REQUIRE(w->AddRow({}).ok());
    REQUIRE(w->EndRowOfSize(0).ok());
    REQUIRE(w->Finish().ok());
    auto ds = IndexedDataset::Open(dir / "z");
    REQUIRE(ds.ok());
    CHECK(ds->num_rows() == 5);
    CHECK(ds->num_elements() == 1);
    const int32_t want[] = {0, 1, 0, 0, 0};
    for (uint64_t i = 0; i < 5; ++i) CHECK(ds->row_size(i) == want[i]);
    CHECK(ds->row_pointer(2) == 2);
    CHECK(ds->row_pointer(4) == 2);
    CHECK(test::ReadBytes(dir / "z.bin") == std::vector<uint8_t>{9, 0});
  }
  // A dataset with no rows at all.
  auto w = MakeWriter(dir / "e", DType::kU8, KnownRows(0));
  REQUIRE(w->Finish().ok());
  auto ds = IndexedDataset::Open(dir / "e");
  REQUIRE(ds.ok());
  CHECK(ds->num_rows() == 0);
  CHECK(ds->doc_count() == 2);
  CHECK(fs::file_size(dir / "e.idx") == 34 + 16);
  CHECK(fs::file_size(dir / "e.bin") == 0);
}

TEST_CASE("EndRowOfSize splits appended elements into rows", "[format][writer]") {
  test::ScratchDir dir;
  auto w = MakeWriter(dir / "s", DType::kI64, KnownRows(3));
  REQUIRE(w->Append(std::vector<int64_t>{10, 11, 12, 13, 14, 15}).ok());
  REQUIRE(w->EndRowOfSize(2).ok());
  REQUIRE(w->EndRowOfSize(0).ok());
  Status past = w->EndRowOfSize(5);  // only 4 left
  CHECK_THAT(past.message(), Contains("ends past the elements appended"));
  REQUIRE(w->EndRowOfSize(4).ok());
  REQUIRE(w->Finish().ok());
  auto ds = IndexedDataset::Open(dir / "s");
  REQUIRE(ds.ok());
  CHECK(ds->row_size(0) == 2);
  CHECK(ds->row_size(1) == 0);
  CHECK(ds->typed_row<int64_t>(2)[0] == 12);
  CHECK(ds->typed_row<int64_t>(2)[3] == 15);
}

TEST_CASE("elements of any integer dtype are converted to the writer's", "[format][writer]") {
  // Each pair of dtypes: values that fit both, written from a view in the
  // first (a copy when it is the writer's dtype) and from int64, must give the
  // same files. 3000 elements cross several 4 KiB buffers.
  const DType kInts[] = {DType::kU8,  DType::kI8,  DType::kI16, DType::kI32,
                         DType::kI64, DType::kU16, DType::kU32, DType::kU64};
  const int64_t kCandidates[] = {0,           1,          -1,        127,      -128,
                                 255,         32767,      -32768,    65535,    2147483647,
                                 -2147483648, 4294967295, INT64_MAX, INT64_MIN};
  const auto fits = [](DType t, int64_t v) {
    return VisitIntDType(t, [&](auto tag) { return std::in_range<decltype(tag)>(v); });
  };
  test::ScratchDir dir;
  for (DType from : kInts) {
    for (DType to : kInts) {
      std::vector<int64_t> values;
      for (int i = 0; values.size() < 3000; ++i)
        for (int64_t v : kCandidates)
          if (fits(from, v) && fits(to, v)) values.push_back(i % 2 ? v : v / (i + 2));
      std::vector<std::byte> typed(values.size() * ItemSize(from));
      VisitIntDType(from, [&](auto tag) {
        auto* out = reinterpret_cast<decltype(tag)*>(typed.data());
        for (size_t k = 0; k < values.size(); ++k) out[k] = static_cast<decltype(tag)>(values[k]);
      });
      const ElementView view{from, typed.data(), values.size()};
      INFO(DTypeName(from) << " -> " << DTypeName(to));
      for (bool known : {false, true}) {
        IndexedWriter::Options o;
        o.buffer_bytes = 4096;
        if (known) o.rows = values.size() + 1;
        auto a = MakeWriter(dir / "a", to, o), b = MakeWriter(dir / "b", to, o);
        REQUIRE(a->AddScalarRows(view).ok());
        REQUIRE(b->AddScalarRows(values).ok());
        REQUIRE(a->Append({view.dtype, view.data, 7}).ok());
        REQUIRE(b->Append(std::span(values).first(7)).ok());
        REQUIRE(a->EndRow().ok());
        REQUIRE(b->EndRow().ok());
        REQUIRE(a->Finish().ok());
        REQUIRE(b->Finish().ok());
        CHECK(test::ReadBytes(dir / "a.bin") == test::ReadBytes(dir / "b.bin"));
        CHECK(test::ReadBytes(dir / "a.idx") == test::ReadBytes(dir / "b.idx"));
        auto ds = IndexedDataset::Open(dir / "a");
        REQUIRE(ds.ok());
        CHECK(ds->num_rows() == values.size() + 1);
        std::vector<int64_t> back(values.size());
        WidenElements(ds->elements(), 0, back);
        CHECK(back == values);
      }
    }
  }
}

TEST_CASE("the code table decides the dtype byte", "[format][writer]") {
  test::ScratchDir dir;
  struct {
    CodeTable table;
    DType dtype;
    uint8_t code;
  } const cases[] = {
      {CodeTable::kDeepSpeed, DType::kU16, 6},        {CodeTable::kDeepSpeedLegacy, DType::kU16, 8},
      {CodeTable::kMegatron, DType::kU16, 8},         {CodeTable::kDeepSpeed, DType::kU32, 7},
      {CodeTable::kDeepSpeedLegacy, DType::kU32, 9},  {CodeTable::kDeepSpeed, DType::kU64, 8},
      {CodeTable::kDeepSpeedLegacy, DType::kU64, 10}, {CodeTable::kMegatron, DType::kI32, 4},
  };
  for (const auto& c : cases) {
    INFO(CodeTableName(c.table) << " " << DTypeName(c.dtype));
    auto w = MakeWriter(dir / "c", c.dtype, InTable(c.table));
    REQUIRE(w->AddRow(std::vector<int64_t>{1, 2}).ok());
    REQUIRE(w->Finish().ok());
    CHECK(test::ReadBytes(dir / "c.idx")[17] == c.code);
    auto ds = IndexedDataset::Open(dir / "c", {c.table, true});
    REQUIRE(ds.ok());
    CHECK(ds->dtype() == c.dtype);
  }
  auto bad = IndexedWriter::Create(dir / "m", DType::kU64, InTable(CodeTable::kMegatron));
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Contains("dtype uint64 has no code in the megatron table"));
  CHECK_FALSE(IndexedWriter::Create(dir / "f", DType::kF32).ok());
  CHECK(FilesIn(dir.path()) == std::vector<std::string>{"c.bin", "c.idx"});
}

TEST_CASE("unwritable output gives an I/O error naming the path", "[format][writer]") {
  test::ScratchDir dir;
  SECTION("missing directory") {
    const std::string prefix = dir / "no/such/dir/d";
    auto w = IndexedWriter::Create(prefix, DType::kU8);
    REQUIRE_FALSE(w.ok());
    CHECK(w.status().code() == Status::Code::kIoError);
    CHECK_THAT(w.status().message(), Contains(prefix + ".bin.tmp: cannot create"));
  }
  SECTION("parent is a file") {
    test::WriteBytes(dir / "file", {1});
    const std::string prefix = dir / "file/d";
    auto w = IndexedWriter::Create(prefix, DType::kU8);
    REQUIRE_FALSE(w.ok());
    CHECK(w.status().code() == Status::Code::kIoError);
    CHECK_THAT(w.status().message(), Contains(prefix + ".bin.tmp"));
    CHECK_THAT(w.status().message(), Contains("Not a directory"));
  }
}

TEST_CASE("doc_idx_per_row writes one document per row", "[format][writer]") {
  test::ScratchDir dir;
  // More rows than one metadata batch (65536), so doc_idx is written in batches.
  const uint64_t rows = 70001;
  for (bool known : {false, true}) {
    IndexedWriter::Options o;
    o.doc_idx_per_row = true;
    if (known) o.rows = rows;
    auto w = MakeWriter(dir / "p", DType::kU8, o);
    std::vector<int64_t> values(rows);
    for (uint64_t i = 0; i < rows; ++i) values[i] = static_cast<int64_t>(i % 251);
    REQUIRE(w->AddScalarRows(values).ok());
    REQUIRE(w->Finish().ok());
    CHECK(fs::file_size(dir / "p.idx") == 34 + 12 * rows + 8 * (rows + 1));
    auto ds = IndexedDataset::Open(dir / "p");
    REQUIRE(ds.ok());
    REQUIRE(ds->doc_count() == rows + 1);
    for (uint64_t i = 0; i <= rows; ++i)
      if (ds->doc_idx(i) != static_cast<int64_t>(i)) FAIL("doc_idx[" << i << "]");
  }
}

TEST_CASE("a known row count keeps memory flat over 3,000,000 rows", "[format][writer][memory]") {
  test::ScratchDir dir;
  constexpr uint64_t kRows = 3000000;
  constexpr size_t kChunk = 1 << 14;
  // Heap in use while writing, beyond the writer's own element buffer: with a
  // known row count the metadata goes out in bounded batches; without one the
  // sizes are kept (4 bytes a row, 12 MB here).
  auto peak_growth = [&](bool known) {
    IndexedWriter::Options o;
    o.buffer_bytes = 1 << 16;
    if (known) o.rows = kRows;
    std::vector<int64_t> chunk(kChunk);
    const size_t before = HeapInUse();
    size_t peak = 0;
    auto w = MakeWriter(dir / "m", DType::kU32, o);
    for (uint64_t done = 0; done < kRows; done += kChunk) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, kRows - done));
      for (size_t i = 0; i < n; ++i) chunk[i] = static_cast<int64_t>((done + i) * 7 % 1000003);
      REQUIRE(w->AddScalarRows({chunk.data(), n}).ok());
      peak = std::max(peak, HeapInUse());
    }
    REQUIRE(w->Finish().ok());
    return peak - before;
  };
  const bool measurable = HeapIsMeasurable();
  if (!measurable) WARN("heap use not measurable (sanitizer allocator?): memory not checked");
  const size_t known_growth = peak_growth(true);
  if (measurable) CHECK(known_growth < (size_t{4} << 20));

  // The .idx is complete and right: the reader checks every pointer against the sizes.
  auto ds = IndexedDataset::Open(dir / "m");
  REQUIRE(ds.ok());
  CHECK(fs::file_size(dir / "m.idx") == 34 + 12 * kRows + 16);
  CHECK(ds->num_rows() == kRows);
  CHECK(ds->num_elements() == kRows);
  for (uint64_t i : {uint64_t{0}, uint64_t{65535}, uint64_t{65536}, uint64_t{1234567}, kRows - 1}) {
    CHECK(ds->row_size(i) == 1);
    CHECK(ds->typed_row<uint32_t>(i)[0] == i * 7 % 1000003);
  }
  const auto known_idx = test::ReadBytes(dir / "m.idx");

  // Without a row count: same bytes, but memory grows with the rows.
  const size_t unknown_growth = peak_growth(false);
  if (measurable) CHECK(unknown_growth > 4 * kRows);
  CHECK(test::ReadBytes(dir / "m.idx") == known_idx);
}

}  // namespace dsanalyze

namespace dsanalyze {
namespace {

TEST_CASE("bin_from: rows over another file's elements share its .bin", "[format][writer]") {
  test::ScratchDir dir;
  std::vector<int64_t> ids(1000);
  std::iota(ids.begin(), ids.end(), 5);
  auto source = MakeWriter(dir / "src", DType::kU16, KnownRows(2));
  REQUIRE(source->Append(ids).ok());
  REQUIRE(source->EndRowOfSize(300).ok());
  REQUIRE(source->EndRowOfSize(700).ok());
  REQUIRE(source->Finish().ok());

  IndexedWriter::Options o = KnownRows(1);
  o.bin_from = dir / "src.bin";
  auto shared = MakeWriter(dir / "grouped", DType::kU16, o);
  REQUIRE(shared->AppendElsewhere(ids.size()).ok());
  REQUIRE(shared->EndRowOfSize(ids.size()).ok());
  REQUIRE(shared->Finish().ok());
  CHECK(test::ReadBytes(dir / "grouped.bin") == test::ReadBytes(dir / "src.bin"));
  auto ds = IndexedDataset::Open(dir / "grouped");
  REQUIRE(ds.ok());
  REQUIRE(ds->num_rows() == 1);
  CHECK(ds->typed_row<uint16_t>(0)[999] == 1004);

  SECTION("a source that does not hold the declared elements is an error") {
    IndexedWriter::Options bad = KnownRows(1);
    bad.bin_from = dir / "src.bin";
    auto w = MakeWriter(dir / "short", DType::kU16, bad);
    REQUIRE(w->AppendElsewhere(1001).ok());
    REQUIRE(w->EndRow().ok());
    Status st = w->Finish();
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Contains("does not hold the 1001 elements"));
    w.reset();
    CHECK_FALSE(fs::exists(dir / "short.bin"));
    CHECK_FALSE(fs::exists(dir / "short.idx"));
  }
  SECTION("AppendElsewhere needs bin_from") {
    auto w = MakeWriter(dir / "plain", DType::kU16);
    CHECK_FALSE(w->AppendElsewhere(1).ok());
  }
}

}  // namespace
TEST_CASE("ScalarIdxBytes computes any block of a scalar-row .idx", "[format][writer]") {
  test::ScratchDir dir;
  for (const DType dtype : {DType::kU8, DType::kU16, DType::kI32, DType::kI64}) {
    for (const uint64_t rows : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{70001}}) {
      INFO(DTypeName(dtype) << ", " << rows << " rows");
      auto w = MakeWriter(dir / "s", dtype, KnownRows(rows));
      const std::vector<int64_t> values(rows, 3);
      REQUIRE(w->AddScalarRows(values).ok());
      REQUIRE(w->Finish().ok());
      const std::vector<uint8_t> want = test::ReadBytes(dir / "s.idx");
      const IdxHeader header{
          .dtype_code = *CodeForDType(CodeTable::kDeepSpeed, dtype), .rows = rows, .doc_count = 2};
      // Blocks of sizes that cut sizes and pointers anywhere, the whole file
      // among them, and blocks that end in the header or start in doc_idx.
      for (const uint64_t block : {uint64_t{1}, uint64_t{7}, uint64_t{4096}, uint64_t{100003},
                                   static_cast<uint64_t>(want.size())}) {
        std::vector<uint8_t> got(want.size(), 0xee);
        for (uint64_t at = 0; at < want.size(); at += block) {
          const uint64_t n = std::min<uint64_t>(block, want.size() - at);
          ScalarIdxBytes(header, ItemSize(dtype), at,
                         {reinterpret_cast<std::byte*>(got.data()) + at, n});
        }
        INFO("blocks of " << block);
        const uint64_t first_difference = static_cast<uint64_t>(
            std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin());
        CHECK(first_difference == want.size());
      }
    }
  }
}

TEST_CASE("WriteScalarIdx writes the whole scalar-row .idx IndexedWriter writes",
          "[format][writer]") {
  test::ScratchDir dir;
  // 1.5e6 rows: more than one 16 MiB block, and an unaligned tail.
  for (const DType dtype : {DType::kU16, DType::kI64}) {
    for (const uint64_t rows : {uint64_t{0}, uint64_t{1}, uint64_t{1500000}}) {
      INFO(DTypeName(dtype) << ", " << rows << " rows");
      auto w = MakeWriter(dir / "s", dtype, KnownRows(rows));
      const std::vector<int64_t> values(rows, 3);
      REQUIRE(w->AddScalarRows(values).ok());
      REQUIRE(w->Finish().ok());
      Result<OutputFile> idx = OutputFile::Create(dir / "t.idx");
      REQUIRE(idx.ok());
      const IdxHeader header{
          .dtype_code = *CodeForDType(CodeTable::kDeepSpeed, dtype), .rows = rows, .doc_count = 2};
      REQUIRE(WriteScalarIdx(&idx.value(), header, ItemSize(dtype)).ok());
      REQUIRE(idx.value().Close(false).ok());
      CHECK(test::ReadBytes(dir / "t.idx") == test::ReadBytes(dir / "s.idx"));
    }
  }
}

TEST_CASE("WriteScalarIdx: the rows-only blocks, then the rest, write what the whole does",
          "[format][writer]") {
  test::ScratchDir dir;
  // 9e6 rows: 36 MB of sizes, so the 16 MiB block past the header holds only
  // sizes (IdxBlocks::kRowsOnly), and the next one reaches the pointers.
  const uint64_t rows = 9000000;
  const IdxHeader header{.dtype_code = *CodeForDType(CodeTable::kDeepSpeed, DType::kU16),
                         .rows = rows,
                         .doc_count = 2};
  // The rows-only blocks written as ScalarRowsWriter::Open writes them: with
  // neither dtype code nor itemsize.
  const IdxHeader rows_header{.rows = rows, .doc_count = 2};
  const auto write = [&](const fs::path& path, std::initializer_list<IdxBlocks> parts) {
    Result<OutputFile> idx = OutputFile::Create(path);
    REQUIRE(idx.ok());
    for (const IdxBlocks part : parts) {
      const bool rows_only = part == IdxBlocks::kRowsOnly;
      REQUIRE(WriteScalarIdx(&idx.value(), rows_only ? rows_header : header,
                             rows_only ? 0 : ItemSize(DType::kU16), part)
                  .ok());
    }
    REQUIRE(idx.value().Close(false).ok());
    return test::ReadBytes(path);
  };
  const std::vector<uint8_t> whole = write(dir / "whole.idx", {IdxBlocks::kAll});
  REQUIRE(whole.size() == IdxDocIdxOffset(rows) + 16);
  const std::vector<uint8_t> rows_only = write(dir / "rows.idx", {IdxBlocks::kRowsOnly});
  // One block: from 16 MiB to 32 MiB, before it a hole (zeros), nothing past it.
  const size_t block = size_t{16} << 20;
  REQUIRE(rows_only.size() == 2 * block);
  CHECK(std::all_of(rows_only.begin(), rows_only.begin() + block, [](uint8_t b) { return !b; }));
  CHECK(std::equal(rows_only.begin() + block, rows_only.end(), whole.begin() + block));
  const std::vector<uint8_t> split =
      write(dir / "split.idx", {IdxBlocks::kRowsOnly, IdxBlocks::kRest});
  REQUIRE(split.size() == whole.size());
  // The offset of the first difference, not 36 MB printed.
  CHECK(std::mismatch(split.begin(), split.end(), whole.begin()).first - split.begin() ==
        static_cast<std::ptrdiff_t>(whole.size()));
}

TEST_CASE(
    "WriteBesideScalarIdx: a .bin that fails or throws abandons the .idx, not waiting "
    "for all of it",
    "[format][writer]") {
  test::ScratchDir dir;
  Result<OutputFile> idx = OutputFile::Create(dir / "s.idx");
  REQUIRE(idx.ok());
  // 2^25 rows: a 400 MB .idx, 25 blocks of 16 MiB.
  const IdxHeader header{.dtype_code = 1, .rows = uint64_t{1} << 25, .doc_count = 2};
  SECTION("fails") {
    const Status st = WriteBesideScalarIdx(&idx.value(), header, 1,
                                           [] { return Status::IoError("s.bin: write failed"); });
    CHECK(st.code() == Status::Code::kIoError);
    CHECK(st.message() == "s.bin: write failed");
  }
  SECTION("throws") {
    CHECK_THROWS_AS(
        WriteBesideScalarIdx(&idx.value(), header, 1, []() -> Status { throw std::bad_alloc(); }),
        std::bad_alloc);
  }
  REQUIRE(idx.value().Close(false).ok());
  // A block or two in flight when the .bin failed, never half the file.
  CHECK(fs::file_size(dir / "s.idx") < (uint64_t{200} << 20));
}

TEST_CASE("WriteBesideScalarIdx: with the .bin written, the whole .idx WriteScalarIdx writes",
          "[format][writer]") {
  test::ScratchDir dir;
  const IdxHeader header{.dtype_code = 1, .rows = 1500000, .doc_count = 2};
  Result<OutputFile> alone = OutputFile::Create(dir / "alone.idx");
  REQUIRE(alone.ok());
  REQUIRE(WriteScalarIdx(&alone.value(), header, 1).ok());
  REQUIRE(alone.value().Close(false).ok());
  Result<OutputFile> idx = OutputFile::Create(dir / "s.idx");
  REQUIRE(idx.ok());
  bool bin_written = false;
  REQUIRE(WriteBesideScalarIdx(&idx.value(), header, 1, [&] {
            bin_written = true;
            return Status::OK();
          }).ok());
  CHECK(bin_written);
  REQUIRE(idx.value().Close(false).ok());
  CHECK(test::ReadBytes(dir / "s.idx") == test::ReadBytes(dir / "alone.idx"));
}

TEST_CASE("WriteScalarIdx stops when told to, writing nothing more", "[format][writer]") {
  test::ScratchDir dir;
  Result<OutputFile> idx = OutputFile::Create(dir / "s.idx");
  REQUIRE(idx.ok());
  const std::atomic<bool> stop{true};
  const Status st = WriteScalarIdx(&idx.value(), {.dtype_code = 1, .rows = 1000, .doc_count = 2}, 1,
                                   IdxBlocks::kAll, &stop);
  CHECK(st.code() == Status::Code::kInternal);
  CHECK_THAT(st.message(), Contains("abandoned"));
  REQUIRE(idx.value().Close(false).ok());
  CHECK(fs::file_size(dir / "s.idx") == 0);
}

}  // namespace dsanalyze
