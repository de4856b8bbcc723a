// Replays fuzz inputs without libFuzzer, so that the normal test suite (and
// its sanitizer build) runs every corpus and regression file through a target.
//
// Usage: fuzz_replay_<target> DIR_OR_FILE...
// Calls LLVMFuzzerTestOneInput once per file (directories are read in sorted
// order, not recursively) and prints how many files ran. A finding aborts the
// process inside the target, naming the check; the file being replayed is
// printed first so the failure points at it. Exits 1 if an argument cannot be
// read, or if no input at all was found (a missing corpus must not pass).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool ReadFile(const std::filesystem::path& path, std::vector<uint8_t>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> in_dir;
      for (const fs::directory_entry& e : fs::directory_iterator(arg))
        if (e.is_regular_file()) in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: not a file or directory\n", argv[i]);
      return 1;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "no inputs found\n");
    return 1;
  }
  std::vector<uint8_t> data;
  for (const fs::path& f : files) {
    if (!ReadFile(f, &data)) {
      std::fprintf(stderr, "%s: cannot read\n", f.c_str());
      return 1;
    }
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", f.c_str(), data.size());
    LLVMFuzzerTestOneInput(data.data(), data.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
