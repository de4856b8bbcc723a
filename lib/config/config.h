// The run configuration: JSON → typed Config, with every check done up front.
//
// ParseConfig validates the whole document before anything runs, so a bad
// config fails identically on every rank with one line naming the key path:
//   config: metrics[1].name: "a/b" is not a safe file name (use [A-Za-z0-9_.-])
// What it cannot know is left to the layer that does: whether metric names are
// registered (metrics/registry.h) and whether dataset files exist and agree
// (dataset/open_dataset.h). Relative paths are kept as written and resolve
// against the current working directory. docs/config.md documents every key.
//
// All types are plain values, safe to copy and to read from several threads.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/dataset_types.h"
#include "format/dtype.h"
#include "util/status.h"
#include "util/work_split.h"

namespace dsanalyze {

struct DatasetConfig {
  // The type ("type" in the config) and its keys (config/dataset_types.h).
  DatasetTypeConfig type = SyntheticModConfig{};
  std::vector<int64_t> ignore_token_ids;  // excluded from per-token metrics (seqlen counts)
  std::string sample_indices;  // optional .npy path: id of sample i (dataset/sample_ids.h)
  // Optional: analyse only the iteration positions [begin, end), which keep
  // their ids. ParseConfig checks begin < end; OpenInputs checks end <= N.
  std::optional<SampleRange> sample_range;

  bool operator==(const DatasetConfig&) const = default;
};

struct MetricConfig {
  std::string name;    // output name, used in file names: [A-Za-z0-9_.-]+, no leading '.', unique
  std::string metric;  // registry name of a built-in metric, or the name a plugin exports
  std::string plugin;  // optional path of a plugin .so (parsed and stored only)
  nlohmann::json params = nlohmann::json::object();
  size_t index = 0;  // position in the "metrics" array, for error messages

  bool operator==(const MetricConfig&) const = default;
};

// The names output.files chooses from (docs/config.md). "percentile_merged"
// needs "index_to_sample" (its .bin is a hard link to index_to_sample's), and
// "reports" is required: verify and compare learn the choice from
// summary.json.
inline constexpr std::array<std::string_view, 6> kOutputFileChoices = {
    "index_to_sample",   "index_to_metric", "sample_to_metric",
    "percentile_merged", "metric_value",    "reports"};
inline std::vector<std::string> AllOutputFiles() {
  return {kOutputFileChoices.begin(), kOutputFileChoices.end()};
}

struct OutputConfig {
  std::string path;                               // save path (required)
  CodeTable dtype_codes = CodeTable::kDeepSpeed;  // table for written files (not megatron)
  uint64_t chunk_bytes = 4 << 20;  // max bytes per message when ranks stream to rank 0 (>= 64)
  bool fsync = false;              // fdatasync output files before renaming into place
  // schedule_config.total_curriculum_step in curriculum_config.json: the
  // training step at which the curriculum reaches full difficulty. 0: not
  // given, DeepSpeed's example value is written as a placeholder.
  uint64_t total_curriculum_step = 0;
  // output.files: the outputs to write, names of kOutputFileChoices in that
  // table's order (output/analysis_layout.h says which files each one is).
  // Default: all of them.
  std::vector<std::string> files = AllOutputFiles();
  // output.curriculum_metric: the single-value metric curriculum_config.json
  // proposes a curriculum for (report/curriculum_config.h). Empty: the first.
  std::string curriculum_metric;

  bool operator==(const OutputConfig&) const = default;
};

struct MapConfig {
  unsigned threads = 1;        // 1..256
  uint64_t batch_size = 1024;  // samples per Read/Compute call, 1..2^24

  bool operator==(const MapConfig&) const = default;
};

// "memory": each rank's memory budget (docs/config.md, "The `memory` section").
// The out-of-core sort reads limit_per_rank and ScratchDirOf(memory).
struct MemoryConfig {
  uint64_t limit_per_rank = 0;  // bytes; 0: no limit (everything in memory)
  std::string scratch;          // where spills go; "": the default, see ScratchDirOf

  bool operator==(const MemoryConfig&) const = default;
};

struct Config {
  DatasetConfig dataset;
  std::vector<MetricConfig> metrics;
  OutputConfig output;
  MapConfig map;
  MemoryConfig memory;
};

// Limits that ParseConfig enforces (documented in docs/config.md).
inline constexpr unsigned kMaxThreads = 256;
inline constexpr uint64_t kMaxBatchSize = uint64_t{1} << 24;
inline constexpr uint64_t kMinChunkBytes = 64;
inline constexpr uint64_t kMaxChunkBytes = uint64_t{1} << 30;
// memory.limit_per_rank: at least what the sort's buffers need, at most 2^50 (1 PiB).
inline constexpr uint64_t kMinMemoryLimit = uint64_t{64} << 20;
inline constexpr uint64_t kMaxMemoryLimit = uint64_t{1} << 50;
// Longest seq_length: seq_length + 1 tokens must fit an int32, as in Megatron's
// index builder.
inline constexpr uint64_t kMaxSeqLength = (uint64_t{1} << 31) - 2;
// megatron_blend: components (its computed index holds them as uint16) and
// samples (size, train_samples; the computed index takes 10 bytes a sample).
inline constexpr uint64_t kMaxBlendDatasets = uint64_t{1} << 16;
inline constexpr uint64_t kMaxBlendSize = uint64_t{1} << 40;
// Longest metric name: "<name>_index_to_sample_percentile_merged.idx" must fit
// in a 255-byte file name.
inline constexpr size_t kMaxMetricNameLength = 200;

// Validates `j` and returns the typed config. Errors are
// Status::BadInput with one line "config: <key path>: <problem>".
Result<Config> ParseConfig(const nlohmann::json& j);

// Reads `path` and parses it. JSON syntax errors name the file, line and
// column ("run.json:3:7: invalid JSON: ..."); so do duplicate keys, which JSON
// parsers would otherwise resolve silently to the last one.
Result<Config> LoadConfig(const std::string& path);

// Every key with its effective value (defaults filled in), in the shape
// ParseConfig reads: ParseConfig(ConfigToJson(c)) gives back c. Optional
// settings at their default are left out: output.files when all are chosen,
// "memory" without a limit (so configs recorded before it existed compare
// equal).
nlohmann::json ConfigToJson(const Config& config);

// The directory spills go to: memory.scratch, else the environment's TMPDIR
// when set and non-empty, else "/tmp". Reads the environment, so it is not
// part of ParseConfig.
std::string ScratchDirOf(const MemoryConfig& memory);

// The run-start check of the memory section (ParseConfig cannot know the
// file system): with a limit, the scratch directory must not be the save path
// or inside it (compared as weakly canonical absolute paths), and must be a
// directory this process can create a scratch file in. BadInput naming
// memory.scratch; OK without a limit. Each rank checks its own (node-local)
// directory.
Status CheckMemoryConfig(const Config& config);

// True if `name` can be a metric's output name: [A-Za-z0-9_.-]+, not starting
// with '.', at most kMaxMetricNameLength characters.
bool IsSafeMetricName(const std::string& name);

}  // namespace dsanalyze
