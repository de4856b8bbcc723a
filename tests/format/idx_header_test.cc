// The .idx header layout (format/idx_header.h) against the bytes of
// docs/format.md §1's worked example, written out by hand here.
#include "format/idx_header.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

namespace dsanalyze {
namespace {

// The first 34 bytes of the worked example: version 1, code 1, 3 rows, 2 doc_idx entries.
std::vector<std::byte> ExampleHeader() {
  const unsigned char raw[34] = {0x4d, 0x4d, 0x49, 0x44, 0x49, 0x44, 0x58, 0, 0,  // magic
                                 1,    0,    0,    0,    0,    0,    0,    0,     // version
                                 1,                                               // code
                                 3,    0,    0,    0,    0,    0,    0,    0,     // rows
                                 2,    0,    0,    0,    0,    0,    0,    0};    // doc_count
  std::vector<std::byte> out(sizeof(raw));
  std::memcpy(out.data(), raw, sizeof(raw));
  return out;
}

}  // namespace

TEST_CASE("idx header serialises to format.md's worked example", "[format][idx_header]") {
  IdxHeader h;
  h.dtype_code = 1;
  h.rows = 3;
  h.doc_count = 2;
  const auto bytes = SerializeIdxHeader(h);
  const std::vector<std::byte> expected = ExampleHeader();
  REQUIRE(bytes.size() == expected.size());
  CHECK(std::memcmp(bytes.data(), expected.data(), expected.size()) == 0);
}

TEST_CASE("idx header parses format.md's worked example", "[format][idx_header]") {
  std::vector<std::byte> bytes = ExampleHeader();
  CHECK(HasIdxMagic(bytes));
  const IdxHeader h = ParseIdxHeader(bytes);
  CHECK(h.version == 1);
  CHECK(h.dtype_code == 1);
  CHECK(h.rows == 3);
  CHECK(h.doc_count == 2);
  bytes[7] = std::byte{1};
  CHECK_FALSE(HasIdxMagic(bytes));
}

TEST_CASE("idx arrays start where format.md says", "[format][idx_header]") {
  // 34, 34 + 4·len, 34 + 12·len; the example (len 3, dc 2) is 86 bytes.
  CHECK(IdxSizesOffset() == 34);
  CHECK(IdxPointersOffset(3) == 46);
  CHECK(IdxDocIdxOffset(3) == 70);
  CHECK(IdxDocIdxOffset(3) + kIdxDocIdxBytes * 2 == 86);
}

}  // namespace dsanalyze
