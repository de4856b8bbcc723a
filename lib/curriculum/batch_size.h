// The global batch size DeepSpeed trains a config with: its
// DeepSpeedConfig._set_batch_related_parameters and _batch_assertion
// (deepspeed/runtime/config.py) with world_size the data-parallel size.
//
// From the config's train_batch_size (T), train_micro_batch_size_per_gpu (M)
// and gradient_accumulation_steps (G), "auto" counting as not given: all three
// are kept; T and M give G = T // M // D; T and G give M = T // D // G; M and G
// give T = M * G * D; T alone gives G = 1, M = T // D; M alone gives T = M * D.
// Then T must equal M * G * D, else DeepSpeed asserts and so does this (one
// BadInput line naming both sides). Neither T nor M: BadInput asking for
// --global-batch-size.
#pragma once

#include <cstdint>
#include <string>

#include "curriculum/ds_config.h"
#include "util/status.h"

namespace dsanalyze {

// `file` names the config in errors.
Result<int64_t> DeepSpeedGlobalBatch(const DeepSpeedTrainKeys& config, int64_t data_parallel_size,
                                     const std::string& file);

// For a config without a batch size but with batch keys set to "auto":
// "FILE sets train_batch_size to "auto", a placeholder the Hugging Face
// Trainer fills in ...": why a command needs the size from a flag; else "".
std::string AutoBatchKeys(const DeepSpeedTrainKeys& config, const std::string& file);

}  // namespace dsanalyze
