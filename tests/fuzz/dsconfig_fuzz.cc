// Fuzz target for the DeepSpeed-config reader (curriculum/ds_config.h), as
// `dsanalyze curriculum` (ReadDeepSpeedCurriculum) and `dsanalyze batches`
// (ResolveBatchParams with --ds-config, batching/batch_params.h) use it.
//
// Input: the text of a DeepSpeed config. The target runs both readers on it
// and checks:
//  - a refused config gives one BadInput line; the curriculum reader's names
//    the file, the batches reader's names the file or is one of its "no ..."
//    lines (a value neither the config nor a flag gives);
//  - an accepted curriculum has metrics, each with min <= max and a schedule
//    of the documented shape, and DeepSpeed's schedule model (DifficultyAt,
//    UpdateDifficulty, ScheduleEnd) gives at most max_difficulty (fixed_discrete:
//    one of its difficulties) at the steps a replay reaches, up to
//    train_iters and INT64_MAX (UBSan checks the arithmetic on the way);
//  - accepted batch parameters satisfy the rule's documented bounds.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "batching/batch_params.h"
#include "curriculum/ds_config.h"
#include "fuzz_support.h"

namespace dsanalyze {
namespace {

constexpr int64_t kMaxStep = std::numeric_limits<int64_t>::max();

void CheckError(const Status& status, const std::string& path, bool batches) {
  const std::string& m = status.message();
  FUZZ_CHECK(status.code() == Status::Code::kBadInput, "a bad config is bad input: " + m);
  FUZZ_CHECK(m.rfind(path + ": ", 0) == 0 || (batches && m.rfind("no ", 0) == 0),
             "the error names the file: " + m);
  FUZZ_CHECK(m.find('\n') == std::string::npos, "the error is one line: " + m);
}

void CheckSchedule(const Schedule& s, std::optional<int64_t> train_iters) {
  FUZZ_CHECK(s.min_difficulty <= s.max_difficulty, "min <= max");
  if (s.type == ScheduleType::kFixedDiscrete) {
    FUZZ_CHECK(!s.max_steps.empty() && s.difficulties.size() == s.max_steps.size() + 1,
               "fixed_discrete: n + 1 difficulties for n >= 1 max_steps");
  } else {
    FUZZ_CHECK(s.total_curriculum_step >= 1 && s.difficulty_step >= 1, "steps >= 1");
    FUZZ_CHECK(s.root_degree > 0, "root_degree > 0");
  }
  const int64_t end = ScheduleEnd(s);
  const int64_t steps[] = {
      1, 2, end - 1, end, end + (end < kMaxStep ? 1 : 0), train_iters.value_or(1), kMaxStep};
  int64_t current = s.min_difficulty;
  for (int64_t step : steps) {
    if (step < 1) continue;
    const int64_t d = DifficultyAt(s, step);
    const std::string at = "the difficulty at step " + std::to_string(step);
    if (s.type == ScheduleType::kFixedDiscrete)
      FUZZ_CHECK(std::find(s.difficulties.begin(), s.difficulties.end(), d) != s.difficulties.end(),
                 at + " is one of the difficulties");
    else
      FUZZ_CHECK(d <= s.max_difficulty, at + " is at most max_difficulty");
    current = UpdateDifficulty(s, current, step);
    (void)Settled(s, current, step);
  }
}

void CheckCurriculum(const std::string& path) {
  Result<DeepSpeedCurriculum> c = ReadDeepSpeedCurriculum(path);
  if (!c.ok()) return CheckError(c.status(), path, false);
  FUZZ_CHECK(!c->metrics.empty(), "an accepted curriculum has metrics");
  FUZZ_CHECK(!c->legacy || c->metrics.size() == 1, "the legacy curriculum is one metric");
  for (const CurriculumMetricConfig& m : c->metrics) {
    FUZZ_CHECK(m.clustering_type == ClusteringType::kSingleCluster ||
                   !m.index_to_sample_path.empty() || c->legacy,
               "schedule_based metrics name their index_to_sample");
    CheckSchedule(m.schedule, c->train_iters);
  }
}

void CheckBatches(const std::string& path, uint8_t dp) {
  BatchesRequest r;
  r.ds_config = path;
  r.analysis = "analysis";
  r.data_parallel_size = 1 + dp % 8;
  Result<BatchParams> p = ResolveBatchParams(r);
  if (!p.ok()) return CheckError(p.status(), path, true);
  const BatchingRule& rule = p->rule;
  FUZZ_CHECK(rule.max_tokens >= 1 && rule.effective_batch_size >= 1, "positive rule");
  FUZZ_CHECK(rule.min_batch_size >= 0 && rule.max_batch_size >= 0, "non-negative bounds");
  FUZZ_CHECK(rule.max_batch_size == 0 || rule.min_batch_size <= rule.max_batch_size,
             "min_batch_size <= max_batch_size");
}

}  // namespace
}  // namespace dsanalyze

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dsanalyze;
  const std::string path = fuzz::ScratchDir() + "/ds_config.json";
  fuzz::WriteFileOrDie(path, data, size);
  CheckCurriculum(path);
  CheckBatches(path, size == 0 ? 0 : data[size - 1]);
  return 0;
}
