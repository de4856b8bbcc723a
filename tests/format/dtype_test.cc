// dtype tables (format.md §1) and DeepSpeed's find_fit_int_dtype (format.md §2).
#include "format/dtype.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace dsanalyze {
namespace {

constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// format.md §1, codes 0..11; nullopt where the table has no entry.
struct CodeRow {
  uint8_t code;
  std::optional<DType> deepspeed, legacy, megatron;
};
const std::vector<CodeRow>& SpecTable() {
  static const std::vector<CodeRow> rows = {
      {0, std::nullopt, std::nullopt, std::nullopt},
      {1, DType::kU8, DType::kU8, DType::kU8},
      {2, DType::kI8, DType::kI8, DType::kI8},
      {3, DType::kI16, DType::kI16, DType::kI16},
      {4, DType::kI32, DType::kI32, DType::kI32},
      {5, DType::kI64, DType::kI64, DType::kI64},
      {6, DType::kU16, DType::kF64, DType::kF64},
      {7, DType::kU32, DType::kF64, DType::kF32},
      {8, DType::kU64, DType::kU16, DType::kU16},
      {9, std::nullopt, DType::kU32, std::nullopt},
      {10, std::nullopt, DType::kU64, std::nullopt},
      {11, std::nullopt, std::nullopt, std::nullopt},
      {255, std::nullopt, std::nullopt, std::nullopt},
  };
  return rows;
}

}  // namespace

TEST_CASE("dtype codes of all three tables match format.md", "[format][dtype]") {
  for (const CodeRow& r : SpecTable()) {
    INFO("code " << int(r.code));
    CHECK(DTypeFromCode(CodeTable::kDeepSpeed, r.code) == r.deepspeed);
    CHECK(DTypeFromCode(CodeTable::kDeepSpeedLegacy, r.code) == r.legacy);
    CHECK(DTypeFromCode(CodeTable::kMegatron, r.code) == r.megatron);
  }
}

TEST_CASE("CodeForDType gives the code each writer uses", "[format][dtype]") {
  // deepspeed: codes 1..8 are all integers, each distinct.
  const DType ints[] = {DType::kU8,  DType::kI8,  DType::kI16, DType::kI32,
                        DType::kI64, DType::kU16, DType::kU32, DType::kU64};
  for (uint8_t code = 1; code <= 8; ++code)
    CHECK(CodeForDType(CodeTable::kDeepSpeed, ints[code - 1]) == code);
  CHECK(CodeForDType(CodeTable::kDeepSpeed, DType::kF32) == std::nullopt);
  CHECK(CodeForDType(CodeTable::kDeepSpeed, DType::kF64) == std::nullopt);

  CHECK(CodeForDType(CodeTable::kDeepSpeedLegacy, DType::kU16) == 8);
  CHECK(CodeForDType(CodeTable::kDeepSpeedLegacy, DType::kU32) == 9);
  CHECK(CodeForDType(CodeTable::kDeepSpeedLegacy, DType::kU64) == 10);
  CHECK(CodeForDType(CodeTable::kDeepSpeedLegacy, DType::kF64) == 6);  // 6 and 7: first wins
  CHECK(CodeForDType(CodeTable::kDeepSpeedLegacy, DType::kF32) == std::nullopt);

  CHECK(CodeForDType(CodeTable::kMegatron, DType::kU16) == 8);
  CHECK(CodeForDType(CodeTable::kMegatron, DType::kF64) == 6);
  CHECK(CodeForDType(CodeTable::kMegatron, DType::kF32) == 7);
  CHECK(CodeForDType(CodeTable::kMegatron, DType::kU32) == std::nullopt);
  CHECK(CodeForDType(CodeTable::kMegatron, DType::kU64) == std::nullopt);
  for (CodeTable t : {CodeTable::kDeepSpeed, CodeTable::kDeepSpeedLegacy, CodeTable::kMegatron})
    for (uint8_t code = 1; code <= 5; ++code) CHECK(CodeForDType(t, ints[code - 1]) == code);
}

TEST_CASE("dtype names, sizes and table names round-trip", "[format][dtype]") {
  struct {
    DType t;
    const char* name;
    size_t size;
    bool integer, is_signed;
  } const cases[] = {
      {DType::kU8, "uint8", 1, true, false},    {DType::kI8, "int8", 1, true, true},
      {DType::kI16, "int16", 2, true, true},    {DType::kI32, "int32", 4, true, true},
      {DType::kI64, "int64", 8, true, true},    {DType::kU16, "uint16", 2, true, false},
      {DType::kU32, "uint32", 4, true, false},  {DType::kU64, "uint64", 8, true, false},
      {DType::kF32, "float32", 4, false, true}, {DType::kF64, "float64", 8, false, true},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    CHECK(DTypeName(c.t) == c.name);
    CHECK(DTypeFromName(c.name) == c.t);
    CHECK(ItemSize(c.t) == c.size);
    CHECK(IsInteger(c.t) == c.integer);
    CHECK(IsSigned(c.t) == c.is_signed);
  }
  CHECK(DTypeFromName("uint128") == std::nullopt);
  CHECK(DTypeFromName("") == std::nullopt);
  for (CodeTable t : {CodeTable::kDeepSpeed, CodeTable::kDeepSpeedLegacy, CodeTable::kMegatron})
    CHECK(CodeTableFromName(CodeTableName(t)) == t);
  CHECK(CodeTableName(CodeTable::kDeepSpeedLegacy) == "deepspeed-legacy");
  CHECK(CodeTableFromName("Megatron") == std::nullopt);
}

TEST_CASE("FitIntDType matches find_fit_int_dtype at every boundary", "[format][dtype]") {
  struct {
    int64_t min, max;
    DType want;
  } const cases[] = {
      // min >= 0: unsigned by max alone.
      {0, 0, DType::kU8},
      {5, 5, DType::kU8},
      {0, 255, DType::kU8},
      {0, 256, DType::kU16},
      {200, 256, DType::kU16},
      {0, 65535, DType::kU16},
      {0, 65536, DType::kU32},
      {0, 4294967295LL, DType::kU32},
      {0, 4294967296LL, DType::kU64},
      {0, kI64Max, DType::kU64},
      {kI64Max, kI64Max, DType::kU64},
      // min < 0: signed, both ends must fit.
      {-1, -1, DType::kI8},
      {-128, 127, DType::kI8},
      {-129, 0, DType::kI16},
      {-1, 128, DType::kI16},
      {-128, 128, DType::kI16},
      {-129, 127, DType::kI16},
      {-32768, 32767, DType::kI16},
      {-32769, 0, DType::kI32},
      {-1, 32768, DType::kI32},
      {kI32Min, kI32Max, DType::kI32},
      {kI32Min - 1, 0, DType::kI64},
      {-1, kI32Max + 1, DType::kI64},
      {kI64Min, kI64Max, DType::kI64},
      {kI64Min, kI64Min, DType::kI64},
      // A negative min with a max that alone would fit a small unsigned type.
      {-1, 255, DType::kI16},
      {-1, 65535, DType::kI32},
      {-1, 4294967295LL, DType::kI64},
      {-1, kI64Max, DType::kI64},
  };
  for (const auto& c : cases) {
    INFO("min " << c.min << " max " << c.max);
    CHECK(DTypeName(FitIntDType(c.min, c.max)) == DTypeName(c.want));
  }
}

TEST_CASE("FitUnsignedDType covers sums beyond int64", "[format][dtype]") {
  CHECK(FitUnsignedDType(0) == DType::kU8);
  CHECK(FitUnsignedDType(255) == DType::kU8);
  CHECK(FitUnsignedDType(256) == DType::kU16);
  CHECK(FitUnsignedDType(65535) == DType::kU16);
  CHECK(FitUnsignedDType(65536) == DType::kU32);
  CHECK(FitUnsignedDType(4294967295ULL) == DType::kU32);
  CHECK(FitUnsignedDType(4294967296ULL) == DType::kU64);
  CHECK(FitUnsignedDType(std::numeric_limits<uint64_t>::max()) == DType::kU64);
}

TEST_CASE("IntMin and IntMax are the dtype limits", "[format][dtype]") {
  CHECK(IntMin(DType::kU8) == 0);
  CHECK(IntMax(DType::kU8) == 255);
  CHECK(IntMin(DType::kI8) == -128);
  CHECK(IntMax(DType::kI8) == 127);
  CHECK(IntMin(DType::kI16) == -32768);
  CHECK(IntMax(DType::kI16) == 32767);
  CHECK(IntMin(DType::kU16) == 0);
  CHECK(IntMax(DType::kU16) == 65535);
  CHECK(IntMin(DType::kI32) == kI32Min);
  CHECK(IntMax(DType::kI32) == kI32Max);
  CHECK(IntMax(DType::kU32) == 4294967295LL);
  CHECK(IntMin(DType::kI64) == kI64Min);
  CHECK(IntMax(DType::kI64) == kI64Max);
  CHECK(IntMin(DType::kU64) == 0);
  CHECK(IntMax(DType::kU64) == kI64Max);  // clamped
  // A fitted dtype always holds its range.
  for (int64_t v :
       {int64_t{-129}, int64_t{-1}, int64_t{0}, int64_t{300}, int64_t{70000}, kI32Max + 5})
    for (int64_t w : {v, v + 1, v + 100000}) {
      DType t = FitIntDType(v, w);
      CHECK(IntMin(t) <= v);
      CHECK(IntMax(t) >= w);
    }
}

}  // namespace dsanalyze
