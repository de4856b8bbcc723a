#include "fuzz_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace dsanalyze::fuzz {
namespace {

std::string* scratch = nullptr;

void RemoveScratch() {
  std::error_code ignored;
  std::filesystem::remove_all(*scratch, ignored);
}

std::string MakeScratch() {
  std::string base = "/dev/shm";
  if (access(base.c_str(), W_OK) != 0) {
    const char* tmp = std::getenv("TMPDIR");
    base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string templ = base + "/dsanalyze-fuzz-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) Fail("mkdtemp " + templ + ": " + std::strerror(errno));
  return templ;
}

}  // namespace

const std::string& ScratchDir() {
  if (scratch == nullptr) {
    scratch = new std::string(MakeScratch());  // lives until exit, for RemoveScratch
    std::atexit(RemoveScratch);
  }
  return *scratch;
}

void WriteFileOrDie(const std::string& path, const uint8_t* data, size_t size) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) Fail("open " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) Fail("write " + path + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) Fail("close " + path + ": " + std::strerror(errno));
}

void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz check failed: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace dsanalyze::fuzz
