// StageClock (util/stage_clock.h): stages known by name, in the order given
// then first named; laps, stages one after another, and times measured
// elsewhere; Times as summary.json and --timings take them.
#include "util/stage_clock.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

namespace dsanalyze {
namespace {

constexpr const char* kFixed[] = {"open", "map", "commit"};

void Sleep() { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }

TEST_CASE("util: StageClock laps fixed stages, which add up", "[util][stage_clock]") {
  StageClock clock(kFixed);
  CHECK(clock.stages() == std::vector<std::string>{"open", "map", "commit"});
  CHECK(clock.seconds() == std::vector<double>{0, 0, 0});
  Sleep();
  clock.Lap(1);
  const double once = clock.seconds()[1];
  CHECK(once >= 0.004);
  Sleep();
  clock.Lap(1);
  CHECK(clock.seconds()[1] >= once + 0.004);
  Sleep();
  clock.Restart();  // not attributed
  clock.Lap(0);
  CHECK(clock.seconds()[0] < 0.004);
  clock.Add(2, 1.5);
  CHECK(clock.seconds()[2] == 1.5);
  CHECK(clock.Elapsed() >= 0.015);
  CHECK(clock.peak_anon_bytes() > 0);
}

TEST_CASE("util: StageClock's stages one after another, named as they come",
          "[util][stage_clock]") {
  StageClock clock;
  Sleep();
  clock.Begin("open");  // with none under way, the time since the mark is open's
  clock.Begin("a: merge");
  Sleep();
  clock.Begin("report");
  clock.End();
  Sleep();
  clock.End();  // none under way: nothing
  const std::vector<StageTime> times = clock.Times();
  REQUIRE(times.size() == 3);
  CHECK(times[0].stage == "open");
  CHECK(times[0].rank0 >= 0.004);
  CHECK(times[1].stage == "a: merge");
  CHECK(times[1].rank0 >= 0.004);
  CHECK(times[2].stage == "report");
  CHECK(times[2].rank0 < 0.004);
  for (const StageTime& t : times) CHECK(t.slowest == t.rank0);  // one process
}

TEST_CASE("util: StageClock Times with the slowest rank's seconds", "[util][stage_clock]") {
  StageClock clock(kFixed);
  clock.Add(0, 1);
  clock.Begin("commit");  // a known stage: not listed twice
  clock.End();
  const std::vector<double> slowest = {2, 3, 4};
  const std::vector<StageTime> times = clock.Times(slowest);
  REQUIRE(times.size() == 3);
  CHECK(times[0].stage == "open");
  CHECK(times[0].rank0 == 1);
  CHECK(times[0].slowest == 2);
  CHECK(times[2].slowest == 4);
}

}  // namespace
}  // namespace dsanalyze
