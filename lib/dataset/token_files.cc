#include "dataset/token_files.h"

#include "config/memory_budget.h"

namespace dsanalyze {

Result<IndexedDataset> OpenTokenFile(const std::string& prefix, CodeTable table,
                                     const std::string& key) {
  IndexedDataset::Options options;
  options.table = table;
  options.table_setting = "dataset.dtype_codes";
  Result<IndexedDataset> file = IndexedDataset::Open(prefix, options);
  if (file.ok()) return file;
  Status st = file.status().WithPrefix(key);
  if (prefix.ends_with(".idx") || prefix.ends_with(".bin"))
    st = Status::BadInput(st.message() + " (give the prefix, without .idx or .bin)");
  return st;
}

Result<std::vector<IndexedDataset>> OpenTokenFiles(const std::vector<std::string>& prefixes,
                                                   CodeTable table) {
  if (prefixes.empty())
    return Status::BadInput("config: dataset.prefixes: expected a non-empty array of strings");
  std::vector<IndexedDataset> files;
  for (size_t i = 0; i < prefixes.size(); ++i) {
    DSA_ASSIGN_OR_RETURN(
        IndexedDataset file,
        OpenTokenFile(prefixes[i], table, "dataset.prefixes[" + std::to_string(i) + "]"));
    if (!files.empty() && file.dtype() != files.front().dtype())
      return Status::BadInput("dataset.prefixes: " + files.front().prefix() + ".idx holds " +
                              std::string(DTypeName(files.front().dtype())) + " but " +
                              prefixes[i] + ".idx holds " + std::string(DTypeName(file.dtype())) +
                              " (read with the " + std::string(CodeTableName(table)) +
                              " dtype_codes table); all prefixes must share one dtype");
    files.push_back(std::move(file));
  }
  return files;
}

Status GrowBatchCopy(std::vector<std::byte>& copy, uint64_t samples, uint64_t bytes) {
  if (copy.size() >= bytes) return Status::OK();
  DSA_RETURN_IF_ERROR(
      CheckMemoryNeed({.key = "config: map.batch_size",
                       .what = "a batch of " + std::to_string(samples) +
                               " samples, whose tokens take " + std::to_string(bytes) + " bytes,",
                       .bytes = bytes}));
  copy.resize(bytes);
  return Status::OK();
}

}  // namespace dsanalyze
