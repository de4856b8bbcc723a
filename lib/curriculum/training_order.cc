#include "curriculum/training_order.h"

#include <algorithm>

#include "curriculum/bucket_shuffle.h"
#include "curriculum/order_file.h"
#include "curriculum/sorted_ids.h"
#include "output/output_paths.h"
#include "util/interrupt.h"
#include "util/work_split.h"

namespace dsanalyze {
namespace {

// Without buckets the order is written in pieces of this many ids (8 MiB).
constexpr uint64_t kPieceIds = uint64_t{1} << 20;

// Position range of piece p of the order of n ids.
SampleRange Piece(uint64_t n, uint64_t buckets, uint64_t p) {
  if (buckets > 0) return SplitRange({0, n}, buckets, p);
  return {p * kPieceIds, std::min(n, (p + 1) * kPieceIds)};
}

// A metric repeated adds nothing (it cannot break a tie it made) and is most
// likely a typo for another metric, so it is refused rather than ignored.
Status CheckDistinct(const std::vector<std::string>& metrics) {
  for (size_t i = 1; i < metrics.size(); ++i)
    if (std::find(metrics.begin(), metrics.begin() + i, metrics[i]) != metrics.begin() + i)
      return Status::BadInput("--metric " + metrics[i] +
                              " is given twice (each further --metric breaks the ties of the "
                              "ones before it, so a metric can be given once)");
  return Status::OK();
}

}  // namespace

Result<uint64_t> WriteTrainingOrder(const OrderOptions& options) {
  SetInterruptStage("open");
  if (options.metrics.empty()) return Status::BadInput("order: no --metric given");
  DSA_RETURN_IF_ERROR(CheckDistinct(options.metrics));
  DSA_RETURN_IF_ERROR(CheckOutputFile("--out", options.out, {options.analysis}));
  DSA_ASSIGN_OR_RETURN(std::vector<MetricFiles> metrics,
                       OpenOrderMetrics(options.analysis, options.metrics));
  SortedIds ids(std::move(metrics), options.descending);
  const uint64_t n = ids.size();
  if (options.buckets > n)
    return Status::BadInput("--buckets " + std::to_string(options.buckets) +
                            ": more buckets than " + options.analysis + " has samples (" +
                            std::to_string(n) + ")");
  DSA_RETURN_IF_ERROR(CheckInterrupt());
  SetInterruptStage("write");
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<OrderFile> file, OrderFile::Create(options.out, n));
  const uint64_t pieces = options.buckets > 0 ? options.buckets : (n + kPieceIds - 1) / kPieceIds;
  for (uint64_t p = 0; p < pieces; ++p) {
    const std::span<int64_t> piece = file->Buffer(Piece(n, options.buckets, p).size());
    DSA_RETURN_IF_ERROR(ids.Next(piece));
    if (options.buckets > 0) ShuffleBucket(piece, options.seed, p);
    DSA_RETURN_IF_ERROR(file->Append());
    DSA_RETURN_IF_ERROR(CheckInterrupt());
  }
  DisarmInterrupts();  // past the last checkpoint the commit always completes
  DSA_RETURN_IF_ERROR(file->Commit());
  return n;
}

}  // namespace dsanalyze
