// megatron_gpt (megatron_gpt.h says what its samples are).
#include "dataset/megatron_gpt.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "dataset/open_dataset.h"
#include "dataset/token_files.h"
#include "format/npy.h"
#include "util/huge_pages.h"

namespace dsanalyze {
namespace {

// "KEY: PATH: what", for a problem in map `a`.
Status MapError(const std::string& key, const NpyArray& a, const std::string& what) {
  return Status::BadInput(key + ": " + a.path() + ": " + what);
}

// "sample_idx[k] = (position, offset)", for messages.
std::string SampleIdxRow(uint64_t k, int64_t position, int64_t offset) {
  return "sample_idx[" + std::to_string(k) + "] = (" + std::to_string(position) + ", " +
         std::to_string(offset) + ")";
}

}  // namespace

std::string MegatronGptDataset::Describe() const {
  return "megatron_gpt " + std::to_string(size()) + " samples" +
         (uniform_length_ != 0 ? " of " + std::to_string(uniform_length_) + " tokens" : "") +
         " from " + file_.prefix() + " (" + std::string(DTypeName(dtype())) + ", " +
         std::string(CodeTableName(table_)) + " codes), doc_idx " + doc_idx_.path();
}

void MegatronGptDataset::AppendDocumentPieces(uint64_t i, std::vector<DocumentPiece>* out) const {
  const uint64_t j = SampleAt(i);
  const Cut a = Start(j), b = Start(j + 1);
  for (uint64_t p = a.position; p <= b.position; ++p) {
    const uint64_t lo = p == a.position ? a.offset : 0;
    const uint64_t hi = p == b.position ? b.offset + extra_ : RowSize(p);
    if (hi > lo) out->push_back({Row(p), hi - lo});
  }
}

void MegatronGptDataset::WillReadEverySample() const {
  const ElementView tokens = file_.elements();
  AdviseHugePages(tokens.data, tokens.count * ItemSize(tokens.dtype));
}

double MegatronGptDataset::Epochs() const {
  std::vector<bool> named(file_.num_rows());
  uint64_t documents = 0;
  for (uint64_t p = 0; p < doc_idx_.size(); ++p) {
    const uint64_t row = Row(p);
    documents += !named[row];
    named[row] = true;
  }
  return static_cast<double>(doc_idx_.size()) / static_cast<double>(documents);
}

std::byte* MegatronGptDataset::CopySample(uint64_t j, std::byte* out) const {
  const Cut a = Start(j), b = Start(j + 1);
  const size_t itemsize = ItemSize(file_.dtype());
  for (uint64_t p = a.position; p <= b.position; ++p) {
    const ElementView row = file_.row(Row(p));
    const uint64_t lo = p == a.position ? a.offset : 0;
    const uint64_t hi = p == b.position ? b.offset + extra_ : row.count;
    if (hi <= lo) continue;
    std::memcpy(out, row.data + lo * itemsize, (hi - lo) * itemsize);
    out += (hi - lo) * itemsize;
  }
  return out;
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
                           CheckSample(key, {k - 1, samples}, previous, cut, seq_length));
      if (k == 1) common_length = length;
      uniform = uniform && length == common_length;
    }
    previous = cut;
  }
  uniform_length_ = uniform ? common_length : 0;
  return Status::OK();
}

// Row k of sample_idx as a cut, once it lies inside doc_idx and its row. Row 0
// only starts a sample, so its offset may equal the row size; so may any row's
// without the extra token, whose end offset is exclusive.
Result<Cut> MegatronGptDataset::CheckCut(const std::string& key, uint64_t k) const {
  const int64_t position = sample_idx_.at(2 * k), offset = sample_idx_.at(2 * k + 1);
  if (position < 0 || static_cast<uint64_t>(position) >= doc_idx_.size())
    return MapError(key, sample_idx_,
                    SampleIdxRow(k, position, offset) + ": position " + std::to_string(position) +
                        " is outside doc_idx, which has " + std::to_string(doc_idx_.size()) +
                        " entries");
  const Cut cut{static_cast<uint64_t>(position), static_cast<uint64_t>(offset)};
  const uint64_t size = RowSize(cut.position);
  if (offset < 0 || cut.offset > size || (k > 0 && cut.offset + extra_ > size))
    return MapError(key, sample_idx_,
                    SampleIdxRow(k, position, offset) + ": offset " + std::to_string(offset) +
                        " is outside row " + std::to_string(Row(cut.position)) + " of " +
                        file_.prefix() + ", which has " + std::to_string(size) + " tokens");
  return cut;
}

// Sample k.first (of k.second) runs from `start` to `end`, not backwards;
// returns its length, which must be seq_length + extra_ when seq_length != 0,
// except for a last sample that ends where doc_idx ends (Core pads it).
Result<uint64_t> MegatronGptDataset::CheckSample(const std::string& key,
                                                 std::pair<uint64_t, uint64_t> k, Cut start,
                                                 Cut end, uint64_t seq_length) const {
  const uint64_t j = k.first;
  if (end.position < start.position ||
      (end.position == start.position && end.offset < start.offset))
    return MapError(
        key, sample_idx_,
        SampleIdxRow(j + 1, static_cast<int64_t>(end.position), static_cast<int64_t>(end.offset)) +
            " comes before the start of sample " + std::to_string(j) +
            " in doc_idx order (sample_idx[" + std::to_string(j) + "] = (" +
            std::to_string(start.position) + ", " + std::to_string(start.offset) + "))");
  const uint64_t length = Length(start, end);
  const uint64_t full = seq_length + extra_;
  const bool padded_last = j + 1 == k.second && end.position + 1 == doc_idx_.size() &&
                           end.offset + extra_ == RowSize(end.position) && length > 0 &&
                           length < full;
  if ((seq_length != 0 && length != full && !padded_last) || length == 0)
    return MapError(key, sample_idx_,
                    "sample " + std::to_string(j) + " (sample_idx rows " + std::to_string(j) +
                        " to " + std::to_string(j + 1) + ") has " + std::to_string(length) +
                        " tokens, but seq_length" + (extra_ ? " + 1" : "") + " = " +
                        std::to_string(full) +
                        (extra_ ? "" : " (add_extra_token_to_sequence is false)"));
  return length;
}

std::unique_ptr<SampleReader> MegatronGptDataset::NewReader() const {
  const auto locate = [this](uint64_t i) { return GptSample{this, SampleAt(i)}; };
  return std::make_unique<GptSampleReader<decltype(locate)>>(size(), dtype(), locate);
}

Result<std::unique_ptr<MegatronGptDataset>> MegatronGptDataset::Open(
    const MegatronGptConfig& config, const std::vector<int64_t>& ignore,
    const std::string& key_path) {
  DSA_ASSIGN_OR_RETURN(IndexedDataset file,
                       OpenTokenFile(config.prefix, config.dtype_codes, key_path + ".prefix"));
  // With index_prefix the three paths derive from it; messages name the key the user wrote.
  const bool derived = !config.index_prefix.empty();
  const std::string keys[3] = {key_path + (derived ? ".index_prefix" : ".doc_idx"),
                               key_path + (derived ? ".index_prefix" : ".sample_idx"),
                               key_path + (derived ? ".index_prefix" : ".shuffle_idx")};
  const std::string* paths[3] = {&config.doc_idx, &config.sample_idx, &config.shuffle_idx};
  NpyArray maps[3];
  for (int m = 0; m < 3; ++m) {
    Result<NpyArray> a = NpyArray::Open(*paths[m]);
    if (!a.ok()) return a.status().WithPrefix(keys[m]);
    maps[m] = std::move(a).value();
  }
  std::unique_ptr<MegatronGptDataset> ds(new MegatronGptDataset(
      std::move(file), std::move(maps[0]), std::move(maps[1]), std::move(maps[2]),
      config.dtype_codes, SortedUnique(ignore), config.add_extra_token));
  DSA_RETURN_IF_ERROR(ds->Validate(config.seq_length, keys));
  return ds;
}

Result<std::unique_ptr<Dataset>> OpenType(const MegatronGptConfig& config,
                                          const std::vector<int64_t>& ignore) {
  DSA_ASSIGN_OR_RETURN(std::unique_ptr<MegatronGptDataset> ds,
                       MegatronGptDataset::Open(config, ignore, "dataset"));
  return std::unique_ptr<Dataset>(std::move(ds));
}

}  // namespace dsanalyze
