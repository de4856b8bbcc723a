// synthetic_mod: the seed benchmark's dataset (format.md §4). Sample x is the
// single int64 (x + offset) mod modulus; nothing is stored, samples are
// generated into the reader's buffer.
#include <limits>
#include <string>

#include "dataset/open_dataset.h"

namespace dsanalyze {
namespace {

class SyntheticModDataset : public Dataset {
 public:
  SyntheticModDataset(const SyntheticModConfig& c, const std::vector<int64_t>& ignore)
      : n_(c.num_samples), modulus_(c.modulus), offset_(c.offset), ignore_(SortedUnique(ignore)) {}

  uint64_t size() const override { return n_; }
  DType dtype() const override { return DType::kI64; }
  std::string Describe() const override {
    return "synthetic_mod N=" + std::to_string(n_) + " (x + " + std::to_string(offset_) + ") % " +
           std::to_string(modulus_);
  }
  std::unique_ptr<SampleReader> NewReader() const override;
  std::span<const int64_t> ignore_token_ids() const override { return ignore_; }

  // Python's (x + offset) % modulus: in [0, modulus) whatever the signs.
  int64_t ValueOf(uint64_t x) const {
    const __int128 r = (static_cast<__int128>(x) + offset_) % modulus_;
    return static_cast<int64_t>(r < 0 ? r + modulus_ : r);
  }
  int64_t modulus() const { return modulus_; }

 private:
  uint64_t n_;
  int64_t modulus_;
  int64_t offset_;
  std::vector<int64_t> ignore_;
};

// Every sample has one element, so offsets are always 0, 1, 2, ...: the
// buffers only grow, to the largest batch read.
class SyntheticModReader : public SampleReader {
 public:
  explicit SyntheticModReader(const SyntheticModDataset& ds) : ds_(ds) {}

  Status Read(uint64_t begin, uint64_t end, bool need_elements, SampleBatch* batch) override {
    if (begin > end || end > ds_.size())
      return Status::Internal("synthetic_mod: read of samples [" + std::to_string(begin) + ", " +
                              std::to_string(end) + ") outside [0, " + std::to_string(ds_.size()) +
                              ")");
    const size_t count = static_cast<size_t>(end - begin);
    while (offsets_.size() < count + 1) offsets_.push_back(offsets_.size());
    batch->first = begin;
    batch->dtype = DType::kI64;
    batch->offsets = std::span<const uint64_t>(offsets_.data(), count + 1);
    batch->elements = nullptr;
    if (!need_elements) return Status::OK();

    if (values_.size() < count) values_.resize(count);
    const int64_t modulus = ds_.modulus();
    int64_t v = ds_.ValueOf(begin);
    for (size_t i = 0; i < count; ++i) {
      values_[i] = v;
      if (++v == modulus) v = 0;
    }
    batch->elements = reinterpret_cast<const std::byte*>(values_.data());
    return Status::OK();
  }

 private:
  const SyntheticModDataset& ds_;
  std::vector<uint64_t> offsets_;
  std::vector<int64_t> values_;
};

std::unique_ptr<SampleReader> SyntheticModDataset::NewReader() const {
  return std::make_unique<SyntheticModReader>(*this);
}

}  // namespace

Result<std::unique_ptr<Dataset>> OpenType(const SyntheticModConfig& config,
                                          const std::vector<int64_t>& ignore) {
  if (config.num_samples == 0)
    return Status::BadInput("config: dataset.num_samples: the dataset is empty (0 samples)");
  if (config.num_samples > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return Status::BadInput("config: dataset.num_samples: " + std::to_string(config.num_samples) +
                            " samples do not have int64 ids");
  if (config.modulus < 1)
    return Status::BadInput("config: dataset.modulus: must be at least 1, got " +
                            std::to_string(config.modulus));
  return std::unique_ptr<Dataset>(std::make_unique<SyntheticModDataset>(config, ignore));
}

}  // namespace dsanalyze
