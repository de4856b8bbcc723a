#include <catch2/catch.hpp>
#include <filesystem>
#include <numeric>

#include "dataset/open_dataset.h"
#include "dataset/token_rows.h"
#include "format/indexed_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using Rows = std::vector<std::vector<int64_t>>;

void WriteRows(const std::string& prefix, DType dtype, CodeTable table, const Rows& rows) {
  IndexedWriter::Options options;
  options.table = table;
  Result<std::unique_ptr<IndexedWriter>> w = IndexedWriter::Create(prefix, dtype, options);
  REQUIRE(w.ok());
  for (const auto& row : rows) REQUIRE((*w)->AddRow(row).ok());
  REQUIRE((*w)->Finish().ok());
}

DatasetConfig Documents(std::vector<std::string> prefixes, CodeTable table) {
  DatasetConfig c;
  c.type = DocumentsConfig{.prefixes = std::move(prefixes), .dtype_codes = table};
  return c;
}

// The samples of a batch as int64 rows (uint16 elements).
Rows RowsOf(const SampleBatch& b) {
  REQUIRE(b.dtype == DType::kU16);
  Rows out;
  for (size_t i = 0; i < b.size(); ++i) {
    auto s = b.sample(i).as<uint16_t>();
    out.emplace_back(s.begin(), s.end());
  }
  return out;
}

Rows Slice(const Rows& rows, size_t begin, size_t end) {
  return Rows(rows.begin() + static_cast<ptrdiff_t>(begin),
              rows.begin() + static_cast<ptrdiff_t>(end));
}

// Two files (rows 0..3 and 4..8) written with Megatron's table (uint16 = code 8).
struct TwoFiles {
  test::ScratchDir dir;
  Rows a = {{1, 2, 3}, {}, {4}, {5, 6}};
  Rows b = {{7, 8, 9, 10}, {11}, {}, {12, 13, 14}, {65535}};
  Rows all;
  TwoFiles() {
    WriteRows(dir / "a", DType::kU16, CodeTable::kMegatron, a);
    WriteRows(dir / "b", DType::kU16, CodeTable::kMegatron, b);
    all = a;
    all.insert(all.end(), b.begin(), b.end());
  }
};

TEST_CASE("documents: rows of all prefixes in order, across the file boundary", "[dataset]") {
  TwoFiles f;
  Result<std::unique_ptr<Dataset>> ds =
      OpenDataset(Documents({f.dir / "a", f.dir / "b"}, CodeTable::kMegatron));
  REQUIRE(ds.ok());
  CHECK((*ds)->size() == 9);
  CHECK((*ds)->dtype() == DType::kU16);
  CHECK((*ds)->Describe().rfind("documents 2 file(s), 9 rows of uint16 (megatron codes)", 0) == 0);
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  SampleBatch b;
  for (size_t begin = 0; begin <= 9; ++begin) {
    for (size_t end = begin; end <= 9; ++end) {
      REQUIRE(r->Read(begin, end, true, &b).ok());
      CHECK(b.first == begin);
      CHECK(RowsOf(b) == Slice(f.all, begin, end));
    }
  }
}

TEST_CASE("documents: a batch in one file is zero-copy, a crossing batch is copied", "[dataset]") {
  TwoFiles f;
  Result<std::unique_ptr<Dataset>> ds =
      OpenDataset(Documents({f.dir / "a", f.dir / "b"}, CodeTable::kMegatron));
  REQUIRE(ds.ok());
  std::unique_ptr<SampleReader> r1 = (*ds)->NewReader();
  std::unique_ptr<SampleReader> r2 = (*ds)->NewReader();
  SampleBatch b1, b2;
  // Inside file b: both readers point at the same mapped bytes.
  REQUIRE(r1->Read(4, 8, true, &b1).ok());
  REQUIRE(r2->Read(4, 8, true, &b2).ok());
  CHECK(b1.elements == b2.elements);
  // Across the boundary: each reader has its own copy.
  REQUIRE(r1->Read(2, 6, true, &b1).ok());
  REQUIRE(r2->Read(2, 6, true, &b2).ok());
  CHECK(b1.elements != b2.elements);
  CHECK(RowsOf(b1) == RowsOf(b2));
  CHECK(RowsOf(b1) == Slice(f.all, 2, 6));
}

TEST_CASE("documents: a lengths-only read does not touch the .bin", "[dataset]") {
  TwoFiles f;
  Result<std::unique_ptr<Dataset>> ds =
      OpenDataset(Documents({f.dir / "a", f.dir / "b"}, CodeTable::kMegatron));
  REQUIRE(ds.ok());
  // With the .bin files truncated under their mappings, any access to element
  // data would fault (SIGBUS); the lengths come from the .idx alone.
  std::filesystem::resize_file(f.dir / "a.bin", 0);
  std::filesystem::resize_file(f.dir / "b.bin", 0);
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  SampleBatch b;
  REQUIRE(r->Read(1, 9, false, &b).ok());
  CHECK(b.elements == nullptr);
  REQUIRE(b.size() == 8);
  for (size_t i = 0; i < b.size(); ++i) CHECK(b.length(i) == f.all[i + 1].size());
  CHECK(b.offsets[0] == 0);
}

TEST_CASE("documents: empty files among the prefixes are skipped", "[dataset]") {
  test::ScratchDir dir;
  WriteRows(dir / "x", DType::kU16, CodeTable::kDeepSpeed, {{1}, {2, 3}});
  WriteRows(dir / "empty", DType::kU16, CodeTable::kDeepSpeed, {});
  WriteRows(dir / "y", DType::kU16, CodeTable::kDeepSpeed, {{4, 5, 6}});
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(
      Documents({dir / "empty", dir / "x", dir / "empty", dir / "y"}, CodeTable::kDeepSpeed));
  REQUIRE(ds.ok());
  CHECK((*ds)->size() == 3);
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  SampleBatch b;
  REQUIRE(r->Read(0, 3, true, &b).ok());
  CHECK(RowsOf(b) == Rows{{1}, {2, 3}, {4, 5, 6}});
  REQUIRE(r->Read(2, 3, true, &b).ok());
  CHECK(RowsOf(b) == Rows{{4, 5, 6}});
  CHECK(r->Read(2, 4, true, &b).code() == Status::Code::kInternal);

  Result<std::unique_ptr<Dataset>> none =
      OpenDataset(Documents({dir / "empty"}, CodeTable::kDeepSpeed));
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message() ==
        "dataset.prefixes: the files hold no rows, so there are no samples");
}

TEST_CASE("documents: dtype_codes picks the table", "[dataset]") {
  test::ScratchDir dir;
  // DeepSpeed's writer stores uint16 as code 6, which Megatron's table reads as float64.
  WriteRows(dir / "ds", DType::kU16, CodeTable::kDeepSpeed, {{1, 2}});
  CHECK(OpenDataset(Documents({dir / "ds"}, CodeTable::kDeepSpeed)).ok());
  Result<std::unique_ptr<Dataset>> wrong =
      OpenDataset(Documents({dir / "ds"}, CodeTable::kMegatron));
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.status().message().rfind("dataset.prefixes[0]: " + dir / "ds.idx: ", 0) == 0);
  CHECK(wrong.status().message().find("float64") != std::string::npos);
}

TEST_CASE("documents: prefixes with different dtypes are refused, naming both", "[dataset]") {
  test::ScratchDir dir;
  WriteRows(dir / "small", DType::kU16, CodeTable::kMegatron, {{1}});
  WriteRows(dir / "wide", DType::kI32, CodeTable::kMegatron, {{70000}});
  Result<std::unique_ptr<Dataset>> ds =
      OpenDataset(Documents({dir / "small", dir / "wide"}, CodeTable::kMegatron));
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().code() == Status::Code::kBadInput);
  CHECK(ds.status().message() == "dataset.prefixes: " + dir / "small.idx holds uint16 but " +
                                     dir /
                                         "wide.idx holds int32 (read with the megatron "
                                         "dtype_codes table); all prefixes must share one dtype");
}

TEST_CASE("documents: a missing prefix names its position; .idx suffixes get a hint", "[dataset]") {
  TwoFiles f;
  Result<std::unique_ptr<Dataset>> ds =
      OpenDataset(Documents({f.dir / "a", f.dir / "missing"}, CodeTable::kMegatron));
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message().rfind("dataset.prefixes[1]: ", 0) == 0);
  CHECK(ds.status().message().find(f.dir / "missing.idx") != std::string::npos);

  Result<std::unique_ptr<Dataset>> suffixed =
      OpenDataset(Documents({f.dir / "a.idx"}, CodeTable::kMegatron));
  REQUIRE_FALSE(suffixed.ok());
  const std::string msg = suffixed.status().message();
  CHECK(msg.substr(msg.size() - std::string(" (give the prefix, without .idx or .bin)").size()) ==
        " (give the prefix, without .idx or .bin)");
}

TEST_CASE("documents: sample i is document i, one piece of the row's length",
          "[dataset][document_pieces]") {
  test::ScratchDir dir;
  SplitMix64 rng(5);
  const Rows a = test::PieceRows(&rng, 30), b = test::PieceRows(&rng, 25, 30);
  WriteRows(dir / "a", DType::kI32, CodeTable::kMegatron, a);
  WriteRows(dir / "empty", DType::kI32, CodeTable::kMegatron, {});
  WriteRows(dir / "b", DType::kI32, CodeTable::kMegatron, b);
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(
      Documents({dir / "empty", dir / "a", dir / "empty", dir / "b"}, CodeTable::kMegatron));
  REQUIRE(ds.ok());
  CHECK((*ds)->num_documents() == 55);
  const test::Pieces pieces = test::CheckPieces(**ds);
  // From the sizes alone: one piece per row, also for an empty one.
  Rows all = a;
  all.insert(all.end(), b.begin(), b.end());
  test::Pieces expected(all.size());
  for (size_t i = 0; i < all.size(); ++i) expected[i] = {{i, all[i].size()}};
  CHECK(pieces == expected);
  CHECK(test::CountPieces(pieces).one > 40);
}

}  // namespace
}  // namespace dsanalyze
