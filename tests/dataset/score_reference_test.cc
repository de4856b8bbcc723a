// tests/support/score_reference.py, the Python reference the `score` metric's
// end-to-end tests use, gives the pieces Dataset::AppendDocumentPieces gives,
// for each dataset type that has documents.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dataset/gpt_maps.h"
#include "dataset/open_dataset.h"
#include "dataset/token_rows.h"
#include "support/npy_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

// The pieces score_reference.py computes for the "dataset" section `dataset`.
test::Pieces ReferencePieces(const test::ScratchDir& dir, const nlohmann::json& dataset) {
  std::ofstream(dir / "config.json") << nlohmann::json{{"dataset", dataset}}.dump();
  const test::CommandResult r =
      test::RunCommand("python3 " DSANALYZE_SOURCE_DIR "/tests/support/score_reference.py pieces " +
                       dir / "config.json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  test::Pieces out;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    out.push_back(nlohmann::json::parse(line).get<std::vector<test::Piece>>());
  return out;
}

// Opens the config's "dataset" section the way dsanalyze run does.
std::unique_ptr<Dataset> Open(const nlohmann::json& dataset) {
  Result<Config> c =
      ParseConfig(nlohmann::json{{"dataset", dataset},
                                 {"metrics", {{{"name", "s"}, {"metric", "seqlen"}}}},
                                 {"output", {{"path", "unused"}}}});
  REQUIRE(c.ok());
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c->dataset);
  REQUIRE(ds.ok());
  return std::move(ds).value();
}

TEST_CASE("score_reference.py: the pieces of documents, packed and megatron_gpt",
          "[dataset][document_pieces]") {
  test::ScratchDir dir;
  SplitMix64 rng(31);
  const test::Rows a = test::PieceRows(&rng, 30), b = test::PieceRows(&rng, 20, 30);
  test::WriteRows(dir / "a", DType::kI32, CodeTable::kMegatron, a);
  test::WriteRows(dir / "b", DType::kI32, CodeTable::kMegatron, b);
  const std::vector<std::string> prefixes = {dir / "a", dir / "b"};

  const nlohmann::json documents = {{"type", "documents"}, {"prefixes", prefixes}};
  CHECK(ReferencePieces(dir, documents) == test::CheckPieces(*Open(documents)));
  for (int seq_length : {3, 50, 400}) {
    const nlohmann::json packed = {
        {"type", "packed"}, {"prefixes", prefixes}, {"seq_length", seq_length}};
    CHECK(ReferencePieces(dir, packed) == test::CheckPieces(*Open(packed)));
  }

  std::vector<int32_t> sizes;
  for (const auto& row : a) sizes.push_back(static_cast<int32_t>(row.size()));
  const GptMaps m = BuildGptMaps(sizes, 200, 3, 5);
  test::WriteNpy(dir / "m_doc_idx.npy", m.doc_idx);
  test::WriteNpy(dir / "m_sample_idx.npy", m.sample_idx, {m.num_samples() + 1, 2});
  test::WriteNpy(dir / "m_shuffle_idx.npy", m.shuffle_idx);
  const nlohmann::json gpt = {
      {"type", "megatron_gpt"}, {"prefix", dir / "a"}, {"index_prefix", dir / "m"}};
  CHECK(ReferencePieces(dir, gpt) == test::CheckPieces(*Open(gpt)));
}

}  // namespace
}  // namespace dsanalyze
