#include "pipeline/run_state.h"

#include <algorithm>

#include "dataset/sample_ids.h"
#include "output/analysis_layout.h"
#include "util/interrupt.h"

namespace dsanalyze {

SampleSpace DescribeSamples(SampleRange positions, const SampleIds* ids, const Comm& comm) {
  SampleSpace s;
  s.count = positions.size();
  s.range =
      SplitRange(positions, static_cast<uint64_t>(comm.size()), static_cast<uint64_t>(comm.rank()));
  s.local_ids.first_id = static_cast<int64_t>(s.range.begin);
  s.id_min = static_cast<int64_t>(positions.begin);
  s.id_max = static_cast<int64_t>(positions.end) - 1;
  if (ids) {
    s.local_ids.explicit_ids = ids->ids().subspan(s.range.begin, s.range.size());
    s.id_min = ids->min();
    s.id_max = ids->max();
    if (s.count != ids->ids().size()) {  // a sample_range: the ids of its positions
      const std::span<const int64_t> analysed = ids->ids().subspan(positions.begin, s.count);
      const auto [lo, hi] = std::minmax_element(analysed.begin(), analysed.end());
      s.id_min = *lo;
      s.id_max = *hi;
    }
  }
  s.id_dtype = SampleIdDType(s.count, s.id_min, s.id_max);
  return s;
}

void RunState::Begin(const char* interrupt_stage, const std::string& label, uint64_t total,
                     const char* unit) {
  SetInterruptStage(interrupt_stage);
  progress.Begin(label, total, unit);
}

Status RunState::MakeMetricDir(const std::string& metric) {
  Status st;
  if (comm.is_root()) st = staged->MakeMetricDir(metric).status();
  return comm.AgreeOnStatus(st);
}

std::string RunState::FilePrefix(const std::string& metric, std::string_view kind) const {
  return comm.is_root() ? MetricFilePrefix(staged->dir(), metric, kind) : std::string();
}

}  // namespace dsanalyze
