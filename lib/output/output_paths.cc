#include "output/output_paths.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "output/analysis_layout.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;

namespace {

// `path` absolute, with "." / ".." and symbolic links resolved along its
// existing part and the rest normalized, no trailing '/'; empty when that
// fails (a loop, a folder that cannot be searched).
fs::path RealPathOrEmpty(const std::string& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  if (ec) return {};
  fs::path real = fs::weakly_canonical(absolute, ec);
  if (ec) return {};
  if (!real.has_filename() && real != real.root_path()) real = real.parent_path();
  return real;
}

// "" when `path` is `folder`, "inside " when it lies below it, nothing
// otherwise (both real paths).
std::optional<std::string> Placement(const fs::path& path, const fs::path& folder) {
  const fs::path relative = path.lexically_relative(folder);
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;
  return relative == "." ? "" : "inside ";
}

// Whether the real folder `folder` holds a dsanalyze analysis (output_paths.h).
// Only a regular summary.json is opened: never a FIFO or a device.
bool HoldsAnalysis(const fs::path& folder) {
  const fs::path summary = folder / kSummaryFile;
  std::error_code ec;
  if (!fs::is_regular_file(summary, ec)) return false;
  std::ifstream in(summary, std::ios::binary);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  const auto tool = doc.is_object() ? doc.find(kSummaryToolKey) : doc.end();
  return tool != doc.end() && tool->is_string() &&
         tool->get_ref<const std::string&>() == kSummaryTool;
}

// A real folder as messages show it: relative to the current directory when
// it lies below it, else absolute.
std::string Shown(const fs::path& folder) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return folder.string();
  const std::optional<std::string> placement = Placement(folder, cwd);
  return placement && !placement->empty() ? folder.lexically_relative(cwd).string()
                                          : folder.string();
}

}  // namespace

Status CheckOutsideAnalyses(std::string_view flag, const std::string& path,
                            const std::vector<std::string>& inputs, OutputKind kind) {
  const fs::path real = RealPathOrEmpty(path);
  if (real.empty()) return Status::OK();
  const std::string said = std::string(flag) + " " + path + ": is ";
  const std::string fix = "; give another " + std::string(flag);
  for (const std::string& input : inputs) {
    const fs::path real_input = input.empty() ? fs::path() : RealPathOrEmpty(input);
    if (real_input.empty()) continue;
    if (const std::optional<std::string> placement = Placement(real, real_input))
      return Status::BadInput(said + *placement + "the input " + input +
                              ", which this command reads and never writes into" + fix);
  }
  for (fs::path folder = real;; folder = folder.parent_path()) {
    const bool replaced_whole = kind == OutputKind::kSavePath && folder == real;
    if (!replaced_whole && HoldsAnalysis(folder))
      return Status::BadInput(said + (folder == real ? "" : "inside ") + "the analysis " +
                              Shown(folder) + ", which no command writes into" + fix);
    if (folder == folder.parent_path()) break;
  }
  return Status::OK();
}

Status CheckOutputFile(std::string_view flag, const std::string& path,
                       const std::vector<std::string>& inputs) {
  DSA_RETURN_IF_ERROR(CheckOutsideAnalyses(flag, path, inputs));
  return CheckOutputPath(flag, path);
}

}  // namespace dsanalyze
