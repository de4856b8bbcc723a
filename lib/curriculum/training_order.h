// `dsanalyze order`: a whole-dataset training order, easy → hard, for trainers
// without DeepSpeed's curriculum sampler (docs/format.md §2.12).
//
// The output is a permutation of the analysis's sample ids as a 1-D int64
// .npy: the ids sorted by the metrics' values (curriculum/sorted_ids.h), and,
// with K buckets, cut into K equal-count buckets (bucket b = positions
// [floor(b·N/K), floor((b+1)·N/K)), util/work_split.h), each shuffled by the
// seeded Fisher-Yates of curriculum/bucket_shuffle.h; the buckets stay in
// difficulty order. The bytes depend on the index files, the options and the
// seed alone, so not on how many ranks made the analysis.
//
// Memory: one bucket being shuffled and up to two being written (3 · 8 bytes
// · N/K), or pieces of 1M ids without buckets; plus, with several metrics,
// what SortedIds holds. The index files are memory-mapped and read once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "curriculum/bucket_shuffle.h"
#include "curriculum/sorted_ids.h"
#include "util/status.h"

namespace dsanalyze {

struct OrderOptions {
  std::string analysis;              // the save path of a finished analysis
  std::vector<std::string> metrics;  // at least one single-value metric, none twice
  std::string out;                   // the .npy to write
  uint64_t buckets = 0;              // K; 0: no buckets, no shuffle
  uint64_t seed = 0;
  bool descending = false;  // hard → easy; buckets from the hardest
  // `order --megatron-core-cache`: the folder to write a copy of a
  // megatron_core analysis's cache into, its index rewritten to the order
  // (cli/order_core_cache.cc); `out` is then optional.
  std::string megatron_core_cache;
};

// The order as pieces, front to back, for writers of it: the pieces of
// WriteTrainingOrder below (a bucket each with buckets, else 1M ids).
class TrainingOrder {
 public:
  // BadInput, before anything is read, for no metric or one given twice;
  // then for an analysis or metric OpenOrderMetrics refuses, or buckets > N.
  // options.out is not looked at.
  static Result<TrainingOrder> Open(const OrderOptions& options);

  uint64_t size() const { return ids_.size(); }  // N
  uint64_t pieces() const { return pieces_; }
  uint64_t piece_size(uint64_t p) const;
  // Fills `out` (piece_size(p) ids) with piece p; pieces are taken in order.
  // Fill is FillSorted, then Shuffle.
  Status Fill(uint64_t p, std::span<int64_t> out);
  // The next piece before its bucket's shuffle: its ids in difficulty order.
  Status FillSorted(std::span<int64_t> out) { return ids_.Next(out); }
  // Whether pieces are shuffled (buckets given).
  bool shuffles() const { return buckets_ > 0; }
  // Piece p's shuffle (curriculum/bucket_shuffle.h), applied to arrays of
  // piece_size(p) elements: a Fisher-Yates whose swaps do not depend on the
  // contents, so arrays of anything indexed by the piece's ids (T: int64_t
  // or unsigned) move together as its ids do.
  template <class... T>
  void Shuffle(uint64_t p, std::span<T>... a) const {
    if (buckets_ > 0) ShuffleTogether(seed_, p, a...);
  }

 private:
  TrainingOrder(SortedIds ids, uint64_t buckets, uint64_t seed);

  SortedIds ids_;
  uint64_t buckets_;
  uint64_t seed_;
  uint64_t pieces_;
};

// Writes the order to options.out (through a hidden temporary file beside it,
// renamed at the end: curriculum/order_file.h) and returns the number of
// samples N. A signal caught before the rename (util/interrupt.h, checked
// after the inputs are open and after each piece) is Status::Interrupted,
// with nothing left at out. BadInput, before anything is read, for no metric
// or one given twice, or an `out` that output/output_paths.h CheckOutputFile
// refuses (in a missing folder, inside the analysis or any other); before
// anything is written, for an analysis or metric OpenOrderMetrics refuses, or
// buckets > N; IoError when writing fails (then no file is left at out).
Result<uint64_t> WriteTrainingOrder(const OrderOptions& options);

}  // namespace dsanalyze
