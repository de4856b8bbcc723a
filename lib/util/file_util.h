// Files: input files, read-only memory maps and an output file.
//
// InputFile owns a file descriptor opened for reading, with positional reads.
// InputFile and OutputFile are move-only (they hold a UniqueFd).
// MappedFile owns a read-only mapping of a whole file; views into it are valid
// while the MappedFile lives (it is move-only, and moving keeps the address).
// A single pass over a large file is steadier through InputFile::ReadAt than
// through a mapping: the kernel copies through its own huge-page map, while
// every 4 KiB page of a mapping costs a TLB miss, and on a VM each miss is a
// two-level page walk. Checking two 6 GB .idx files (docs/benchmarks.md) took
// 0.9 s of CPU through their mappings while the page cache held them as the
// writer had left them, 6.0 s once they had been read back from disk, and
// 1.5 s through read(2).
// OutputFile owns a file descriptor opened for writing, with positional writes
// that report short writes and ENOSPC as errors naming the file. After every
// 256 MiB it writes, it asks the kernel to drop the file's pages that have
// reached the disk (drop-behind): a run writes tens of GB that it never reads
// back, and left in the page cache they crowd out memory and stall the writer
// at the kernel's dirty limit. Measured on the 2-core VM of
// docs/benchmarks.md, 8 GiB written in 16 MiB pwrites then fdatasync: 20.2
// and 21.7 s plainly, 5.4 and 5.6 s with drop-behind. None of the classes is safe
// for concurrent use of one object from several threads.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/status.h"
#include "util/unique_fd.h"

namespace dsanalyze {

class MappedFile;

// Every file a command reads (configs, dataset files, maps, scores,
// sample ids, analyses, plugins) is opened through InputFile::Open, which
// refuses what is not a regular file without waiting on it: a FIFO, a device,
// a socket or a directory (docs/reliability.md, "Bad input").
class InputFile {
 public:
  // Opens the regular file `path`: BadInput "<path>: file not found", "<path>:
  // cannot open: <why>", or "<path>: not a regular file (a FIFO (named
  // pipe))" (a directory, a character device, ...). Never blocks on a FIFO.
  static Result<InputFile> Open(const std::string& path);

  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Copies bytes [offset, offset + size) into `dst`; IoError when the file
  // ends before them or the read fails.
  Status ReadAt(uint64_t offset, void* dst, size_t size) const;
  // Maps the whole file read-only (the mapping outlives this InputFile).
  Result<MappedFile> Map() const;

 private:
  UniqueFd fd_;
  uint64_t size_ = 0;
  std::string path_;
};

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
  friend class InputFile;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

// Destroying an OutputFile closes it; it never removes the file.
class OutputFile {
 public:
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

  UniqueFd fd_;
  std::string path_;
  uint64_t undropped_ = 0;  // bytes written since the last drop-behind
};

// The whole of the regular file `path` (InputFile::Open's errors; IoError
// when the read fails or the file shrinks meanwhile).
Result<std::string> ReadTextFile(const std::string& path);

// Renames `from` to `to`, replacing `to`.
Status RenameFile(const std::string& from, const std::string& to);

// Makes `to` (which must not exist) a hard link to `from`; where the file
// system refuses hard links, a copy of it instead.
Status LinkOrCopyFile(const std::string& from, const std::string& to);

// BadInput when the output option `flag` cannot make a file at `path`: "-"
// (which would be a file named "-", not standard output), a folder ("is a
// folder, not a file name") or a path whose folder does not exist ("no such
// folder: DIR"). For output options, checked before any work.
Status CheckOutputPath(std::string_view flag, const std::string& path);

// Writes `text` to `path` through a temporary file renamed into place.
Status WriteFileAtomic(const std::string& path, const std::string& text, bool sync = false);

// pread(2) until `size` bytes at `offset` of `fd` are in `dst`, through short
// reads and EINTR. Returns the bytes read (fewer than `size` only where the
// file ends), or -1 with errno set.
ssize_t ReadFully(int fd, uint64_t offset, void* dst, size_t size);

// Returns strerror(errno) text for messages.
std::string ErrnoText(int err);

}  // namespace dsanalyze
