// Files: read-only memory maps and an unbuffered-by-the-kernel-only output file.
//
// MappedFile owns a read-only mapping of a whole file; views into it are valid
// while the MappedFile lives (it is move-only, and moving keeps the address).
// OutputFile owns a file descriptor opened for writing, with positional writes
// that report short writes and ENOSPC as errors naming the file. Neither class
// is safe for concurrent use of one object from several threads.
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

  Status WriteAt(uint64_t offset, const void* data, size_t size);
  // Closes the file, first flushing it to stable storage when `sync` is set
  // (needed only to survive power loss; a killed process loses nothing
  // written). Reports sync and close errors.
  Status Close(bool sync);
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
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
