#include "batching/plan_files.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "format/npy_writer.h"
#include "output/commit_recovery.h"
#include "util/fault_point.h"

namespace dsanalyze {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kStagingKind = "staging";
constexpr size_t kBufferBytes = size_t{1} << 20;
constexpr std::array<std::string_view, 5> kArrays = {"microbatch_offsets.npy",
                                                     "microbatch_sample_ids.npy", "batch_sizes.npy",
                                                     "batch_max_seqlens.npy", "lr_scale.npy"};

Status CheckOutDir(const std::string& dir) {
  std::error_code ec;
  const fs::path parent = fs::path(dir).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return Status::BadInput(dir + ": no such folder: " + parent.string());
  if (!fs::exists(dir, ec)) return Status::OK();
  if (!fs::is_directory(dir, ec))
    return Status::BadInput(dir + ": is a file; --out names the folder of the plan");
  if (!fs::is_empty(dir, ec) && !fs::exists(fs::path(dir) / kPlanJson, ec))
    return Status::BadInput(dir + ": is a folder without " + std::string(kPlanJson) +
                            " (not a plan), which --out would replace: choose another --out");
  // The new plan replaces the previous one whole: refuse what it would delete
  // that is not the plan's.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != kPlanJson && std::find(kArrays.begin(), kArrays.end(), name) == kArrays.end())
      return Status::BadInput(dir + ": holds " + name +
                              ", which is not the plan's and would be deleted with it: move it "
                              "out, or choose another --out");
  }
  if (ec) return Status::IoError(dir + ": cannot list: " + ec.message());
  return Status::OK();
}

}  // namespace

Status CheckOutsidePlan(const std::string& dir, std::string_view flag, const std::string& path) {
  // Both resolved (output/commit_recovery.h), so two names of one folder
  // compare equal.
  DSA_ASSIGN_OR_RETURN(const std::string real_plan, RealSavePath(dir));
  DSA_ASSIGN_OR_RETURN(const std::string real_file, RealSavePath(path));
  const fs::path plan = real_plan, file = real_file;
  const auto [in_plan, in_file] = std::mismatch(plan.begin(), plan.end(), file.begin(), file.end());
  if (in_plan != plan.end()) return Status::OK();
  const std::string named = std::string(flag) + " " + path + ": ";
  if (in_file == file.end())
    return Status::BadInput(named + "is --out, the plan's folder: name a file beside it");
  return Status::BadInput(named + "is inside --out " + dir +
                          ", which each plan replaces as a whole (the file would be deleted "
                          "with the previous plan): name a file outside it");
}

Result<NpyAppender> NpyAppender::Create(const std::string& path, DType dtype) {
  DSA_ASSIGN_OR_RETURN(OutputFile file, OutputFile::Create(path));
  // A 1-D header's length does not depend on the length it states (any
  // shape up to 19 digits pads to the same 64-byte block), so the final
  // header fits over this one.
  const std::string header = NpyHeader(dtype, {0});
  DSA_RETURN_IF_ERROR(file.WriteAt(0, header.data(), header.size()));
  return NpyAppender(std::move(file), dtype, header.size());
}

Status NpyAppender::Append(const void* data, uint64_t count) {
  buffer_.append(static_cast<const char*>(data), count * ItemSize(dtype_));
  count_ += count;
  return buffer_.size() >= kBufferBytes ? Flush() : Status::OK();
}

Status NpyAppender::Flush() {
  DSA_RETURN_IF_ERROR(file_.WriteAt(offset_, buffer_.data(), buffer_.size()));
  offset_ += buffer_.size();
  buffer_.clear();
  return Status::OK();
}

Status NpyAppender::Finish() {
  DSA_RETURN_IF_ERROR(Flush());
  const std::string header = NpyHeader(dtype_, {count_});
  if (header.size() != header_bytes_)
    return Status::Internal(file_.path() + ": the .npy header changed size");
  DSA_RETURN_IF_ERROR(file_.WriteAt(0, header.data(), header.size()));
  return file_.Close(false);
}

Result<PlanFiles> PlanFiles::Create(const std::string& dir) {
  DSA_RETURN_IF_ERROR(CheckOutDir(dir));
  DSA_ASSIGN_OR_RETURN(const std::string real, RealSavePath(dir));
  DSA_ASSIGN_OR_RETURN(
      SaveLock lock,
      SaveLock::AcquireRun(BesideSavePath(real, SaveLock::kRunSuffix), dir, "--out"));
  RemoveDeadTemps(dir, kStagingKind);
  DSA_ASSIGN_OR_RETURN(LeasedTemp staging, CreateLeasedFolder(dir, kStagingKind));
  PlanFiles files(dir, std::move(lock), std::move(staging));
  DSA_RETURN_IF_ERROR(files.OpenArrays());
  FaultPoint("batches_create");
  return files;
}

Status PlanFiles::OpenArrays() {
  for (size_t i = 0; i < kArrays.size(); ++i) {
    const DType dtype = i + 1 == kArrays.size() ? DType::kF64 : DType::kI64;
    DSA_ASSIGN_OR_RETURN(NpyAppender a,
                         NpyAppender::Create(staging_ + "/" + std::string(kArrays[i]), dtype));
    arrays_.push_back(std::move(a));
  }
  return arrays_[0].Append(&offset_, 1);
}

PlanFiles::PlanFiles(PlanFiles&& other) noexcept
    : lock_(std::move(other.lock_)),
      dir_(std::move(other.dir_)),
      staging_(std::exchange(other.staging_, {})),
      lease_(std::move(other.lease_)),
      arrays_(std::move(other.arrays_)),
      offset_(other.offset_),
      micro_per_batch_(other.micro_per_batch_),
      readers_(std::move(other.readers_)) {}

PlanFiles::~PlanFiles() {
  if (staging_.empty()) return;
  arrays_.clear();
  readers_.clear();
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

Status PlanFiles::Add(const PlannedBatch& batch, double lr_scale) {
  micro_per_batch_ = batch.micro.size();
  for (const MicroBatch& m : batch.micro) {
    offset_ += static_cast<int64_t>(m.samples);
    DSA_RETURN_IF_ERROR(arrays_[0].Append(&offset_, 1));
  }
  DSA_RETURN_IF_ERROR(arrays_[1].Append(batch.ids.data(), batch.ids.size()));
  const int64_t size = static_cast<int64_t>(batch.samples);
  DSA_RETURN_IF_ERROR(arrays_[2].Append(&size, 1));
  DSA_RETURN_IF_ERROR(arrays_[3].Append(&batch.longest, 1));
  DSA_RETURN_IF_ERROR(arrays_[4].Append(&lr_scale, 1));
  FaultPoint("batches_write");
  return Status::OK();
}

Status PlanFiles::OpenReaders() {
  for (size_t i = 0; i < kArrays.size(); ++i) {
    DSA_RETURN_IF_ERROR(arrays_[i].Flush());
    DSA_ASSIGN_OR_RETURN(InputFile reader,
                         InputFile::Open(staging_ + "/" + std::string(kArrays[i])));
    readers_.push_back(std::move(reader));
  }
  return Status::OK();
}

// Every array's items are 8 bytes (int64 or float64).
Status PlanFiles::ReadItems(size_t array, uint64_t first, uint64_t count, void* out) const {
  return readers_[array].ReadAt(arrays_[array].header_bytes() + first * 8, out, count * 8);
}

Result<PlanFiles::Repeated> PlanFiles::Repeat(uint64_t batch) {
  if (readers_.empty()) DSA_RETURN_IF_ERROR(OpenReaders());
  const uint64_t e = micro_per_batch_;
  repeat_offsets_.resize(e + 1);
  DSA_RETURN_IF_ERROR(ReadItems(0, batch * e, e + 1, repeat_offsets_.data()));
  repeat_ids_.resize(static_cast<size_t>(repeat_offsets_[e] - repeat_offsets_[0]));
  DSA_RETURN_IF_ERROR(ReadItems(1, static_cast<uint64_t>(repeat_offsets_[0]), repeat_ids_.size(),
                                repeat_ids_.data()));
  for (uint64_t m = 0; m < e; ++m) {
    offset_ += repeat_offsets_[m + 1] - repeat_offsets_[m];
    DSA_RETURN_IF_ERROR(arrays_[0].Append(&offset_, 1));
  }
  DSA_RETURN_IF_ERROR(arrays_[1].Append(repeat_ids_.data(), repeat_ids_.size()));
  Repeated out;
  int64_t longest = 0;
  DSA_RETURN_IF_ERROR(ReadItems(2, batch, 1, &out.samples));
  DSA_RETURN_IF_ERROR(ReadItems(3, batch, 1, &longest));
  DSA_RETURN_IF_ERROR(ReadItems(4, batch, 1, &out.lr_scale));
  DSA_RETURN_IF_ERROR(arrays_[2].Append(&out.samples, 1));
  DSA_RETURN_IF_ERROR(arrays_[3].Append(&longest, 1));
  DSA_RETURN_IF_ERROR(arrays_[4].Append(&out.lr_scale, 1));
  return out;
}

Status PlanFiles::Commit(const std::string& plan_json) {
  readers_.clear();
  for (NpyAppender& a : arrays_) DSA_RETURN_IF_ERROR(a.Finish());
  DSA_RETURN_IF_ERROR(WriteFileAtomic(staging_ + "/" + std::string(kPlanJson), plan_json));
  FaultPoint("batches_commit");
  // The lease leaves the folder last; another command could take the folder
  // for a killed one's only in the moment before the rename.
  ::unlink((staging_ + "/" + std::string(kLeaseFile)).c_str());
  return MoveIntoPlace();
}

Status PlanFiles::MoveIntoPlace() {
  std::error_code ec;
  if (fs::exists(dir_, ec)) {
    // renameat2 through syscall(), as output/analysis_writer.cc does.
    if (syscall(SYS_renameat2, AT_FDCWD, staging_.c_str(), AT_FDCWD, dir_.c_str(),
                RENAME_EXCHANGE) != 0)
      return Status::IoError(dir_ + ": cannot replace the previous plan: " + ErrnoText(errno));
    fs::remove_all(staging_, ec);  // now the previous plan
  } else if (::rename(staging_.c_str(), dir_.c_str()) != 0) {
    return Status::IoError(dir_ + ": cannot move the plan into place: " + ErrnoText(errno));
  }
  staging_.clear();
  return Status::OK();
}

}  // namespace dsanalyze
