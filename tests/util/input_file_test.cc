// InputFile: positional reads, the mapping it gives, and its errors.
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <thread>
#include <vector>

#include "support/test_util.h"
#include "util/file_util.h"

namespace dsanalyze {

using Catch::Matchers::Contains;

TEST_CASE("InputFile reads any range and maps the same bytes", "[util][input_file]") {
  test::ScratchDir dir;
  std::vector<uint8_t> bytes(100000);
  std::iota(bytes.begin(), bytes.end(), uint8_t{7});
  test::WriteBytes(dir / "f", bytes);
  auto f = InputFile::Open(dir / "f");
  REQUIRE(f.ok());
  CHECK(f->size() == bytes.size());
  for (const auto& [offset, size] :
       {std::pair<size_t, size_t>{0, 100000}, {1, 0}, {65535, 3000}, {99999, 1}}) {
    std::vector<uint8_t> got(size);
    REQUIRE(f->ReadAt(offset, got.data(), size).ok());
    CHECK(std::equal(got.begin(), got.end(), bytes.begin() + offset));
  }
  std::vector<uint8_t> past(2);
  const Status end = f->ReadAt(99999, past.data(), 2);
  CHECK(end.code() == Status::Code::kIoError);
  CHECK_THAT(end.message(), Contains("file ends at byte 100000"));

  auto m = f->Map();
  REQUIRE(m.ok());
  f = InputFile();  // the mapping outlives the file
  REQUIRE(m->bytes().size() == bytes.size());
  CHECK(std::memcmp(m->bytes().data(), bytes.data(), bytes.size()) == 0);
}

TEST_CASE("InputFile and MappedFile refuse what is not a readable file", "[util][input_file]") {
  test::ScratchDir dir;
  CHECK_THAT(InputFile::Open(dir / "none").status().message(), Contains("none: file not found"));
  CHECK(InputFile::Open(dir / "none").status().code() == Status::Code::kBadInput);
  CHECK_THAT(MappedFile::Open(dir.path().string()).status().message(),
             Contains("not a regular file"));
  test::WriteBytes(dir / "empty", {});
  auto m = MappedFile::Open(dir / "empty");
  REQUIRE(m.ok());
  CHECK(m->bytes().empty());
}

namespace {

// InputFile::Open(path)'s message, from a child process given `seconds` to
// answer: an open that waits (on a FIFO without a writer) fails the test
// instead of hanging it.
std::string OpenInChild(const std::string& path, int seconds) {
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(pipe_fds[0]);
    const Result<InputFile> f = InputFile::Open(path);
    const std::string message = f.ok() ? "opened" : f.status().message();
    (void)!write(pipe_fds[1], message.data(), message.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      close(pipe_fds[0]);
      return "still waiting after " + std::to_string(seconds) + " s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string message(4096, '\0');
  const ssize_t n = read(pipe_fds[0], message.data(), message.size());
  close(pipe_fds[0]);
  message.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return message;
}

}  // namespace

TEST_CASE("InputFile refuses a FIFO, a device or a socket at once, without waiting on it",
          "[util][input_file]") {
  test::ScratchDir dir;
  const std::string fifo = dir / "fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(OpenInChild(fifo, 2) == fifo + ": not a regular file (a FIFO (named pipe))");
  CHECK(OpenInChild("/dev/zero", 2) == "/dev/zero: not a regular file (a character device)");

  const std::string socket_path = dir / "socket";
  const int s = socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket_path.c_str());
  REQUIRE(bind(s, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0);
  CHECK(OpenInChild(socket_path, 2) == socket_path + ": not a regular file (a socket)");
  close(s);

  CHECK(OpenInChild(dir.path().string(), 2) ==
        dir.path().string() + ": not a regular file (a directory)");
}

TEST_CASE("ReadTextFile reads a whole file, or says why not", "[util][input_file]") {
  test::ScratchDir dir;
  test::WriteBytes(dir / "text", {'a', '\n', 'b'});
  const Result<std::string> text = ReadTextFile(dir / "text");
  REQUIRE(text.ok());
  CHECK(*text == "a\nb");
  CHECK(ReadTextFile(dir / "none").status().message() == dir / "none" + ": file not found");
}

}  // namespace dsanalyze
