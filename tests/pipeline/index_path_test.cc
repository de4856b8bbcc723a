#include "pipeline/index_path.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "sort/sort_key.h"

namespace dsanalyze {
namespace {

KeyLayout LayoutWithValueBits(unsigned value_bits) {
  KeyLayout layout;
  layout.value_bits = value_bits;
  layout.id_bits = 20;
  return layout;
}

constexpr IdOrder kShuffled{false, false};
constexpr IdOrder kAscending{true, false};        // explicit ids, ascending by rank
constexpr IdOrder kConsecutive{true, true};       // the default split of a dataset
constexpr IdOrder kConsecutiveOnly{false, true};  // not ascending: IdOrderOf never gives it

constexpr ValuePlacement kOneNode{.spilled = false, .one_node = true};
constexpr ValuePlacement kSpilledOneNode{.spilled = true, .one_node = true};
constexpr ValuePlacement kNodes{.spilled = false, .one_node = false};

TEST_CASE("ChooseIndexPath: the default split, few values, one node: grouped",
          "[pipeline][index_path]") {
  CHECK(ChooseIndexPath(kConsecutive, LayoutWithValueBits(16), kOneNode) == IndexPath::kGrouped);
  CHECK(ChooseIndexPath(kConsecutive, LayoutWithValueBits(0), kSpilledOneNode) ==
        IndexPath::kGroupedOutOfCore);
}

TEST_CASE("ChooseIndexPath: more than 2^16 values or several nodes: rank ordered up to 24 bits",
          "[pipeline][index_path]") {
  CHECK(ChooseIndexPath(kConsecutive, LayoutWithValueBits(17), kOneNode) ==
        IndexPath::kRankOrdered);
  CHECK(ChooseIndexPath(kConsecutive, LayoutWithValueBits(16), kNodes) == IndexPath::kRankOrdered);
  CHECK(ChooseIndexPath(kAscending, LayoutWithValueBits(16), kOneNode) == IndexPath::kRankOrdered);
  CHECK(ChooseIndexPath(kAscending, LayoutWithValueBits(24), kOneNode) == IndexPath::kRankOrdered);
  CHECK(ChooseIndexPath(kAscending, LayoutWithValueBits(25), kOneNode) == IndexPath::kSampleSort);
}

TEST_CASE("ChooseIndexPath: shuffled ids take the sample sort, or the keyed out-of-core sort",
          "[pipeline][index_path]") {
  CHECK(ChooseIndexPath(kShuffled, LayoutWithValueBits(3), kOneNode) == IndexPath::kSampleSort);
  CHECK(ChooseIndexPath(kShuffled, LayoutWithValueBits(3), kSpilledOneNode) ==
        IndexPath::kSortedOutOfCore);
  CHECK(ChooseIndexPath(kConsecutiveOnly, LayoutWithValueBits(3), kOneNode) ==
        IndexPath::kSampleSort);
}

// Every combination of the four inputs, against the rule each path needs.
TEST_CASE("ChooseIndexPath: every combination meets its path's needs", "[pipeline][index_path]") {
  std::set<IndexPath> seen;
  for (const IdOrder& order : {kShuffled, kAscending, kConsecutive, kConsecutiveOnly}) {
    for (unsigned bits : {0u, 1u, 15u, 16u, 17u, 23u, 24u, 25u, 40u, 63u, 64u}) {
      for (bool spilled : {false, true}) {
        for (bool one_node : {false, true}) {
          const IndexPath path = ChooseIndexPath(order, LayoutWithValueBits(bits),
                                                 {.spilled = spilled, .one_node = one_node});
          seen.insert(path);
          INFO("ascending " << order.ascending_by_rank << ", consecutive " << order.consecutive
                            << ", value bits " << bits << ", spilled " << spilled << ", one node "
                            << one_node << ": " << std::string(IndexPathName(path)));
          const bool can_group =
              order.ascending_by_rank && order.consecutive && bits <= 16 && one_node;
          const bool out_of_core =
              path == IndexPath::kGroupedOutOfCore || path == IndexPath::kSortedOutOfCore;
          CHECK(out_of_core == spilled);
          // Grouping whenever it can: it moves no key.
          CHECK((path == IndexPath::kGrouped || path == IndexPath::kGroupedOutOfCore) == can_group);
          if (path == IndexPath::kRankOrdered) CHECK((order.ascending_by_rank && bits <= 24));
          if (path == IndexPath::kSampleSort) CHECK(!(order.ascending_by_rank && bits <= 24));
        }
      }
    }
  }
  CHECK(seen.size() == 5);
}

TEST_CASE("IndexPathName: summary.json's names", "[pipeline][index_path]") {
  CHECK(IndexPathName(IndexPath::kGrouped) == "grouped");
  CHECK(IndexPathName(IndexPath::kRankOrdered) == "rank_ordered");
  CHECK(IndexPathName(IndexPath::kSampleSort) == "sample_sort");
  CHECK(IndexPathName(IndexPath::kGroupedOutOfCore) == "grouped_out_of_core");
  CHECK(IndexPathName(IndexPath::kSortedOutOfCore) == "sorted_out_of_core");
}

}  // namespace
}  // namespace dsanalyze
