// `dsanalyze [run] --config FILE`: the analysis under MPI.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
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
#include "pipeline/run_stages.h"
#include "report/curriculum_config.h"
#include "report/run_digest.h"
#include "util/exception_status.h"
#include "util/file_util.h"
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
  const Result<std::string> read = ReadTextFile(path);  // LoadConfig read it a moment ago
  const std::string bytes = read.ok() ? *read : std::string();
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// --timings: the stages, the dependency pass under the map (which includes
// it), then the stages that run per metric, split by metric; the label
// column is as wide as the longest label (metric names make labels of up to
// ~230 characters), at least 17.
TimingTable RunTimings(const RunSummary& s) {
  TimingTable table;
  for (const StageTime& t : s.stages) {
    table.rows.push_back({t.stage, t});
    if (t.stage == kStageNames[kStageMap] && s.dependency_pass)
      table.rows.push_back({"  dependency pass", *s.dependency_pass});
  }
  if (!s.metric_stages.empty()) table.rows.push_back({"per metric", std::nullopt});
  for (const MetricStageTime& m : s.metric_stages)
    table.rows.push_back({"  " + m.metric + ": " + m.time.stage, m.time});
  table.width = 17;
  for (const TimingTable::Row& row : table.rows)
    if (row.time) table.width = std::max(table.width, static_cast<int>(row.label.size()));
  table.peak_rss_bytes = s.peak_rss_bytes;
  table.peak_anon_bytes = s.peak_anon_bytes;
  return table;
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

// Run's work once MPI is up: the run on this rank, its last line, MPI's end.
int RunOnRank(const RunOptions& options, const Comm& comm, MpiEnvironment& env) {
  if (Status guard = CheckLaunchMode(comm.size()); !guard.ok()) {
    return comm.is_root() ? ReportFailure(guard) : guard.exit_code();
  }
  SetUpLogging(options, comm.rank());
  const Result<WaitPolicy> wait = WaitPolicyFromEnv();
  if (Status bad = comm.AgreeOnStatus(wait.status()); !bad.ok()) {
    return comm.is_root() ? ReportFailure(bad) : bad.exit_code();
  }
  OversubscriptionWarning over;
  HandleOversubscription(comm, spdlog::default_logger()->should_log(spdlog::level::warn), *wait,
                         &over);

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
    if (!over.message.empty()) context.warnings.push_back({over.message, over.fix});
    st = RunPipeline(*config, context, comm, &summary);
  }
  const bool interrupted = st.code() == Status::Code::kInterrupted;
  std::string last_line;  // rank 0's, printed after MPI_Finalize
  if (!st.ok() && comm.is_root()) {
    last_line = FailureLine(st);
  } else if (comm.is_root()) {
    spdlog::info("done: {} samples in {:.3f} s, output in {}", summary.samples,
                 summary.total_seconds, config->output.path);
    if (options.timings) std::fputs(FormatTimings(RunTimings(summary)).c_str(), stderr);
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

}  // namespace

int Run(const RunOptions& options, int argc, char** argv) {
  MpiEnvironment env(&argc, &argv);
  // After MPI_Init, so that nothing in MPI replaces the handlers.
  InstallInterruptHandlers();
  const Comm comm;
  const Comm escape_channel = comm.Duplicate();  // EndJobOnEscape's alone
  // The last resort: an exception that no stage turned into a Status has
  // unwound the run by now (its destructors removed the staging folder and
  // released the lock); it ends the job with one line and exit code 3.
  try {
    return RunOnRank(options, comm, env);
  } catch (...) {
    const Status st =
        StatusOfException(std::current_exception(), "rank " + std::to_string(comm.rank()));
    EndJobOnEscape(escape_channel, FailureLine(st), st.exit_code());
  }
}

}  // namespace dsanalyze::cli
