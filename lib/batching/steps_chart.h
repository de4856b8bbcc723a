// Batch size and learning-rate scale over the training steps of a plan
// (`dsanalyze batches --svg/--html`), in fixed memory however many steps.
//
// StepSeries gathers one (batch size, LR scale) per optimizer step into at
// most 512 columns of equal step width: columns start one step wide, and when
// a step would make column 513, neighbours merge pairwise and the width
// doubles. Each column keeps the min, max and mean of both.
//
// StepsSvg draws it as a standalone SVG (880 x 520, the histograms' style):
// two panels over one training-step axis, samples per batch above and the LR
// scale below, each a min..max band with the mean as a line (a column of one
// step is a line), and the epoch boundaries of a plan of several epochs as
// dashed lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dsanalyze {

class StepSeries {
 public:
  struct Column {
    uint64_t steps = 0;
    int64_t size_min = 0, size_max = 0;
    double size_sum = 0;
    double lr_min = 0, lr_max = 0, lr_sum = 0;
  };
  void Add(int64_t batch_size, double lr_scale);
  uint64_t steps() const { return steps_; }
  // Column c holds steps [c * width, (c + 1) * width), counting from 0.
  uint64_t width() const { return width_; }
  const std::vector<Column>& columns() const { return columns_; }

 private:
  static constexpr size_t kMaxColumns = 512;
  void MergePairs();
  std::vector<Column> columns_;
  uint64_t width_ = 1;
  uint64_t steps_ = 0;
};

struct StepsChart {
  const StepSeries& series;
  uint64_t steps_per_epoch = 0;  // a boundary every this many steps; 0: one epoch
  std::string lr_scaling;        // "linear", "sqrt" or "none", for the axis title
};

// Requires at least one step.
std::string StepsSvg(const StepsChart& chart);

}  // namespace dsanalyze
