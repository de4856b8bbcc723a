// Equal-count bins by global rank, for single-value metrics that ask for
// them (metrics/metric.h RankBins: the score metric's "bins").
//
// The N ranked samples are ordered by (value, id) across all ranks; the
// sample of global rank r gets bin floor(r·B / N). The B-1 bin edges are the
// keys at global ranks ceil(k·N / B), k = 1..B-1, found exactly by the sample
// sort's bisection (sort/global_ranks.h KeysAtGlobalRanks), so no sample moves
// between ranks and the bins are the same for any number of ranks.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "comm/comm.h"
#include "metrics/metric.h"
#include "pipeline/global_reduce.h"
#include "sort/local_sort.h"
#include "util/status.h"

namespace dsanalyze {

// Collective. Replaces `values` (this rank's, one per local sample in position
// order, ids `ids`) by bin numbers; samples valued RankBins::kUnranked get
// spec.unranked_value. Returns, identically on every rank, each bin's
// smallest and largest original value, {min, max} ({INT64_MAX, INT64_MIN}
// for an empty bin). `id_min`/`id_max` span every rank's ids.
std::vector<std::array<int64_t, 2>> RankIntoBins(const Comm& comm, const RankBins& spec,
                                                 const LocalIds& ids, int64_t id_min,
                                                 int64_t id_max, unsigned threads,
                                                 std::vector<int64_t>* values);

}  // namespace dsanalyze
