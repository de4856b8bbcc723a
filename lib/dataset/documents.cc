// documents: the rows of one or more MMapIndexedDataset files, one row = one
// sample, files concatenated in config order.
//
// Lengths come from the .idx sizes alone, so a lengths-only read never touches
// the .bin. Elements point into the .bin mapping when a batch lies in one
// file; a batch that crosses a file boundary is copied into the reader's
// buffer (the only case where the rows are not contiguous in memory).
//
// Documents are the samples themselves: sample i is document i, one piece of
// the row's length (none for an empty row).
#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "dataset/open_dataset.h"
#include "dataset/token_files.h"

namespace dsanalyze {
namespace {

class DocumentsDataset : public Dataset {
 public:
  DocumentsDataset(std::vector<IndexedDataset> files, CodeTable table, std::vector<int64_t> ignore)
      : files_(std::move(files)), table_(table), ignore_(std::move(ignore)) {
    starts_.push_back(0);
    for (const IndexedDataset& f : files_) starts_.push_back(starts_.back() + f.num_rows());
  }

  uint64_t size() const override { return starts_.back(); }
  DType dtype() const override { return files_.front().dtype(); }
  std::string Describe() const override {
    return "documents " + std::to_string(files_.size()) + " file(s), " + std::to_string(size()) +
           " rows of " + std::string(DTypeName(dtype())) + " (" +
           std::string(CodeTableName(table_)) + " codes), first " + files_.front().prefix();
  }
  std::unique_ptr<SampleReader> NewReader() const override;
  std::span<const int64_t> ignore_token_ids() const override { return ignore_; }
  uint64_t num_documents() const override { return size(); }
  void AppendDocumentPieces(uint64_t i, std::vector<DocumentPiece>* out) const override {
    const size_t f = FileOf(i);
    const uint64_t tokens = static_cast<uint64_t>(files_[f].row_size(i - starts_[f]));
    out->push_back({i, tokens});  // also when empty: the sample is its document
  }

  const std::vector<IndexedDataset>& files() const { return files_; }
  // The file holding sample i < size(): the last one starting at or before it
  // (empty files share their start with the next file and are skipped).
  size_t FileOf(uint64_t i) const {
    return std::upper_bound(starts_.begin(), starts_.end(), i) - starts_.begin() - 1;
  }
  // starts()[f] is the sample index of file f's first row; starts().back() == size().
  const std::vector<uint64_t>& starts() const { return starts_; }

 private:
  std::vector<IndexedDataset> files_;
  CodeTable table_;
  std::vector<int64_t> ignore_;
  std::vector<uint64_t> starts_;
};

class DocumentsReader : public SampleReader {
 public:
  explicit DocumentsReader(const DocumentsDataset& ds) : ds_(ds) {}

  Status Read(uint64_t begin, uint64_t end, bool need_elements, SampleBatch* batch) override {
    if (begin > end || end > ds_.size())
      return Status::Internal("documents: read of samples [" + std::to_string(begin) + ", " +
                              std::to_string(end) + ") outside [0, " + std::to_string(ds_.size()) +
                              ")");
    const std::vector<uint64_t>& starts = ds_.starts();
    const size_t count = static_cast<size_t>(end - begin);
    offsets_.resize(count + 1);
    offsets_[0] = 0;
    batch->first = begin;
    batch->dtype = ds_.dtype();
    batch->offsets = std::span<const uint64_t>(offsets_.data(), count + 1);
    batch->elements = nullptr;
    if (count == 0) return Status::OK();

    const size_t first_file = ds_.FileOf(begin);
    size_t f = first_file;
    for (uint64_t s = begin; s < end; ++f) {
      const IndexedDataset& file = ds_.files()[f];
      const uint64_t row_end = std::min(end, starts[f + 1]) - starts[f];
      for (uint64_t row = s - starts[f]; row < row_end; ++row, ++s) {
        const size_t i = static_cast<size_t>(s - begin);
        offsets_[i + 1] = offsets_[i] + static_cast<uint64_t>(file.row_size(row));
      }
    }
    if (!need_elements) return Status::OK();

    const size_t last_file = f - 1;
    if (first_file == last_file) {
      batch->elements =
          ds_.files()[first_file].rows(begin - starts[first_file], end - starts[first_file]).data;
      return Status::OK();
    }
    const size_t itemsize = ItemSize(batch->dtype);
    DSA_RETURN_IF_ERROR(GrowBatchCopy(copy_, count, offsets_[count] * itemsize));
    std::byte* out = copy_.data();
    for (size_t g = first_file; g <= last_file; ++g) {
      const uint64_t lo = std::max(begin, starts[g]) - starts[g];
      const uint64_t hi = std::min(end, starts[g + 1]) - starts[g];
      const ElementView v = ds_.files()[g].rows(lo, hi);
      if (v.count == 0) continue;
      std::memcpy(out, v.data, v.count * itemsize);
      out += v.count * itemsize;
    }
    batch->elements = copy_.data();
    return Status::OK();
  }

 private:
  const DocumentsDataset& ds_;
  std::vector<uint64_t> offsets_;
  std::vector<std::byte> copy_;
};

std::unique_ptr<SampleReader> DocumentsDataset::NewReader() const {
  return std::make_unique<DocumentsReader>(*this);
}

}  // namespace

Result<std::unique_ptr<Dataset>> OpenType(const DocumentsConfig& config,
                                          const std::vector<int64_t>& ignore) {
  DSA_ASSIGN_OR_RETURN(std::vector<IndexedDataset> files,
                       OpenTokenFiles(config.prefixes, config.dtype_codes));
  auto ds = std::make_unique<DocumentsDataset>(std::move(files), config.dtype_codes,
                                               SortedUnique(ignore));
  if (ds->size() == 0)
    return Status::BadInput("dataset.prefixes: the files hold no rows, so there are no samples");
  return std::unique_ptr<Dataset>(std::move(ds));
}

}  // namespace dsanalyze
