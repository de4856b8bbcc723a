// ScratchFile: an unnamed temporary file in a scratch directory, for data a
// rank spills when it does not fit its memory budget (config "memory").
//
// The file has no name from the moment it exists (O_TMPFILE; where the file
// system lacks it, a random name unlinked at once), so the kernel frees it
// when it is closed or when the process dies, however it dies: nothing is
// left in the scratch directory after success, failure, a signal or kill -9.
//
// Appends go through a buffer; ReadAt first writes the buffer out, so it sees
// every byte appended. Errors name the scratch directory and the problem; a
// full scratch file system (ENOSPC, EDQUOT) reads "scratch DIR: no space left
// on device for N more bytes, after M bytes this rank spilled (...)", M
// counting every scratch file of the process.
// Move-only; not safe for concurrent use of one object.
//
// Test hook (not a user feature, docs/reliability.md): the environment
// variable DSANALYZE_TEST_SCRATCH_BYTES caps the bytes all of a process's
// scratch files may hold; an append past it fails as a full device does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"
#include "util/unique_fd.h"

namespace dsanalyze {

// Move-only. Destroying it closes the file, and the kernel frees it.
class ScratchFile {
 public:
  static Result<ScratchFile> Create(const std::string& dir);

  Status Append(const void* data, size_t size);
  // Reads [offset, offset + size) of what was appended.
  Status ReadAt(uint64_t offset, void* data, size_t size);
  uint64_t size() const { return size_; }
  bool is_open() const { return fd_.valid(); }

 private:
  Status Flush();
  Status Fail(const std::string& what, int err) const;
  Status Full(uint64_t needed) const;

  UniqueFd fd_;
  std::string dir_;
  uint64_t size_ = 0;     // bytes appended
  uint64_t written_ = 0;  // bytes in the file (the rest wait in buffer_)
  std::vector<char> buffer_;
};

// Checks that `dir` is a directory in which a scratch file can be made,
// creating it first when it is missing and its parent exists (as mkdir does,
// mode 0777 less the umask, as the save path is made); IoError when that
// mkdir fails, BadInput for the rest.
Status CheckScratchDir(const std::string& dir);

}  // namespace dsanalyze
