// dsanalyze_jsonl_bench: the JSON-lines score reader's benchmark (case J of
// scripts/bench.sh, docs/benchmarks.md). Not a test; one thread, no MPI.
//
//   dsanalyze_jsonl_bench generate FILE LINES   writes LINES lines like
//       {"id": 123, "text_len": 42, "score": 0.123456789}
//   dsanalyze_jsonl_bench read FILE ROWS [simdjson|nlohmann|simdjson-id]
//       times reading the "score" of each of ROWS lines, in line order: with
//       ReadJsonlScores (simdjson, the default), or with nlohmann::json parsing
//       each line (the alternative measured); simdjson-id places each score
//       by the line's "id" instead, and prints
//       "PARSER: BYTES bytes, ROWS rows, SECONDS s, MB/s" (MB = 10^6 bytes).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "dataset/gpt_maps.h"
#include "format/jsonl_scores.h"
#include "util/file_util.h"

namespace {

using dsanalyze::Result;

int Generate(const std::string& path, uint64_t lines) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return std::perror(path.c_str()), 1;
  dsanalyze::SplitMix64 rng(1);
  for (uint64_t i = 0; i < lines; ++i)
    std::fprintf(f, "{\"id\": %llu, \"text_len\": %llu, \"score\": %.9f}\n",
                 static_cast<unsigned long long>(i),
                 static_cast<unsigned long long>(1 + rng.Next() % 5000),
                 static_cast<double>(rng.Next() >> 11) * 0x1p-53);
  return std::fclose(f) == 0 ? 0 : (std::perror(path.c_str()), 1);
}

// The alternative: nlohmann::json parsing each line of the mapped file.
Result<std::vector<double>> ReadWithNlohmann(const std::string& path, uint64_t rows) {
  DSA_ASSIGN_OR_RETURN(const dsanalyze::MappedFile file, dsanalyze::MappedFile::Open(path));
  std::string_view text(reinterpret_cast<const char*>(file.bytes().data()), file.bytes().size());
  std::vector<double> scores;
  scores.reserve(rows);
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    const nlohmann::json line = nlohmann::json::parse(text.substr(0, end), nullptr, false);
    if (line.is_discarded() || !line.contains("score") || !line["score"].is_number())
      return dsanalyze::Status::BadInput(path + ": line " + std::to_string(scores.size() + 1));
    scores.push_back(line["score"].get<double>());
    text.remove_prefix(std::min(text.size(), end + 1));
  }
  if (scores.size() != rows) return dsanalyze::Status::BadInput(path + ": wrong line count");
  return scores;
}

int Read(const std::string& path, uint64_t rows, const std::string& parser) {
  const auto t0 = std::chrono::steady_clock::now();
  Result<std::vector<double>> scores =
      parser == "nlohmann"
          ? ReadWithNlohmann(path, rows)
          : dsanalyze::ReadJsonlScores(path, {"score", parser == "simdjson-id" ? "id" : "", rows});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!scores.ok()) return std::fprintf(stderr, "%s\n", scores.status().message().c_str()), 1;
  Result<dsanalyze::MappedFile> file = dsanalyze::MappedFile::Open(path);
  const double bytes = static_cast<double>(file->bytes().size());
  std::printf("%s: %.0f bytes, %zu rows, %.3f s, %.1f MB/s\n", parser.c_str(), bytes,
              scores->size(), seconds, bytes / seconds / 1e6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "generate" && argc == 4)
    return Generate(argv[2], std::strtoull(argv[3], nullptr, 10));
  if (mode == "read" && (argc == 4 || argc == 5)) {
    const std::string parser = argc == 5 ? argv[4] : "simdjson";
    if (parser == "simdjson" || parser == "nlohmann" || parser == "simdjson-id")
      return Read(argv[2], std::strtoull(argv[3], nullptr, 10), parser);
  }
  std::fprintf(stderr,
               "usage: dsanalyze_jsonl_bench generate FILE LINES\n"
               "       dsanalyze_jsonl_bench read FILE ROWS [simdjson|nlohmann|simdjson-id]\n");
  return 2;
}
