// Fuzz target for the config parser and validator (config/config.h).
//
// Input: the text of a config file. The target runs LoadConfig on it (JSON
// syntax, duplicate keys, then every ParseConfig check) and checks:
//  - a refused config gives one BadInput line that names the file (syntax and
//    duplicate-key errors) or starts with "config: " (validation errors);
//  - an accepted config survives the documented round trip: ParseConfig of
//    ConfigToJson(c), and of that JSON printed and parsed again, gives back c;
//  - ParseConfig on the same text parsed without the duplicate-key check
//    agrees: it accepts whatever LoadConfig accepted, with the same result.
// Any exception escaping the parser is a finding too (libFuzzer reports it).
#include <cstdint>
#include <string>

#include "config/config.h"
#include "fuzz_support.h"

namespace dsanalyze {
namespace {

using nlohmann::json;

bool SameConfig(const Config& a, const Config& b) {
  return a.dataset == b.dataset && a.metrics == b.metrics && a.output == b.output &&
         a.map == b.map && a.memory == b.memory;
}

void CheckError(const Status& status, const std::string& path) {
  const std::string& m = status.message();
  FUZZ_CHECK(status.code() == Status::Code::kBadInput, "a bad config is bad input: " + m);
  FUZZ_CHECK(m.rfind(path + ":", 0) == 0 || m.rfind("config: ", 0) == 0,
             "the error names the file or starts with \"config: \": " + m);
  FUZZ_CHECK(m.find('\n') == std::string::npos, "the error is one line: " + m);
}

void CheckRoundTrip(const Config& c) {
  const json j = ConfigToJson(c);
  Result<Config> again = ParseConfig(j);
  FUZZ_CHECK(again.ok(),
             "ParseConfig(ConfigToJson(c)) accepts: " + again.status().message() + "\n" + j.dump());
  FUZZ_CHECK(SameConfig(c, *again), "ParseConfig(ConfigToJson(c)) gives back c: " + j.dump());
  Result<Config> reparsed = ParseConfig(json::parse(j.dump()));
  FUZZ_CHECK(reparsed.ok() && SameConfig(c, *reparsed), "the printed JSON parses back to c");
}

}  // namespace
}  // namespace dsanalyze

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dsanalyze;
  const std::string path = fuzz::ScratchDir() + "/run.json";
  fuzz::WriteFileOrDie(path, data, size);
  Result<Config> loaded = LoadConfig(path);
  if (!loaded.ok()) {
    CheckError(loaded.status(), path);
    return 0;
  }
  CheckRoundTrip(*loaded);

  const json j = json::parse(data, data + size, /*cb=*/nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!j.is_discarded(), "text LoadConfig accepted is valid JSON");
  Result<Config> direct = ParseConfig(j);
  FUZZ_CHECK(direct.ok() && SameConfig(*loaded, *direct), "ParseConfig agrees with LoadConfig");
  return 0;
}
