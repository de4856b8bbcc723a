// The parameters of `dsanalyze batches`, resolved: each from its flag, else
// the DeepSpeed config, else DeepSpeed's default, remembering which.
//
// Config keys (deepspeed/runtime/data_pipeline/{config,constants}.py):
// data_efficiency.data_sampling.dynamic_batching.{enabled (must be true when
// the section is used), max_tokens, min_batch_size (1), max_batch_size (none),
// sequence_picking_order ("dataloader"), lr_scaling_method ("linear"),
// metrics_path}, data_efficiency.seed (1234), and the effective batch size:
// train_batch_size, or train_micro_batch_size_per_gpu x
// gradient_accumulation_steps x --data-parallel-size
// (curriculum/ds_config.h). --epochs has no config key (DeepSpeed replays
// one plan every epoch). min_batch_size and max_batch_size 0 mean none,
// as in DeepSpeed (it tests them for truth).
//
// The file is read as DeepSpeed reads it (curriculum/ds_json.h: hjson
// comments, no key twice), and its dynamic_batching values as DeepSpeed's
// get_dynamic_batching converts them: the three counts by int() (a JSON
// integer, or a numeric string such as " 4_096 "), enabled by bool()
// (curriculum/ds_config.h DeepSpeedEnabled), lr_scaling_method by str() (null
// becomes "None": no scaling). A key of dynamic_batching DeepSpeed does not
// read is refused with the closest known key (DeepSpeed would ignore it); a
// string seed too (DeepSpeed would seed random.Random with the string).
//
// Every error is one BadInput line naming the flag or "FILE: key.path".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "batching/batch_input.h"
#include "batching/planner.h"
#include "util/status.h"

namespace dsanalyze {

enum class LrScaling { kLinear, kSqrt, kNone };
std::string_view PickingOrderName(PickingOrder order);  // "dataloader", "seqlen", "random"
std::string_view LrScalingName(LrScaling scaling);      // "linear", "sqrt", "none"

// The command line; unset optionals come from the config or the defaults.
struct BatchesRequest {
  std::string analysis;   // empty: the config's metrics_path
  std::string ds_config;  // empty: none
  std::string metric = "seqlen";
  std::string out;
  std::string svg;         // empty: no chart
  std::string html;        // empty: no page (batching/plan_page.h)
  std::string sample_ids;  // empty: every sample
  std::optional<int64_t> max_tokens, effective_batch_size, min_batch_size, max_batch_size, seed;
  std::optional<std::string> order, lr_scaling;
  bool same_size = false;
  int64_t data_parallel_size = 1;
  std::optional<int64_t> epochs;  // unset: 1 (batching/epochs.h)
  bool quiet = false;             // -q: print errors only (cli/batches.cc)
};

struct BatchParams {
  std::string analysis;
  BatchingRule rule;
  PickingOrder order = PickingOrder::kDataloader;
  LrScaling lr_scaling = LrScaling::kLinear;
  int64_t seed = 1234;
  int64_t epochs = 1;
  // Where each value came from, by its config key name: "--max-tokens",
  // "FILE: data_efficiency....max_tokens" or "default".
  std::map<std::string, std::string> from;
};

Result<BatchParams> ResolveBatchParams(const BatchesRequest& request);

// DeepSpeed's scale_lr(E, batch_size, 1, method): the factor of a batch's LR.
double LrScale(LrScaling scaling, uint64_t batch_size, int64_t effective_batch_size);

}  // namespace dsanalyze
