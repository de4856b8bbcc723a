// The config's "memory" section: ParseConfig, ConfigToJson, ScratchDirOf and
// the run-start CheckMemoryConfig.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "config/config.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using nlohmann::json;

constexpr uint64_t kMiB = uint64_t{1} << 20, kGiB = uint64_t{1} << 30;

json WithMemory(const char* memory) {
  json j = json::parse(R"({"dataset": {"type": "synthetic_mod", "num_samples": 100},
    "metrics": [{"name": "mod", "metric": "value"}], "output": {"path": "out"}})");
  j["memory"] = json::parse(memory);
  return j;
}

MemoryConfig MemoryOf(const char* memory) {
  Result<Config> c = ParseConfig(WithMemory(memory));
  INFO(memory);
  REQUIRE(c.ok());
  return c->memory;
}

std::string ErrorOf(const char* memory) {
  Result<Config> c = ParseConfig(WithMemory(memory));
  INFO(memory);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == Status::Code::kBadInput);
  CHECK(c.status().message().find('\n') == std::string::npos);
  return c.status().message();
}

// Sets an environment variable for the scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_CASE("memory config: no section, or an empty one, means no limit", "[config]") {
  Result<Config> c = ParseConfig(WithMemory("{}"));
  REQUIRE(c.ok());
  CHECK(c->memory == MemoryConfig{});
  json none = WithMemory("{}");
  none.erase("memory");
  Result<Config> d = ParseConfig(none);
  REQUIRE(d.ok());
  CHECK(d->memory.limit_per_rank == 0);
  CHECK(d->memory.scratch.empty());
  CHECK_FALSE(ConfigToJson(*d).contains("memory"));
  CHECK_FALSE(ConfigToJson(*c).contains("memory"));
}

TEST_CASE("memory config: limit_per_rank as a size string or an integer", "[config]") {
  CHECK(MemoryOf(R"({"limit_per_rank": "2GiB"})").limit_per_rank == 2 * kGiB);
  CHECK(MemoryOf(R"({"limit_per_rank": "512MiB"})").limit_per_rank == 512 * kMiB);
  CHECK(MemoryOf(R"({"limit_per_rank": "1.5GiB"})").limit_per_rank == 3 * kGiB / 2);
  CHECK(MemoryOf(R"({"limit_per_rank": "100MB"})").limit_per_rank == 100000000);
  CHECK(MemoryOf(R"({"limit_per_rank": "1GB"})").limit_per_rank == 1000000000);
  CHECK(MemoryOf(R"({"limit_per_rank": "65536KiB"})").limit_per_rank == 64 * kMiB);
  CHECK(MemoryOf(R"({"limit_per_rank": "67108864B"})").limit_per_rank == 64 * kMiB);
  CHECK(MemoryOf(R"({"limit_per_rank": "2gib"})").limit_per_rank == 2 * kGiB);
  CHECK(MemoryOf(R"({"limit_per_rank": "1024TiB"})").limit_per_rank == uint64_t{1} << 50);
  CHECK(MemoryOf(R"({"limit_per_rank": 2147483648})").limit_per_rank == 2 * kGiB);
  CHECK(MemoryOf(R"({"limit_per_rank": 2e9})").limit_per_rank == 2000000000);
  const MemoryConfig m = MemoryOf(R"({"limit_per_rank": "1GiB", "scratch": "/local/tmp"})");
  CHECK(m.limit_per_rank == kGiB);
  CHECK(m.scratch == "/local/tmp");
}

TEST_CASE("memory config: limit_per_rank errors name the key and the value", "[config]") {
  const std::string examples = " is not a size (examples: \"2GiB\", \"512MiB\", 2147483648)";
  const std::string path = "config: memory.limit_per_rank: ";
  CHECK(ErrorOf(R"({"limit_per_rank": "2 gigs"})") == path + "\"2 gigs\"" + examples);
  CHECK(ErrorOf(R"({"limit_per_rank": "2048"})") == path + "\"2048\"" + examples);
  CHECK(ErrorOf(R"({"limit_per_rank": "-1GiB"})") == path + "\"-1GiB\"" + examples);
  CHECK(ErrorOf(R"({"limit_per_rank": -5})") == path + "-5" + examples);
  CHECK(ErrorOf(R"({"limit_per_rank": 2.5})") == path + "2.5" + examples);
  CHECK(ErrorOf(R"({"limit_per_rank": true})") == path + "true" + examples);
  CHECK(ErrorOf(R"({"limit_per_rank": null})") == path + "null" + examples);
  CHECK(ErrorOf(R"({"limit_per_rank": ["2GiB"]})") == path + "[\"2GiB\"]" + examples);
  const std::string small =
      " is below the minimum of 64MiB (a smaller budget cannot hold the "
      "sort's buffers)";
  CHECK(ErrorOf(R"({"limit_per_rank": "10MiB"})") == path + "\"10MiB\"" + small);
  CHECK(ErrorOf(R"({"limit_per_rank": "64MB"})") == path + "\"64MB\"" + small);
  CHECK(ErrorOf(R"({"limit_per_rank": "67108863B"})") == path + "\"67108863B\"" + small);
  CHECK(ErrorOf(R"({"limit_per_rank": 0})") == path + "0" + small);
  CHECK(ErrorOf(R"({"limit_per_rank": 1e7})") == path + "10000000.0" + small);
  CHECK(ErrorOf(R"({"limit_per_rank": "0B"})") == path + "\"0B\"" + small);
  const std::string large = " is above the maximum of 1024TiB";
  CHECK(ErrorOf(R"({"limit_per_rank": "1025TiB"})") == path + "\"1025TiB\"" + large);
  CHECK(ErrorOf(R"({"limit_per_rank": 1125899906842625})") == path + "1125899906842625" + large);
  CHECK(ErrorOf(R"({"limit_per_rank": 18446744073709551615})") ==
        path + "18446744073709551615" + large);
  CHECK(ErrorOf(R"({"limit_per_rank": "99999999999999999999TB"})") ==
        path + "\"99999999999999999999TB\"" + large);
}

TEST_CASE("memory config: unknown keys, scratch without a limit, bad scratch", "[config]") {
  CHECK(ErrorOf(R"({"limit": "2GiB"})") ==
        "config: memory: unknown key \"limit\" (did you mean \"limit_per_rank\"?)");
  CHECK(ErrorOf(R"({"scrach": "/tmp", "limit_per_rank": "2GiB"})") ==
        "config: memory: unknown key \"scrach\" (did you mean \"scratch\"?)");
  CHECK(ErrorOf(R"({"scratch": "/tmp"})") ==
        "config: memory.scratch: is set but memory.limit_per_rank is not: the scratch directory "
        "is used only under a memory limit");
  CHECK(ErrorOf(R"({"limit_per_rank": "2GiB", "scratch": ""})") ==
        "config: memory.scratch: expected a non-empty string, got \"\"");
  CHECK(ErrorOf(R"({"limit_per_rank": "2GiB", "scratch": 5})") ==
        "config: memory.scratch: expected a non-empty string, got 5");
  CHECK(ErrorOf(R"("2GiB")") == "config: memory: expected a JSON object {...}, got \"2GiB\"");
  json top = WithMemory("{}");
  top["memroy"] = top["memory"];
  top.erase("memory");
  Result<Config> c = ParseConfig(top);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().message() == "config: unknown key \"memroy\" (did you mean \"memory\"?)");
}

TEST_CASE("memory config: ConfigToJson writes the section only with a limit", "[config]") {
  for (const char* memory :
       {R"({"limit_per_rank": "2GiB"})", R"({"limit_per_rank": "1.3GiB", "scratch": "s"})",
        R"({"limit_per_rank": 100000000})", R"({"limit_per_rank": "4096KiB"})",
        R"({"limit_per_rank": "1024TiB", "scratch": "/local/tmp"})"}) {
    INFO(memory);
    Result<Config> c = ParseConfig(WithMemory(memory));
    if (!c.ok()) {
      CHECK(std::string(memory) == R"({"limit_per_rank": "4096KiB"})");  // 4MiB: too small
      continue;
    }
    const json effective = ConfigToJson(*c);
    REQUIRE(effective.contains("memory"));
    CHECK(effective["memory"]["limit_per_rank"].is_string());
    CHECK(effective["memory"].contains("scratch") == !c->memory.scratch.empty());
    Result<Config> again = ParseConfig(effective);
    REQUIRE(again.ok());
    CHECK(again->memory == c->memory);
    CHECK(ConfigToJson(*again) == effective);
    Result<Config> printed = ParseConfig(json::parse(effective.dump()));
    REQUIRE(printed.ok());
    CHECK(printed->memory == c->memory);
  }
  CHECK(ConfigToJson(*ParseConfig(WithMemory(R"({"limit_per_rank": 2147483648})")))["memory"] ==
        json::parse(R"({"limit_per_rank": "2GiB"})"));
  CHECK(ConfigToJson(*ParseConfig(
            WithMemory(R"({"limit_per_rank": "1.3GiB", "scratch": "s"})")))["memory"] ==
        json::parse(R"({"limit_per_rank": "1395864371B", "scratch": "s"})"));
}

TEST_CASE("memory config: ScratchDirOf is scratch, else TMPDIR, else /tmp", "[config]") {
  MemoryConfig m;
  m.limit_per_rank = kGiB;
  {
    ScopedEnv env("TMPDIR", "/local/scratch");
    CHECK(ScratchDirOf(m) == "/local/scratch");
    m.scratch = "/mine";
    CHECK(ScratchDirOf(m) == "/mine");
    m.scratch.clear();
  }
  {
    ScopedEnv env("TMPDIR", "");
    CHECK(ScratchDirOf(m) == "/tmp");
  }
  {
    ScopedEnv env("TMPDIR", nullptr);
    CHECK(ScratchDirOf(m) == "/tmp");
  }
}

// A config with the given limit, scratch and save path.
Config MemoryRun(uint64_t limit, const std::string& scratch, const std::string& save) {
  Config c;
  c.memory.limit_per_rank = limit;
  c.memory.scratch = scratch;
  c.output.path = save;
  return c;
}

TEST_CASE("memory config: CheckMemoryConfig accepts a writable scratch directory", "[config]") {
  test::ScratchDir dir;
  const std::string save = dir / "save";
  CHECK(CheckMemoryConfig(MemoryRun(0, "", save)).ok());  // no limit: nothing to check
  CHECK(CheckMemoryConfig(MemoryRun(0, dir / "missing", save)).ok());
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, dir.path().string(), save)).ok());
  std::filesystem::create_directory(dir / "saved");
  // A sibling is not inside; missing in an existing folder, it is made as mkdir makes it.
  const mode_t umask = ::umask(027);
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, dir / "saved_scratch", dir / "saved")).ok());
  ::umask(umask);
  CHECK((std::filesystem::status(dir / "saved_scratch").permissions() &
         std::filesystem::perms::all) == std::filesystem::perms(0750));
  {
    ScopedEnv env("TMPDIR", dir.path().c_str());
    CHECK(CheckMemoryConfig(MemoryRun(kGiB, "", save)).ok());
  }
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()),
                      std::filesystem::directory_iterator()) == 2);  // the probes left nothing
  CHECK(std::filesystem::is_empty(dir / "saved_scratch"));
}

TEST_CASE("memory config: CheckMemoryConfig refuses a missing or unusable directory", "[config]") {
  test::ScratchDir dir;
  const std::string save = dir / "save";
  const std::string missing = dir / "nope/scratch";  // a missing parent is not created
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, missing, save)).message() ==
        "config: memory.scratch: scratch " + missing + ": No such file or directory");
  std::ofstream(dir / "file") << "x";
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, dir / "file", save)).message() ==
        "config: memory.scratch: scratch " + dir / "file" + ": not a directory");
  {
    ScopedEnv env("TMPDIR", missing.c_str());
    CHECK(CheckMemoryConfig(MemoryRun(kGiB, "", save)).message() ==
          "config: memory.scratch: scratch " + missing +
              ": No such file or directory (memory.scratch is not set: the default is TMPDIR, "
              "else /tmp)");
  }
  if (::geteuid() != 0) {  // root writes anywhere
    std::filesystem::create_directory(dir / "ro");
    ::chmod((dir / "ro").c_str(), 0500);
    const Status st = CheckMemoryConfig(MemoryRun(kGiB, dir / "ro", save));
    CHECK(st.code() == Status::Code::kBadInput);
    CHECK(st.message().rfind("config: memory.scratch: scratch " + dir / "ro" + ":", 0) == 0);
    ::chmod((dir / "ro").c_str(), 0700);
  }
}

TEST_CASE("memory config: CheckMemoryConfig refuses the save path and inside it", "[config]") {
  test::ScratchDir dir;
  const std::string save = dir / "out";
  std::filesystem::create_directories(save + "/x");
  const std::string never = " (scratch must be node-local working space, never the save path)";
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, save + "/x", save)).message() ==
        "config: memory.scratch: " + save + "/x is inside the save path " + save + never);
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, save + "/not/yet", save)).message() ==
        "config: memory.scratch: " + save + "/not/yet is inside the save path " + save + never);
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, save, save)).message() ==
        "config: memory.scratch: " + save + " is the save path" + never);
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, save + "/x/..", save + "/")).message() ==
        "config: memory.scratch: " + save + "/x/.. is the save path" + never);
  // Through a symbolic link, and a save path that does not exist yet.
  std::filesystem::create_directory_symlink(save + "/x", dir / "link");
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, dir / "link", save)).message() ==
        "config: memory.scratch: " + dir / "link" + " is inside the save path " + save + never);
  CHECK(CheckMemoryConfig(MemoryRun(kGiB, dir / "new/s", dir / "new")).message() ==
        "config: memory.scratch: " + dir / "new/s" + " is inside the save path " + dir / "new" +
            never);
  // Relative paths resolve against the working directory.
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const Status relative = CheckMemoryConfig(MemoryRun(kGiB, "out/x", save));
  std::filesystem::current_path(cwd);
  CHECK(relative.message() ==
        "config: memory.scratch: out/x is inside the save path " + save + never);
}

}  // namespace
}  // namespace dsanalyze
