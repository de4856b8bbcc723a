#include "curriculum/proposal_chart.h"

#include <algorithm>
#include <filesystem>

#include "curriculum/curriculum_check.h"
#include "curriculum/curriculum_page.h"
#include "curriculum/curriculum_svg.h"
#include "output/analysis_layout.h"

namespace dsanalyze {
namespace {

// `path` (under save_path) at the same place under dir; empty stays empty.
std::string UnderStaging(const std::string& path, const std::string& dir,
                         const std::string& save_path) {
  if (path.empty()) return path;
  return (std::filesystem::path(dir) / std::filesystem::path(path).lexically_relative(save_path))
      .string();
}

}  // namespace

Result<ProposalChart> ReplayProposal(const std::string& dir, const std::string& save_path,
                                     uint64_t samples, CodeTable table) {
  CurriculumReport report;
  report.ds_config = (std::filesystem::path(dir) / kCurriculumConfigFile).string();
  DSA_ASSIGN_OR_RETURN(DeepSpeedCurriculum config, ReadDeepSpeedCurriculum(report.ds_config));
  report.metrics = std::move(config.metrics);
  report.train_steps = 1;
  for (CurriculumMetricConfig& m : report.metrics) {
    m.index_to_sample_path = UnderStaging(m.index_to_sample_path, dir, save_path);
    m.index_to_metric_path = UnderStaging(m.index_to_metric_path, dir, save_path);
    report.train_steps = std::max(report.train_steps, ScheduleEnd(m.schedule));
  }
  report.train_steps_from = TrainStepsFrom::kScheduleEnd;
  report.samples = samples;
  DSA_RETURN_IF_ERROR(ReplayInto(&report, table));
  std::string names;
  for (const CurriculumMetricConfig& m : report.metrics)
    names += (names.empty() ? "" : ", ") + m.name;
  return ProposalChart{
      CurriculumSvg(report),
      "curriculum_config.json proposes a curriculum on " + names + ", replayed here over " +
          std::to_string(report.train_steps) +
          " steps (its total_curriculum_step). Check it with your batch size and training "
          "length: dsanalyze curriculum --analysis SAVE --global-batch-size B --train-steps T.",
      CurriculumFindings(report.warnings)};
}

}  // namespace dsanalyze
