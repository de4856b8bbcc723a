#include "util/checked_add.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <vector>

namespace dsanalyze {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST_CASE("AddChecked: a scalar sum, or false with the accumulator untouched", "[util]") {
  int64_t acc = -5;
  CHECK(AddChecked(&acc, 12));
  CHECK(acc == 7);
  acc = kMax - 1;
  CHECK(AddChecked(&acc, 1));
  CHECK(acc == kMax);
  CHECK_FALSE(AddChecked(&acc, 1));
  CHECK(acc == kMax);
  acc = kMin;
  CHECK_FALSE(AddChecked(&acc, -1));
  CHECK(acc == kMin);
  CHECK(AddChecked(&acc, kMax));
  CHECK(acc == -1);
}

TEST_CASE("AddChecked: element-wise, an overflow names the element", "[util]") {
  std::vector<int64_t> acc = {1, kMax, 3};
  const std::vector<int64_t> add = {2, -1, 4};
  REQUIRE(AddChecked(acc, add, "m").ok());
  CHECK(acc == std::vector<int64_t>{3, kMax - 1, 7});
  const std::vector<int64_t> over = {0, 2, 0};
  const Status st = AddChecked(acc, over, "metric m");
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() == "metric m: the sum of element 1 overflows int64");
}

}  // namespace
}  // namespace dsanalyze
