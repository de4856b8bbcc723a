#include "output/analysis_files.h"

#include "output/analysis_layout.h"

namespace dsanalyze {

std::optional<CodeTable> RecordedCodeTable(const nlohmann::json& config) {
  if (config.is_null()) return std::nullopt;
  if (config.is_object() && config.contains("output") && config["output"].is_object() &&
      config["output"].contains("dtype_codes") && config["output"]["dtype_codes"].is_string())
    if (std::optional<CodeTable> t =
            CodeTableFromName(config["output"]["dtype_codes"].get<std::string>()))
      return t;
  return CodeTable::kDeepSpeed;
}

Result<IndexedDataset::Options> MetricFileOptions(const std::string& prefix,
                                                  std::optional<CodeTable> table) {
  IndexedDataset::Options options(table.value_or(CodeTable::kDeepSpeed), /*integer=*/true);
  if (table) return options;
  DSA_ASSIGN_OR_RETURN(const DetectedTable detected,
                       DetectCodeTable(prefix, CodeTable::kDeepSpeed, options));
  options.table = detected.table;
  return options;
}

Result<IndexedDataset> OpenMetricFile(const std::string& prefix, std::optional<CodeTable> table) {
  DSA_ASSIGN_OR_RETURN(const IndexedDataset::Options options, MetricFileOptions(prefix, table));
  return IndexedDataset::Open(prefix, options);
}

std::vector<std::string_view> LeftOutKinds(const std::vector<std::string>& files,
                                           std::span<const std::string_view> kinds) {
  std::vector<std::string_view> left_out;
  for (std::string_view kind : kinds)
    if (!WritesKind(files, kind)) left_out.push_back(OutputChoiceOf(kind));
  return left_out;
}

Status CheckNotLeftOut(const std::string& path, const std::vector<std::string_view>& left_out) {
  if (left_out.empty()) return Status::OK();
  std::string names;
  for (std::string_view k : left_out) names += (names.empty() ? "" : ", ") + std::string(k);
  return Status::BadInput(path + ": not written: the run's output.files left out " + names);
}

Status CheckWritten(const std::string& save_path, const AnalysisFolder& analysis,
                    const std::string& metric, std::string_view kind) {
  const std::string_view kinds[] = {kind};
  return CheckNotLeftOut(MetricFilePrefix(save_path, metric, kind),
                         LeftOutKinds(analysis.files, kinds));
}

Result<IndexedDataset> OpenAnalysisFile(const std::string& save_path,
                                        const AnalysisFolder& analysis, const std::string& metric,
                                        std::string_view kind) {
  DSA_RETURN_IF_ERROR(CheckWritten(save_path, analysis, metric, kind));
  return OpenMetricFile(MetricFilePrefix(save_path, metric, kind), analysis.table);
}

}  // namespace dsanalyze
