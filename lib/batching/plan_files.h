// The files `dsanalyze batches` writes in its --out folder DIR (docs/
// format.md §2.13): microbatch_offsets.npy, microbatch_sample_ids.npy,
// batch_sizes.npy, batch_max_seqlens.npy (int64), lr_scale.npy (float64) and
// plan.json.
//
// Everything goes to a hidden folder beside DIR (.NAME.staging-XXXXXX,
// leased: util/temp_lease.h), each array appended as batches come and its
// .npy header written last, once its length is known. Commit renames the
// folder to DIR in one step (exchanging it with a previous plan, which is
// then deleted), so DIR never holds a partial plan; a PlanFiles destroyed
// before Commit deletes its folder, and Create deletes those that killed
// commands left for the same DIR. From Create until the PlanFiles is gone,
// it holds the lock beside DIR that a run holds beside its save path
// (output/save_lock.h, P/.NAME.dsanalyze.lock), so two commands never write
// one DIR at once: the second fails at once (IoError naming the holder).
// Test-only pause points (util/
// fault_point.h): "batches_create" (the arrays opened), "batches_write" (the
// first batch added), "batches_commit" (the folder complete, before the
// rename).
// A plan of several epochs (batching/epochs.h) is written by Add for epoch 1,
// then Repeat for each batch of the later epochs, which copies an epoch-1
// batch by reading it back from the staging folder.
// Memory: one 1 MiB buffer per array, and one batch while repeating.
// Not thread-safe; move-only.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batching/planner.h"
#include "format/dtype.h"
#include "output/save_lock.h"
#include "util/file_util.h"
#include "util/status.h"
#include "util/temp_lease.h"

namespace dsanalyze {

inline constexpr std::string_view kPlanJson = "plan.json";

// A 1-D .npy of int64 or float64 appended to; its header is written by Finish.
class NpyAppender {
 public:
  static Result<NpyAppender> Create(const std::string& path, DType dtype);
  Status Append(const void* data, uint64_t count);
  // Writes what was appended to the file (for reading it back).
  Status Flush();
  Status Finish();
  // Where item 0 is in the file.
  uint64_t header_bytes() const { return header_bytes_; }

 private:
  NpyAppender(OutputFile file, DType dtype, uint64_t header_bytes)
      : file_(std::move(file)), dtype_(dtype), header_bytes_(header_bytes), offset_(header_bytes) {}
  OutputFile file_;
  DType dtype_;
  uint64_t header_bytes_;
  uint64_t offset_;  // where the buffer goes
  uint64_t count_ = 0;
  std::string buffer_;
};

// BadInput when `path`, the file of option `flag` (--svg), is DIR or inside
// it (symbolic links resolved): the commit replaces DIR as a whole, so the
// file would be deleted with the previous plan, or would be the folder's place.
Status CheckOutsidePlan(const std::string& dir, std::string_view flag, const std::string& path);

class PlanFiles {
 public:
  // BadInput, before anything is created, when DIR's folder does not exist or
  // DIR is a file or a non-empty folder without plan.json (not a plan);
  // IoError when another command holds DIR's lock.
  static Result<PlanFiles> Create(const std::string& dir);
  PlanFiles(PlanFiles&& other) noexcept;
  PlanFiles& operator=(PlanFiles&&) = delete;
  ~PlanFiles();

  Status Add(const PlannedBatch& batch, double lr_scale);
  // Appends a copy of batch `batch` (counting from 0) of those added so far,
  // which must all have been added before the first Repeat; returns its
  // size and LR scale.
  struct Repeated {
    int64_t samples = 0;
    double lr_scale = 0;
  };
  Result<Repeated> Repeat(uint64_t batch);
  // Finishes the arrays, writes plan.json and moves the folder to DIR.
  Status Commit(const std::string& plan_json);

 private:
  PlanFiles(std::string dir, SaveLock lock, LeasedTemp staging)
      : lock_(std::move(lock)),
        dir_(std::move(dir)),
        staging_(std::move(staging.path)),
        lease_(std::move(staging.lease)) {}
  Status OpenArrays();
  Status MoveIntoPlace();
  Status OpenReaders();
  Status ReadItems(size_t array, uint64_t first, uint64_t count, void* out) const;
  std::optional<SaveLock> lock_;  // released last, after the staging folder is gone
  std::string dir_;
  std::string staging_;  // empty once committed or moved from
  UniqueFd lease_;       // locked while the staging folder is being written
  // offsets, sample ids, batch sizes, batch max seqlens, lr scale
  std::vector<NpyAppender> arrays_;
  int64_t offset_ = 0;  // the last micro-batch offset written
  uint64_t micro_per_batch_ = 0;
  // Repeat's: the arrays read back, and one batch's offsets and ids.
  std::vector<InputFile> readers_;
  std::vector<int64_t> repeat_offsets_, repeat_ids_;
};

}  // namespace dsanalyze
