#include "config/byte_size.h"

#include <array>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

namespace dsanalyze {
namespace {

struct Unit {
  std::string_view name;
  uint64_t bytes;
};

constexpr uint64_t kKi = 1024;
constexpr uint64_t kK = 1000;
// Largest first: FormatByteSize takes the first that divides exactly.
constexpr std::array<Unit, 9> kUnits = {{{"TiB", kKi* kKi* kKi* kKi},
                                         {"TB", kK* kK* kK* kK},
                                         {"GiB", kKi* kKi* kKi},
                                         {"GB", kK* kK* kK},
                                         {"MiB", kKi* kKi},
                                         {"MB", kK* kK},
                                         {"KiB", kKi},
                                         {"KB", kK},
                                         {"B", 1}}};

constexpr size_t kMaxFractionDigits = 18;
constexpr uint64_t kUint64Max = std::numeric_limits<uint64_t>::max();

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (Lower(a[i]) != Lower(b[i])) return false;
  return true;
}

// The unit named `name` (any case), or nullptr.
const Unit* FindUnit(std::string_view name) {
  for (const Unit& unit : kUnits)
    if (EqualsIgnoringCase(unit.name, name)) return &unit;
  return nullptr;
}

// Consumes the leading digits of `*text`.
std::string_view TakeDigits(std::string_view* text) {
  size_t n = 0;
  while (n < text->size() && IsDigit((*text)[n])) ++n;
  const std::string_view digits = text->substr(0, n);
  text->remove_prefix(n);
  return digits;
}

// whole.fraction × unit, rounded down; UINT64_MAX when it does not fit.
uint64_t Bytes(std::string_view whole, std::string_view fraction, uint64_t unit) {
  using u128 = unsigned __int128;
  u128 bytes = 0;
  for (char c : whole) {
    bytes = bytes * 10 + static_cast<unsigned>(c - '0');
    if (bytes * unit > kUint64Max) return kUint64Max;
  }
  bytes *= unit;
  // fraction < 1 with at most 18 digits: numerator < 10^18 < 2^60, × unit < 2^41.
  fraction = fraction.substr(0, kMaxFractionDigits);
  u128 numerator = 0, denominator = 1;
  for (char c : fraction) {
    numerator = numerator * 10 + static_cast<unsigned>(c - '0');
    denominator *= 10;
  }
  bytes += numerator * unit / denominator;
  return bytes > kUint64Max ? kUint64Max : static_cast<uint64_t>(bytes);
}

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) {
  const auto not_a_size = [&] {
    return Status::BadInput(nlohmann::json(std::string(text)).dump() +
                            " is not a size (a number and a unit: B, KiB, MiB, GiB, TiB, KB, MB, "
                            "GB or TB)");
  };
  std::string_view rest = text;
  const std::string_view whole = TakeDigits(&rest);
  if (whole.empty()) return not_a_size();
  std::string_view fraction;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    fraction = TakeDigits(&rest);
    if (fraction.empty()) return not_a_size();
  }
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const Unit* unit = FindUnit(rest);
  if (unit == nullptr) return not_a_size();
  return Bytes(whole, fraction, unit->bytes);
}

std::string FormatByteSize(uint64_t bytes) {
  for (const Unit& unit : kUnits)
    if (bytes != 0 && bytes % unit.bytes == 0)
      return std::to_string(bytes / unit.bytes) + std::string(unit.name);
  return std::to_string(bytes) + "B";
}

std::string FormatByteSizeRounded(uint64_t bytes) {
  constexpr std::array<Unit, 6> kBinary = {{{"EiB", kKi * kKi * kKi * kKi * kKi * kKi},
                                            {"PiB", kKi * kKi * kKi * kKi * kKi},
                                            {"TiB", kKi * kKi * kKi * kKi},
                                            {"GiB", kKi * kKi * kKi},
                                            {"MiB", kKi * kKi},
                                            {"KiB", kKi}}};
  for (const Unit& unit : kBinary) {
    if (bytes < unit.bytes) continue;
    if (bytes % unit.bytes == 0) return std::to_string(bytes / unit.bytes) + std::string(unit.name);
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f%s",
                  static_cast<double>(bytes) / static_cast<double>(unit.bytes),
                  std::string(unit.name).c_str());
    return text;
  }
  return std::to_string(bytes) + "B";
}

}  // namespace dsanalyze
