#include "curriculum/batch_size.h"

#include <optional>

namespace dsanalyze {
namespace {

using std::to_string;

struct Batch {
  std::optional<int64_t> total, micro, accumulation;
};

// a * b * c, or nullopt when it overflows int64.
std::optional<int64_t> Product(int64_t a, int64_t b, int64_t c) {
  int64_t ab = 0, abc = 0;
  if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc)) return std::nullopt;
  return abc;
}

// _set_batch_related_parameters: the missing values from the given ones.
void Derive(Batch* b, int64_t dp) {
  if (b->total && b->micro && b->accumulation) return;
  if (b->total && b->micro) {
    b->accumulation = *b->total / *b->micro / dp;
  } else if (b->total && b->accumulation) {
    b->micro = *b->total / dp / *b->accumulation;
  } else if (b->micro && b->accumulation) {
    b->total = Product(*b->micro, *b->accumulation, dp);
  } else if (b->total) {
    b->accumulation = 1;
    b->micro = *b->total / dp;
  } else {
    b->accumulation = 1;
    b->total = Product(*b->micro, 1, dp);
  }
}

std::string NoBatch(const DeepSpeedTrainKeys& c, const std::string& file) {
  if (!c.auto_keys.empty())
    return "no global batch size: " + AutoBatchKeys(c, file) + ": give --global-batch-size";
  return "no global batch size: give --global-batch-size (" + file +
         " has neither train_batch_size nor train_micro_batch_size_per_gpu)";
}

}  // namespace

std::string AutoBatchKeys(const DeepSpeedTrainKeys& c, const std::string& file) {
  if (c.train_batch_size || c.train_micro_batch_size_per_gpu || c.auto_keys.empty()) return "";
  std::string autos;
  for (const std::string& key : c.auto_keys) autos += (autos.empty() ? "" : ", ") + key;
  return file + " sets " + autos +
         " to \"auto\", a placeholder the Hugging Face Trainer fills in before DeepSpeed reads "
         "the config";
}

Result<int64_t> DeepSpeedGlobalBatch(const DeepSpeedTrainKeys& c, int64_t dp,
                                     const std::string& file) {
  Batch b{c.train_batch_size, c.train_micro_batch_size_per_gpu, c.gradient_accumulation_steps};
  if (!b.total && !b.micro) return Status::BadInput(NoBatch(c, file));
  const Batch given = b;
  Derive(&b, dp);
  const std::optional<int64_t> product = Product(*b.micro, *b.accumulation, dp);
  if (!b.total || !product)
    return Status::BadInput(file +
                            ": train_micro_batch_size_per_gpu x "
                            "gradient_accumulation_steps x data-parallel size overflows");
  if (*b.micro > 0 && *b.accumulation > 0 && *b.total == *product) return *b.total;
  const auto named = [](const std::optional<int64_t>& was, int64_t now) {
    return to_string(now) + (was ? "" : " (derived)");
  };
  return Status::BadInput(file + ": train_batch_size: " + to_string(*b.total) +
                          " is not train_micro_batch_size_per_gpu " + named(given.micro, *b.micro) +
                          " x gradient_accumulation_steps " +
                          named(given.accumulation, *b.accumulation) + " x data-parallel size " +
                          to_string(dp) + " (--data-parallel-size) = " + to_string(*product) +
                          ", as DeepSpeed requires (_batch_assertion)");
}

}  // namespace dsanalyze
