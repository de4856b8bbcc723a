#include "pipeline/output_commit.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "support/test_util.h"

namespace dsanalyze {
namespace {
namespace fs = std::filesystem;

void Touch(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
size_t StagingDirs(const fs::path& save) {
  size_t n = 0;
  for (auto& e : fs::directory_iterator(save))
    n += e.path().filename().string().rfind(".dsanalyze-staging-", 0) == 0;
  return n;
}

TEST_CASE("A run that never commits leaves the save path as it was", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "save";
  fs::create_directories(save / "m");
  Touch(save / "m" / "old.bin", "old");
  {
    auto out = StagedOutput::Create(save.string());
    REQUIRE(out.ok());
    auto m = out->MakeMetricDir("m");
    REQUIRE(m.ok());
    Touch(fs::path(*m) / "new.bin", "new");
    CHECK(StagingDirs(save) == 1);
  }
  CHECK(StagingDirs(save) == 0);
  CHECK(Slurp(save / "m" / "old.bin") == "old");
  CHECK_FALSE(fs::exists(save / "m" / "new.bin"));
}

TEST_CASE("Commit swaps a previous result for the new one whole", "[commit]") {
  test::ScratchDir dir;
  const fs::path save = dir.path() / "deep" / "save";  // parents are created
  auto out = StagedOutput::Create(save.string());
  REQUIRE(out.ok());
  fs::create_directories(save / "m");
  Touch(save / "m" / "stale.bin", "stale");
  auto m = out->MakeMetricDir("m");
  auto fresh = out->MakeMetricDir("fresh");
  REQUIRE(m.ok());
  REQUIRE(fresh.ok());
  Touch(fs::path(*m) / "m.bin", "new");
  Touch(fs::path(*fresh) / "f.bin", "f");
  Touch(fs::path(out->staging_dir()) / "summary.json", "{}");
  REQUIRE(out->Commit({"m", "fresh"}, {"summary.json"}).ok());
  CHECK(Slurp(save / "m" / "m.bin") == "new");
  CHECK_FALSE(fs::exists(save / "m" / "stale.bin"));
  CHECK(Slurp(save / "fresh" / "f.bin") == "f");
  CHECK(Slurp(save / "summary.json") == "{}");
  CHECK(StagingDirs(save) == 0);
}

TEST_CASE("A save path that is a file is bad input", "[commit]") {
  test::ScratchDir dir;
  Touch(dir.path() / "file", "x");
  auto out = StagedOutput::Create((dir.path() / "file").string());
  REQUIRE_FALSE(out.ok());
  CHECK_THAT(out.status().message(), Catch::Contains("file"));
}

}  // namespace
}  // namespace dsanalyze
