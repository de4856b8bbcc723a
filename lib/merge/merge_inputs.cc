#include "merge/merge_inputs.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>

#include "format/npy.h"
#include "metrics/registry.h"
#include "output/analysis_files.h"
#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

using nlohmann::json;

Status Bad(const std::string& what) { return Status::BadInput("merge: " + what); }

// The config summary.json records (ReadAnalysisFolder read it), parsed as a
// run would parse it.
Result<Config> RecordedConfig(const std::string& path, const json& recorded) {
  const std::string summary = (std::filesystem::path(path) / kSummaryFile).string();
  if (recorded.is_null()) return Bad(summary + ": no config recorded (not a dsanalyze analysis?)");
  Result<Config> config = ParseConfig(recorded);
  if (!config.ok()) return Bad(summary + ": recorded " + config.status().message());
  return config;
}

// The positions an input analysed: its sample_range, or all N samples.
Result<SampleRange> PositionsOf(const MergeInput& input) {
  if (input.config.dataset.sample_range) return *input.config.dataset.sample_range;
  for (const ListedMetric& m : input.listed)
    if (m.type && TraitsOf(*m.type).per_sample && m.samples) return SampleRange{0, *m.samples};
  return Bad(input.path + ": cannot tell which samples it holds (no sample_range and no " +
             "single-value metric)");
}

// A metric whose values in a part are the part's own (metrics/registry.h):
// its merge would not be the whole run's. Decided from the recorded config,
// so parts written before summary.json said "mergeable" are refused too.
Status CheckMergeable(const MergeInput& input) {
  for (const MetricConfig& m : input.config.metrics)
    if (const std::optional<std::string> why = NotMergeableBecause(m))
      return Bad(input.path + ": metric " + m.name + " (" + m.metric +
                 ") cannot be merged: " + *why);
  return Status::OK();
}

// Merge reads every file of every metric: one the input's run left out
// (output.files) is named as such, not as missing.
Status CheckAllWritten(const std::string& path, const AnalysisFolder& folder) {
  for (const ListedMetric& m : folder.listed) {
    // Without a known type (refused later: merge.cc TypeOf) only its metric_value.
    const MetricType type = m.type.value_or(MetricType::kAccumulateValueOverSamples);
    for (std::string_view kind : TraitsOf(type).kinds)
      if (Status st = CheckWritten(path, folder, m.name, kind); !st.ok()) return Bad(st.message());
  }
  return Status::OK();
}

Result<MergeInput> ReadMergeInput(const std::string& path) {
  Result<AnalysisFolder> folder = ReadAnalysisFolder(path);
  if (!folder.ok()) return Bad(folder.status().message());
  if (!folder->has_summary) return Bad(path + ": no summary.json: not a dsanalyze analysis");
  DSA_RETURN_IF_ERROR(CheckAllWritten(path, *folder));
  MergeInput input;
  input.path = path;
  input.listed = folder->listed;
  input.dataset = folder->dataset;
  DSA_ASSIGN_OR_RETURN(input.config, RecordedConfig(path, folder->config));
  DSA_ASSIGN_OR_RETURN(input.positions, PositionsOf(input));
  DSA_RETURN_IF_ERROR(CheckMergeable(input));
  return input;
}

std::string MetricNames(const Config& c) {
  std::string names;
  for (const MetricConfig& m : c.metrics) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

// The dataset section as recorded, without sample_range.
json DatasetOf(const Config& c) {
  json d = ConfigToJson(c).at("dataset");
  d.erase("sample_range");
  return d;
}

Status CheckSameConfig(const MergeInput& a, const MergeInput& b) {
  const std::string pair = a.path + " and " + b.path;
  if (MetricNames(a.config) != MetricNames(b.config))
    return Bad(pair + " have different metrics (" + MetricNames(a.config) + " vs " +
               MetricNames(b.config) + ")");
  if (ConfigToJson(a.config).at("metrics") != ConfigToJson(b.config).at("metrics"))
    return Bad(pair + " have different metrics: their configs' \"metrics\" differ");
  if (a.config.output.dtype_codes != b.config.output.dtype_codes)
    return Bad(pair + " use different dtype code tables (output.dtype_codes " +
               std::string(CodeTableName(a.config.output.dtype_codes)) + " vs " +
               std::string(CodeTableName(b.config.output.dtype_codes)) + ")");
  if (DatasetOf(a.config) != DatasetOf(b.config))
    return Bad(pair + " analyse different datasets: their configs' \"dataset\" differ " +
               "apart from sample_range");
  return Status::OK();
}

// The id of iteration position `position` under `config`, for messages.
std::string IdAt(const Config& config, uint64_t position) {
  const std::string& ids = config.dataset.sample_indices;
  if (ids.empty()) return std::to_string(position);
  Result<NpyArray> array = NpyArray::Open(ids);
  if (!array.ok() || position >= array->size()) return "at position " + std::to_string(position);
  return std::to_string(array->at(position)) + " (position " + std::to_string(position) + ")";
}

// Sorted by position, each range must begin where the previous one ends.
Status CheckRangesMeet(const std::vector<MergeInput>& inputs) {
  for (size_t i = 1; i < inputs.size(); ++i) {
    const MergeInput& a = inputs[i - 1];
    const MergeInput& b = inputs[i];
    if (b.positions.begin < a.positions.end)
      return Bad(a.path + " and " + b.path + " overlap: both hold sample id " +
                 IdAt(a.config, b.positions.begin));
    if (b.positions.begin > a.positions.end)
      return Bad("no input holds positions [" + std::to_string(a.positions.end) + ", " +
                 std::to_string(b.positions.begin) + ") between " + a.path + " and " + b.path +
                 "; the union must be one sample_range");
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<MergeInput>> ReadMergeInputs(const std::vector<std::string>& paths) {
  if (paths.size() < 2) return Bad("give at least two analyses to merge");
  std::vector<MergeInput> inputs;
  for (const std::string& path : paths) {
    DSA_ASSIGN_OR_RETURN(MergeInput input, ReadMergeInput(path));
    if (!inputs.empty()) DSA_RETURN_IF_ERROR(CheckSameConfig(inputs.front(), input));
    inputs.push_back(std::move(input));
  }
  std::stable_sort(inputs.begin(), inputs.end(), [](const MergeInput& a, const MergeInput& b) {
    return a.positions.begin < b.positions.begin;
  });
  DSA_RETURN_IF_ERROR(CheckRangesMeet(inputs));
  return inputs;
}

Config MergedConfig(const std::vector<MergeInput>& inputs, const std::string& out) {
  Config c = inputs.front().config;
  c.dataset.sample_range = SampleRange{inputs.front().positions.begin, inputs.back().positions.end};
  c.output.path = out;
  // Memory settings do not change the bytes, and merge runs under none: the
  // inputs may differ in them (CheckSameConfig ignores "memory").
  c.memory = MemoryConfig{};
  return c;
}

}  // namespace dsanalyze
