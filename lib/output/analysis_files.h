// Opening the metric files of a finished analysis, for every command that
// reads one back (the run's reports, verify, compare, curriculum, order,
// merge): the dtype-code table each file is read with, and why a file the
// analysis chose not to write is not there.
//
// The table travels with the analysis: a run writes its files with
// output.dtype_codes and records that in summary.json ("config"), so a
// reader uses the recorded table. A folder without summary.json (a DeepSpeed
// output: DeepSpeed before 0.13.3 wrote the legacy table, later versions the
// current one) is read with the table each file's dtype code and size fit (format/indexed_dataset.h
// DetectCodeTable): for integer files the two DeepSpeed tables disagree only on code 8 (uint64 or
// uint16), which the .bin's size tells apart unless the file is empty, and
// then DeepSpeed's current table is taken (an empty file reads the same).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "output/analysis_folder.h"
#include "util/status.h"

namespace dsanalyze {

// The table a recorded run config (summary.json's "config") wrote its files
// with: its output.dtype_codes, DeepSpeed's current table when the config has
// none (the default is not always written). nullopt for a null config (no
// summary.json): the files are detected one by one.
std::optional<CodeTable> RecordedCodeTable(const nlohmann::json& config);

// Opens PREFIX, an integer metric file of an analysis, with `table` when the
// analysis records one, else with the table the file fits (see above).
Result<IndexedDataset> OpenMetricFile(const std::string& prefix, std::optional<CodeTable> table);

// The same, for a pair of one element a row opened without the pass over its
// rows (IndexedDataset::OpenScalarRows); CheckRows takes the options returned.
Result<IndexedDataset::Options> MetricFileOptions(const std::string& prefix,
                                                  std::optional<CodeTable> table);

// The output.files names (config/config.h kOutputFileChoices) that `files`,
// an analysis's chosen outputs, leaves out among `kinds`, in `kinds` order.
std::vector<std::string_view> LeftOutKinds(const std::vector<std::string>& files,
                                           std::span<const std::string_view> kinds);

// BadInput "PATH: not written: the run's output.files left out A, B" when
// `left_out` is not empty (PATH is a file's path or .bin/.idx prefix); OK
// otherwise. Every command that needs a file of an analysis names the choice
// that left it out this way, instead of a missing file.
Status CheckNotLeftOut(const std::string& path, const std::vector<std::string_view>& left_out);

// S/M/M_<kind> of `analysis`, read from `save_path`: CheckWritten is
// CheckNotLeftOut for that file, and OpenAnalysisFile opens it after that
// check with the analysis's table (OpenMetricFile).
Status CheckWritten(const std::string& save_path, const AnalysisFolder& analysis,
                    const std::string& metric, std::string_view kind);
Result<IndexedDataset> OpenAnalysisFile(const std::string& save_path,
                                        const AnalysisFolder& analysis, const std::string& metric,
                                        std::string_view kind);

}  // namespace dsanalyze
