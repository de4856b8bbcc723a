#include "pipeline/output_commit.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "util/file_util.h"

namespace dsanalyze {
namespace fs = std::filesystem;

namespace {

// renameat2(RENAME_EXCHANGE) through syscall(): glibc 2.36 has the wrapper but
// the kernel headers decide whether the flag exists.
int ExchangePaths(const std::string& a, const std::string& b) {
  return static_cast<int>(
      syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE));
}

}  // namespace

Result<StagedOutput> StagedOutput::Create(const std::string& save_path) {
  std::error_code ec;
  fs::create_directories(save_path, ec);
  if (ec) return Status::IoError(save_path + ": cannot create save path: " + ec.message());
  if (!fs::is_directory(save_path))
    return Status::BadInput(save_path + ": save path exists and is not a directory");
  std::string tmpl = (fs::path(save_path) / ".dsanalyze-staging-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr)
    return Status::IoError(save_path + ": cannot create a staging directory: " + ErrnoText(errno));
  StagedOutput out;
  out.save_path_ = save_path;
  out.staging_ = tmpl;
  out.active_ = true;
  return out;
}

StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : save_path_(std::move(other.save_path_)),
      staging_(std::move(other.staging_)),
      active_(other.active_) {
  other.active_ = false;
}

StagedOutput::~StagedOutput() {
  if (!active_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

Result<std::string> StagedOutput::MakeMetricDir(const std::string& name) {
  std::string dir = (fs::path(staging_) / name).string();
  std::error_code ec;
  fs::create_directory(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot create: " + ec.message());
  return dir;
}

Status StagedOutput::Commit(const std::vector<std::string>& metric_names,
                            const std::vector<std::string>& files) {
  for (const std::string& name : metric_names) {
    const std::string staged = (fs::path(staging_) / name).string();
    const std::string final_dir = (fs::path(save_path_) / name).string();
    if (ExchangePaths(staged, final_dir) == 0) {
      std::error_code ec;
      fs::remove_all(staged, ec);  // now the previous result
      continue;
    }
    if (errno != ENOENT)
      return Status::IoError("cannot move " + staged + " to " + final_dir + ": " +
                             ErrnoText(errno));
    DSA_RETURN_IF_ERROR(RenameFile(staged, final_dir));
  }
  for (const std::string& file : files)
    DSA_RETURN_IF_ERROR(
        RenameFile((fs::path(staging_) / file).string(), (fs::path(save_path_) / file).string()));
  std::error_code ec;
  fs::remove_all(staging_, ec);
  active_ = false;
  return Status::OK();
}

}  // namespace dsanalyze
