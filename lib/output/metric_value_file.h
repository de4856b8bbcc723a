// Writing an accumulate metric's metric_value: the one row, its dtype fitted
// to the row's values (output/analysis_layout.h MetricValueDType). The run
// (rank 0, index/gather_write.cc WriteMetricValue) and `dsanalyze merge`
// (merge/merge_metric.cc) both write it here.
//
// An empty row is never written: DeepSpeed's reduce fails on one (rule 6 of
// output/metric_files.h), every metric has an accumulate length of at least
// 1 (metrics/metric.h), and merge refuses inputs with an empty row before it
// writes. Asked to write one anyway, this returns Internal and writes nothing.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "format/indexed_writer.h"
#include "util/status.h"

namespace dsanalyze {

// Writes PREFIX.bin/.idx, one row holding `row`; `options.rows` is set here.
Status WriteMetricValueFile(const std::string& prefix, std::span<const int64_t> row,
                            IndexedWriter::Options options);

}  // namespace dsanalyze
