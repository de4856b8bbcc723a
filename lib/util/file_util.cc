#include "util/file_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace dsanalyze {

std::string ErrnoText(int err) { return std::strerror(err); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(other.data_), size_(other.size_), path_(std::move(other.path_)) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    this->~MappedFile();
    new (this) MappedFile(std::move(other));
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr && size_ > 0) munmap(const_cast<std::byte*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

namespace {

// What a file of mode `mode` is, when it is not a regular file.
const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "of an unknown type";
}

}  // namespace

Result<InputFile> InputFile::Open(const std::string& path) {
  InputFile f;
  f.path_ = path;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
  // writer, in the kernel, where no signal handler of ours can end the wait.
  // With it the open returns at once, and fstat of what was opened (not of
  // the name, which may change in between) refuses anything but a file.
  f.fd_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!f.fd_.valid()) {
    const int err = errno;
    struct stat st {};
    if (err == ENOENT) return Status::BadInput(path + ": file not found");
    if (err == ENXIO && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))  // a socket
      return Status::BadInput(path + ": not a regular file (" + KindOf(st.st_mode) + ")");
    return Status::BadInput(path + ": cannot open: " + ErrnoText(err));
  }
  struct stat st {};
  if (fstat(f.fd_.get(), &st) != 0)
    return Status::IoError(path + ": cannot stat: " + ErrnoText(errno));
  if (!S_ISREG(st.st_mode))
    return Status::BadInput(path + ": not a regular file (" + KindOf(st.st_mode) + ")");
  // Reads of a regular file ignore O_NONBLOCK; cleared all the same.
  ::fcntl(f.fd_.get(), F_SETFL, ::fcntl(f.fd_.get(), F_GETFL) & ~O_NONBLOCK);
  f.size_ = static_cast<uint64_t>(st.st_size);
  return f;
}

Result<std::string> ReadTextFile(const std::string& path) {
  DSA_ASSIGN_OR_RETURN(const InputFile file, InputFile::Open(path));
  std::string text(file.size(), '\0');
  DSA_RETURN_IF_ERROR(file.ReadAt(0, text.data(), text.size()));
  return text;
}

ssize_t ReadFully(int fd, uint64_t offset, void* dst, size_t size) {
  char* p = static_cast<char*>(dst);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

Status InputFile::ReadAt(uint64_t offset, void* dst, size_t size) const {
  const ssize_t n = ReadFully(fd_.get(), offset, dst, size);
  if (n < 0) return Status::IoError(path_ + ": read failed: " + ErrnoText(errno));
  if (static_cast<size_t>(n) < size)
    return Status::IoError(path_ + ": file ends at byte " + std::to_string(offset + n));
  return Status::OK();
}

Result<MappedFile> InputFile::Map() const {
  MappedFile m;
  m.path_ = path_;
  if (size_ == 0) return m;
  void* p = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_.get(), 0);
  if (p == MAP_FAILED) return Status::IoError(path_ + ": cannot map: " + ErrnoText(errno));
  m.data_ = static_cast<const std::byte*>(p);
  m.size_ = static_cast<size_t>(size_);
  return m;
}

Result<MappedFile> MappedFile::Open(const std::string& path) {
  DSA_ASSIGN_OR_RETURN(const InputFile file, InputFile::Open(path));
  return file.Map();  // the mapping keeps the file alive after the close
}

Result<OutputFile> OutputFile::Create(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError(path + ": cannot create: " + ErrnoText(errno));
  OutputFile f;
  f.fd_ = UniqueFd(fd);
  f.path_ = path;
  return f;
}

Result<OutputFile> OutputFile::OpenExisting(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(path + ": cannot open for writing: " + ErrnoText(errno));
  OutputFile f;
  f.fd_ = UniqueFd(fd);
  f.path_ = path;
  return f;
}

Status OutputFile::WriteAt(uint64_t offset, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::pwrite(fd_.get(), p, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(path_ + ": write failed: " + ErrnoText(errno));
    }
    if (n == 0) return Status::IoError(path_ + ": write made no progress");
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
    DropBehind(static_cast<uint64_t>(n));
  }
  return Status::OK();
}

void OutputFile::DropBehind(uint64_t written) {
  undropped_ += written;
  if (undropped_ < kDropBehindBytes) return;
  undropped_ = 0;
  // Starts writeback of the dirty pages and drops the clean ones; only advice,
  // so an error (a file system without it) changes nothing.
  ::posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
}

Status OutputFile::Close(bool sync) {
  if (!fd_.valid()) return Status::OK();
  const int fd = fd_.Release();
  if (sync && ::fdatasync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return Status::IoError(path_ + ": sync failed: " + ErrnoText(err));
  }
  if (::close(fd) != 0) return Status::IoError(path_ + ": close failed: " + ErrnoText(errno));
  return Status::OK();
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    return Status::IoError("cannot rename " + from + " to " + to + ": " + ErrnoText(errno));
  return Status::OK();
}

namespace {

Status CopyFile(const std::string& from, const std::string& to) {
  Result<MappedFile> source = MappedFile::Open(from);
  // `from` is a file this run wrote: failing to open it is an I/O error, not
  // the bad input MappedFile reports for the user's files.
  if (!source.ok()) return Status::IoError(source.status().message());
  DSA_ASSIGN_OR_RETURN(OutputFile out, OutputFile::Create(to));
  DSA_RETURN_IF_ERROR(out.WriteAt(0, source->bytes().data(), source->bytes().size()));
  return out.Close(false);
}

}  // namespace

Status LinkOrCopyFile(const std::string& from, const std::string& to) {
  if (::link(from.c_str(), to.c_str()) == 0) return Status::OK();
  const int err = errno;
  if (err == EPERM || err == EXDEV || err == EMLINK || err == EOPNOTSUPP || err == ENOSYS)
    return CopyFile(from, to);
  return Status::IoError("cannot link " + from + " to " + to + ": " + ErrnoText(err));
}

Status CheckOutputPath(std::string_view flag, const std::string& path) {
  if (path == "-")
    return Status::BadInput(std::string(flag) + " -: written to a file only; give its name");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Status::BadInput(path + ": is a folder, not a file name");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return Status::BadInput(path + ": no such folder: " + parent.string());
  return Status::OK();
}

Status WriteFileAtomic(const std::string& path, const std::string& text, bool sync) {
  const std::string tmp = path + ".tmp";
  DSA_ASSIGN_OR_RETURN(OutputFile f, OutputFile::Create(tmp));
  Status st = f.WriteAt(0, text.data(), text.size());
  if (st.ok()) st = f.Close(sync);
  if (!st.ok()) {
    std::remove(tmp.c_str());
    return st;
  }
  return RenameFile(tmp, path);
}

}  // namespace dsanalyze
