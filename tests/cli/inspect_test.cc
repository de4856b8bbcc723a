// `dsanalyze inspect`: header and rows in text and JSON, row ranges, and errors
// (one "dsanalyze: error:" line, exit code 2). Runs the real binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "format/indexed_dataset.h"
#include "format/indexed_writer.h"
#include "support/test_util.h"
#include "synth/token_generator.h"

namespace dsanalyze {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

const std::string kTokens = "tokens/data/tok_d20000_v50000_s1234";

test::CommandResult Inspect(const std::string& prefix, const std::string& args = "") {
  return test::RunCommand(test::BinaryPath() + " inspect '" + prefix + "' " + args);
}

// The text line inspect prints for row i (first 16 values, "…" when longer).
std::string RowLine(const IndexedDataset& ds, uint64_t i) {
  std::ostringstream line;
  line << "  row " << i << "  size " << ds.row_size(i);
  auto row = ds.typed_row<uint16_t>(i);
  for (size_t k = 0; k < std::min<size_t>(16, row.size()); ++k)
    line << (k == 0 ? ": " : " ") << row[k];
  if (row.size() > 16) line << " …";
  line << "\n";
  return line.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("inspect shows the header and the first rows", "[inspect][cli]") {
  const std::string prefix = (test::GoldenDir() / kTokens).string();
  auto ds = IndexedDataset::Open(prefix);
  REQUIRE(ds.ok());
  auto r = Inspect(prefix);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("prefix    " + prefix + "\n"));
  // No --dtype-codes: the table is the one the file sizes fit (code 6 is a
  // float in the megatron table, uint16 in the deepspeed one).
  CHECK_THAT(r.output,
             Contains("dtype     uint16 (code 6 in the deepspeed table, detected from the file "
                      "sizes)\n"));
  CHECK_THAT(r.output, Contains("rows      20000\n"));
  CHECK_THAT(r.output, Contains("elements  5256782\n"));
  CHECK_THAT(r.output, Contains("doc_idx   20001 entries: 0 1 2 3 … 19997 19998 19999 20000\n"));
  CHECK_THAT(r.output, Contains("files     .idx 400042 bytes, .bin 10513564 bytes\n"));
  CHECK_THAT(r.output, Contains("rows 0:5\n"));
  std::string rows;
  for (uint64_t i = 0; i < 5; ++i) rows += RowLine(*ds, i);
  CHECK_THAT(r.output, Contains(rows));
  CHECK_FALSE(Contains(RowLine(*ds, 5)).match(r.output));
  CHECK(Lines(r.output).size() == 7 + 5);
}

TEST_CASE("inspect --rows takes Python-style ranges", "[inspect][cli]") {
  const std::string prefix = (test::GoldenDir() / kTokens).string();
  auto ds = IndexedDataset::Open(prefix);
  REQUIRE(ds.ok());
  struct {
    const char* spec;
    uint64_t begin, end;
  } const cases[] = {
      {"10:13", 10, 13},       {"-2:", 19998, 20000}, {":3", 0, 3},  {"19999:", 19999, 20000},
      {"-3:-1", 19997, 19999}, {"7:7", 7, 7},         {"0:0", 0, 0},
  };
  for (const auto& c : cases) {
    auto r = Inspect(prefix, std::string("--rows ") + c.spec);
    INFO(c.spec << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.output,
               Contains("rows " + std::to_string(c.begin) + ":" + std::to_string(c.end) + "\n"));
    std::string rows;
    for (uint64_t i = c.begin; i < c.end; ++i) rows += RowLine(*ds, i);
    CHECK_THAT(r.output, Contains(rows));
    CHECK(Lines(r.output).size() == 7 + (c.end - c.begin));
  }
}

TEST_CASE("inspect errors: one line, exit code 2", "[inspect][cli]") {
  const std::string prefix = (test::GoldenDir() / kTokens).string();
  struct {
    std::string args;
    std::string message;
  } const cases[] = {
      {"--rows 5:3", "--rows \"5:3\": start 5 is after end 3"},
      {"--rows 1:20001", "--rows \"1:20001\": 20001 is out of range for a dataset of 20000 rows"},
      {"--rows -20001:", "--rows \"-20001:\": -20001 is out of range for a dataset of 20000 rows"},
      {"--rows 7", "--rows \"7\": expected A:B (end exclusive), for example 0:10, -5: or :100"},
      {"--rows 1:2:3",
       "--rows \"1:2:3\": expected A:B (end exclusive), for example 0:10, -5: or :100"},
      {"--rows a:b",
       "--rows \"a:b\": expected A:B with integers A and B (end exclusive; "
       "negative counts from the end; either may be omitted)"},
      {"--rows 1x:",
       "--rows \"1x:\": expected A:B with integers A and B (end exclusive; "
       "negative counts from the end; either may be omitted)"},
      {"--dtype-codes megatron", prefix + ".idx: dtype code 6 is float64 in the megatron table; "
                                          "an integer dtype is required; --dtype-codes "
                                          "deepspeed reads it as uint16"},
  };
  for (const auto& c : cases) {
    auto r = Inspect(prefix, c.args);
    INFO(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.output == "dsanalyze: error: " + c.message + "\n");
  }
  test::ScratchDir dir;
  auto missing = Inspect(dir / "none");
  CHECK(missing.exit_code == 2);
  CHECK(missing.output == "dsanalyze: error: " + (dir / "none.idx") + ": file not found\n");
}

TEST_CASE("inspect --json holds the header and every value of the rows", "[inspect][cli]") {
  test::ScratchDir dir;
  // Signed bytes and a uint64 above INT64_MAX must print as numbers, exactly.
  {
    auto w = IndexedWriter::Create(dir / "i8", DType::kI8);
    REQUIRE(w.ok());
    REQUIRE((*w)->AddRow(std::vector<int64_t>{-128, 127, 0}).ok());
    REQUIRE((*w)->AddRow({}).ok());
    REQUIRE((*w)->AddRow(std::vector<int64_t>{-1}).ok());
    REQUIRE((*w)->Finish().ok());
    auto w64 = IndexedWriter::Create(dir / "u64", DType::kU64);
    REQUIRE(w64.ok());
    // 2^63 + 5 passed through int64, stored as its uint64 bit pattern.
    REQUIRE((*w64)->AddRow(std::vector<int64_t>{static_cast<int64_t>((1ull << 63) + 5), 1}).ok());
    REQUIRE((*w64)->Finish().ok());
  }
  auto r = Inspect(dir / "i8", "--json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["prefix"] == dir / "i8");
  CHECK(j["dtype"] == "int8");
  CHECK(j["dtype_code"] == 2);
  CHECK(j["dtype_codes"] == "megatron");  // int8 is code 2 in every table: the default
  CHECK(j["dtype_codes_chosen"] == "detected");
  CHECK(j["num_rows"] == 3);
  CHECK(j["num_elements"] == 4);
  CHECK(j["doc_idx_count"] == 2);
  CHECK(j["doc_idx_first"] == nlohmann::json::array({0, 3}));
  CHECK(j["doc_idx_last"] == nlohmann::json::array());
  CHECK(j["idx_bytes"] == 34 + 36 + 16);
  CHECK(j["bin_bytes"] == 4);
  CHECK(j["row_begin"] == 0);
  CHECK(j["row_end"] == 3);
  CHECK(j["rows"] == nlohmann::json::parse("[[-128, 127, 0], [], [-1]]"));

  auto text = Inspect(dir / "i8");
  CHECK_THAT(text.output,
             Contains("  row 0  size 3: -128 127 0\n  row 1  size 0\n  row 2  size 1: -1\n"));

  auto u = Inspect(dir / "u64", "--json --rows -1:");
  REQUIRE(u.exit_code == 0);
  auto ju = nlohmann::json::parse(u.output);
  CHECK(ju["dtype"] == "uint64");
  CHECK(ju["rows"][0][0].get<uint64_t>() == (1ull << 63) + 5);
  CHECK(ju["rows"][0][1] == 1);

  // Golden token rows: whole rows (not cut at 16 values), and doc_idx ends.
  const std::string prefix = (test::GoldenDir() / kTokens).string();
  auto ds = IndexedDataset::Open(prefix);
  REQUIRE(ds.ok());
  auto t = Inspect(prefix, "--json --rows 100:103");
  REQUIRE(t.exit_code == 0);
  auto jt = nlohmann::json::parse(t.output);
  CHECK(jt["num_elements"] == 5256782);
  CHECK(jt["doc_idx_first"] == nlohmann::json::array({0, 1, 2, 3}));
  CHECK(jt["doc_idx_last"] == nlohmann::json::array({19997, 19998, 19999, 20000}));
  REQUIRE(jt["rows"].size() == 3);
  for (uint64_t i = 100; i < 103; ++i) {
    auto row = ds->typed_row<uint16_t>(i);
    const auto& got = jt["rows"][i - 100];
    REQUIRE(got.size() == row.size());
    for (size_t k = 0; k < row.size(); ++k) REQUIRE(got[k] == row[k]);
  }
}

TEST_CASE("inspect reads what generate wrote without --dtype-codes", "[inspect][cli]") {
  test::ScratchDir dir;
  for (const char* table : {"megatron", "deepspeed"}) {
    synth::TokenDatasetOptions o;
    o.prefix = dir / table;
    o.documents = 20;
    o.vocab_size = 1000;
    o.max_length = 50;
    o.dtype_codes = table;
    REQUIRE(synth::WriteTokenDataset(o).ok());
    auto r = Inspect(dir / table);
    INFO(r.output);
    CHECK(r.exit_code == 0);
    const std::string code = std::string(table) == "megatron" ? "8" : "6";
    CHECK_THAT(r.output, Contains("dtype     uint16 (code " + code + " in the " + table +
                                  " table, detected from the file sizes)\n"));
  }
  // A wrong table given explicitly: one line naming the flag and the table that fits.
  auto wrong = Inspect(dir / "megatron", "--dtype-codes deepspeed");
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.output,
             StartsWith("dsanalyze: error: " + dir / "megatron.idx: pointer of row 1"));
  CHECK_THAT(wrong.output, Contains("; --dtype-codes megatron reads it as uint16\n"));
  CHECK(Lines(wrong.output).size() == 1);
}

TEST_CASE("inspect --dtype-codes auto: an empty file takes the default, a bad size is an error",
          "[inspect][cli]") {
  test::ScratchDir dir;
  IndexedWriter::Options o;
  o.table = CodeTable::kMegatron;
  auto w = IndexedWriter::Create(dir / "empty", DType::kU16, o);  // code 8: uint16 or uint64
  REQUIRE(w.ok());
  REQUIRE((*w)->AddRow({}).ok());
  REQUIRE((*w)->Finish().ok());
  auto r = Inspect(dir / "empty");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("dtype     uint16 (code 8 in the megatron table, the default: the "
                                "file sizes fit several tables)\n"));
  // 3 uint16 tokens in a 7-byte .bin: no table makes them agree.
  auto w2 = IndexedWriter::Create(dir / "odd", DType::kU16, o);
  REQUIRE(w2.ok());
  REQUIRE((*w2)->AddRow(std::vector<int64_t>{1, 2, 3}).ok());
  REQUIRE((*w2)->Finish().ok());
  std::vector<uint8_t> bin = test::ReadBytes(dir / "odd.bin");
  bin.push_back(0);
  test::WriteBytes(dir / "odd.bin", bin);
  auto bad = Inspect(dir / "odd");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output ==
        "dsanalyze: error: " + dir / "odd.bin: file is 7 bytes, but the 3 elements of " +
            dir /
                "odd.idx (dtype code 8) need megatron uint16 6, deepspeed uint64 "
                "24, deepspeed-legacy uint16 6; no dtype-code table fits (--dtype-codes "
                "names one to read anyway)\n");
}

}  // namespace dsanalyze
