// The short per-metric account rank 0 prints at the end of a run (unless
// `--progress never`), read back from the finished save path: the figures
// from summary.json (report.h), the files and bytes from each metric's
// directory. One line per metric of the run (shown here folded after ";"), e.g.
//   mod: 100000 samples, 10000 distinct values, min 0 / median 4999 / max 9999;
//     9 files, 2069412 bytes
//   batch_sum: accumulate, 1 element, sum 499950000, min 499950000 / max 499950000;
//     2 files, 66 bytes
// The median is the nearest-rank p50. A score metric with params.nan adds
// ", 3 NaN scores given value -1" (its summary's score.nan). Bytes count each file once, also the
// hard-linked percentile-merged .bin (the disk space the metric takes).
// Errors: BadInput naming the file when summary.json is missing or invalid.
#pragma once

#include <string>

#include "util/status.h"

namespace dsanalyze {

Result<std::string> FormatRunDigest(const std::string& save_path);

}  // namespace dsanalyze
