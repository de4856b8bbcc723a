// Dependencies between metrics: results over the whole dataset that a metric
// needs before it can compute (Metric::dependencies; vocab_rarity needs
// total_vocab_freq, seqlen_vocab_rarity also the longest seqlen).
//
// ResolveDependencies runs, before the main map, ONE extra map pass over this
// rank's samples that computes every distinct dependency of every metric (a
// dependency several metrics share is computed once), combines the ranks'
// results so that every rank holds the global ones, and hands each metric
// its results. A metric that got what it needs elsewhere (vocab_rarity given
// a total_vocab_freq file) declares no dependency and costs nothing here.
// An accumulate output metric of the run that is the same computation as a
// dependency (same metric, plugin and params) is not computed again: its
// global result comes from this pass.
//
// All functions here are collective: every rank calls them with the same
// metrics in the same order, and every rank returns the same Status.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "config/config.h"
#include "dataset/dataset.h"
#include "metrics/metric.h"
#include "pipeline/work_split.h"
#include "util/status.h"

namespace dsanalyze {

// Computes the dependencies of `metrics` and passes them to their
// SetDependencyResults. `range` is this rank's share of the samples and
// `threads` and `batch_size` are the map settings (map.h), as for the main map.
// Accumulate dependencies are summed over all samples with int64 overflow
// reported as an error; single-value dependencies become {min, max}.
// `accumulate_outputs` are the run's accumulate output metrics; on return
// (*output_results)[i] holds the global result of accumulate_outputs[i] when
// the pass computed it as a dependency, and is empty otherwise.
Status ResolveDependencies(const Comm& comm, const Dataset& dataset, SampleRange range,
                           std::span<Metric* const> metrics, unsigned threads, uint64_t batch_size,
                           std::span<const MetricConfig* const> accumulate_outputs,
                           std::vector<std::optional<std::vector<int64_t>>>* output_results);

// The element-wise sum over all ranks of equal-length int64 vectors, on every
// rank, exact: a sum outside int64 is a BadInput error naming `what` and the
// element. Sent in bounded chunks, so any length works.
Result<std::vector<int64_t>> AllreduceSumChecked(const Comm& comm, std::span<const int64_t> local,
                                                 const std::string& what);

}  // namespace dsanalyze
