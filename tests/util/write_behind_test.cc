// WriteBehind: writes land at their offsets in order-independent positions,
// buffers are recycled, the first error is reported and sticks; and
// LinkOrCopyFile shares or copies a file's bytes.
#include "util/write_behind.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>

#include "support/test_util.h"
#include "util/file_util.h"

namespace dsanalyze {
namespace {

using Catch::Matchers::Contains;

WriteBuffer Filled(WriteBehind& io, size_t size, uint8_t value) {
  WriteBuffer b = io.TakeBuffer(size);
  REQUIRE(b.capacity >= size);
  std::memset(b.data.get(), value, size);
  b.size = size;
  return b;
}

TEST_CASE("write-behind puts every buffer at its offset", "[util][write_behind]") {
  test::ScratchDir dir;
  auto file = OutputFile::Create(dir / "f");
  REQUIRE(file.ok());
  constexpr size_t kBlock = 1000;
  constexpr int kBlocks = 50;
  {
    WriteBehind io;
    // Written back to front: positions, not arrival order, decide the bytes.
    for (int i = kBlocks - 1; i >= 0; --i)
      REQUIRE(io.Write(&*file, static_cast<uint64_t>(i) * kBlock,
                       Filled(io, kBlock, static_cast<uint8_t>(i)))
                  .ok());
    REQUIRE(io.Drain().ok());
  }
  REQUIRE(file->Close(false).ok());
  const auto bytes = test::ReadBytes(dir / "f");
  REQUIRE(bytes.size() == kBlock * kBlocks);
  for (size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] != static_cast<uint8_t>(i / kBlock)) FAIL("byte " << i);
}

TEST_CASE("write-behind recycles written buffers", "[util][write_behind]") {
  test::ScratchDir dir;
  auto file = OutputFile::Create(dir / "f");
  REQUIRE(file.ok());
  WriteBehind io;
  WriteBuffer b = Filled(io, 4096, 1);
  const std::byte* first = b.data.get();
  REQUIRE(io.Write(&*file, 0, std::move(b)).ok());
  REQUIRE(io.Drain().ok());
  // A smaller request reuses the written buffer; a bigger one cannot.
  WriteBuffer again = io.TakeBuffer(100);
  CHECK(again.data.get() == first);
  CHECK(again.size == 0);
  CHECK(io.TakeBuffer(8192).capacity >= 8192);
}

TEST_CASE("write-behind reports the first failure and keeps it", "[util][write_behind]") {
  test::ScratchDir dir;
  // Writes to a read-only descriptor fail with EBADF.
  std::filesystem::path ro = dir / "ro";
  test::WriteBytes(ro, {1, 2, 3});
  auto file = OutputFile::Create(ro);  // opened for writing...
  REQUIRE(file.ok());
  REQUIRE(file->Close(false).ok());  // ...then closed: its descriptor is gone
  WriteBehind io;
  CHECK(io.Write(&*file, 0, Filled(io, 10, 7)).ok());  // queued: not failed yet
  Status drained = io.Drain();
  REQUIRE_FALSE(drained.ok());
  CHECK_THAT(drained.message(), Contains(ro.string()));
  CHECK_FALSE(io.Write(&*file, 10, Filled(io, 10, 7)).ok());
  CHECK(io.Drain().message() == drained.message());
}

TEST_CASE("LinkOrCopyFile shares the bytes under a second name", "[util]") {
  test::ScratchDir dir;
  test::WriteBytes(dir / "a", {9, 8, 7});
  REQUIRE(LinkOrCopyFile(dir / "a", dir / "b").ok());
  CHECK(test::ReadBytes(dir / "b") == std::vector<uint8_t>{9, 8, 7});
  struct stat sa {
  }, sb{};
  REQUIRE(stat((dir / "a").c_str(), &sa) == 0);
  REQUIRE(stat((dir / "b").c_str(), &sb) == 0);
  CHECK(sa.st_ino == sb.st_ino);  // a hard link here (ext4/tmpfs allow them)
  Status exists = LinkOrCopyFile(dir / "a", dir / "b");
  REQUIRE_FALSE(exists.ok());
  CHECK_THAT(exists.message(), Contains("File exists"));
  CHECK_FALSE(LinkOrCopyFile(dir / "missing", dir / "c").ok());
}

TEST_CASE("LinkOrCopyFile copies across file systems", "[util]") {
  test::ScratchDir dir;
  const std::filesystem::path shm = "/dev/shm";
  struct stat s_shm {
  }, s_dir{};
  if (stat(shm.c_str(), &s_shm) != 0 || stat(dir.path().c_str(), &s_dir) != 0 ||
      s_shm.st_dev == s_dir.st_dev) {
    WARN("no second file system at /dev/shm: the copy path is not exercised");
    return;
  }
  const std::filesystem::path from = shm / ("dsanalyze-link-test-" + std::to_string(getpid()));
  std::vector<uint8_t> bytes(3 << 20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  test::WriteBytes(from, bytes);
  const Status st = LinkOrCopyFile(from, dir / "copy");  // link(2) fails with EXDEV
  std::filesystem::remove(from);
  REQUIRE(st.ok());
  CHECK(test::ReadBytes(dir / "copy") == bytes);
}

}  // namespace
}  // namespace dsanalyze
