// Shared by the fuzz targets: a per-process scratch directory for the files
// the readers take by path, and a check that aborts with a message.
//
// The readers under test (IndexedDataset, NpyArray, LoadConfig) open files by
// path, so each target writes its input to a file first. The scratch
// directory lives on /dev/shm when there is one (tmpfs: no disk I/O per
// execution), else under $TMPDIR or /tmp; it is made once per process with
// mkdtemp, so several fuzzer jobs never share files, and removed at exit.
// Not thread-safe: libFuzzer calls LLVMFuzzerTestOneInput from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dsanalyze::fuzz {

// The scratch directory (no trailing slash), created on first use.
const std::string& ScratchDir();

// Creates or truncates `path` and writes `size` bytes; aborts on failure,
// since a target that cannot write its input tests nothing.
void WriteFileOrDie(const std::string& path, const uint8_t* data, size_t size);

// Aborts with "fuzz check failed: <what>" on stderr. An abort is what both
// libFuzzer and the replay driver report as a finding.
[[noreturn]] void Fail(const std::string& what);

}  // namespace dsanalyze::fuzz

// Checks an invariant of the code under test.
#define FUZZ_CHECK(cond, what)                                                           \
  do {                                                                                   \
    if (!(cond)) ::dsanalyze::fuzz::Fail(std::string(#cond) + ": " + std::string(what)); \
  } while (0)
