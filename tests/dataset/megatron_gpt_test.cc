#include <catch2/catch.hpp>
#include <filesystem>

#include "config/config.h"
#include "dataset/gpt_maps.h"
#include "dataset/open_dataset.h"
#include "dataset/token_rows.h"
#include "support/npy_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using test::Rows;

DatasetConfig Gpt(const std::string& prefix, const std::string& index_prefix) {
  DatasetConfig c;
  c.type = MegatronGptConfig{.prefix = prefix,
                             .index_prefix = index_prefix,
                             .doc_idx = index_prefix + "_doc_idx.npy",
                             .sample_idx = index_prefix + "_sample_idx.npy",
                             .shuffle_idx = index_prefix + "_shuffle_idx.npy"};
  return c;
}

MegatronGptConfig& Of(DatasetConfig& c) { return std::get<MegatronGptConfig>(c.type); }

// The samples by format.md §3, computed from a flat copy of the documents in
// doc_idx order: sample j is flat[P(j) .. P(j+1)] inclusive, where P(j) is
// the flat position of (doc_idx position, offset) sample_idx[j]; position i
// holds sample shuffle_idx[i].
template <class D, class S, class H>
Rows Expected(const Rows& rows, const std::vector<D>& doc_idx, const std::vector<S>& sample_idx,
              const std::vector<H>& shuffle_idx) {
  std::vector<int64_t> flat;
  std::vector<uint64_t> start;  // flat position of each doc_idx position
  for (D row : doc_idx) {
    start.push_back(flat.size());
    flat.insert(flat.end(), rows[row].begin(), rows[row].end());
  }
  auto position = [&](uint64_t k) { return start[sample_idx[2 * k]] + sample_idx[2 * k + 1]; };
  Rows out;
  for (H j : shuffle_idx)
    out.emplace_back(flat.begin() + position(j), flat.begin() + position(j + 1) + 1);
  return out;
}

// Rows of random lengths, some empty, many shorter than a sample; each token is
// unique (its running number), so a misplaced token shows.
Rows RandomRows(uint64_t seed, int count) {
  SplitMix64 rng(seed);
  Rows rows;
  int64_t next = 0;
  for (int r = 0; r < count; ++r) {
    rows.emplace_back(rng.Next() % 4 == 0 ? 0 : rng.Next() % 30);
    for (int64_t& t : rows.back()) t = next++;
  }
  return rows;
}

std::vector<int32_t> SizesOf(const Rows& rows) {
  std::vector<int32_t> sizes;
  for (const auto& r : rows) sizes.push_back(static_cast<int32_t>(r.size()));
  return sizes;
}

template <class To, class From>
std::vector<To> Cast(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());
}

TEST_CASE("megatron_gpt: reproduces the samples Megatron builds from its index maps",
          "[dataset][megatron_gpt]") {
  test::ScratchDir dir;
  const Rows rows = RandomRows(3, 60);
  test::WriteRows(dir / "tok", DType::kU16, CodeTable::kMegatron, rows);
  for (int32_t seq_length : {1, 5, 40, 333}) {
    for (int epochs : {1, 3}) {
      INFO("seq_length " << seq_length << ", epochs " << epochs);
      const GptMaps m = BuildGptMaps(SizesOf(rows), seq_length, epochs, 17);
      REQUIRE(m.num_samples() > 1);
      const Rows expected = Expected(rows, m.doc_idx, m.sample_idx, m.shuffle_idx);
      // Megatron's own dtypes (int32, int32, uint32), read through index_prefix...
      const std::string maps = dir / "maps";
      test::WriteNpy(maps + "_doc_idx.npy", m.doc_idx);
      test::WriteNpy(maps + "_sample_idx.npy", m.sample_idx, {m.num_samples() + 1, 2});
      test::WriteNpy(maps + "_shuffle_idx.npy", m.shuffle_idx);
      DatasetConfig c = Gpt(dir / "tok", maps);
      Of(c).seq_length = static_cast<uint64_t>(seq_length);
      Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
      REQUIRE(ds.ok());
      CHECK((*ds)->size() == m.num_samples());
      CHECK((*ds)->dtype() == DType::kU16);
      for (uint64_t batch : {1, 7, 100000}) CHECK(test::ReadAll(**ds, batch) == expected);
      CHECK(test::Lengths(**ds) ==
            std::vector<uint64_t>(m.num_samples(), static_cast<uint64_t>(seq_length) + 1));
      CHECK((*ds)->Describe() == "megatron_gpt " + std::to_string(m.num_samples()) +
                                     " samples of " + std::to_string(seq_length + 1) +
                                     " tokens from " + dir / "tok" +
                                     " (uint16, megatron codes), doc_idx " + maps + "_doc_idx.npy");

      // ...and as int64 / uint64 in formats 2.0 and 3.0, through explicit paths.
      test::WriteNpy(dir / "d.npy", Cast<int64_t>(m.doc_idx), {}, 2);
      test::WriteNpy(dir / "s.npy", Cast<uint64_t>(m.sample_idx), {m.num_samples() + 1, 2}, 3);
      test::WriteNpy(dir / "h.npy", Cast<int64_t>(m.shuffle_idx), {}, 2);
      DatasetConfig e = Gpt(dir / "tok", "");
      Of(e).doc_idx = dir / "d.npy";
      Of(e).sample_idx = dir / "s.npy";
      Of(e).shuffle_idx = dir / "h.npy";
      Result<std::unique_ptr<Dataset>> wide = OpenDataset(e);
      REQUIRE(wide.ok());
      CHECK(test::ReadAll(**wide, 64) == expected);
    }
  }
}

// Rows r0 = [10 11 12], r1 = [], r2 = [20 21 22 23], r3 = [30 31]; doc_idx
// [1 3 0 2 1 3] gives the document order  () (30 31) (10 11 12) (20 21 22 23) () (30 31).
struct Handmade {
  test::ScratchDir dir;
  Rows rows = {{10, 11, 12}, {}, {20, 21, 22, 23}, {30, 31}};
  std::vector<int64_t> doc_idx = {1, 3, 0, 2, 1, 3};
  // Starts: in the empty row (offset 0 = its size, allowed only for the first
  // start), then ends on 31, on 12, on 12 again (a 1-token sample), and on the
  // second 30 after crossing the empty row.
  std::vector<int64_t> sample_idx = {0, 0, 1, 1, 2, 2, 2, 2, 5, 0};
  std::vector<int64_t> shuffle_idx = {3, 0, 2, 1};
  std::vector<uint64_t> sample_shape;  // empty: (rows, 2)
  Handmade() { test::WriteRows(dir / "tok", DType::kI32, CodeTable::kMegatron, rows); }

  DatasetConfig Write() const {
    test::WriteNpy(dir / "m_doc_idx.npy", doc_idx);
    test::WriteNpy(
        dir / "m_sample_idx.npy", sample_idx,
        sample_shape.empty() ? std::vector<uint64_t>{sample_idx.size() / 2, 2} : sample_shape);
    test::WriteNpy(dir / "m_shuffle_idx.npy", shuffle_idx);
    return Gpt(dir / "tok", dir / "m");
  }
  // The error for the maps as they are now, after "<key>: <path of `map`>: ".
  std::string ErrorOf(const std::string& map, uint64_t seq_length = 0) const {
    DatasetConfig c = Write();
    Of(c).seq_length = seq_length;
    Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
    REQUIRE_FALSE(ds.ok());
    CHECK(ds.status().code() == Status::Code::kBadInput);
    const std::string prefix = "dataset.index_prefix: " + dir / ("m_" + map + ".npy") + ": ";
    const std::string m = ds.status().message();
    REQUIRE(m.rfind(prefix, 0) == 0);
    return m.substr(prefix.size());
  }
};

TEST_CASE("megatron_gpt: samples cross documents, skip empty ones, may differ in length",
          "[dataset][megatron_gpt]") {
  Handmade h;
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(h.Write());
  REQUIRE(ds.ok());
  const Rows expected = {{12, 20, 21, 22, 23, 30}, {30, 31}, {12}, {31, 10, 11, 12}};
  CHECK(Expected(h.rows, h.doc_idx, h.sample_idx, h.shuffle_idx) == expected);
  for (uint64_t batch : {1, 2, 4}) CHECK(test::ReadAll(**ds, batch) == expected);
  CHECK(test::Lengths(**ds) == std::vector<uint64_t>{6, 2, 1, 4});
  CHECK((*ds)->Describe().rfind("megatron_gpt 4 samples from ", 0) == 0);
  // Lengths come from the .idx sizes and the maps alone.
  std::filesystem::resize_file(h.dir / "tok.bin", 0);
  CHECK(test::Lengths(**ds) == std::vector<uint64_t>{6, 2, 1, 4});
}

TEST_CASE("megatron_gpt: ignore_token_ids are exposed sorted and unique",
          "[dataset][megatron_gpt]") {
  Handmade h;
  DatasetConfig c = h.Write();
  c.ignore_token_ids = {31, -1, 31, 10};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  const auto ignore = (*ds)->ignore_token_ids();
  CHECK(std::vector<int64_t>(ignore.begin(), ignore.end()) == std::vector<int64_t>{-1, 10, 31});
}

TEST_CASE("megatron_gpt: inconsistent maps are refused with the entry at fault",
          "[dataset][megatron_gpt]") {
  const std::string tok_rows = " (which has 4 rows); are the maps from another dataset?";
  {
    Handmade h;
    h.doc_idx[5] = 4;
    CHECK(h.ErrorOf("doc_idx") == "doc_idx[5] = 4 is not a row of " + h.dir / "tok" + tok_rows);
    h.doc_idx[5] = -1;
    CHECK(h.ErrorOf("doc_idx") == "doc_idx[5] = -1 is not a row of " + h.dir / "tok" + tok_rows);
    h.doc_idx.clear();
    CHECK(h.ErrorOf("doc_idx") == "shape (0,); expected a non-empty 1-D array");
  }
  {
    Handmade h;
    h.sample_idx = {0, 0};
    CHECK(h.ErrorOf("sample_idx") ==
          "shape (1, 2); expected (samples + 1, 2) with at least one sample");
    h.sample_idx = {0, 0, 1, 1, 2, 2, 2, 2, 5, 0};
    h.sample_shape = {10};
    CHECK(h.ErrorOf("sample_idx") ==
          "shape (10,); expected (samples + 1, 2) with at least one sample");
    h.sample_shape = {2, 5};
    CHECK(h.ErrorOf("sample_idx") ==
          "shape (2, 5); expected (samples + 1, 2) with at least one sample");
  }
  {
    Handmade h;
    h.shuffle_idx = {3, 0, 2};
    CHECK(h.ErrorOf("shuffle_idx") ==
          "shape (3,) but sample_idx " + h.dir / "m_sample_idx.npy" +
              " describes 4 samples; expected (4,) (are the maps from different builds?)");
    h.shuffle_idx = {3, 4, 2, 1};
    CHECK(h.ErrorOf("shuffle_idx") ==
          "shuffle_idx[1] = 4 is not a sample (sample_idx describes 4)");
    h.shuffle_idx = {3, -1, 2, 1};
    CHECK(h.ErrorOf("shuffle_idx") ==
          "shuffle_idx[1] = -1 is not a sample (sample_idx describes 4)");
  }
  {
    Handmade h;
    h.sample_idx[8] = 6;
    CHECK(h.ErrorOf("sample_idx") ==
          "sample_idx[4] = (6, 0): position 6 is outside doc_idx, which has 6 entries");
    h.sample_idx[8] = 5;
    h.sample_idx[9] = 2;  // r3 has 2 tokens: an end offset must be < 2
    CHECK(h.ErrorOf("sample_idx") == "sample_idx[4] = (5, 2): offset 2 is outside row 3 of " +
                                         h.dir / "tok" + ", which has 2 tokens");
    h.sample_idx[9] = -1;
    CHECK(h.ErrorOf("sample_idx") == "sample_idx[4] = (5, -1): offset -1 is outside row 3 of " +
                                         h.dir / "tok" + ", which has 2 tokens");
  }
  {
    Handmade h;
    h.sample_idx[1] = 1;  // a first start past the end of its (empty) row
    CHECK(h.ErrorOf("sample_idx") == "sample_idx[0] = (0, 1): offset 1 is outside row 1 of " +
                                         h.dir / "tok" + ", which has 0 tokens");
  }
  {
    Handmade h;
    h.sample_idx[4] = 1;
    h.sample_idx[5] = 0;
    CHECK(h.ErrorOf("sample_idx") ==
          "sample_idx[2] = (1, 0) comes before the start of sample 1 in doc_idx order "
          "(sample_idx[1] = (1, 1))");
  }
}

TEST_CASE("megatron_gpt: seq_length checks every sample's length", "[dataset][megatron_gpt]") {
  Handmade h;
  // Sample 0 has 2 tokens: seq_length 1 passes it, then sample 1 (4 tokens) fails.
  CHECK(h.ErrorOf("sample_idx", 1) ==
        "sample 1 (sample_idx rows 1 to 2) has 4 tokens, but seq_length + 1 = 2");
  CHECK(h.ErrorOf("sample_idx", 5) ==
        "sample 0 (sample_idx rows 0 to 1) has 2 tokens, but seq_length + 1 = 6");
}

TEST_CASE("megatron_gpt: file errors name the config key", "[dataset][megatron_gpt]") {
  Handmade h;
  DatasetConfig c = h.Write();
  // Explicit paths: the key of the map at fault.
  DatasetConfig e = Gpt(Of(c).prefix, "");
  Of(e).doc_idx = Of(c).doc_idx;
  Of(e).sample_idx = Of(c).sample_idx;
  Of(e).shuffle_idx = h.dir / "none.npy";
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(e);
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() == "dataset.shuffle_idx: " + h.dir / "none.npy: file not found");
  test::WriteFile(h.dir / "f.npy", test::NpyBytes(1, test::NpyDict("<f4", {6}),
                                                  test::RawBytes(std::vector<float>(6))));
  Of(e).shuffle_idx = Of(c).shuffle_idx;
  Of(e).doc_idx = h.dir / "f.npy";
  ds = OpenDataset(e);
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() ==
        "dataset.doc_idx: " + h.dir /
                                  "f.npy: dtype '<f4' is not an integer dtype (floating "
                                  "point); an integer array is required");
  Of(e).doc_idx = Of(c).doc_idx;
  Of(e).sample_idx = h.dir / "none.npy";
  ds = OpenDataset(e);
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() == "dataset.sample_idx: " + h.dir / "none.npy: file not found");

  Of(c).prefix = h.dir / "tok.idx";
  ds = OpenDataset(c);
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() ==
        "dataset.prefix: " + h.dir /
                                 "tok.idx.idx: file not found (give the prefix, without "
                                 ".idx or .bin)");
}

TEST_CASE("megatron_gpt: a parsed config opens the maps named by index_prefix",
          "[dataset][megatron_gpt]") {
  Handmade h;
  h.Write();
  Result<Config> c = ParseConfig(nlohmann::json{
      {"dataset",
       {{"type", "megatron_gpt"}, {"prefix", h.dir / "tok"}, {"index_prefix", h.dir / "m"}}},
      {"metrics", {{{"name", "seqlen"}, {"metric", "seqlen"}}}},
      {"output", {{"path", h.dir / "out"}}}});
  REQUIRE(c.ok());
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c->dataset);
  REQUIRE(ds.ok());
  CHECK(test::ReadAll(**ds, 4) == Rows{{12, 20, 21, 22, 23, 30}, {30, 31}, {12}, {31, 10, 11, 12}});
}

// The pieces by format.md §3 from the sizes alone: the token stream in doc_idx
// order, each token tagged with its doc_idx position; sample j's tokens
// flat[P(j) .. P(j+1)] grouped by position, each group naming its row.
test::Pieces PiecesFromSizes(const std::vector<int32_t>& sizes, const GptMaps& m) {
  std::vector<uint64_t> position_of;  // doc_idx position of each token of the stream
  std::vector<uint64_t> start;        // stream position of each doc_idx position
  for (size_t p = 0; p < m.doc_idx.size(); ++p) {
    start.push_back(position_of.size());
    position_of.insert(position_of.end(), static_cast<size_t>(sizes[m.doc_idx[p]]), p);
  }
  auto flat = [&](uint64_t k) { return start[m.sample_idx[2 * k]] + m.sample_idx[2 * k + 1]; };
  test::Pieces out;
  for (uint32_t j : m.shuffle_idx) {
    out.emplace_back();
    for (uint64_t q = flat(j); q <= flat(j + 1); ++q) {
      if (q == flat(j) || position_of[q] != position_of[q - 1])
        out.back().emplace_back(m.doc_idx[position_of[q]], 0);
      ++out.back().back().second;
    }
  }
  return out;
}

// Whether some sample holds one document in two pieces.
bool HasRepeat(const test::Pieces& pieces) {
  for (const auto& sample : pieces)
    for (size_t a = 0; a < sample.size(); ++a)
      for (size_t b = a + 1; b < sample.size(); ++b)
        if (sample[a].first == sample[b].first) return true;
  return false;
}

TEST_CASE("megatron_gpt: document pieces follow doc_idx from cut to cut",
          "[dataset][megatron_gpt][document_pieces]") {
  test::ScratchDir dir;
  SplitMix64 rng(9);
  const Rows rows = test::PieceRows(&rng, 40);  // short documents, some empty
  test::WriteRows(dir / "tok", DType::kI32, CodeTable::kMegatron, rows);
  const std::vector<int32_t> sizes = SizesOf(rows);
  int64_t tokens = 0;
  for (int32_t size : sizes) tokens += size;
  test::PieceCounts counts;
  bool repeat = false;
  for (int32_t seq_length : {1, 5, 40, 333, 600}) {
    for (int epochs : {1, 3}) {
      if (epochs * tokens <= seq_length) continue;
      INFO("seq_length " << seq_length << ", epochs " << epochs);
      const GptMaps m = BuildGptMaps(sizes, seq_length, epochs, 17);
      test::WriteNpy(dir / "m_doc_idx.npy", m.doc_idx);
      test::WriteNpy(dir / "m_sample_idx.npy", m.sample_idx, {m.num_samples() + 1, 2});
      test::WriteNpy(dir / "m_shuffle_idx.npy", m.shuffle_idx);
      Result<std::unique_ptr<Dataset>> ds = OpenDataset(Gpt(dir / "tok", dir / "m"));
      REQUIRE(ds.ok());
      CHECK((*ds)->num_documents() == 40);
      const test::Pieces pieces = test::CheckPieces(**ds);
      CHECK(pieces == PiecesFromSizes(sizes, m));
      const test::PieceCounts c = test::CountPieces(pieces);
      counts.one += c.one;
      counts.two += c.two;
      counts.many += c.many;
      repeat = repeat || HasRepeat(pieces);
    }
  }
  CHECK(counts.one > 0);
  CHECK(counts.two > 0);
  CHECK(counts.many > 0);
  // A sample longer than an epoch meets a document of doc_idx twice.
  CHECK(repeat);
}

TEST_CASE("megatron_gpt: document pieces of hand-made maps", "[dataset][document_pieces]") {
  Handmade h;
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(h.Write());
  REQUIRE(ds.ok());
  CHECK((*ds)->num_documents() == 4);
  // Samples (12 | 20 21 22 23 | 30), (30 31), (12), (31 | 10 11 12): the empty
  // row 1 is never a piece.
  CHECK(test::PiecesOf(**ds) ==
        test::Pieces{{{0, 1}, {2, 4}, {3, 1}}, {{3, 2}}, {{0, 1}}, {{3, 1}, {0, 3}}});

  // One sample through doc_idx [0 1 0 1]: rows 0 and 1 twice each.
  test::WriteRows(h.dir / "two", DType::kI32, CodeTable::kMegatron, {{5, 6}, {7}});
  test::WriteNpy(h.dir / "r_doc_idx.npy", std::vector<int64_t>{0, 1, 0, 1});
  test::WriteNpy(h.dir / "r_sample_idx.npy", std::vector<int64_t>{0, 0, 3, 0}, {2, 2});
  test::WriteNpy(h.dir / "r_shuffle_idx.npy", std::vector<int64_t>{0});
  Result<std::unique_ptr<Dataset>> twice = OpenDataset(Gpt(h.dir / "two", h.dir / "r"));
  REQUIRE(twice.ok());
  CHECK(test::PiecesOf(**twice) == test::Pieces{{{0, 2}, {1, 1}, {0, 2}, {1, 1}}});
  CHECK(test::Lengths(**twice) == std::vector<uint64_t>{6});
}

}  // namespace
}  // namespace dsanalyze
