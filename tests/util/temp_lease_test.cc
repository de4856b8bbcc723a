// Temporary entries beside an output and the cleanup of dead ones
// (util/temp_lease.h).
#include "util/temp_lease.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "support/test_util.h"

namespace dsanalyze {

namespace fs = std::filesystem;

TEST_CASE("Temporary entries are hidden beside the output and get the umask's mode",
          "[util][temp_lease]") {
  test::ScratchDir dir;
  const std::string out = dir / "order.npy";
  CHECK(TempPrefix(out, "tmp") == dir / ".order.npy.tmp-");
  const mode_t old = ::umask(027);
  Result<LeasedTemp> file = CreateLeasedFile(out, "tmp");
  Result<LeasedTemp> folder = CreateLeasedFolder(out, "staging");
  ::umask(old);
  REQUIRE(file.ok());
  REQUIRE(folder.ok());
  CHECK(file->path.rfind(TempPrefix(out, "tmp"), 0) == 0);
  CHECK(folder->path.rfind(TempPrefix(out, "staging"), 0) == 0);
  CHECK((fs::status(file->path).permissions() & fs::perms::all) == fs::perms(0640));
  CHECK((fs::status(folder->path).permissions() & fs::perms::all) == fs::perms(0750));
  CHECK(fs::exists(fs::path(folder->path) / std::string(kLeaseFile)));
}

TEST_CASE("RemoveDeadTemps removes the entries no live command holds, and only those",
          "[util][temp_lease]") {
  test::ScratchDir dir;
  const std::string out = dir / "plan";
  Result<LeasedTemp> live_file = CreateLeasedFile(out, "tmp");
  Result<LeasedTemp> live_folder = CreateLeasedFolder(out, "staging");
  Result<LeasedTemp> dead_file = CreateLeasedFile(out, "tmp");
  Result<LeasedTemp> dead_folder = CreateLeasedFolder(out, "staging");
  REQUIRE((live_file.ok() && live_folder.ok() && dead_file.ok() && dead_folder.ok()));
  dead_file->lease.Reset();  // as the kernel does for a killed process
  dead_folder->lease.Reset();
  const fs::path no_lease = dir / ".plan.staging-old";  // an older dsanalyze's, or cut short
  fs::create_directory(no_lease);
  test::WriteBytes(dir / ".other.tmp-x", {1});  // another output's
  test::WriteBytes(dir / "plan.tmp-x", {1});    // not hidden: not ours

  CHECK(RemoveDeadTemps(out, "tmp") == 1);
  CHECK(RemoveDeadTemps(out, "staging") == 2);
  CHECK(fs::exists(live_file->path));
  CHECK(fs::exists(live_folder->path));
  CHECK_FALSE(fs::exists(dead_file->path));
  CHECK_FALSE(fs::exists(dead_folder->path));
  CHECK_FALSE(fs::exists(no_lease));
  CHECK(fs::exists(dir / ".other.tmp-x"));
  CHECK(fs::exists(dir / "plan.tmp-x"));
}

}  // namespace dsanalyze
