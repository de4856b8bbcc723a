// megatron_gpt: exactly the samples Megatron's GPTDataset feeds training, from
// the index maps it caches next to the data (format.md §3).
//
//   doc_idx      [D]        row of `prefix` at each position of the document order
//   sample_idx   [M + 1, 2] (doc_idx position, token offset) where sample j starts;
//                           sample j ends at row j + 1, that token included
//   shuffle_idx  [M]        training index i -> sample j
//
// The sample at iteration position i is sample shuffle_idx[i], so position
// (and default id) i is Megatron's training index i. A sample's tokens run
// from its start through the rows in doc_idx order to its end, inclusive:
// seq_length + 1 tokens for maps Megatron built (GPTDataset's
// _query_document_sample_shuffle_indices with add_extra_token_to_sequence).
// The maps stay memory-mapped (they can hold billions of entries) and are
// read through NpyArray::at, since Megatron versions store them as int32,
// uint32 or int64.
//
// Open validates every entry the readers use, so reads cannot go out of
// bounds: doc_idx rows exist, sample_idx positions lie in doc_idx and offsets
// within their rows, sample starts never go backwards, shuffle_idx entries
// name samples. It also learns whether all samples have one length, which
// lets lengths-only reads skip walking the maps.
//
// Documents are the rows of the token file. A sample's pieces follow the same
// walk as its tokens: one per doc_idx position from its start cut to its end
// cut, the document being doc_idx[position] (so a row repeated in doc_idx, as
// across epochs, can appear more than once), positions with no tokens left out.
#include <algorithm>
#include <cstring>
#include <string>

#include "dataset/open_dataset.h"
#include "dataset/token_files.h"
#include "format/npy.h"

namespace dsanalyze {
namespace {

// Where a sample starts or ends: a doc_idx position and a token offset in that row.
struct Cut {
  uint64_t position;
  uint64_t offset;
};

class MegatronGptDataset : public Dataset {
 public:
  MegatronGptDataset(IndexedDataset file, NpyArray doc_idx, NpyArray sample_idx,
                     NpyArray shuffle_idx, CodeTable table, std::vector<int64_t> ignore)
      : file_(std::move(file)),
        doc_idx_(std::move(doc_idx)),
        sample_idx_(std::move(sample_idx)),
        shuffle_idx_(std::move(shuffle_idx)),
        table_(table),
        ignore_(std::move(ignore)) {}

  uint64_t size() const override { return shuffle_idx_.size(); }
  DType dtype() const override { return file_.dtype(); }
  std::string Describe() const override {
    return "megatron_gpt " + std::to_string(size()) + " samples" +
           (uniform_length_ != 0 ? " of " + std::to_string(uniform_length_) + " tokens" : "") +
           " from " + file_.prefix() + " (" + std::string(DTypeName(dtype())) + ", " +
           std::string(CodeTableName(table_)) + " codes), doc_idx " + doc_idx_.path();
  }
  std::unique_ptr<SampleReader> NewReader() const override;
  std::span<const int64_t> ignore_token_ids() const override { return ignore_; }
  uint64_t num_documents() const override { return file_.num_rows(); }
  void AppendDocumentPieces(uint64_t i, std::vector<DocumentPiece>* out) const override {
    const uint64_t j = SampleAt(i);
    const Cut a = Start(j), b = Start(j + 1);
    for (uint64_t p = a.position; p <= b.position; ++p) {
      const uint64_t lo = p == a.position ? a.offset : 0;
      const uint64_t hi = p == b.position ? b.offset + 1 : RowSize(p);
      if (hi > lo) out->push_back({Row(p), hi - lo});
    }
  }

  // Validates the maps against the token file (see the file comment); with
  // seq_length != 0 every sample must have seq_length + 1 tokens. `keys` name
  // the config keys of doc_idx, sample_idx and shuffle_idx for messages.
  Status Validate(uint64_t seq_length, const std::string (&keys)[3]);

  // The sample at iteration position i: shuffle_idx[i].
  uint64_t SampleAt(uint64_t i) const { return static_cast<uint64_t>(shuffle_idx_.at(i)); }
  Cut Start(uint64_t j) const {
    return {static_cast<uint64_t>(sample_idx_.at(2 * j)),
            static_cast<uint64_t>(sample_idx_.at(2 * j + 1))};
  }
  uint64_t Row(uint64_t position) const { return static_cast<uint64_t>(doc_idx_.at(position)); }
  uint64_t RowSize(uint64_t position) const {
    return static_cast<uint64_t>(file_.row_size(Row(position)));
  }
  // Tokens from cut a through cut b inclusive (b at or after a).
  uint64_t Length(Cut a, Cut b) const {
    if (a.position == b.position) return b.offset - a.offset + 1;
    uint64_t n = RowSize(a.position) - a.offset + b.offset + 1;
    for (uint64_t p = a.position + 1; p < b.position; ++p) n += RowSize(p);
    return n;
  }
  uint64_t SampleLength(uint64_t j) const {
    return uniform_length_ != 0 ? uniform_length_ : Length(Start(j), Start(j + 1));
  }
  // Copies sample j's tokens to `out`, returns the end of what was written.
  std::byte* CopySample(uint64_t j, std::byte* out) const {
    const Cut a = Start(j), b = Start(j + 1);
    const size_t itemsize = ItemSize(file_.dtype());
    for (uint64_t p = a.position; p <= b.position; ++p) {
      const ElementView row = file_.row(Row(p));
      const uint64_t lo = p == a.position ? a.offset : 0;
      const uint64_t hi = p == b.position ? b.offset + 1 : row.count;
      if (hi <= lo) continue;
      std::memcpy(out, row.data + lo * itemsize, (hi - lo) * itemsize);
      out += (hi - lo) * itemsize;
    }
    return out;
  }

 private:
  // The steps of Validate, in order; `key` is the map's config key.
  Status CheckDocIdx(const std::string& key) const;
  Result<uint64_t> SampleCount(const std::string& key) const;  // from sample_idx's shape
  Status CheckShuffleIdx(const std::string& key, uint64_t samples) const;
  Status CheckSampleIdx(const std::string& key, uint64_t samples, uint64_t seq_length);
  Result<Cut> CheckCut(const std::string& key, uint64_t k) const;
  Result<uint64_t> CheckSample(const std::string& key, uint64_t k, Cut start, Cut end,
                               uint64_t seq_length) const;

  IndexedDataset file_;
  NpyArray doc_idx_;
  NpyArray sample_idx_;
  NpyArray shuffle_idx_;
  CodeTable table_;
  std::vector<int64_t> ignore_;
  uint64_t uniform_length_ = 0;  // the length of every sample, 0 if they differ
};

// "KEY: PATH: what", for a problem in map `a`.
Status MapError(const std::string& key, const NpyArray& a, const std::string& what) {
  return Status::BadInput(key + ": " + a.path() + ": " + what);
}

// "sample_idx[k] = (position, offset)", for messages.
std::string SampleIdxRow(uint64_t k, int64_t position, int64_t offset) {
  return "sample_idx[" + std::to_string(k) + "] = (" + std::to_string(position) + ", " +
         std::to_string(offset) + ")";
}

Status MegatronGptDataset::Validate(uint64_t seq_length, const std::string (&keys)[3]) {
  DSA_RETURN_IF_ERROR(CheckDocIdx(keys[0]));
  DSA_ASSIGN_OR_RETURN(const uint64_t samples, SampleCount(keys[1]));
  DSA_RETURN_IF_ERROR(CheckShuffleIdx(keys[2], samples));
  return CheckSampleIdx(keys[1], samples, seq_length);
}

// doc_idx is a non-empty list of rows of the token file.
Status MegatronGptDataset::CheckDocIdx(const std::string& key) const {
  const uint64_t rows = file_.num_rows();
  if (doc_idx_.shape().size() != 1 || doc_idx_.size() == 0)
    return MapError(key, doc_idx_,
                    "shape " + doc_idx_.shape_string() + "; expected a non-empty 1-D array");
  for (uint64_t p = 0; p < doc_idx_.size(); ++p) {
    const int64_t row = doc_idx_.at(p);
    if (row < 0 || static_cast<uint64_t>(row) >= rows)
      return MapError(key, doc_idx_,
                      "doc_idx[" + std::to_string(p) + "] = " + std::to_string(row) +
                          " is not a row of " + file_.prefix() + " (which has " +
                          std::to_string(rows) + " rows); are the maps from another dataset?");
  }
  return Status::OK();
}

Result<uint64_t> MegatronGptDataset::SampleCount(const std::string& key) const {
  const std::vector<uint64_t>& shape = sample_idx_.shape();
  if (shape.size() != 2 || shape[1] != 2 || shape[0] < 2)
    return MapError(key, sample_idx_,
                    "shape " + sample_idx_.shape_string() +
                        "; expected (samples + 1, 2) with at least one sample");
  return shape[0] - 1;
}

// shuffle_idx has one entry per sample, each naming a sample.
Status MegatronGptDataset::CheckShuffleIdx(const std::string& key, uint64_t samples) const {
  if (shuffle_idx_.shape().size() != 1 || shuffle_idx_.size() != samples)
    return MapError(key, shuffle_idx_,
                    "shape " + shuffle_idx_.shape_string() + " but sample_idx " +
                        sample_idx_.path() + " describes " + std::to_string(samples) +
                        " samples; expected (" + std::to_string(samples) +
                        ",) (are the maps from different builds?)");
  for (uint64_t i = 0; i < samples; ++i) {
    const int64_t j = shuffle_idx_.at(i);
    if (j < 0 || static_cast<uint64_t>(j) >= samples)
      return MapError(key, shuffle_idx_,
                      "shuffle_idx[" + std::to_string(i) + "] = " + std::to_string(j) +
                          " is not a sample (sample_idx describes " + std::to_string(samples) +
                          ")");
  }
  return Status::OK();
}

// Each row of sample_idx ends the sample before it (its token included) and
// starts the next. Also learns whether all samples have one length.
Status MegatronGptDataset::CheckSampleIdx(const std::string& key, uint64_t samples,
                                          uint64_t seq_length) {
  Cut previous{0, 0};
  uint64_t common_length = 0;
  bool uniform = true;
  for (uint64_t k = 0; k <= samples; ++k) {
    DSA_ASSIGN_OR_RETURN(const Cut cut, CheckCut(key, k));
    if (k > 0) {
      DSA_ASSIGN_OR_RETURN(const uint64_t length,
                           CheckSample(key, k - 1, previous, cut, seq_length));
      if (k == 1) common_length = length;
      uniform = uniform && length == common_length;
    }
    previous = cut;
  }
  uniform_length_ = uniform ? common_length : 0;
  return Status::OK();
}

// Row k of sample_idx as a cut, once it lies inside doc_idx and its row. Row 0
// only starts a sample, so its offset may equal the row size.
Result<Cut> MegatronGptDataset::CheckCut(const std::string& key, uint64_t k) const {
  const int64_t position = sample_idx_.at(2 * k), offset = sample_idx_.at(2 * k + 1);
  if (position < 0 || static_cast<uint64_t>(position) >= doc_idx_.size())
    return MapError(key, sample_idx_,
                    SampleIdxRow(k, position, offset) + ": position " + std::to_string(position) +
                        " is outside doc_idx, which has " + std::to_string(doc_idx_.size()) +
                        " entries");
  const Cut cut{static_cast<uint64_t>(position), static_cast<uint64_t>(offset)};
  const uint64_t size = RowSize(cut.position);
  if (offset < 0 || cut.offset > size || (k > 0 && cut.offset == size))
    return MapError(key, sample_idx_,
                    SampleIdxRow(k, position, offset) + ": offset " + std::to_string(offset) +
                        " is outside row " + std::to_string(Row(cut.position)) + " of " +
                        file_.prefix() + ", which has " + std::to_string(size) + " tokens");
  return cut;
}

// Sample k runs from `start` through `end`, not backwards; returns its length,
// which must be seq_length + 1 when seq_length != 0.
Result<uint64_t> MegatronGptDataset::CheckSample(const std::string& key, uint64_t k, Cut start,
                                                 Cut end, uint64_t seq_length) const {
  if (end.position < start.position ||
      (end.position == start.position && end.offset < start.offset))
    return MapError(
        key, sample_idx_,
        SampleIdxRow(k + 1, static_cast<int64_t>(end.position), static_cast<int64_t>(end.offset)) +
            " comes before the start of sample " + std::to_string(k) +
            " in doc_idx order (sample_idx[" + std::to_string(k) + "] = (" +
            std::to_string(start.position) + ", " + std::to_string(start.offset) + "))");
  const uint64_t length = Length(start, end);
  if (seq_length != 0 && length != seq_length + 1)
    return MapError(key, sample_idx_,
                    "sample " + std::to_string(k) + " (sample_idx rows " + std::to_string(k) +
                        " to " + std::to_string(k + 1) + ") has " + std::to_string(length) +
                        " tokens, but seq_length + 1 = " + std::to_string(seq_length + 1));
  return length;
}

class MegatronGptReader : public SampleReader {
 public:
  explicit MegatronGptReader(const MegatronGptDataset& ds) : ds_(ds) {}

  Status Read(uint64_t begin, uint64_t end, bool need_elements, SampleBatch* batch) override {
    if (begin > end || end > ds_.size())
      return Status::Internal("megatron_gpt: read of samples [" + std::to_string(begin) + ", " +
                              std::to_string(end) + ") outside [0, " + std::to_string(ds_.size()) +
                              ")");
    const size_t count = static_cast<size_t>(end - begin);
    offsets_.resize(count + 1);
    offsets_[0] = 0;
    for (size_t i = 0; i < count; ++i)
      offsets_[i + 1] = offsets_[i] + ds_.SampleLength(ds_.SampleAt(begin + i));
    batch->first = begin;
    batch->dtype = ds_.dtype();
    batch->offsets = std::span<const uint64_t>(offsets_.data(), count + 1);
    batch->elements = nullptr;
    if (!need_elements || count == 0) return Status::OK();

    const size_t bytes = offsets_[count] * ItemSize(batch->dtype);
    if (copy_.size() < bytes) copy_.resize(bytes);
    std::byte* out = copy_.data();
    for (size_t i = 0; i < count; ++i) out = ds_.CopySample(ds_.SampleAt(begin + i), out);
    batch->elements = copy_.data();
    return Status::OK();
  }

 private:
  const MegatronGptDataset& ds_;
  std::vector<uint64_t> offsets_;
  std::vector<std::byte> copy_;
};

std::unique_ptr<SampleReader> MegatronGptDataset::NewReader() const {
  return std::make_unique<MegatronGptReader>(*this);
}

}  // namespace

Result<std::unique_ptr<Dataset>> OpenType(const MegatronGptConfig& config,
                                          const std::vector<int64_t>& ignore) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset file,
                       OpenTokenFile(config.prefix, config.dtype_codes, "dataset.prefix"));
  // With index_prefix the three paths derive from it; messages name the key the user wrote.
  const bool derived = !config.index_prefix.empty();
  const std::string keys[3] = {derived ? "dataset.index_prefix" : "dataset.doc_idx",
                               derived ? "dataset.index_prefix" : "dataset.sample_idx",
                               derived ? "dataset.index_prefix" : "dataset.shuffle_idx"};
  const std::string* paths[3] = {&config.doc_idx, &config.sample_idx, &config.shuffle_idx};
  NpyArray maps[3];
  for (int m = 0; m < 3; ++m) {
    Result<NpyArray> a = NpyArray::Open(*paths[m]);
    if (!a.ok()) return a.status().WithPrefix(keys[m]);
    maps[m] = std::move(a).value();
  }
  auto ds = std::make_unique<MegatronGptDataset>(std::move(file), std::move(maps[0]),
                                                 std::move(maps[1]), std::move(maps[2]),
                                                 config.dtype_codes, SortedUnique(ignore));
  DSA_RETURN_IF_ERROR(ds->Validate(config.seq_length, keys));
  return std::unique_ptr<Dataset>(std::move(ds));
}

}  // namespace dsanalyze
