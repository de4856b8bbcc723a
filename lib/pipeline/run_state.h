// What every stage of one run shares: the config, the communicator, the
// samples, where files go, how they are written, and the clock and progress
// line that time and show the stages.
//
// The pipeline (pipeline.cc) builds one RunState per rank and passes it to
// the map, the dependency pass and each metric's job. Only the pipeline's
// (MPI) thread uses it. It borrows everything it points to; the staged
// output exists on rank 0 only.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "comm/comm.h"
#include "config/config.h"
#include "format/dtype.h"
#include "index/gather_write.h"
#include "output/analysis_writer.h"
#include "pipeline/memory_plan.h"
#include "pipeline/progress.h"
#include "pipeline/run_stages.h"
#include "sort/local_sort.h"
#include "util/stage_clock.h"
#include "util/work_split.h"

namespace dsanalyze {

class SampleIds;

// The run's samples: the N iteration positions analysed (all of the
// dataset's, or the config's sample_range), this rank's share, and the ids
// the index files hold for them (the positions, or the config's
// sample_indices).
struct SampleSpace {
  uint64_t count = 0;
  SampleRange range;  // this rank's positions (work_split.h)
  LocalIds local_ids;
  int64_t id_min = 0;  // over the ids of all positions analysed
  int64_t id_max = -1;
  DType id_dtype = DType::kU8;  // index_to_sample's (analysis_layout.h SampleIdDType)
};

// The samples at `positions`, split over the ranks. `ids` may be null (ids
// are the positions); it must outlive the result.
SampleSpace DescribeSamples(SampleRange positions, const SampleIds* ids, const Comm& comm);

struct RunState {
  RunState(const Config& config, const Comm& comm, Progress& progress)
      : config(config), comm(comm), progress(progress) {}

  const Config& config;
  const Comm& comm;
  Progress& progress;
  StageClock clock{kStageNames};  // run_stages.h
  SampleSpace samples;
  WriteOptions write;                // gather_write.h, from the config's output section
  MemoryPlan memory;                 // memory_plan.h, from the config's memory section
  AnalysisWriter* staged = nullptr;  // rank 0 only (output/analysis_writer.h)
  std::chrono::milliseconds progress_interval{250};  // how often the map reports (progress.h)
  // The detail of --timings (pipeline.h RunSummary): the dependency pass's
  // seconds, which the map's include (< 0: no dependency pass), and each
  // metric's seconds per stage (the clock's stages, in plan order).
  double dependency_seconds = -1;
  std::vector<std::vector<double>> metric_seconds;

  // Starts step `label` on rank 0's progress line (total 0: only its time is
  // shown) and names `interrupt_stage` (map, sort, exchange, write, commit)
  // in the message of a run interrupted from now on (util/interrupt.h).
  void Begin(const char* interrupt_stage, const std::string& label, uint64_t total = 0,
             const char* unit = "");
  // Collective: creates the metric's staging folder on rank 0; every rank
  // returns rank 0's Status.
  Status MakeMetricDir(const std::string& metric);
  // The .bin/.idx prefix of one of the metric's files on rank 0; empty on
  // other ranks, which never write.
  std::string FilePrefix(const std::string& metric, std::string_view kind) const;
};

}  // namespace dsanalyze
