// Numbers for people (page/numbers.h): exact counts with separators, at most
// the significant digits asked for, units on shares, durations and sizes.
#include "page/numbers.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

namespace dsanalyze {
namespace {

TEST_CASE("Count is exact, with thousands separators", "[numbers]") {
  CHECK(Count(uint64_t{0}) == "0");
  CHECK(Count(uint64_t{999}) == "999");
  CHECK(Count(uint64_t{1000}) == "1,000");
  CHECK(Count(uint64_t{52025444}) == "52,025,444");
  CHECK(Count(std::numeric_limits<uint64_t>::max()) == "18,446,744,073,709,551,615");
  CHECK(Count(int64_t{-1234567}) == "-1,234,567");
}

TEST_CASE("Significant keeps at most the digits asked for", "[numbers]") {
  CHECK(Significant(0.004655210999999326) == "0.004655");
  CHECK(Significant(1234567.8) == "1,234,568");
  CHECK(Significant(3.0) == "3");
  CHECK(Significant(0.5714805549268099, 3) == "0.571");
  CHECK(Significant(-995.0) == "-995");
  CHECK(Significant(-0.0) == "0");
  CHECK(Significant(-0.00001) == "-0.00001");
  CHECK(Significant(9.99996) == "10");
  CHECK(Significant(2e20) == "2e+20");
  CHECK(Significant(std::numeric_limits<double>::quiet_NaN()) == "NaN");
}

TEST_CASE("Percent, Seconds and Bytes carry their unit", "[numbers]") {
  CHECK(Percent(0.138945666662643) == "13.89%");
  CHECK(Percent(0.5714805549268099, 3) == "57.1%");
  CHECK(Percent(1.0) == "100%");
  CHECK(Seconds(0.004655210999999326) == "0.0047 s");
  CHECK(Bytes(512) == "512 B");
  CHECK(Bytes(1610612736) == "1.5 GiB");
  CHECK(Bytes(uint64_t{1} << 20) == "1 MiB");
}

}  // namespace
}  // namespace dsanalyze
