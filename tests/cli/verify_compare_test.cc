// The verify and compare subcommands as a CI job runs them: exit codes and output.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;

// Appends rather than `"'" + temporary`, which trips GCC 12's -Wrestrict false positive.
std::string Quoted(const fs::path& p) {
  std::string s = "'";
  s += p.string();
  s += '\'';
  return s;
}

test::CommandResult Run(const std::string& args) {
  return test::RunCommand(Quoted(test::BinaryPath()) + " " + args);
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST_CASE("cli: verify exit codes", "[cli][verify]") {
  const fs::path golden = test::GoldenDir() / "seedmod-100k" / "da";
  test::CommandResult ok = Run("verify " + Quoted(golden));
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK(Contains(ok.output, "all invariants hold for 2 metric(s)"));

  test::CommandResult json = Run("verify --json " + Quoted(test::GoldenDir() / "tokens" / "dda"));
  CHECK(json.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.output);
  CHECK(doc["ok"] == true);
  CHECK(doc["metrics"].size() == 3);

  test::ScratchDir scratch;
  const fs::path broken = scratch.path() / "broken";
  test::CopyGolden("seedmod-100k/dda", broken);
  const std::string i2m = (broken / "mod" / "mod_index_to_metric").string();
  test::Rows rows = test::ReadRows(i2m);
  std::swap(rows[3], rows[4]);
  test::WriteRows(i2m, DType::kU16, rows);
  test::CommandResult bad = Run("verify " + Quoted(broken));
  INFO(bad.output);
  CHECK(bad.exit_code == 1);
  CHECK(Contains(bad.output, "FAIL mod: mod/mod_index_to_metric: row 4: value 3 is not greater"));

  test::CommandResult bad_json = Run("verify --json " + Quoted(broken));
  CHECK(bad_json.exit_code == 1);
  const nlohmann::json bad_doc = nlohmann::json::parse(bad_json.output);
  CHECK(bad_doc["ok"] == false);
  CHECK(bad_doc["violations"][0]["file"] == "mod/mod_index_to_metric");
  CHECK(bad_doc["violations"][0]["row"] == 4);

  test::CommandResult missing = Run("verify " + Quoted(scratch.path() / "missing"));
  CHECK(missing.exit_code == 2);
  CHECK(Contains(missing.output, "no such directory"));

  // A folder planted into an output: summary.json lists batch_sum only.
  const fs::path planted = scratch.path() / "planted";
  test::CopyGolden("seedmod-100k/dda", planted);
  std::ofstream(planted / "summary.json") << R"({"metrics": {"batch_sum": {}}})";
  test::CommandResult extra = Run("verify " + Quoted(planted));
  INFO(extra.output);
  CHECK(extra.exit_code == 1);
  CHECK(Contains(extra.output, "FAIL mod: mod: metric folder is not listed in summary.json"));
  CHECK(Contains(extra.output, ": 1 violation(s) in 1 of 2 metric(s)"));
}

TEST_CASE("cli: compare exit codes", "[cli][compare]") {
  const std::string da = Quoted(test::GoldenDir() / "seedmod-100k" / "da");
  const std::string dda = Quoted(test::GoldenDir() / "seedmod-100k" / "dda");
  test::CommandResult equal = Run("compare " + da + " " + dda);
  INFO(equal.output);
  CHECK(equal.exit_code == 0);
  CHECK(Contains(equal.output, "equal except doc_idx: mod/mod_sample_to_metric: doc_idx"));
  CHECK(Contains(equal.output, "2 equal, 3 equal except doc_idx, 0 different"));

  test::CommandResult strict = Run("compare --strict " + da + " " + dda);
  CHECK(strict.exit_code == 1);
  CHECK(Contains(strict.output, "different: mod/mod_index_to_sample: doc_idx"));

  test::ScratchDir scratch;
  test::CommandResult missing = Run("compare " + da + " " + Quoted(scratch.path() / "nope"));
  CHECK(missing.exit_code == 2);

  // --html - would write a file named "-": refused before any work.
  test::CommandResult dash =
      test::RunCommand("cd " + Quoted(scratch.path()) + " && " + Quoted(test::BinaryPath()) +
                       " compare " + da + " " + dda + " --html -");
  INFO(dash.output);
  CHECK(dash.exit_code == 2);
  CHECK(dash.output == "dsanalyze: error: --html -: written to a file only; give its name\n");
  CHECK(!fs::exists(scratch.path() / "-"));

  // Not an analysis folder on either side: exit 2 and one line, as verify.
  fs::create_directories(scratch.path() / "plain" / "notes");
  for (const std::string& args :
       {da + " " + Quoted(scratch.path() / "plain"), Quoted(scratch.path() / "plain") + " " + da}) {
    test::CommandResult plain = Run("compare " + args);
    INFO(plain.output);
    CHECK(plain.exit_code == 2);
    CHECK(plain.output.rfind("dsanalyze: error: ", 0) == 0);
    CHECK(Contains(plain.output, "plain: not an analysis folder"));
    CHECK(std::count(plain.output.begin(), plain.output.end(), '\n') == 1);
  }

  const fs::path changed = scratch.path() / "changed";
  test::CopyGolden("seedmod-100k/dda", changed);
  const std::string s2m = (changed / "mod" / "mod_sample_to_metric").string();
  test::Rows rows = test::ReadRows(s2m);
  rows[99999][0] = 0;
  test::WriteRows(s2m, DType::kU16, rows);
  test::CommandResult diff = Run("compare " + dda + " " + Quoted(changed));
  INFO(diff.output);
  CHECK(diff.exit_code == 1);
  CHECK(Contains(diff.output,
                 "different: mod/mod_sample_to_metric: row 99999: element 0 of 1: 6 in A, 0 in B"));
}

}  // namespace
}  // namespace dsanalyze
