#include <catch2/catch.hpp>
#include <filesystem>

#include "dataset/gpt_maps.h"
#include "dataset/open_dataset.h"
#include "dataset/token_rows.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using test::Rows;

DatasetConfig Packed(std::vector<std::string> prefixes, uint64_t seq_length) {
  DatasetConfig c;
  c.type = PackedConfig{.prefixes = std::move(prefixes), .seq_length = seq_length};
  return c;
}

// Two files with rows of random lengths (some empty) and an empty file between
// them; token q of the concatenated stream is q, so any misplaced token shows.
struct Stream {
  test::ScratchDir dir;
  std::vector<int64_t> tokens;  // the concatenated stream
  std::vector<std::string> prefixes = {dir / "a", dir / "empty", dir / "b"};
  Stream() {
    SplitMix64 rng(11);
    for (const std::string& prefix : prefixes) {
      Rows rows;
      const int count = prefix == dir / "empty" ? 0 : 20;
      for (int r = 0; r < count; ++r) {
        rows.emplace_back(rng.Next() % 40);
        for (int64_t& t : rows.back()) {
          t = static_cast<int64_t>(tokens.size());
          tokens.push_back(t);
        }
      }
      test::WriteRows(prefix, DType::kU16, CodeTable::kMegatron, rows);
    }
  }
  // Sample k by definition: tokens [kL, kL + L].
  Rows Expected(uint64_t seq_length) const {
    Rows out;
    for (uint64_t k = 0; k < (tokens.size() - 1) / seq_length; ++k)
      out.emplace_back(tokens.begin() + k * seq_length,
                       tokens.begin() + k * seq_length + seq_length + 1);
    return out;
  }
};

TEST_CASE("packed: samples of seq_length + 1 tokens, stride seq_length, across files",
          "[dataset][packed]") {
  Stream s;
  REQUIRE(s.tokens.size() > 300);
  for (uint64_t seq_length :
       {uint64_t{1}, uint64_t{2}, uint64_t{7}, uint64_t{64}, uint64_t{s.tokens.size() - 1}}) {
    INFO("seq_length " << seq_length);
    Result<std::unique_ptr<Dataset>> ds = OpenDataset(Packed(s.prefixes, seq_length));
    REQUIRE(ds.ok());
    const Rows expected = s.Expected(seq_length);
    CHECK((*ds)->size() == (s.tokens.size() - 1) / seq_length);
    CHECK((*ds)->dtype() == DType::kU16);
    for (uint64_t batch : {1, 3, 17, 1000}) CHECK(test::ReadAll(**ds, batch) == expected);
    CHECK(test::Lengths(**ds) == std::vector<uint64_t>((*ds)->size(), seq_length + 1));
  }
}

TEST_CASE("packed: every batch range reads the same samples", "[dataset][packed]") {
  Stream s;
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(Packed(s.prefixes, 40));
  REQUIRE(ds.ok());
  const Rows expected = s.Expected(40);
  std::unique_ptr<SampleReader> r = (*ds)->NewReader();
  SampleBatch b;
  for (uint64_t begin = 0; begin <= expected.size(); ++begin) {
    for (uint64_t end = begin; end <= expected.size(); ++end) {
      REQUIRE(r->Read(begin, end, true, &b).ok());
      CHECK(test::SamplesOf(b) == Rows(expected.begin() + begin, expected.begin() + end));
    }
  }
  CHECK(r->Read(0, expected.size() + 1, true, &b).code() == Status::Code::kInternal);
}

TEST_CASE("packed: a lengths-only read does not touch the .bin", "[dataset][packed]") {
  Stream s;
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(Packed(s.prefixes, 9));
  REQUIRE(ds.ok());
  for (const std::string& p : s.prefixes) std::filesystem::resize_file(p + ".bin", 0);
  CHECK(test::Lengths(**ds) == std::vector<uint64_t>((*ds)->size(), 10));
}

TEST_CASE("packed: the incomplete tail is dropped; too few tokens is an error",
          "[dataset][packed]") {
  test::ScratchDir dir;
  test::WriteRows(dir / "t", DType::kI32, CodeTable::kDeepSpeed, {{1, 2, 3}, {4, 5}, {6}});
  DatasetConfig c = Packed({dir / "t"}, 2);
  std::get<PackedConfig>(c.type).dtype_codes = CodeTable::kDeepSpeed;
  c.ignore_token_ids = {5, 1, 5};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  // 6 tokens, L = 2: (6 - 1) / 2 = 2 samples; token 6 is only in the dropped tail.
  CHECK(test::ReadAll(**ds, 8) == Rows{{1, 2, 3}, {3, 4, 5}});
  CHECK((*ds)->Describe() ==
        "packed 1 file(s), 6 tokens of int32 (deepspeed codes) in 2 samples of 2+1, first " +
            dir / "t");
  CHECK(std::vector<int64_t>((*ds)->ignore_token_ids().begin(), (*ds)->ignore_token_ids().end()) ==
        std::vector<int64_t>{1, 5});

  std::get<PackedConfig>(c.type).seq_length = 5;  // exactly seq_length + 1 tokens: one sample
  ds = OpenDataset(c);
  REQUIRE(ds.ok());
  CHECK(test::ReadAll(**ds, 8) == Rows{{1, 2, 3, 4, 5, 6}});

  std::get<PackedConfig>(c.type).seq_length = 6;
  ds = OpenDataset(c);
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().code() == Status::Code::kBadInput);
  CHECK(ds.status().message() ==
        "dataset.prefixes: the files hold 6 tokens, fewer than seq_length + 1 = 7, so there are "
        "no samples");

  Result<std::unique_ptr<Dataset>> missing = OpenDataset(Packed({dir / "t", dir / "u"}, 2));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message() == "dataset.prefixes[1]: " + dir / "u.idx: file not found");
}

// The pieces by definition, from the row sizes alone: sample k's window
// [kL, kL + L] against every row's [start, end) in the concatenated stream.
test::Pieces PiecesFromSizes(const Rows& rows, uint64_t seq_length, uint64_t samples) {
  test::Pieces out(samples);
  for (uint64_t k = 0; k < samples; ++k) {
    const uint64_t lo = k * seq_length, hi = lo + seq_length + 1;
    uint64_t start = 0;
    for (uint64_t r = 0; r < rows.size(); ++r) {
      const uint64_t end = start + rows[r].size();
      if (std::min(end, hi) > std::max(start, lo))
        out[k].emplace_back(r, std::min(end, hi) - std::max(start, lo));
      start = end;
    }
  }
  return out;
}

TEST_CASE("packed: document pieces are the rows a window overlaps, across files",
          "[dataset][packed][document_pieces]") {
  test::ScratchDir dir;
  SplitMix64 rng(21);
  const Rows a = test::PieceRows(&rng, 25), b = test::PieceRows(&rng, 25, 25);
  test::WriteRows(dir / "a", DType::kI32, CodeTable::kMegatron, a);
  test::WriteRows(dir / "empty", DType::kI32, CodeTable::kMegatron, {});
  test::WriteRows(dir / "b", DType::kI32, CodeTable::kMegatron, b);
  Rows all = a;
  all.insert(all.end(), b.begin(), b.end());
  uint64_t tokens = 0;
  for (const auto& row : all) tokens += row.size();
  test::PieceCounts counts;
  for (uint64_t seq_length : {uint64_t{1}, uint64_t{2}, uint64_t{7}, uint64_t{64}, tokens - 1}) {
    INFO("seq_length " << seq_length);
    Result<std::unique_ptr<Dataset>> ds =
        OpenDataset(Packed({dir / "empty", dir / "a", dir / "empty", dir / "b"}, seq_length));
    REQUIRE(ds.ok());
    CHECK((*ds)->num_documents() == 50);
    const test::Pieces pieces = test::CheckPieces(**ds);
    CHECK(pieces == PiecesFromSizes(all, seq_length, (*ds)->size()));
    const test::PieceCounts c = test::CountPieces(pieces);
    counts.one += c.one;
    counts.two += c.two;
    counts.many += c.many;
  }
  // Windows inside one row, across one row boundary, and across many (the
  // last seq_length spans every row of both files in one sample).
  CHECK(counts.one > 0);
  CHECK(counts.two > 0);
  CHECK(counts.many > 0);
}

TEST_CASE("packed: the token two samples share counts in both", "[dataset][document_pieces]") {
  test::ScratchDir dir;
  test::WriteRows(dir / "t", DType::kI32, CodeTable::kMegatron, {{1, 2, 3}, {}, {4, 5}, {6}});
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(Packed({dir / "t"}, 2));
  REQUIRE(ds.ok());
  // Samples [1 2 3] and [3 4 5]: token 3 (row 0) belongs to both.
  CHECK(test::PiecesOf(**ds) == test::Pieces{{{0, 3}}, {{0, 1}, {2, 2}}});
  CHECK((*ds)->num_documents() == 4);
}

}  // namespace
}  // namespace dsanalyze
