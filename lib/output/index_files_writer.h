// The writer of one metric's index files from its (value, ids) rows in
// ascending value order: index_to_metric (one row per value), index_to_sample
// (the ids of each value) and index_to_sample_percentile_merged (the same ids
// in groups of PercentileStep(distinct) values, analysis_layout.h; its .bin is
// index_to_sample's, linked, not written twice). The run (pipeline/
// gather_write.cc) and `dsanalyze merge` (merge/merge_metric.cc) both write
// through it, so the grouping rule is applied in one place.
//
// Ids may be appended ahead of the row ends that claim them (a chunk of keys
// at once), as IndexedWriter allows. The number of distinct values may be
// given up front (Open) or found as the rows come (OpenDeferred, for writers
// such as an out-of-core sort that learn it only at the end); the files are
// the same byte for byte. Not thread-safe; one writer per file set.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/indexed_writer.h"
#include "util/status.h"

namespace dsanalyze {

// An empty prefix: that file is not written (output.files). The
// percentile-merged file needs index_to_sample (its .bin is a link to it).
struct IndexFilePrefixes {
  std::string index_to_metric;
  std::string index_to_sample;
  std::string percentile_merged;
};

// The prefix of the temporary element file that holds index_to_sample's ids
// when they are written apart from the writer (OpenDeferred, and the ranks'
// own writes, index/group_write.h): its .bin is PREFIX.ids.bin.
inline std::string IdsFilePrefix(const std::string& index_to_sample) {
  return index_to_sample + ".ids";
}

class IndexFilesWriter {
 public:
  IndexFilesWriter();
  // Without a successful Finish(), removes what it made: the files' temporary
  // names (IndexedWriter) and, when opened deferred, its temporary files.
  ~IndexFilesWriter();
  IndexFilesWriter(IndexFilesWriter&&) noexcept;
  IndexFilesWriter& operator=(IndexFilesWriter&&) noexcept;

  // Creates the files whose prefix is set, for `distinct` values. `base`
  // gives the code table and sync; the row counts are set here.
  Status Open(const IndexFilePrefixes& prefixes, DType metric_dtype, DType sample_dtype,
              IndexedWriter::Options base, uint64_t distinct);
  // Opens without the number of distinct values: rows are recorded as they
  // come ((value, id count) per value, 16 bytes each, in a ScratchFile in
  // `scratch_dir`; the ids into a temporary element file beside
  // index_to_sample, PREFIX.ids.bin), and Finish() writes the chosen files
  // exactly as Open(distinct) would have, byte for byte (the ids' file becomes
  // their .bin by a link, not a copy), then removes the temporary. No chosen
  // file exists before Finish(). Memory stays bounded (buffers only) however
  // many values and ids there are. The scratch file vanishes however the
  // process ends; the ids' file, being named, is removed by Finish() or the
  // destructor, as IndexedWriter's temporary names are. Fails, naming
  // `scratch_dir`, if no scratch file can be made there; fails if
  // percentile_merged is chosen without index_to_sample.
  Status OpenDeferred(const IndexFilePrefixes& prefixes, DType metric_dtype, DType sample_dtype,
                      IndexedWriter::Options base, const std::string& scratch_dir);
  // Opens for ids already in the element file `ids_bin` (the sample dtype's
  // bytes, in value order, no header), written by others: AppendIds is not
  // called, and EndValue(value, ids) claims the next `ids` of them. Finish()
  // links `ids_bin` as index_to_sample's .bin (and the percentile-merged
  // file's); the caller removes `ids_bin` after Finish, or on failure.
  Status OpenOverIds(const IndexFilePrefixes& prefixes, DType metric_dtype, DType sample_dtype,
                     IndexedWriter::Options base, uint64_t distinct, const std::string& ids_bin);
  // Whether index_to_sample is written: else AppendIds need not be called.
  bool writes_ids() const { return writes_ids_; }
  // Appends ids of the current and following values, in order: int64, or
  // any integer dtype (copied as they are when in the sample dtype already).
  Status AppendIds(const ElementView& ids);
  Status AppendIds(std::span<const int64_t> ids) { return AppendIds(ViewOf(ids)); }
  // Ends the row of `value`, which holds the next `ids` ids appended.
  Status EndValue(int64_t value, uint64_t ids);
  // Completes the chosen files and moves them into place.
  Status Finish();

 private:
  struct Deferred;

  // Creates the chosen files' writers. With `ids_bin` set (deferred mode),
  // index_to_sample and percentile_merged take their elements from it.
  Status OpenWriters(const IndexFilePrefixes& p, DType metric_dtype, DType sample_dtype,
                     const IndexedWriter::Options& base, uint64_t distinct,
                     const std::string& ids_bin);
  // EndValue once the writers exist.
  Status WriteValue(int64_t value, uint64_t ids);
  // Finish once the writers exist.
  Status FinishWriters();
  Status FinishDeferred();
  Status Replay(uint64_t distinct);
  Status FlushValues();

  std::unique_ptr<Deferred> deferred_;  // set from OpenDeferred until Finish
  bool writes_ids_ = false;
  bool ids_elsewhere_ = false;  // the ids are in a file of their own (OpenOverIds)
  std::unique_ptr<IndexedWriter> metric_, sample_, percentile_;
  std::vector<int64_t> values_;  // index_to_metric rows not yet handed to metric_
  uint64_t step_ = 1;
  uint64_t group_rows_ = 0, group_ids_ = 0;
};

}  // namespace dsanalyze
