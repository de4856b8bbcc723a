// InputFile: positional reads, the mapping it gives, and its errors.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <vector>

#include "support/test_util.h"
#include "util/file_util.h"

namespace dsanalyze {

using Catch::Matchers::Contains;

TEST_CASE("InputFile reads any range and maps the same bytes", "[util][input_file]") {
  test::ScratchDir dir;
  std::vector<uint8_t> bytes(100000);
  std::iota(bytes.begin(), bytes.end(), uint8_t{7});
  test::WriteBytes(dir / "f", bytes);
  auto f = InputFile::Open(dir / "f");
  REQUIRE(f.ok());
  CHECK(f->size() == bytes.size());
  for (const auto& [offset, size] :
       {std::pair<size_t, size_t>{0, 100000}, {1, 0}, {65535, 3000}, {99999, 1}}) {
    std::vector<uint8_t> got(size);
    REQUIRE(f->ReadAt(offset, got.data(), size).ok());
    CHECK(std::equal(got.begin(), got.end(), bytes.begin() + offset));
  }
  std::vector<uint8_t> past(2);
  const Status end = f->ReadAt(99999, past.data(), 2);
  CHECK(end.code() == Status::Code::kIoError);
  CHECK_THAT(end.message(), Contains("file ends at byte 100000"));

  auto m = f->Map();
  REQUIRE(m.ok());
  f = InputFile();  // the mapping outlives the file
  REQUIRE(m->bytes().size() == bytes.size());
  CHECK(std::memcmp(m->bytes().data(), bytes.data(), bytes.size()) == 0);
}

TEST_CASE("InputFile and MappedFile refuse what is not a readable file", "[util][input_file]") {
  test::ScratchDir dir;
  CHECK_THAT(InputFile::Open(dir / "none").status().message(), Contains("none: file not found"));
  CHECK(InputFile::Open(dir / "none").status().code() == Status::Code::kBadInput);
  CHECK_THAT(MappedFile::Open(dir.path().string()).status().message(),
             Contains("not a regular file"));
  test::WriteBytes(dir / "empty", {});
  auto m = MappedFile::Open(dir / "empty");
  REQUIRE(m.ok());
  CHECK(m->bytes().empty());
}

}  // namespace dsanalyze
