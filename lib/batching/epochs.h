// `dsanalyze batches --epochs K`: the order of the batches in epochs 2..K.
//
// DeepSpeed replays one fixed plan every epoch, so under the seqlen order
// every epoch is the same short-to-long curriculum. With --epochs K the plan
// holds K epochs back to back: epoch 1 is DeepSpeed's plan, unchanged, and
// each later epoch e holds the same batches (the same micro-batches, so the
// same batch sizes, longest samples and LR scales) in another order:
//
//   p = list(range(B)); random.Random(seed + e - 1).shuffle(p)
//
// where B is epoch 1's batch count and seed the plan's seed; epoch e's j-th
// batch is epoch 1's batch p[j]. Python computes seed + e - 1 exactly, even
// past int64; so does EpochBatchOrder. Memory: 8 bytes a batch.
#pragma once

#include <cstdint>
#include <vector>

namespace dsanalyze {

// p for epoch `epoch` (>= 2) of a plan of `batches` batches made with `seed`.
std::vector<uint64_t> EpochBatchOrder(int64_t seed, int64_t epoch, uint64_t batches);

}  // namespace dsanalyze
