// StepSeries: one column a step up to 512 steps, then neighbours merged
// pairwise (the width doubling) so that a column's min, max and sums are
// those of the steps it holds, however many steps come.
#include "batching/steps_chart.h"

#include <algorithm>
#include <catch2/catch.hpp>

namespace dsanalyze {
namespace {

TEST_CASE("batching: StepSeries keeps one column a step up to 512 steps", "[batching]") {
  StepSeries s;
  for (int64_t step = 0; step < 512; ++step) s.Add(step % 7 + 1, 0.5 * static_cast<double>(step));
  CHECK(s.width() == 1);
  REQUIRE(s.columns().size() == 512);
  CHECK(s.columns()[100].size_min == 100 % 7 + 1);
  CHECK(s.columns()[100].lr_max == 50.0);
}

TEST_CASE("batching: StepSeries merges columns pairwise past 512 steps", "[batching]") {
  StepSeries s;
  const uint64_t steps = 1500;  // widths 1 -> 2 (step 512) -> 4 (step 1024)
  for (uint64_t step = 0; step < steps; ++step)
    s.Add(static_cast<int64_t>(step), static_cast<double>(step % 10));
  CHECK(s.steps() == steps);
  CHECK(s.width() == 4);
  REQUIRE(s.columns().size() == (steps + 3) / 4);
  for (size_t c = 0; c < s.columns().size(); ++c) {
    INFO("column " << c);
    const StepSeries::Column& col = s.columns()[c];
    const uint64_t first = c * 4, last = std::min<uint64_t>(first + 4, steps) - 1;
    CHECK(col.steps == last - first + 1);
    CHECK(col.size_min == static_cast<int64_t>(first));
    CHECK(col.size_max == static_cast<int64_t>(last));
    CHECK(col.size_sum == static_cast<double>((first + last) * (last - first + 1) / 2));
    double lr_sum = 0, lr_min = 10, lr_max = -1;
    for (uint64_t step = first; step <= last; ++step) {
      const double lr = static_cast<double>(step % 10);
      lr_sum += lr, lr_min = std::min(lr_min, lr), lr_max = std::max(lr_max, lr);
    }
    CHECK(col.lr_sum == lr_sum);
    CHECK(col.lr_min == lr_min);
    CHECK(col.lr_max == lr_max);
  }
}

}  // namespace
}  // namespace dsanalyze
