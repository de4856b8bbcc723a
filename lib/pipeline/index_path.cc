#include "pipeline/index_path.h"

#include "index/gather_write.h"
#include "sort/local_sort.h"

namespace dsanalyze {

IndexPath ChooseIndexPath(const IdOrder& order, const KeyLayout& layout, ValuePlacement placement) {
  const bool few_values =
      layout.value_bits < 64 && (uint64_t{1} << layout.value_bits) <= kMaxIdGroups;
  const bool grouped =
      order.ascending_by_rank && order.consecutive && few_values && placement.one_node;
  if (placement.spilled)
    return grouped ? IndexPath::kGroupedOutOfCore : IndexPath::kSortedOutOfCore;
  if (grouped) return IndexPath::kGrouped;
  if (order.ascending_by_rank && layout.value_bits <= kRankOrderedMaxValueBits)
    return IndexPath::kRankOrdered;
  return IndexPath::kSampleSort;
}

std::string_view IndexPathName(IndexPath path) {
  switch (path) {
    case IndexPath::kGrouped:
      return "grouped";
    case IndexPath::kRankOrdered:
      return "rank_ordered";
    case IndexPath::kSampleSort:
      return "sample_sort";
    case IndexPath::kGroupedOutOfCore:
      return "grouped_out_of_core";
    case IndexPath::kSortedOutOfCore:
      return "sorted_out_of_core";
  }
  return "";
}

}  // namespace dsanalyze
