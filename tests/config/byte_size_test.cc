#include "config/byte_size.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

namespace dsanalyze {
namespace {

constexpr uint64_t kKi = 1024, kMi = kKi * 1024, kGi = kMi * 1024, kTi = kGi * 1024;

uint64_t Parsed(const std::string& text) {
  Result<uint64_t> r = ParseByteSize(text);
  INFO(text);
  REQUIRE(r.ok());
  return *r;
}

TEST_CASE("byte size: every unit, binary and decimal", "[byte_size]") {
  CHECK(Parsed("123456B") == 123456);
  CHECK(Parsed("4096KiB") == 4096 * kKi);
  CHECK(Parsed("512MiB") == 512 * kMi);
  CHECK(Parsed("2GiB") == 2 * kGi);
  CHECK(Parsed("3TiB") == 3 * kTi);
  CHECK(Parsed("7KB") == 7000);
  CHECK(Parsed("64MB") == 64000000);
  CHECK(Parsed("1GB") == 1000000000);
  CHECK(Parsed("2TB") == 2000000000000);
  CHECK(Parsed("0B") == 0);
}

TEST_CASE("byte size: units in any letter case, spaces before the unit", "[byte_size]") {
  CHECK(Parsed("2gib") == 2 * kGi);
  CHECK(Parsed("2GIB") == 2 * kGi);
  CHECK(Parsed("64mb") == 64000000);
  CHECK(Parsed("5b") == 5);
  CHECK(Parsed("2 GiB") == 2 * kGi);
  CHECK(Parsed("2   MB") == 2000000);
}

TEST_CASE("byte size: fractions are rounded down to a byte", "[byte_size]") {
  CHECK(Parsed("1.5GiB") == 3 * kGi / 2);
  CHECK(Parsed("0.5KiB") == 512);
  CHECK(Parsed("0.3KiB") == 307);  // 307.2
  CHECK(Parsed("1.0009KB") == 1000);
  CHECK(Parsed("2.75MB") == 2750000);
  CHECK(Parsed("1.9B") == 1);
  CHECK(Parsed("0.000000000001TB") == 1);
  CHECK(Parsed("0.0000000000009TB") == 0);
  CHECK(Parsed("007.50MiB") == 15 * kMi / 2);
}

TEST_CASE("byte size: sizes past 2^64 - 1 give UINT64_MAX", "[byte_size]") {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  CHECK(Parsed("18446744073709551615B") == kMax);
  CHECK(Parsed("18446744073709551616B") == kMax);
  CHECK(Parsed("16777216TiB") == kMax);  // 2^64
  CHECK(Parsed("16777215.99TiB") == 16777215 * kTi + 99 * kTi / 100);
  CHECK(Parsed("99999999999999999999999999TB") == kMax);
}

TEST_CASE("byte size: what is not a size", "[byte_size]") {
  for (const char* text :
       {"", "GiB", "2", "2048", "2 gigs", "2G", "2GiBs", "2iB", "-5MiB", "+5MiB", "1.GiB", ".5GiB",
        "1e9B", "2GiB ", " 2GiB", "1,5GiB", "0x10MiB", "2Mib B", "1.5.5GiB"}) {
    INFO(text);
    Result<uint64_t> r = ParseByteSize(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Status::Code::kBadInput);
  }
  CHECK(ParseByteSize("2 gigs").status().message() ==
        "\"2 gigs\" is not a size (a number and a unit: B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
}

TEST_CASE("byte size: FormatByteSize takes the largest exact unit, else bytes", "[byte_size]") {
  CHECK(FormatByteSize(2 * kGi) == "2GiB");
  CHECK(FormatByteSize(3 * kGi / 2) == "1536MiB");
  CHECK(FormatByteSize(64 * kMi) == "64MiB");
  CHECK(FormatByteSize(4096 * kKi) == "4MiB");
  CHECK(FormatByteSize(1024 * kTi) == "1024TiB");
  CHECK(FormatByteSize(64000000) == "64MB");
  CHECK(FormatByteSize(1000000000) == "1GB");
  CHECK(FormatByteSize(2000000000000) == "2TB");
  CHECK(FormatByteSize(1000 * kKi) == "1000KiB");
  CHECK(FormatByteSize(7000) == "7KB");
  CHECK(FormatByteSize(123457) == "123457B");
  CHECK(FormatByteSize(0) == "0B");
}

TEST_CASE("byte size: FormatByteSizeRounded prints sizes for people, as the docs do",
          "[byte_size]") {
  CHECK(FormatByteSizeRounded(168972160) == "161.1MiB");  // the memory plan's estimate
  CHECK(FormatByteSizeRounded(8160437862) == "7.6GiB");
  CHECK(FormatByteSizeRounded(2 * kGi) == "2GiB");
  CHECK(FormatByteSizeRounded(3 * kGi / 2) == "1.5GiB");
  CHECK(FormatByteSizeRounded(805670) == "786.8KiB");
  CHECK(FormatByteSizeRounded(1023) == "1023B");
  CHECK(FormatByteSizeRounded(0) == "0B");
}

TEST_CASE("byte size: ParseByteSize reads back what FormatByteSize writes", "[byte_size]") {
  for (uint64_t n :
       {uint64_t{0}, uint64_t{1}, uint64_t{999}, uint64_t{1000}, uint64_t{1024},
        uint64_t{1395864371}, 64 * kMi, 3 * kGi / 2, 5 * kTi, uint64_t{1} << 50,
        (uint64_t{1} << 50) + 1, uint64_t{123456789012345}, std::numeric_limits<uint64_t>::max()}) {
    INFO(n);
    CHECK(Parsed(FormatByteSize(n)) == n);
  }
}

}  // namespace
}  // namespace dsanalyze
