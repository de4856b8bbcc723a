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
// An accumulate metric of the run that is the same computation as a
// dependency (same metric, plugin and params) is not computed again: its
// global result comes from this pass.
//
// All functions here are collective: every rank calls them with the same
// metrics in the same order, and every rank returns the same Status.
#pragma once

#include "comm/comm.h"
#include "config/config.h"
#include "dataset/dataset.h"
#include "pipeline/metric_plan.h"
#include "util/status.h"
#include "util/work_split.h"

namespace dsanalyze {

// Computes the dependencies of the plan's metrics and passes them to their
// SetDependencyResults. `range` is this rank's share of the samples and `map`
// the map settings (map.h), as for the main map. Accumulate dependencies are
// summed over all samples with int64 overflow reported as an error
// (global_reduce.h); single-value dependencies become {min, max}. An
// accumulate metric of the plan that is the same computation as a dependency
// gets the global result as its `dependency.total`.
Status ResolveDependencies(const Comm& comm, const Dataset& dataset, SampleRange range,
                           const MapConfig& map, MetricPlan* plan);

}  // namespace dsanalyze
