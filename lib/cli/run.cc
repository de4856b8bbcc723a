// `dsanalyze [run] --config FILE`: the analysis under MPI.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "comm/comm.h"
#include "comm/hydra_exit.h"
#include "comm/launch_guard.h"
#include "comm/oversubscription.h"
#include "config/config.h"
#include "output/analysis_files.h"
#include "output/analysis_layout.h"
#include "pipeline/pipeline.h"
#include "pipeline/stage_clock.h"
#include "report/curriculum_config.h"
#include "report/run_digest.h"
#include "util/interrupt.h"

namespace dsanalyze::cli {
namespace {

// Logs go to stderr: rank 0 at the chosen level, other ranks warnings and up.
void SetUpLogging(const RunOptions& o, int rank) {
  auto logger = spdlog::stderr_color_mt("dsanalyze");
  logger->set_pattern(rank == 0 ? "[%H:%M:%S.%e] [%^%l%$] %v"
                                : "[%H:%M:%S.%e] [%^%l%$] [rank " + std::to_string(rank) + "] %v");
  spdlog::level::level_enum level = spdlog::level::from_str(o.log_level);
  if (o.quiet) level = spdlog::level::err;
  if (rank != 0) level = std::max(level, spdlog::level::warn);
  logger->set_level(level);
  spdlog::set_default_logger(logger);
}

// FNV-1a of the config file's bytes: identifies the config in reports.
std::string HashFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// One row of the --timings table, its label padded to `width` (metric names
// make labels of up to ~230 characters).
std::string TimingRow(int width, const std::string& label, const StageTime& t) {
  char line[320];
  std::snprintf(line, sizeof(line), "%-*s %8.3f  %9.3f\n", width, label.c_str(), t.rank0,
                t.slowest);
  return line;
}

std::string MetricStageLabel(const MetricStageTime& m) {
  return "  " + m.metric + ": " + m.time.stage;
}

// The stages, the dependency pass under the map (which includes it), then
// the stages that run per metric, split by metric; the label column is as
// wide as the longest label, at least 17.
void PrintTimings(const RunSummary& s) {
  int width = 17;
  for (const MetricStageTime& m : s.metric_stages)
    width = std::max(width, static_cast<int>(MetricStageLabel(m).size()));
  char line[320];
  std::snprintf(line, sizeof(line), "%-*s %8s  %9s\n", width, "stage", "rank0 s", "slowest s");
  std::string table = line;
  for (const StageTime& t : s.stages) {
    table += TimingRow(width, t.stage, t);
    if (t.stage == kStageNames[kStageMap] && s.dependency_pass)
      table += TimingRow(width, "  dependency pass", *s.dependency_pass);
  }
  if (!s.metric_stages.empty()) table += "per metric\n";
  for (const MetricStageTime& m : s.metric_stages)
    table += TimingRow(width, MetricStageLabel(m), m.time);
  // RSS counts memory-mapped input pages; anonymous memory is what a job needs.
  for (size_t r = 0; r < s.peak_rss_bytes.size(); ++r) {
    std::snprintf(line, sizeof(line), "peak RSS rank %zu: %.1f MiB (anonymous %.1f MiB)\n", r,
                  static_cast<double>(s.peak_rss_bytes[r]) / (1 << 20),
                  static_cast<double>(s.peak_anon_bytes[r]) / (1 << 20));
    table += line;
  }
  std::fputs(table.c_str(), stderr);
}

// What to do next with curriculum_config.json, or why there is none. Users
// paste it as it is: a placeholder schedule length must not go unnoticed.
void AdviseOnCurriculumConfig(const Config& config) {
  std::error_code ec;
  const std::string path =
      (std::filesystem::path(config.output.path) / kCurriculumConfigFile).string();
  if (!std::filesystem::exists(path, ec)) {
    const std::vector<std::string_view> left_out =
        LeftOutKinds(config.output.files, kCurriculumEntryKinds);
    spdlog::info("{}", left_out.empty() ? path + ": not written: no single-value metric has samples"
                                        : CheckNotLeftOut(path, left_out).message());
    return;
  }
  if (config.output.total_curriculum_step == 0)
    spdlog::warn("{}; {}", PlaceholderStepWarning(), PlaceholderStepFix());
  spdlog::info(
      "curriculum_config.json: check it before training: dsanalyze curriculum --analysis {} "
      "--global-batch-size BATCH (or --ds-config your DeepSpeed config)",
      config.output.path);
}

void PrintDigest(const std::string& save_path) {
  Result<std::string> digest = FormatRunDigest(save_path);
  if (digest.ok())
    std::fputs(("metrics:\n" + *digest).c_str(), stderr);
  else
    spdlog::warn("no metric summary: {}", digest.status().message());
}

}  // namespace

int Run(const RunOptions& options, int argc, char** argv) {
  MpiEnvironment env(&argc, &argv);
  // After MPI_Init, so that nothing in MPI replaces the handlers.
  InstallInterruptHandlers();
  const Comm comm;
  if (Status guard = CheckLaunchMode(comm.size()); !guard.ok()) {
    return comm.is_root() ? ReportFailure(guard) : guard.exit_code();
  }
  SetUpLogging(options, comm.rank());
  HandleOversubscription(comm, spdlog::default_logger()->should_log(spdlog::level::warn));

  Status st;
  RunSummary summary;
  // Only rank 0 shows it.
  const ProgressOptions progress =
      ProgressFor({.progress = options.progress, .quiet = options.quiet, .shown = comm.is_root()});
  auto config = LoadConfig(options.config_path);
  st = comm.AgreeOnStatus(config.status());
  if (st.ok()) {
    RunContext context;
    context.config_hash = HashFile(options.config_path);
    context.progress = progress;
    st = RunPipeline(*config, context, comm, &summary);
  }
  const bool interrupted = st.code() == Status::Code::kInterrupted;
  std::string last_line;  // rank 0's, printed after MPI_Finalize
  if (!st.ok() && comm.is_root()) {
    last_line = FailureLine(st);
  } else if (comm.is_root()) {
    spdlog::info("done: {} samples in {:.3f} s, output in {}", summary.samples,
                 summary.total_seconds, config->output.path);
    if (options.timings) PrintTimings(summary);
    if (progress.mode != ProgressMode::kNever) PrintDigest(config->output.path);
    AdviseOnCurriculumConfig(*config);
  }
  // MPICH 4.0's mpiexec passes on an interrupted run's exit code only if
  // rank 0's last line comes after rank 0 has exited (comm/hydra_exit.h).
  const bool after_exit = interrupted && StartedByHydra();
  if (!after_exit) std::fputs(last_line.c_str(), stderr);
  if (FinalizeMayHang(comm)) {
    if (after_exit) std::fputs(last_line.c_str(), stderr);
    ExitWithoutFinalize(comm, st.exit_code());
  }
  env.Finalize();
  if (after_exit && !last_line.empty()) PrintAfterExit(last_line);
  return st.exit_code();
}

}  // namespace dsanalyze::cli
