// Helpers shared by the unit tests: scratch directories, golden paths, file bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dsanalyze::test {

// DeepSpeed's reference outputs and inputs (tests/golden/README.md), as the
// build lays them out (tests/CMakeLists.txt).
std::filesystem::path GoldenDir();
// The dsanalyze executable under test.
std::string BinaryPath();

// A fresh directory under the system temp dir, removed (recursively) on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::vector<uint8_t> ReadBytes(const std::filesystem::path& p);
void WriteBytes(const std::filesystem::path& p, const std::vector<uint8_t>& bytes);

// Runs a shell command, returns its exit status (0..255) and captured stdout+stderr.
struct CommandResult {
  int exit_code;
  std::string output;
};
CommandResult RunCommand(const std::string& command);

// summary.json of a dsanalyze run of the seed benchmark, reduced to the metric list.
inline constexpr const char* kSeedmodSummary =
    R"({"metrics": {"batch_sum": {"type": "accumulate_value_over_samples"},
                    "mod": {"type": "single_value_per_sample"}}})";

}  // namespace dsanalyze::test
