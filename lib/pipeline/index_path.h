// How a single-value metric's index files are written: one of five paths,
// chosen by one rule (ChooseIndexPath) from how the ranks' ids lie, the key
// layout, whether the values were spilled, and whether the ranks share a
// node. single_value_job.cc runs the chosen path; summary.json records it per
// metric (docs/format.md §2.9, "index_path"). docs/architecture.md ("Choices
// and why") says why each path exists.
#pragma once

#include <string_view>

#include "sort/sort_key.h"

namespace dsanalyze {

enum class IndexPath {
  // Values in memory:
  kGrouped,      // ids grouped by value per rank, each rank writes its own (index/group_write.h)
  kRankOrdered,  // keys sorted per rank, rank 0 takes them rank by rank
                 // (WriteIndexFilesRankOrdered)
  kSampleSort,   // keys sorted across the ranks, then gathered to rank 0 (WriteIndexFiles)
  // Values spilled to a ValueStore (pipeline/memory_plan.h):
  kGroupedOutOfCore,  // grouped by value in passes (sort/out_of_core_sort.h GroupOutOfCore)
  kSortedOutOfCore,   // keys sorted in passes (OutOfCoreSort), gathered to rank 0
};

// How the ranks' ids lie (collective to find: single_value_job.cc).
struct IdOrder {
  bool ascending_by_rank = false;  // every id on a rank below every id on the next non-empty rank
  bool consecutive = false;        // and each rank's ids are first_id, first_id + 1, ...
};

// Where the run holds the values and the ranks.
struct ValuePlacement {
  bool spilled = false;   // the values went to a ValueStore (pipeline/memory_plan.h)
  bool one_node = false;  // every rank on one node: they may write into one file
};

// Grouping needs no key at all but consecutive ids ascending by rank, at most
// kMaxIdGroups values, and ranks that may write into one file (one node);
// the rank-ordered gather needs ids ascending by rank and values of at most
// kRankOrderedMaxValueBits bits; the sample sort takes anything. Spilled
// values take the out-of-core form: grouped when grouping fits, else sorted.
IndexPath ChooseIndexPath(const IdOrder& order, const KeyLayout& layout, ValuePlacement placement);

// The grouped out-of-core path when a value alone has more ids than a pass
// holds (known only after counting the values): the keyed sort, which can
// split a value across passes.
inline constexpr IndexPath kGroupedOutOfCoreFallback = IndexPath::kSortedOutOfCore;

// summary.json's name of the path: "grouped", "rank_ordered", "sample_sort",
// "grouped_out_of_core", "sorted_out_of_core".
std::string_view IndexPathName(IndexPath path);

}  // namespace dsanalyze
