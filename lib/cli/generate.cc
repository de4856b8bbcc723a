// `dsanalyze generate`: writes a synthetic Zipf-like token dataset
// (cli/token_generator.h) and prints a one-line summary.
#include <chrono>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/token_generator.h"

namespace dsanalyze::cli {

int Generate(const GenerateOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Result<GeneratedTokens> r = WriteTokenDataset(options);
  if (!r.ok()) {
    std::fprintf(stderr, "dsanalyze: error: %s\n", r.status().message().c_str());
    return r.status().exit_code();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "wrote %llu documents, %llu tokens (%s, code %u in the %s table) to %s.bin/.idx in %.2f s\n",
      static_cast<unsigned long long>(r->documents), static_cast<unsigned long long>(r->tokens),
      std::string(DTypeName(r->dtype)).c_str(), static_cast<unsigned>(r->code),
      std::string(CodeTableName(r->table)).c_str(), options.prefix.c_str(), seconds);
  return kExitOk;
}

}  // namespace dsanalyze::cli
