// The file `dsanalyze order` writes (docs/format.md §2.12): a 1-D '<i8' .npy,
// version 1.0, of a length known up front, written front to back; or, for
// `order --megatron-core-cache`, a 1-D .npy of another integer dtype (the
// rewritten index files of cli/order_core_cache.cc).
//
// The array goes to a hidden temporary file beside PATH (.NAME.tmp-XXXXXX,
// leased: util/temp_lease.h), through a write-behind thread (util/
// write_behind.h) so that the kernel's copy of one piece overlaps the making
// of the next; Commit renames it to PATH once every element is written. An
// OrderFile destroyed before Commit removes the temporary file, so PATH never
// holds a partial array, and Create removes those that killed commands left
// for the same PATH. Test-only pause points (util/fault_point.h):
// "order_create" (the header written), "order_write" (the first piece
// queued), "order_commit" (the array complete and closed, before the rename).
// Not thread-safe; not movable (use the unique_ptr).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "format/dtype.h"
#include "util/file_util.h"
#include "util/status.h"
#include "util/temp_lease.h"
#include "util/write_behind.h"

namespace dsanalyze {

class OrderFile {
 public:
  // Creates the temporary file for `length` elements of `dtype` and writes
  // the header. `path` is checked by the caller (output/output_paths.h
  // CheckOutputFile, before the analysis is read).
  static Result<std::unique_ptr<OrderFile>> Create(const std::string& path, uint64_t length,
                                                   DType dtype = DType::kI64);
  ~OrderFile();

  // A buffer for `count` elements (a recycled one when possible), to fill
  // and hand to Append. T's size is the dtype's.
  template <class T>
  std::span<T> Buffer(uint64_t count) {
    buffer_ = TakeBuffer(count);
    return {reinterpret_cast<T*>(buffer_.data.get()), count};
  }
  std::span<int64_t> Buffer(uint64_t count) { return Buffer<int64_t>(count); }
  // Queues the buffer from the last Buffer() call as the next elements.
  Status Append() { return Append(std::move(buffer_)); }

  // The same for buffers held by the caller, e.g. filled on another thread
  // while the OrderFile is used (only by its owner's thread): a buffer of
  // `count` elements, and the buffer queued as the next elements.
  WriteBuffer TakeBuffer(uint64_t count) {
    WriteBuffer b = writer_.TakeBuffer(item_ * count);
    b.size = item_ * count;
    return b;
  }
  Status Append(WriteBuffer buffer);
  // Waits for every write, checks that `length` elements were written,
  // closes and renames the temporary file to PATH.
  Status Commit();

 private:
  OrderFile(std::string path, LeasedTemp temp, OutputFile file, uint64_t length, size_t item,
            uint64_t header_bytes)
      : path_(std::move(path)),
        temp_(std::move(temp)),
        file_(std::move(file)),
        length_(length),
        item_(item),
        header_bytes_(header_bytes),
        offset_(header_bytes) {}

  std::string path_;
  LeasedTemp temp_;
  OutputFile file_;  // temp_.path
  uint64_t length_;
  size_t item_;  // bytes an element
  uint64_t header_bytes_;
  uint64_t offset_;  // where the next element goes
  WriteBuffer buffer_;
  WriteBehind writer_{1};
  bool committed_ = false;
};

}  // namespace dsanalyze
