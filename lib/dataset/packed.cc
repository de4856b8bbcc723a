// packed: GPT-style fixed-length samples over the concatenated token stream.
//
// The rows of all prefixes, in config order, form one stream of T tokens
// (document boundaries are not marked; the tokenizer's EOD tokens, if any, are
// part of the rows). Sample k is tokens [k·L, k·L + L] of the stream: L + 1
// tokens (inputs plus the shifted label), stride L, so consecutive samples
// share one token, as Megatron's GPTDataset cuts one epoch before shuffling.
// N = (T - 1) div L: an incomplete last sample is dropped, as Megatron does.
//
// Every sample has L + 1 tokens, so lengths-only reads never touch the data.
// Elements are copied into the reader's buffer (samples overlap, so they cannot
// point into the mapping), one memcpy per sample and file it spans.
//
// Documents are the rows of all files in config order. A sample's pieces are
// the rows its window overlaps, each with the overlap's token count (the token
// two samples share counts in both; empty rows are never pieces); the row
// holding the window's first token is found by binary search over the row
// starts, so finding it costs O(log rows) per sample.
#include <algorithm>
#include <cstring>
#include <string>

#include "config/memory_budget.h"
#include "dataset/open_dataset.h"
#include "dataset/token_files.h"

namespace dsanalyze {
namespace {

class PackedDataset : public Dataset {
 public:
  PackedDataset(std::vector<IndexedDataset> files, CodeTable table, uint64_t seq_length,
                std::vector<int64_t> ignore)
      : files_(std::move(files)),
        table_(table),
        seq_length_(seq_length),
        ignore_(std::move(ignore)) {
    starts_.push_back(0);
    row_bases_.push_back(0);
    for (const IndexedDataset& f : files_) {
      starts_.push_back(starts_.back() + f.num_elements());
      row_bases_.push_back(row_bases_.back() + f.num_rows());
    }
    const uint64_t tokens = starts_.back();
    num_samples_ = tokens == 0 ? 0 : (tokens - 1) / seq_length_;
  }

  uint64_t size() const override { return num_samples_; }
  DType dtype() const override { return files_.front().dtype(); }
  std::string Describe() const override {
    return "packed " + std::to_string(files_.size()) + " file(s), " + std::to_string(tokens()) +
           " tokens of " + std::string(DTypeName(dtype())) + " (" +
           std::string(CodeTableName(table_)) + " codes) in " + std::to_string(num_samples_) +
           " samples of " + std::to_string(seq_length_) + "+1, first " + files_.front().prefix();
  }
  std::unique_ptr<SampleReader> NewReader() const override;
  std::span<const int64_t> ignore_token_ids() const override { return ignore_; }
  uint64_t num_documents() const override { return row_bases_.back(); }
  void AppendDocumentPieces(uint64_t k, std::vector<DocumentPiece>* out) const override;

  uint64_t tokens() const { return starts_.back(); }
  uint64_t seq_length() const { return seq_length_; }
  const std::vector<IndexedDataset>& files() const { return files_; }
  // starts()[f] is the stream position of file f's first token; starts().back() == tokens().
  const std::vector<uint64_t>& starts() const { return starts_; }
  // The file holding stream position pos < tokens(): the last one starting at
  // or before it (empty files share their start with the next file and are skipped).
  size_t FileOf(uint64_t pos) const {
    return std::upper_bound(starts_.begin(), starts_.end(), pos) - starts_.begin() - 1;
  }

 private:
  // The row of file f holding its element p < num_elements(): the last row
  // starting at or before p, which is never an empty one.
  uint64_t RowOf(size_t f, uint64_t p) const {
    const IndexedDataset& file = files_[f];
    uint64_t lo = 0, hi = file.num_rows();  // row_begin(lo) <= p < row_begin(hi)
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (file.row_begin(mid) <= p ? lo : hi) = mid;
    }
    return lo;
  }

  std::vector<IndexedDataset> files_;
  CodeTable table_;
  uint64_t seq_length_;
  std::vector<int64_t> ignore_;
  std::vector<uint64_t> starts_;
  std::vector<uint64_t> row_bases_;  // document number of file f's first row; back() == rows
  uint64_t num_samples_ = 0;
};

// Sample k's window [k·L, k·L + L]: from the row holding its first token,
// through the following rows (and files) until its L + 1 tokens are counted.
void PackedDataset::AppendDocumentPieces(uint64_t k, std::vector<DocumentPiece>* out) const {
  uint64_t pos = k * seq_length_, left = seq_length_ + 1;
  size_t f = FileOf(pos);
  uint64_t row = RowOf(f, pos - starts_[f]);
  while (left > 0) {
    if (row == files_[f].num_rows()) {
      ++f;
      row = 0;
      continue;
    }
    const uint64_t n = std::min(left, starts_[f] + files_[f].row_begin(row + 1) - pos);
    if (n > 0) out->push_back({row_bases_[f] + row, n});
    pos += n;
    left -= n;
    ++row;
  }
}

class PackedReader : public SampleReader {
 public:
  explicit PackedReader(const PackedDataset& ds) : ds_(ds) {}

  Status Read(uint64_t begin, uint64_t end, bool need_elements, SampleBatch* batch) override {
    if (begin > end || end > ds_.size())
      return Status::Internal("packed: read of samples [" + std::to_string(begin) + ", " +
                              std::to_string(end) + ") outside [0, " + std::to_string(ds_.size()) +
                              ")");
    const size_t count = static_cast<size_t>(end - begin);
    const uint64_t length = ds_.seq_length() + 1;
    offsets_.resize(count + 1);
    for (size_t i = 0; i <= count; ++i) offsets_[i] = i * length;
    batch->first = begin;
    batch->dtype = ds_.dtype();
    batch->offsets = std::span<const uint64_t>(offsets_.data(), count + 1);
    batch->elements = nullptr;
    if (!need_elements || count == 0) return Status::OK();

    const size_t itemsize = ItemSize(batch->dtype);
    DSA_RETURN_IF_ERROR(GrowBatchCopy(copy_, count, SaturatingProduct(count * length, itemsize)));
    std::byte* out = copy_.data();
    const std::vector<uint64_t>& starts = ds_.starts();
    uint64_t pos = begin * ds_.seq_length();
    size_t f = ds_.FileOf(pos);
    for (size_t i = 0; i < count; ++i, pos += ds_.seq_length()) {
      while (pos >= starts[f + 1]) ++f;
      // A sample lies in at most a few files; copy each file's part in one go.
      uint64_t p = pos, left = length;
      for (size_t g = f; left > 0; ++g) {
        const uint64_t n = std::min(left, starts[g + 1] - p);
        if (n == 0) continue;
        const ElementView all = ds_.files()[g].elements();
        std::memcpy(out, all.data + (p - starts[g]) * itemsize, n * itemsize);
        out += n * itemsize;
        p += n;
        left -= n;
      }
    }
    batch->elements = copy_.data();
    return Status::OK();
  }

 private:
  const PackedDataset& ds_;
  std::vector<uint64_t> offsets_;
  std::vector<std::byte> copy_;
};

std::unique_ptr<SampleReader> PackedDataset::NewReader() const {
  return std::make_unique<PackedReader>(*this);
}

}  // namespace

Result<std::unique_ptr<Dataset>> OpenType(const PackedConfig& config,
                                          const std::vector<int64_t>& ignore) {
  if (config.seq_length == 0)
    return Status::BadInput("config: dataset.seq_length: required for type \"packed\"");
  DSA_ASSIGN_OR_RETURN(std::vector<IndexedDataset> files,
                       OpenTokenFiles(config.prefixes, config.dtype_codes));
  auto ds = std::make_unique<PackedDataset>(std::move(files), config.dtype_codes, config.seq_length,
                                            SortedUnique(ignore));
  if (ds->size() == 0)
    return Status::BadInput("dataset.prefixes: the files hold " + std::to_string(ds->tokens()) +
                            " tokens, fewer than seq_length + 1 = " +
                            std::to_string(config.seq_length + 1) + ", so there are no samples");
  return std::unique_ptr<Dataset>(std::move(ds));
}

}  // namespace dsanalyze
