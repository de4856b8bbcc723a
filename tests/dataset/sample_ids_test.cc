#include "dataset/sample_ids.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <limits>
#include <numeric>

#include "dataset/gpt_maps.h"
#include "support/npy_writer.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

std::vector<int64_t> IdsOf(const SampleIds& s) { return {s.ids().begin(), s.ids().end()}; }

// The error SampleIds::Open gives for `path`, after its "dataset.sample_indices: <path>: ".
std::string ErrorOf(const std::string& path, uint64_t n) {
  Result<SampleIds> s = SampleIds::Open(path, n);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Status::Code::kBadInput);
  const std::string m = s.status().message();
  const std::string prefix = "dataset.sample_indices: " + path + ": ";
  REQUIRE(m.rfind(prefix, 0) == 0);
  return m.substr(prefix.size());
}

TEST_CASE("sample_ids: a shuffled int64 permutation is used in place", "[sample_ids]") {
  test::ScratchDir dir;
  std::vector<int64_t> ids(1000);
  std::iota(ids.begin(), ids.end(), 0);
  SplitMix64(5).Shuffle(&ids);
  test::WriteNpy(dir / "ids.npy", ids);
  Result<SampleIds> s = SampleIds::Open(dir / "ids.npy", 1000);
  REQUIRE(s.ok());
  CHECK(IdsOf(*s) == ids);
  CHECK(s->min() == 0);
  CHECK(s->max() == 999);
  // Zero copy: the ids are the mapped file, so a write to the file shows through.
  {
    std::fstream f(dir / "ids.npy", std::ios::in | std::ios::out | std::ios::binary);
    const int64_t changed = 123456;
    f.seekp(128);  // the 64-aligned header block
    f.write(reinterpret_cast<const char*>(&changed), sizeof changed);
  }
  CHECK(s->ids()[0] == 123456);
  ids[0] = 123456;
  SampleIds moved = std::move(s).value();
  CHECK(IdsOf(moved) == ids);  // still valid after a move
}

TEST_CASE("sample_ids: other integer dtypes, negative and sparse ids", "[sample_ids]") {
  test::ScratchDir dir;
  test::WriteNpy(dir / "i32.npy", std::vector<int32_t>{5, -3, 7, 0}, {}, 2);
  Result<SampleIds> s = SampleIds::Open(dir / "i32.npy", 4);
  REQUIRE(s.ok());
  CHECK(IdsOf(*s) == std::vector<int64_t>{5, -3, 7, 0});
  CHECK(s->min() == -3);
  CHECK(s->max() == 7);

  // Ids far apart (range >> 64 N) take the sorting path.
  const int64_t big = std::numeric_limits<int64_t>::max();
  const int64_t small = std::numeric_limits<int64_t>::min();
  test::WriteNpy(dir / "sparse.npy", std::vector<int64_t>{big, 0, small, 1LL << 40});
  Result<SampleIds> sparse = SampleIds::Open(dir / "sparse.npy", 4);
  REQUIRE(sparse.ok());
  CHECK(sparse->min() == small);
  CHECK(sparse->max() == big);

  test::WriteNpy(dir / "u64.npy", std::vector<uint64_t>{uint64_t(big), 3});
  Result<SampleIds> u = SampleIds::Open(dir / "u64.npy", 2);
  REQUIRE(u.ok());
  CHECK(IdsOf(*u) == std::vector<int64_t>{big, 3});

  test::WriteNpy(dir / "u8.npy", std::vector<uint8_t>{2, 1, 0});
  Result<SampleIds> u8 = SampleIds::Open(dir / "u8.npy", 3);
  REQUIRE(u8.ok());
  CHECK(IdsOf(*u8) == std::vector<int64_t>{2, 1, 0});

  // An int64 array whose data is not 8-byte aligned is copied, not misread.
  test::WriteFile(dir / "odd.npy",
                  test::NpyBytes(1, test::NpyDict("<i8", {2}),
                                 test::RawBytes(std::vector<int64_t>{-1, 1LL << 50}), 3));
  Result<SampleIds> odd = SampleIds::Open(dir / "odd.npy", 2);
  REQUIRE(odd.ok());
  CHECK(IdsOf(*odd) == std::vector<int64_t>{-1, 1LL << 50});

  test::WriteNpy(dir / "none.npy", std::vector<int64_t>{});
  Result<SampleIds> none = SampleIds::Open(dir / "none.npy", 0);
  REQUIRE(none.ok());
  CHECK(none->ids().empty());
}

TEST_CASE("sample_ids: a repeated id names the earliest repeat and both positions",
          "[sample_ids]") {
  test::ScratchDir dir;
  // Dense ids (bitmap): 4 repeats at position 5 before 1 repeats at 6.
  test::WriteNpy(dir / "dense.npy", std::vector<int64_t>{1, 4, 2, 0, 3, 4, 1});
  CHECK(ErrorOf(dir / "dense.npy", 7) ==
        "id 4 appears twice, at positions 1 and 5; sample ids must be distinct");
  // Sparse ids (sorted copy): the same rule, though 7 sorts before 1 << 60.
  test::WriteNpy(dir / "sparse.npy", std::vector<int64_t>{1LL << 60, -5, 1LL << 60, 7, 7});
  CHECK(ErrorOf(dir / "sparse.npy", 5) ==
        "id 1152921504606846976 appears twice, at positions 0 and 2; sample ids must be distinct");
  test::WriteNpy(dir / "sparse2.npy", std::vector<int64_t>{7, 1LL << 60, -5, 7, 1LL << 60});
  CHECK(ErrorOf(dir / "sparse2.npy", 5) ==
        "id 7 appears twice, at positions 0 and 3; sample ids must be distinct");
  test::WriteNpy(dir / "neg.npy", std::vector<int16_t>{-1, -2, -1});
  CHECK(ErrorOf(dir / "neg.npy", 3) ==
        "id -1 appears twice, at positions 0 and 2; sample ids must be distinct");
}

TEST_CASE("sample_ids: shape, length and dtype errors", "[sample_ids]") {
  test::ScratchDir dir;
  test::WriteNpy(dir / "ids.npy", std::vector<int64_t>{0, 1, 2});
  CHECK(ErrorOf(dir / "ids.npy", 4) == "3 ids for 4 samples; expected one id per sample");
  CHECK(ErrorOf(dir / "ids.npy", 2) == "3 ids for 2 samples; expected one id per sample");
  test::WriteNpy(dir / "2d.npy", std::vector<int64_t>{0, 1, 2, 3}, {2, 2});
  CHECK(ErrorOf(dir / "2d.npy", 4) == "shape (2, 2); expected a 1-D array with one id per sample");
  test::WriteNpy(dir / "huge.npy", std::vector<uint64_t>{0, uint64_t{1} << 63});
  CHECK(ErrorOf(dir / "huge.npy", 2) == "id 9223372036854775808 at position 1 does not fit int64");
  test::WriteFile(dir / "f8.npy", test::NpyBytes(1, test::NpyDict("<f8", {1}),
                                                 test::RawBytes(std::vector<double>{1.0})));
  CHECK(ErrorOf(dir / "f8.npy", 1) ==
        "dtype '<f8' is not an integer dtype (floating point); an integer array is required");
  CHECK(ErrorOf(dir / "missing.npy", 1) == "file not found");
}

}  // namespace
}  // namespace dsanalyze
