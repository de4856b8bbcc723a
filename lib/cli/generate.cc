// `dsanalyze generate`: writes a synthetic Zipf-like token dataset
// (synth/token_generator.h), with --gpt-maps also GPT index maps for it
// (dataset/gpt_maps.h), and prints a one-line summary of each.
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "dataset/gpt_maps.h"
#include "output/output_paths.h"
#include "synth/token_generator.h"

namespace dsanalyze::cli {
namespace {

// The index maps megatron_gpt's `index_prefix` PREFIX_train_indexmap names.
Status WriteMaps(const GenerateOptions& options, CodeTable table) {
  IndexedDataset::Options ro;
  ro.table = table;
  DSA_ASSIGN_OR_RETURN(IndexedDataset ds, IndexedDataset::Open(options.prefix, ro));
  const std::string index_prefix = options.prefix + "_train_indexmap";
  const int32_t seq_length = static_cast<int32_t>(options.gpt_maps);
  DSA_ASSIGN_OR_RETURN(uint64_t samples, WriteGptMaps(ds, seq_length, 1, options.seed, index_prefix,
                                                      "--gpt-maps " + std::to_string(seq_length)));
  std::printf("wrote GPT index maps of %llu samples of %d+1 tokens to %s_*_idx.npy\n",
              static_cast<unsigned long long>(samples), seq_length, index_prefix.c_str());
  return Status::OK();
}

// The dataset, after checking --gpt-maps too, so that a bad value leaves no
// files, and that its files (all beside PREFIX.bin) go into no analysis
// (output/output_paths.h).
Result<synth::GeneratedTokens> WriteTokens(const GenerateOptions& options) {
  if (options.gpt_maps >= std::numeric_limits<int32_t>::max())
    return Status::BadInput("--gpt-maps " + std::to_string(options.gpt_maps) +
                            " is out of range [1, " +
                            std::to_string(std::numeric_limits<int32_t>::max() - 1) + "]");
  DSA_RETURN_IF_ERROR(CheckOutsideAnalyses("prefix", options.prefix + ".bin", {}));
  return synth::WriteTokenDataset(options);
}

}  // namespace

int Generate(const GenerateOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Result<synth::GeneratedTokens> r = WriteTokens(options);
  if (!r.ok()) return ReportFailure(r.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "wrote %llu documents, %llu tokens (%s, code %u in the %s table) to %s.bin/.idx in %.2f s\n",
      static_cast<unsigned long long>(r->documents), static_cast<unsigned long long>(r->tokens),
      std::string(DTypeName(r->dtype)).c_str(), static_cast<unsigned>(r->code),
      std::string(CodeTableName(r->table)).c_str(), options.prefix.c_str(), seconds);
  const Status maps = options.gpt_maps > 0 ? WriteMaps(options, r->table) : Status::OK();
  if (!maps.ok()) return ReportFailure(maps);
  return kExitOk;
}

}  // namespace dsanalyze::cli
