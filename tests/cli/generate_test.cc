// `dsanalyze generate` as a user runs it: the summary line, exit codes, the
// same bytes as the library call, and the GPT index maps of --gpt-maps.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "dataset/gpt_maps.h"
#include "format/indexed_dataset.h"
#include "format/npy.h"
#include "support/test_util.h"
#include "synth/token_generator.h"

namespace dsanalyze::cli {
namespace {

using Catch::Matchers::Contains;

}  // namespace

TEST_CASE("dsanalyze generate prints a summary and exits 0, or 2 on bad options",
          "[generate][cli]") {
  test::ScratchDir dir;
  const std::string prefix = dir / "g";
  auto ok = test::RunCommand(test::BinaryPath() + " generate '" + prefix +
                             "' --documents 100 --vocab-size 1000 --min-length 5 "
                             "--max-length 50 --seed 9 --zipf 1.2");
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Contains("wrote 100 documents, "));
  CHECK_THAT(ok.output, Contains("(uint16, code 8 in the megatron table) to " + prefix));
  auto ds = IndexedDataset::Open(prefix, {CodeTable::kMegatron, true});
  REQUIRE(ds.ok());
  CHECK(ds->num_rows() == 100);
  CHECK_THAT(ok.output, Contains(std::to_string(ds->num_elements()) + " tokens"));

  // The library call with the same options writes the same bytes.
  GenerateOptions o;
  o.prefix = dir / "lib";
  o.documents = 100, o.vocab_size = 1000, o.min_length = 5, o.max_length = 50, o.seed = 9;
  o.zipf = 1.2;
  REQUIRE(synth::WriteTokenDataset(o).ok());
  CHECK(test::ReadBytes(dir / "lib.bin") == test::ReadBytes(prefix + ".bin"));

  auto bad = test::RunCommand(test::BinaryPath() + " generate '" + (dir / "h") +
                              "' --min-length 10 --max-length 5");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output == "dsanalyze: error: --min-length 10 is greater than --max-length 5\n");
}

TEST_CASE("generate --gpt-maps writes the index maps megatron_gpt reads", "[generate][cli]") {
  test::ScratchDir dir;
  const std::string run = test::BinaryPath() + " generate '" + dir / "t" +
                          "' --documents 50 --min-length 1 --max-length 40 --seed 3 ";
  auto r = test::RunCommand(run + "--gpt-maps 16");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto ds = IndexedDataset::Open(dir / "t", {CodeTable::kMegatron, true});
  REQUIRE(ds.ok());
  const uint64_t samples = (ds->num_elements() - 1) / 16;
  CHECK_THAT(r.output,
             Contains("wrote GPT index maps of " + std::to_string(samples) +
                      " samples of 16+1 tokens to " + dir / "t_train_indexmap_*_idx.npy"));
  auto doc = NpyArray::Open(dir / "t_train_indexmap_doc_idx.npy");
  auto sample = NpyArray::Open(dir / "t_train_indexmap_sample_idx.npy");
  auto shuffle = NpyArray::Open(dir / "t_train_indexmap_shuffle_idx.npy");
  REQUIRE(doc.ok());
  REQUIRE(sample.ok());
  REQUIRE(shuffle.ok());
  CHECK(doc->dtype() == DType::kI32);
  CHECK(doc->shape() == std::vector<uint64_t>{50});
  CHECK(sample->dtype() == DType::kI32);
  CHECK(sample->shape() == std::vector<uint64_t>{samples + 1, 2});
  CHECK(shuffle->dtype() == DType::kU32);
  CHECK(shuffle->shape() == std::vector<uint64_t>{samples});
  // The maps are the library's BuildGptMaps of the rows, one epoch, seeded by --seed.
  std::vector<int32_t> sizes;
  for (uint64_t i = 0; i < ds->num_rows(); ++i) sizes.push_back(ds->row_size(i));
  const GptMaps m = BuildGptMaps(sizes, 16, 1, 3);
  for (uint64_t i = 0; i < m.sample_idx.size(); ++i) REQUIRE(sample->at(i) == m.sample_idx[i]);
  for (uint64_t i = 0; i < m.shuffle_idx.size(); ++i) REQUIRE(shuffle->at(i) == m.shuffle_idx[i]);

  // Too few tokens for one sample: one line, exit 2, no map file.
  test::ScratchDir small;
  auto few = test::RunCommand(test::BinaryPath() + " generate '" + small / "t" +
                              "' --documents 2 --max-length 3 --gpt-maps 100");
  CHECK(few.exit_code == 2);
  CHECK_THAT(few.output, Contains("dsanalyze: error: --gpt-maps 100: the dataset has "));
  CHECK_THAT(few.output, Contains("not enough for one sample of 101\n"));
  CHECK(std::filesystem::exists(small / "t.bin"));
  CHECK_FALSE(std::filesystem::exists(small / "t_train_indexmap_doc_idx.npy"));
  auto zero = test::RunCommand(run + "--gpt-maps 0");
  CHECK(zero.exit_code == 2);
  auto huge = test::RunCommand(test::BinaryPath() + " generate '" + small / "u" +
                               "' --gpt-maps 2147483647");
  CHECK(huge.exit_code == 2);
  CHECK(huge.output == "dsanalyze: error: --gpt-maps 2147483647 is out of range [1, 2147483646]\n");
  CHECK_FALSE(std::filesystem::exists(small / "u.bin"));
}

}  // namespace dsanalyze::cli
