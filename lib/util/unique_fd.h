// UniqueFd: owns one file descriptor and closes it when destroyed.
//
// The one place that holds a raw descriptor for the classes that own one
// (InputFile, OutputFile, ScratchFile, SaveLock), so that none of them writes
// its own move and close code. Move-only: a moved-from UniqueFd holds none
// (-1). Not thread-safe.
#pragma once

#include <unistd.h>

#include <utility>

namespace dsanalyze {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Gives up ownership: the caller closes the returned descriptor.
  int Release() { return std::exchange(fd_, -1); }
  // Closes the descriptor, if any (a close error is lost: callers that must
  // see it Release() and close themselves).
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

}  // namespace dsanalyze
