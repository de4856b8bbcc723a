#include "sort/value_store.h"

#include <catch2/catch.hpp>
#include <vector>

#include "support/test_util.h"

namespace dsanalyze {
namespace {

// Blocks of 100 values, the first two in memory and the rest spilled: one at
// 1 byte (a span of 200), one at 2 bytes (a span of 60000), then both kinds
// again from the scratch file.
std::vector<int64_t> Values() {
  std::vector<int64_t> v;
  for (int block = 0; block < 4; ++block)
    for (int i = 0; i < 100; ++i)
      v.push_back(block % 2 == 0 ? -1000 + (i * 37) % 201 : -1000 + (i * 7919) % 60001);
  return v;
}

TEST_CASE("ValueStore reads blocks back as values and as 16-bit offsets", "[value_store]") {
  test::ScratchDir dir;
  ValueStore store(300, dir.path().string(), 100);
  const std::vector<int64_t> values = Values();
  REQUIRE(store.Append(values).ok());
  REQUIRE(store.Seal().ok());
  REQUIRE(store.num_blocks() == 4);
  REQUIRE(store.spilled_bytes() > 0);
  std::vector<int64_t> decoded;
  std::vector<uint16_t> offsets;
  for (size_t b = 0; b < store.num_blocks(); ++b) {
    REQUIRE(store.ReadBlock(b, &decoded).ok());
    REQUIRE(store.ReadBlockOffsets(b, -1000, &offsets).ok());
    REQUIRE(decoded.size() == 100);
    REQUIRE(offsets.size() == 100);
    for (size_t i = 0; i < 100; ++i) {
      CHECK(decoded[i] == values[b * 100 + i]);
      CHECK(int64_t{offsets[i]} == values[b * 100 + i] + 1000);
    }
  }
}

TEST_CASE("ValueStore refuses offsets that do not fit 16 bits from the base", "[value_store]") {
  test::ScratchDir dir;
  ValueStore store(1 << 20, dir.path().string(), 100);
  REQUIRE(store.Append(std::vector<int64_t>{5, 70000}).ok());
  REQUIRE(store.Seal().ok());
  std::vector<uint16_t> offsets;
  const Status above = store.ReadBlockOffsets(0, 5, &offsets);
  CHECK(above.code() == Status::Code::kInternal);
  CHECK(above.message() == "value store: block 0 has values outside a 16-bit range from 5");
  CHECK(!store.ReadBlockOffsets(0, 6, &offsets).ok());  // a value below the base
}

}  // namespace
}  // namespace dsanalyze
