// The Dataset interface: N samples in a fixed iteration order, each a span of
// integers of one dtype, read a batch of consecutive samples at a time.
//
// A Dataset is immutable after creation and may be shared by all map threads;
// each thread makes its own SampleReader, which owns whatever scratch buffers
// non-contiguous samples need. Batches point into the dataset's mapping or the
// reader's buffers and are valid until the next Read on that reader.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "format/indexed_dataset.h"
#include "util/status.h"

namespace dsanalyze {

// Samples [first, first + size()) in iteration order.
struct SampleBatch {
  uint64_t first = 0;
  DType dtype = DType::kI64;
  // Elements of sample i are elements[offsets[i], offsets[i+1]) (element units).
  // `elements` is null when the reader was asked for lengths only.
  const std::byte* elements = nullptr;
  std::span<const uint64_t> offsets;  // size() + 1 entries

  size_t size() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  uint64_t length(size_t i) const { return offsets[i + 1] - offsets[i]; }
  ElementView sample(size_t i) const {
    return {dtype, elements + offsets[i] * ItemSize(dtype), length(i)};
  }
};

// A document's share of one sample: the document (a row of the dataset's
// token files, numbered across the files in config order) and how many of its
// tokens lie inside the sample's window.
struct DocumentPiece {
  uint64_t document = 0;
  uint64_t tokens = 0;
};

class SampleReader {
 public:
  virtual ~SampleReader() = default;
  // Fills `batch` with samples [begin, end). With need_elements false only the
  // lengths (offsets) are required and a reader may skip touching element data.
  virtual Status Read(uint64_t begin, uint64_t end, bool need_elements, SampleBatch* batch) = 0;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual uint64_t size() const = 0;  // number of samples
  virtual DType dtype() const = 0;    // element dtype of every sample
  // A short description for logs ("synthetic_mod N=100000", "documents 2 files ...").
  virtual std::string Describe() const = 0;
  // What the config does not say about the dataset, for summary.json's
  // "dataset" block and `inspect --config`: null for types whose config says
  // it all; megatron_blend's components and the samples drawn from each.
  virtual nlohmann::json DescribeJson() const { return nullptr; }
  // A blend's components in its order (their prefixes; empty for a dataset
  // that is not a blend) and, into `out`, the component of the sample at each
  // of `positions` (each < size(); out as long), for summary.json's
  // per-component statistics. A batch, so that a pass over N samples makes
  // N / batch calls, not N.
  virtual std::vector<std::string> ComponentPrefixes() const { return {}; }
  virtual void ComponentsOf(std::span<const int64_t> /*positions*/, std::span<uint32_t> out) const {
    std::fill(out.begin(), out.end(), 0u);
  }
  virtual std::unique_ptr<SampleReader> NewReader() const = 0;
  // A hint, given before any reader is made, that the run reads every sample
  // (no sample_range). A type whose samples lie at random places in its files
  // may then map them on huge pages (util/huge_pages.h): each random read
  // costs a TLB miss, dear in a virtual machine, and the kernel then reads the
  // file in 2 MiB pieces, which a whole pass reads anyway (not so a shard,
  // which would read far more than its samples). Nothing by default.
  virtual void WillReadEverySample() const {}
  // Token ids that per-token metrics leave out (the config's ignore_token_ids),
  // sorted and without repeats.
  virtual std::span<const int64_t> ignore_token_ids() const { return {}; }

  // Documents, for inputs given per document (the `score` metric): the rows
  // of the token files, numbered across the files in config order. 0 for
  // types whose samples are not cut from documents (synthetic_mod).
  virtual uint64_t num_documents() const { return 0; }
  // Appends to `out` the documents that the sample at iteration position i
  // (i < size()) is cut from, in token order, each with its number of tokens
  // inside the sample's window (pieces with no tokens are left out, but for
  // `documents`, whose sample i is document i even when empty; a document
  // that the window meets twice, as a repeated doc_idx entry can, appears
  // twice). Requires num_documents() > 0. Thread-safe.
  virtual void AppendDocumentPieces(uint64_t /*i*/, std::vector<DocumentPiece>* /*out*/) const {}
};

}  // namespace dsanalyze
