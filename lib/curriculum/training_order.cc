#include "curriculum/training_order.h"

#include <algorithm>

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

TrainingOrder::TrainingOrder(SortedIds ids, uint64_t buckets, uint64_t seed)
    : ids_(std::move(ids)),
      buckets_(buckets),
      seed_(seed),
      pieces_(buckets > 0 ? buckets : (ids_.size() + kPieceIds - 1) / kPieceIds) {}

Result<TrainingOrder> TrainingOrder::Open(const OrderOptions& options) {
  if (options.metrics.empty()) return Status::BadInput("order: no --metric given");
  DSA_RETURN_IF_ERROR(CheckDistinct(options.metrics));
  DSA_ASSIGN_OR_RETURN(std::vector<MetricFiles> metrics,
                       OpenOrderMetrics(options.analysis, options.metrics));
  SortedIds ids(std::move(metrics), options.descending);
  if (options.buckets > ids.size())
    return Status::BadInput("--buckets " + std::to_string(options.buckets) +
                            ": more buckets than " + options.analysis + " has samples (" +
                            std::to_string(ids.size()) + ")");
  return TrainingOrder(std::move(ids), options.buckets, options.seed);
}

uint64_t TrainingOrder::piece_size(uint64_t p) const { return Piece(size(), buckets_, p).size(); }

Status TrainingOrder::Fill(uint64_t p, std::span<int64_t> out) {
  DSA_RETURN_IF_ERROR(FillSorted(out));
  Shuffle(p, out);
  return Status::OK();
}

Result<uint64_t> WriteTrainingOrder(const OrderOptions& options) {
  SetInterruptStage("open");
  DSA_RETURN_IF_ERROR(CheckOutputFile("--out", options.out, {options.analysis}));
  DSA_ASSIGN_OR_RETURN(TrainingOrder order, TrainingOrder::Open(options));
  const uint64_t n = order.size();
  DSA_RETURN_IF_ERROR(CheckInterrupt());
  SetInterruptStage("write");
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<OrderFile> file, OrderFile::Create(options.out, n));
  for (uint64_t p = 0; p < order.pieces(); ++p) {
    DSA_RETURN_IF_ERROR(order.Fill(p, file->Buffer(order.piece_size(p))));
    DSA_RETURN_IF_ERROR(file->Append());
    DSA_RETURN_IF_ERROR(CheckInterrupt());
  }
  DisarmInterrupts();  // past the last checkpoint the commit always completes
  DSA_RETURN_IF_ERROR(file->Commit());
  return n;
}

}  // namespace dsanalyze
