#include "report/run_digest.h"

#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "metrics/metric.h"
#include "output/analysis_layout.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace {

using Json = nlohmann::ordered_json;

// Regular files directly in `dir`, and their bytes with each inode counted once.
std::string FilesAndBytes(const std::filesystem::path& dir) {
  uint64_t files = 0, bytes = 0;
  std::set<std::pair<dev_t, ino_t>> seen;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    struct stat st {};
    if (stat(entry.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    ++files;
    if (seen.insert({st.st_dev, st.st_ino}).second) bytes += static_cast<uint64_t>(st.st_size);
  }
  return std::to_string(files) + " files, " + std::to_string(bytes) + " bytes";
}

std::string SingleValueLine(const Json& m) {
  std::string line =
      m.at("samples").dump() + " samples, " + m.at("distinct_values").dump() + " distinct values";
  if (m.contains("percentiles"))
    line += ", min " + m.at("min").dump() + " / median " + m.at("percentiles").at("p50").dump() +
            " / max " + m.at("max").dump();
  // A score metric given params.nan: how many NaN scores took its value.
  if (m.contains("score") && m.at("score").contains("nan")) {
    const Json& nan = m.at("score").at("nan");
    const uint64_t samples = nan.at("samples").get<uint64_t>();
    line += ", " + std::to_string(samples) + (samples == 1 ? " NaN score" : " NaN scores") +
            " given value " + nan.at("value").dump();
  }
  return line;
}

std::string AccumulateLine(const Json& m) {
  const uint64_t length = m.at("length").get<uint64_t>();
  return "accumulate, " + std::to_string(length) + (length == 1 ? " element" : " elements") +
         ", sum " + m.at("sum").dump() + ", min " + m.at("min").dump() + " / max " +
         m.at("max").dump();
}

}  // namespace

Result<std::string> FormatRunDigest(const std::string& save_path) {
  const std::filesystem::path path = std::filesystem::path(save_path) / kSummaryFile;
  const Result<std::string> text = ReadTextFile(path.string());
  const Json summary = Json::parse(text.ok() ? *text : std::string(), nullptr,
                                   /*allow_exceptions=*/false);
  if (summary.is_discarded() || !summary.contains("metrics"))
    return Status::BadInput(path.string() + ": missing or not a dsanalyze summary");
  std::string out;
  try {
    for (const auto& [name, m] : summary.at("metrics").items()) {
      const std::optional<MetricType> type = m.at("type").is_string()
                                                 ? MetricTypeNamed(m.at("type").get<std::string>())
                                                 : std::nullopt;
      const bool single = type && TraitsOf(*type).per_sample;
      // A metric whose files output.files left out has a note instead of numbers.
      const std::string line = m.contains("statistics") ? m.at("statistics").get<std::string>()
                               : single                 ? SingleValueLine(m)
                                                        : AccumulateLine(m);
      out +=
          name + ": " + line + "; " + FilesAndBytes(std::filesystem::path(save_path) / name) + "\n";
    }
  } catch (const Json::exception& e) {
    return Status::BadInput(path.string() + ": " + e.what());
  }
  return out;
}

}  // namespace dsanalyze
