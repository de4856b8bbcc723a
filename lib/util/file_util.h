// Files: read-only memory maps and an unbuffered-by-the-kernel-only output file.
//
// MappedFile owns a read-only mapping of a whole file; views into it are valid
// while the MappedFile lives (it is move-only, and moving keeps the address).
// OutputFile owns a file descriptor opened for writing, with positional writes
// that report short writes and ENOSPC as errors naming the file. After every
// 256 MiB it writes, it asks the kernel to drop the file's pages that have
// reached the disk (drop-behind): a run writes tens of GB that it never reads
// back, and left in the page cache they crowd out memory and stall the writer
// at the kernel's dirty limit. Measured on the 2-core VM of
// docs/benchmarks.md, 8 GiB written in 16 MiB pwrites then fdatasync: 20.2
// and 21.7 s plainly, 5.4 and 5.6 s with drop-behind. Neither class is safe
// for concurrent use of one object from several threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "util/status.h"

namespace dsanalyze {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Maps `path` read-only. An empty file maps to an empty span.
  static Result<MappedFile> Open(const std::string& path);

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // closes; does not remove the file

  // Creates or truncates `path`.
  static Result<OutputFile> Create(const std::string& path);
  // Opens the existing `path` for writing, keeping its contents (for writers
  // in other processes filling their own parts of one file).
  static Result<OutputFile> OpenExisting(const std::string& path);

  Status WriteAt(uint64_t offset, const void* data, size_t size);
  // Closes the file, first flushing it to stable storage when `sync` is set
  // (needed only to survive power loss; a killed process loses nothing
  // written). Reports sync and close errors.
  Status Close(bool sync);
  const std::string& path() const { return path_; }

 private:
  static constexpr uint64_t kDropBehindBytes = uint64_t{256} << 20;
  void DropBehind(uint64_t written);

  int fd_ = -1;
  std::string path_;
  uint64_t undropped_ = 0;  // bytes written since the last drop-behind
};

// Renames `from` to `to`, replacing `to`.
Status RenameFile(const std::string& from, const std::string& to);

// Makes `to` (which must not exist) a hard link to `from`; where the file
// system refuses hard links, a copy of it instead.
Status LinkOrCopyFile(const std::string& from, const std::string& to);

// Writes `text` to `path` through a temporary file renamed into place.
Status WriteFileAtomic(const std::string& path, const std::string& text, bool sync = false);

// Returns strerror(errno) text for messages.
std::string ErrnoText(int err);

}  // namespace dsanalyze
