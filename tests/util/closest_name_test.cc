// ClosestName / DidYouMean: the one "did you mean" rule of config and CLI errors.
#include "util/closest_name.h"

#include <array>
#include <catch2/catch.hpp>

namespace dsanalyze {
namespace {

TEST_CASE("closest name: typos, truncations and far words", "[util]") {
  constexpr std::array<std::string_view, 4> kOptions = {"--config", "--log-level", "--quiet",
                                                        "--timings"};
  CHECK(ClosestName("--confg", kOptions) == "--config");
  CHECK(ClosestName("--timing", kOptions) == "--timings");
  CHECK(ClosestName("--loglevel", kOptions) == "--log-level");
  CHECK(ClosestName("--threads", kOptions).empty());

  constexpr std::array<std::string_view, 2> kDocumentsKeys = {"prefixes", "dtype_codes"};
  CHECK(ClosestName("prefix", kDocumentsKeys) == "prefixes");  // a truncation is one edit
  CHECK(ClosestName("pre", kDocumentsKeys) == "prefixes");
  CHECK(ClosestName("pr", kDocumentsKeys).empty());  // too short to be a truncation
  CHECK(ClosestName("", kDocumentsKeys).empty());
}

TEST_CASE("closest name: DidYouMean formats the hint or nothing", "[util]") {
  constexpr std::array<std::string_view, 3> kCommands = {"run", "verify", "generate"};
  CHECK(DidYouMean("verfy", kCommands) == " (did you mean \"verify\"?)");
  CHECK(DidYouMean("summarize", kCommands).empty());
}

}  // namespace
}  // namespace dsanalyze
