// ReportFailure (cli/command_output.h): the one error line every command
// prints on a failed Status, and the exit code it picks; FormatTimings: the
// --timings table of the run and of merge.
#include "cli/command_output.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <string>

namespace dsanalyze::cli {
namespace {

struct Reported {
  int exit_code;
  std::string stderr_text;
};

// Runs ReportFailure(st) with stderr sent to a temporary file.
Reported Report(const Status& st) {
  std::FILE* capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  std::fflush(stderr);
  const int saved = dup(fileno(stderr));
  dup2(fileno(capture), fileno(stderr));
  const int code = ReportFailure(st);
  std::fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  std::rewind(capture);
  std::string text;
  for (int c; (c = std::fgetc(capture)) != EOF;) text += static_cast<char>(c);
  std::fclose(capture);
  return {code, text};
}

TEST_CASE("cli: ReportFailure prints one line and picks the exit code", "[cli][status]") {
  Reported bad = Report(Status::BadInput("run.json: dataset.path: no such file"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.stderr_text == "dsanalyze: error: run.json: dataset.path: no such file\n");

  Reported io = Report(Status::IoError("out/x.bin: write failed"));
  CHECK(io.exit_code == 3);
  CHECK(io.stderr_text == "dsanalyze: error: out/x.bin: write failed\n");

  Reported internal = Report(Status::Internal("sort: lost a key"));
  CHECK(internal.exit_code == 3);
  CHECK(internal.stderr_text == "dsanalyze: error: sort: lost a key\n");

  Reported plugin = Report(Status::BadInput("x.so: not found").WithPrefix("--plugin"));
  CHECK(plugin.exit_code == 2);
  CHECK(plugin.stderr_text == "dsanalyze: error: --plugin: x.so: not found\n");
}

TEST_CASE("cli: ReportFailure on an interruption exits as the shell reports the signal",
          "[cli][status]") {
  // An interruption is not an error: no "error:" in its line.
  const std::string msg = "interrupted by SIGINT during map; nothing was committed";
  Reported sigint = Report(Status::Interrupted(SIGINT, msg));
  CHECK(sigint.exit_code == 130);
  CHECK(sigint.stderr_text == "dsanalyze: " + msg + "\n");
  CHECK(Report(Status::Interrupted(SIGTERM, "x")).exit_code == 143);
  CHECK(Report(Status::Interrupted(SIGHUP, "x")).exit_code == 129);
}

TEST_CASE("cli: FormatTimings of a run: two columns, a heading, memory per rank",
          "[cli][timings]") {
  TimingTable t;
  t.rows = {{"open", StageTime{"open", 0.0126, 0.5}},
            {"  dependency pass", StageTime{"dependency pass", 1, 2}},
            {"per metric", std::nullopt},
            {"  a_long_metric: sample_to_metric", StageTime{"sample_to_metric", 12.3456, 100}}};
  t.width = 33;
  t.peak_rss_bytes = {3 << 20, 1 << 20};
  t.peak_anon_bytes = {1 << 19, 1 << 18};
  CHECK(FormatTimings(t) ==
        "stage                              rank0 s  slowest s\n"
        "open                                 0.013      0.500\n"
        "  dependency pass                    1.000      2.000\n"
        "per metric\n"
        "  a_long_metric: sample_to_metric   12.346    100.000\n"
        "peak RSS rank 0: 3.0 MiB (anonymous 0.5 MiB)\n"
        "peak RSS rank 1: 1.0 MiB (anonymous 0.2 MiB)\n");
}

TEST_CASE("cli: FormatTimings of one process: one column, a longer label overflows",
          "[cli][timings]") {
  TimingTable t;
  t.width = 24;
  t.one_process = true;
  t.rows = {{"open", StageTime{"open", 0.004, 0.004}},
            {"a_rather_long_metric: merge", StageTime{"a_rather_long_metric: merge", 2.5, 2.5}}};
  t.peak_rss_bytes = {30 << 20};
  t.peak_anon_bytes = {12 << 20};
  CHECK(FormatTimings(t) ==
        "stage                      seconds\n"
        "open                         0.004\n"
        "a_rather_long_metric: merge     2.500\n"
        "peak RSS: 30.0 MiB (anonymous 12.0 MiB)\n");
}

}  // namespace
}  // namespace dsanalyze::cli
