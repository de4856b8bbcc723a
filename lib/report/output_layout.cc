#include "report/output_layout.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace dsanalyze {
namespace fs = std::filesystem;

std::string MetricFilePrefix(const std::string& save_path, const std::string& metric,
                             std::string_view kind) {
  return (fs::path(save_path) / metric / (metric + "_" + std::string(kind))).string();
}

bool IsHiddenName(std::string_view name) { return !name.empty() && name.front() == '.'; }

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
    for (std::string_view kind :
         {kSampleToMetric, kIndexToMetric, kIndexToSample, kIndexToSamplePercentile})
      f.has_single_value_files |= KindPresent(save_path, name, kind);
    f.has_metric_value = KindPresent(save_path, name, kMetricValue);
    if (f.has_single_value_files || f.has_metric_value) folders.push_back(std::move(f));
  }
  if (ec) return Status::IoError(save_path + ": cannot list: " + ec.message());
  std::sort(folders.begin(), folders.end(),
            [](const MetricFolder& a, const MetricFolder& b) { return a.name < b.name; });
  return folders;
}

}  // namespace dsanalyze
