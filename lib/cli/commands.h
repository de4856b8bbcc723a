// The subcommands of the dsanalyze executable. apps/dsanalyze/main.cpp parses
// the command line with CLI11 into these option structs and calls one function;
// each returns the process exit code (see util/status.h: 0 ok, 1 difference
// found, 2 bad input, 3 failure) after printing its own messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "batching/batch_params.h"
#include "curriculum/training_order.h"
#include "synth/token_generator.h"

namespace dsanalyze::cli {

struct RunOptions {
  std::string config_path;
  std::string log_level = "info";  // trace, debug, info, warn, error, off
  bool quiet = false;              // only errors
  bool timings = false;            // print the per-stage timing table
  std::string progress = "auto";   // auto, always, never (util/progress.h)
};
// `dsanalyze [run] --config FILE`: the analysis, under MPI (MPI_Init inside).
int Run(const RunOptions& options, int argc, char** argv);

struct InspectOptions {
  std::string prefix;
  std::string config;                // instead of a prefix: the dataset this run config reads
  std::string rows;                  // "A:B" (Python-style, end exclusive), empty: a few
  std::string dtype_codes = "auto";  // auto (from the file sizes), megatron, deepspeed, ...
  bool json = false;
};
int Inspect(const InspectOptions& options);

// The dataset's options (synth/token_generator.h) plus the GPT index maps.
struct GenerateOptions : synth::TokenDatasetOptions {
  // When > 0, also Megatron-style GPT index maps of this sequence length (one
  // epoch, shuffled by `seed`): PREFIX_train_indexmap_{doc,sample,shuffle}_idx.npy.
  uint64_t gpt_maps = 0;
};
int Generate(const GenerateOptions& options);

struct VerifyOptions {
  std::string save_path;
  bool json = false;
};
int Verify(const VerifyOptions& options);

struct CompareOptions {
  std::string a;
  std::string b;
  bool strict = false;
  std::string html;  // write the comparison as a page here (check/compare_page.h)
};
int Compare(const CompareOptions& options);

// `dsanalyze curriculum`: DeepSpeed's curriculum replayed on an analysis
// (curriculum/curriculum_check.h); 0 means "not given" for the numbers.
struct CurriculumOptions {
  std::string analysis;
  std::string ds_config;  // empty: ANALYSIS/curriculum_config.json
  int64_t global_batch_size = 0;
  int64_t data_parallel_size = 1;
  int64_t train_steps = 0;
  std::string json;     // write the report here ("-": stdout, instead of the table)
  std::string svg;      // write the chart here
  std::string html;     // write the page here (curriculum/curriculum_page.h)
  bool strict = false;  // warnings exit 1 too, not only errors
};
int Curriculum(const CurriculumOptions& options);

struct MetricsOptions {
  std::vector<std::string> plugins;
};
int ListMetrics(const MetricsOptions& options);

// --- dsanalyze order (curriculum/training_order.h) ---
// `dsanalyze order --analysis S --metric M ... --out FILE.npy`: prints one
// line on success; bad input is one error line and exit 2, nothing at --out.
int Order(const OrderOptions& options);
// With --megatron-core-cache OUT_DIR (order_core_cache.cc): writes the copy of
// the analysis's Megatron-Core cache whose index follows the order; returns N.
// BadInput for an analysis of another dataset type, OUT_DIR the cache folder,
// or an order that does not cover the split's samples.
Result<uint64_t> WriteCoreCacheOrder(const OrderOptions& options);
// --- end of dsanalyze order ---

// `dsanalyze batches` (batching/batch_plan.h): DeepSpeed's variable batch
// size planned from an analysis; prints a summary, exit 0; bad input is one
// error line and exit 2, nothing at --out.
int Batches(const BatchesRequest& request);

// `dsanalyze merge A B ... --out C` (merge/merge.h): one process, no MPI;
// started as several launcher tasks, only the launcher's rank 0 merges (the
// others exit 0 at once). Prints one line on success; bad input is one error
// line and exit 2, nothing at --out; SIGINT, SIGTERM or SIGHUP before the
// commit is one line and exit 128 + the signal, as for a run.
struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  bool timings = false;           // print the per-stage timing table
  std::string progress = "auto";  // auto, always, never (util/progress.h)
};
int Merge(const MergeOptions& options);

}  // namespace dsanalyze::cli
