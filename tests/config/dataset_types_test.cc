// The dataset-type table (config/dataset_types.h): the one place that names
// the types, and the one unknown-type message.
#include "config/dataset_types.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

namespace dsanalyze {
namespace {

TEST_CASE("dataset types: each row is found by its name, names are unique", "[config]") {
  std::set<std::string_view> names;
  for (const DatasetTypeInfo& t : DatasetTypes()) {
    Result<const DatasetTypeInfo*> found = FindDatasetType(t.name);
    REQUIRE(found.ok());
    CHECK(*found == &t);
    CHECK(names.insert(t.name).second);
  }
  CHECK(names == std::set<std::string_view>{"synthetic_mod", "documents", "packed", "megatron_gpt",
                                            "megatron_blend", "megatron_core"});
}

TEST_CASE("dataset types: row i makes alternative i of the variant, which it names", "[config]") {
  for (size_t i = 0; i < DatasetTypes().size(); ++i) {
    const DatasetTypeInfo& t = DatasetTypes()[i];
    const DatasetTypeConfig made = t.make();
    CHECK(made.index() == i);
    CHECK(DatasetTypeName(made) == t.name);
  }
  CHECK(DatasetTypeName(MegatronGptConfig{}) == "megatron_gpt");
}

TEST_CASE("dataset types: an unknown name gets one message, with a near name", "[config]") {
  Result<const DatasetTypeInfo*> near = FindDatasetType("megatron");
  REQUIRE_FALSE(near.ok());
  CHECK(near.status().code() == Status::Code::kBadInput);
  CHECK(near.status().message() ==
        "config: dataset.type: unknown dataset type \"megatron\" (did you mean "
        "\"megatron_gpt\"?); known types: synthetic_mod, documents, packed, megatron_gpt, "
        "megatron_blend, megatron_core");
  CHECK(FindDatasetType("csv").status().message() ==
        "config: dataset.type: unknown dataset type \"csv\"; known types: synthetic_mod, "
        "documents, packed, megatron_gpt, megatron_blend, megatron_core");
}

}  // namespace
}  // namespace dsanalyze
