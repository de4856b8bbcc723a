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
// from its start through the rows in doc_idx order to its end: the end's
// token included with add_extra_token_to_sequence (seq_length + 1 tokens, the
// default), excluded without it (seq_length tokens; the end may then be a
// row's size), as GPTDataset's _query_document_sample_shuffle_indices reads
// them. The last sample may be shorter when it ends at the end of doc_idx:
// Core's padded last validation sample, of which only the real tokens count.
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
//
// The class is in a header because megatron_blend reads its components
// through it, sample by sample (GptSampleReader below serves both types).
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/dataset_types.h"
#include "dataset/dataset.h"
#include "dataset/token_files.h"
#include "format/npy.h"

namespace dsanalyze {

// Where a sample starts or ends: a doc_idx position and a token offset in that row.
struct Cut {
  uint64_t position;
  uint64_t offset;
};

class MegatronGptDataset : public Dataset {
 public:
  // Opens the token file and the maps of `config` and validates them; errors
  // name the keys under `key_path` ("dataset", "dataset.datasets[2]").
  static Result<std::unique_ptr<MegatronGptDataset>> Open(const MegatronGptConfig& config,
                                                          const std::vector<int64_t>& ignore,
                                                          const std::string& key_path);

  uint64_t size() const override { return shuffle_idx_.size(); }
  DType dtype() const override { return file_.dtype(); }
  std::string Describe() const override;
  std::unique_ptr<SampleReader> NewReader() const override;
  void WillReadEverySample() const override;  // the shuffle reads the tokens in random order
  std::span<const int64_t> ignore_token_ids() const override { return ignore_; }
  uint64_t num_documents() const override { return file_.num_rows(); }
  void AppendDocumentPieces(uint64_t i, std::vector<DocumentPiece>* out) const override;

  const std::string& prefix() const { return file_.prefix(); }
  // The epochs its maps span: doc_idx entries per document they name (every
  // document once per epoch in maps Megatron built). Reads all of doc_idx.
  double Epochs() const;

  // The sample at iteration position i: shuffle_idx[i].
  uint64_t SampleAt(uint64_t i) const { return static_cast<uint64_t>(shuffle_idx_.at(i)); }
  uint64_t SampleLength(uint64_t j) const {
    return uniform_length_ != 0 ? uniform_length_ : Length(Start(j), Start(j + 1));
  }
  // Copies sample j's tokens to `out`, returns the end of what was written.
  std::byte* CopySample(uint64_t j, std::byte* out) const;

 private:
  MegatronGptDataset(IndexedDataset file, NpyArray doc_idx, NpyArray sample_idx,
                     NpyArray shuffle_idx, CodeTable table, std::vector<int64_t> ignore,
                     bool extra_token)
      : extra_(extra_token ? 1 : 0),
        file_(std::move(file)),
        doc_idx_(std::move(doc_idx)),
        sample_idx_(std::move(sample_idx)),
        shuffle_idx_(std::move(shuffle_idx)),
        table_(table),
        ignore_(std::move(ignore)) {}

  Cut Start(uint64_t j) const {
    return {static_cast<uint64_t>(sample_idx_.at(2 * j)),
            static_cast<uint64_t>(sample_idx_.at(2 * j + 1))};
  }
  uint64_t Row(uint64_t position) const { return static_cast<uint64_t>(doc_idx_.at(position)); }
  uint64_t RowSize(uint64_t position) const {
    return static_cast<uint64_t>(file_.row_size(Row(position)));
  }
  // Tokens from cut a to cut b, b's token included when extra_ (b at or after a).
  uint64_t Length(Cut a, Cut b) const {
    if (a.position == b.position) return b.offset - a.offset + extra_;
    uint64_t n = RowSize(a.position) - a.offset + b.offset + extra_;
    for (uint64_t p = a.position + 1; p < b.position; ++p) n += RowSize(p);
    return n;
  }

  // Validates the maps against the token file (see the file comment); with
  // seq_length != 0 every sample must have seq_length + extra_ tokens (the
  // last fewer if it ends at the end of doc_idx). `keys` name
  // the config keys of doc_idx, sample_idx and shuffle_idx for messages.
  Status Validate(uint64_t seq_length, const std::string (&keys)[3]);
  // The steps of Validate, in order; `key` is the map's config key.
  Status CheckDocIdx(const std::string& key) const;
  Result<uint64_t> SampleCount(const std::string& key) const;  // from sample_idx's shape
  Status CheckShuffleIdx(const std::string& key, uint64_t samples) const;
  Status CheckSampleIdx(const std::string& key, uint64_t samples, uint64_t seq_length);
  Result<Cut> CheckCut(const std::string& key, uint64_t k) const;
  Result<uint64_t> CheckSample(const std::string& key, std::pair<uint64_t, uint64_t> k, Cut start,
                               Cut end, uint64_t seq_length) const;

  uint64_t extra_;  // 1 with add_extra_token_to_sequence: a sample's end token is its own
  IndexedDataset file_;
  NpyArray doc_idx_;
  NpyArray sample_idx_;
  NpyArray shuffle_idx_;
  CodeTable table_;
  std::vector<int64_t> ignore_;
  uint64_t uniform_length_ = 0;  // the length of every sample, 0 if they differ
};

// A reader of samples that are MegatronGptDataset samples: `locate(p)`
// returns the dataset and the sample j (an index of its sample_idx) at
// iteration position p of the reader's dataset, which has `size` positions.
// megatron_gpt locates p in itself, megatron_blend in one of its components.
struct GptSample {
  const MegatronGptDataset* dataset;
  uint64_t sample;
};

template <class Locate>
class GptSampleReader : public SampleReader {
 public:
  GptSampleReader(uint64_t size, DType dtype, Locate locate)
      : size_(size), dtype_(dtype), locate_(std::move(locate)) {}

  Status Read(uint64_t begin, uint64_t end, bool need_elements, SampleBatch* batch) override {
    if (begin > end || end > size_)
      return Status::Internal("read of samples [" + std::to_string(begin) + ", " +
                              std::to_string(end) + ") outside [0, " + std::to_string(size_) + ")");
    const size_t count = static_cast<size_t>(end - begin);
    offsets_.resize(count + 1);
    offsets_[0] = 0;
    for (size_t i = 0; i < count; ++i) {
      const GptSample s = locate_(begin + i);
      offsets_[i + 1] = offsets_[i] + s.dataset->SampleLength(s.sample);
    }
    batch->first = begin;
    batch->dtype = dtype_;
    batch->offsets = std::span<const uint64_t>(offsets_.data(), count + 1);
    batch->elements = nullptr;
    if (!need_elements || count == 0) return Status::OK();

    DSA_RETURN_IF_ERROR(GrowBatchCopy(copy_, count, offsets_[count] * ItemSize(dtype_)));
    std::byte* out = copy_.data();
    for (size_t i = 0; i < count; ++i) {
      const GptSample s = locate_(begin + i);
      out = s.dataset->CopySample(s.sample, out);
    }
    batch->elements = copy_.data();
    return Status::OK();
  }

 private:
  uint64_t size_;
  DType dtype_;
  Locate locate_;
  std::vector<uint64_t> offsets_;
  std::vector<std::byte> copy_;
};

}  // namespace dsanalyze
