#include "util/scratch_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "util/file_util.h"

namespace dsanalyze {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

// The test hook's cap (scratch_file.h), read once; nullptr when unset.
std::atomic<int64_t>* TestBytesLeft() {
  static std::atomic<int64_t> left{0};
  static const bool capped = [] {
    const char* v = std::getenv("DSANALYZE_TEST_SCRATCH_BYTES");
    if (v) left = std::atoll(v);
    return v != nullptr;
  }();
  return capped ? &left : nullptr;
}

// Bytes this process has written to its scratch files so far, for the
// message of a full scratch file system.
std::atomic<uint64_t> spilled_bytes{0};

// Takes `size` bytes from the test cap; false when the cap is exhausted.
bool TakeTestBytes(size_t size) {
  std::atomic<int64_t>* left = TestBytesLeft();
  const auto n = static_cast<int64_t>(size);
  return left == nullptr || left->fetch_sub(n) >= n;
}

int OpenUnnamed(const std::string& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR)) return fd;
#endif
  std::string name = dir + "/.dsanalyze-scratch-XXXXXX";
  const int named = ::mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(name.c_str());
  return named;
}

}  // namespace

Result<ScratchFile> ScratchFile::Create(const std::string& dir) {
  ScratchFile f;
  f.dir_ = dir;
  f.fd_ = UniqueFd(OpenUnnamed(dir));
  if (!f.fd_.valid()) return f.Fail("cannot create a scratch file", errno);
  f.buffer_.reserve(kBufferBytes);
  return f;
}

Status ScratchFile::Fail(const std::string& what, int err) const {
  return Status::IoError("scratch " + dir_ + ": " + what + ": " + ErrnoText(err));
}

// "scratch DIR: no space left on device for N more bytes (...)": what a
// full scratch file system stops, and what the rank had spilled before it.
Status ScratchFile::Full(uint64_t needed) const {
  return Status::IoError("scratch " + dir_ + ": no space left on device for " +
                         std::to_string(needed) + " more bytes, after " +
                         std::to_string(spilled_bytes.load()) +
                         " bytes this rank spilled (memory.scratch needs room for what the run "
                         "spills)");
}

Status ScratchFile::Append(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const size_t n = std::min(size, kBufferBytes - buffer_.size());
    buffer_.insert(buffer_.end(), p, p + n);
    p += n;
    size -= n;
    size_ += n;
    if (buffer_.size() == kBufferBytes) DSA_RETURN_IF_ERROR(Flush());
  }
  return Status::OK();
}

Status ScratchFile::Flush() {
  if (!TakeTestBytes(buffer_.size())) return Full(buffer_.size());
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t w = ::pwrite(fd_.get(), buffer_.data() + done, buffer_.size() - done,
                               static_cast<off_t>(written_ + done));
    if (w < 0 && errno == EINTR) continue;
    if (w == 0 || (w < 0 && (errno == ENOSPC || errno == EDQUOT)))
      return Full(buffer_.size() - done);
    if (w < 0) return Fail("cannot write", errno);
    done += static_cast<size_t>(w);
    spilled_bytes += static_cast<uint64_t>(w);
  }
  written_ += buffer_.size();
  buffer_.clear();
  return Status::OK();
}

Status ScratchFile::ReadAt(uint64_t offset, void* data, size_t size) {
  if (offset + size > size_) return Status::Internal("scratch " + dir_ + ": read past the end");
  if (offset + size > written_) DSA_RETURN_IF_ERROR(Flush());
  const ssize_t r = ReadFully(fd_.get(), offset, data, size);
  if (r < 0) return Fail("cannot read", errno);
  if (static_cast<size_t>(r) < size) return Fail("cannot read", EIO);
  return Status::OK();
}

namespace {

// Creates `dir` when it is missing and its parent exists, as mkdir does (mode
// 0777 less the umask, as the save path gets): a user points memory.scratch
// at "$TMPDIR/dsanalyze" or "/local/$USER". Every rank of a node may try at
// once; EEXIST is success. A missing parent stays an error (a typo, most
// likely), reported by the stat that follows.
Status CreateMissingScratchDir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 || errno != ENOENT) return Status::OK();
  if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST || errno == ENOENT) return Status::OK();
  return Status::IoError("scratch " + dir + ": cannot create: " + ErrnoText(errno));
}

}  // namespace

Status CheckScratchDir(const std::string& dir) {
  DSA_RETURN_IF_ERROR(CreateMissingScratchDir(dir));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return Status::BadInput("scratch " + dir + ": " + ErrnoText(errno));
  if (!S_ISDIR(st.st_mode)) return Status::BadInput("scratch " + dir + ": not a directory");
  Result<ScratchFile> probe = ScratchFile::Create(dir);
  if (!probe.ok()) return Status::BadInput(probe.status().message());
  return Status::OK();
}

}  // namespace dsanalyze
