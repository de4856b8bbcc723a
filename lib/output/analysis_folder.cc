#include "output/analysis_folder.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "output/analysis_files.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;

namespace {

bool KindPresent(const std::string& save_path, const std::string& metric, std::string_view kind) {
  const std::string prefix = MetricFilePrefix(save_path, metric, kind);
  std::error_code ec;
  return fs::exists(prefix + ".idx", ec) || fs::exists(prefix + ".bin", ec);
}

}  // namespace

Result<std::vector<MetricFolder>> FindMetricFolders(const std::string& save_path) {
  std::error_code ec;
  if (!fs::is_directory(save_path, ec))
    return Status::BadInput(save_path + ": " +
                            (fs::exists(save_path, ec) ? "not a directory" : "no such directory"));
  std::vector<MetricFolder> folders;
  fs::directory_iterator it(save_path, ec);
  if (ec) return Status::IoError(save_path + ": cannot list: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (IsHiddenName(name) || !it->is_directory(ec)) continue;
    MetricFolder f;
    f.name = name;
    for (const MetricTypeTraits& t : kMetricTypes)
      if (std::any_of(t.kinds.begin(), t.kinds.end(),
                      [&](std::string_view kind) { return KindPresent(save_path, name, kind); }))
        f.types.push_back(t.type);
    if (!f.types.empty()) folders.push_back(std::move(f));
  }
  if (ec) return Status::IoError(save_path + ": cannot list: " + ec.message());
  std::sort(folders.begin(), folders.end(),
            [](const MetricFolder& a, const MetricFolder& b) { return a.name < b.name; });
  return folders;
}

namespace {

std::optional<MetricType> ParseMetricType(const nlohmann::json& entry) {
  if (!entry.is_object() || !entry.contains("type") || !entry["type"].is_string())
    return std::nullopt;
  return MetricTypeNamed(entry["type"].get<std::string>());
}

std::optional<uint64_t> ParseSamples(const nlohmann::json& entry) {
  if (!entry.is_object() || !entry.contains("samples") || !entry["samples"].is_number_unsigned())
    return std::nullopt;
  return entry["samples"].get<uint64_t>();
}

// A score metric's NaN count (report/score_summary.h: score.nan.samples).
uint64_t ParseNanScores(const nlohmann::json& entry) {
  const nlohmann::json::json_pointer at("/score/nan/samples");
  if (!entry.is_object() || !entry.contains(at) || !entry[at].is_number_unsigned()) return 0;
  return entry[at].get<uint64_t>();
}

// The chosen outputs summary.json records (analysis_layout.h): all without
// its "files" key; BadInput unless it is a list of output names.
Status ReadChosenFiles(const std::string& summary_path, const nlohmann::json& doc,
                       std::vector<std::string>* files) {
  if (!doc.contains(kSummaryFilesKey)) return Status::OK();
  const nlohmann::json& j = doc[kSummaryFilesKey];
  const auto known = [](const nlohmann::json& e) {
    return e.is_string() && std::find(kOutputFileChoices.begin(), kOutputFileChoices.end(),
                                      e.get<std::string>()) != kOutputFileChoices.end();
  };
  if (!j.is_array() || !std::all_of(j.begin(), j.end(), known))
    return Status::BadInput(summary_path + ": \"files\" is not a list of output names (" +
                            nlohmann::json(AllOutputFiles()).dump() + ")");
  *files = j.get<std::vector<std::string>>();
  return Status::OK();
}

// The metrics summary.json lists, sorted by name, and the chosen outputs;
// BadInput naming the file when it cannot be read, is not JSON, or has no
// non-empty "metrics" object.
Status ReadSummary(const std::string& summary_path, AnalysisFolder* analysis) {
  Result<std::string> text = ReadTextFile(summary_path);
  if (!text.ok()) return Status::BadInput(text.status().message());
  const nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return Status::BadInput(summary_path + ": not valid JSON");
  if (!doc.is_object() || !doc.contains("metrics") || !doc["metrics"].is_object() ||
      doc["metrics"].empty())
    return Status::BadInput(summary_path + ": lists no metric (no non-empty \"metrics\" object)");
  std::vector<ListedMetric>& listed = analysis->listed;
  for (const auto& [name, entry] : doc["metrics"].items())
    listed.push_back({name, ParseMetricType(entry), ParseSamples(entry), ParseNanScores(entry)});
  std::sort(listed.begin(), listed.end(),
            [](const ListedMetric& a, const ListedMetric& b) { return a.name < b.name; });
  if (doc.contains("config")) analysis->config = doc["config"];
  if (doc.contains("dataset")) analysis->dataset = doc["dataset"];
  analysis->table = RecordedCodeTable(analysis->config);
  return ReadChosenFiles(summary_path, doc, &analysis->files);
}

}  // namespace

Result<AnalysisFolder> ReadAnalysisFolder(const std::string& save_path) {
  AnalysisFolder analysis;
  DSA_ASSIGN_OR_RETURN(analysis.folders, FindMetricFolders(save_path));
  const std::string summary = (fs::path(save_path) / kSummaryFile).string();
  std::error_code ec;
  analysis.has_summary = fs::exists(summary, ec);
  if (analysis.has_summary) {
    DSA_RETURN_IF_ERROR(ReadSummary(summary, &analysis));
  } else if (analysis.folders.empty()) {
    return Status::BadInput(save_path +
                            ": not an analysis folder: no summary.json and no metric folder "
                            "(expected M/M_index_to_metric.idx, M/M_metric_value.idx, ... for "
                            "some metric M)");
  }
  return analysis;
}

std::vector<std::string> AnalysisMetricNames(const AnalysisFolder& analysis) {
  std::vector<std::string> names;
  if (analysis.has_summary)
    for (const ListedMetric& m : analysis.listed) names.push_back(m.name);
  else
    for (const MetricFolder& f : analysis.folders) names.push_back(f.name);
  return names;
}

std::vector<std::string_view> SkippedKinds(const AnalysisFolder& analysis, MetricType type) {
  std::vector<std::string_view> skipped;
  for (std::string_view kind : TraitsOf(type).kinds)
    if (!WritesKind(analysis.files, kind)) skipped.push_back(kind);
  return skipped;
}

SummaryMismatch CheckFoldersAgainstSummary(const AnalysisFolder& analysis) {
  SummaryMismatch mismatch;
  if (!analysis.has_summary) return mismatch;
  const auto listed = [&](const std::string& name) {
    return std::any_of(analysis.listed.begin(), analysis.listed.end(),
                       [&](const ListedMetric& m) { return m.name == name; });
  };
  const auto has_folder = [&](const std::string& name) {
    return std::any_of(analysis.folders.begin(), analysis.folders.end(),
                       [&](const MetricFolder& f) { return f.name == name; });
  };
  for (const MetricFolder& f : analysis.folders)
    if (!listed(f.name)) mismatch.unlisted_folders.push_back(f.name);
  // A metric none of whose files was chosen has no files to find.
  const auto nothing_chosen = [&](const ListedMetric& m) {
    return m.type && SkippedKinds(analysis, *m.type).size() == TraitsOf(*m.type).kinds.size();
  };
  for (const ListedMetric& m : analysis.listed)
    if (!has_folder(m.name) && !nothing_chosen(m)) mismatch.missing_folders.push_back(m);
  return mismatch;
}

Result<std::vector<std::string>> AnalysisEntries(const std::string& save_path) {
  std::error_code ec;
  if (!fs::is_directory(save_path, ec)) return std::vector<std::string>{};
  DSA_ASSIGN_OR_RETURN(std::vector<MetricFolder> folders, FindMetricFolders(save_path));
  std::vector<std::string> entries;
  for (const MetricFolder& f : folders) entries.push_back(f.name);
  // A metric none of whose files was chosen (output.files) has an empty
  // folder, which holds no metric file but is the analysis's all the same.
  AnalysisFolder summary;
  if (ReadSummary((fs::path(save_path) / kSummaryFile).string(), &summary).ok())
    for (const ListedMetric& m : summary.listed)
      if (!m.name.empty() && m.name.find('/') == std::string::npos && !IsHiddenName(m.name) &&
          fs::is_directory(fs::symlink_status(fs::path(save_path) / m.name, ec)))
        entries.push_back(m.name);
  for (std::string_view name :
       {kSummaryFile, kCurriculumConfigFile, kReportHtmlFile, kDataClustersDir})
    if (fs::exists(fs::symlink_status(fs::path(save_path) / name, ec)))
      entries.push_back(std::string(name));
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  return entries;
}

}  // namespace dsanalyze
