// Byte sizes as people write them: "2GiB", "512MiB", "1.5GiB", "64MB", "123456B".
//
// ParseByteSize reads a decimal number (digits, optionally '.' and more
// digits) followed by a unit, optionally with spaces between them. Units, in
// any letter case: B; KiB, MiB, GiB, TiB (1024^k); KB, MB, GB, TB (1000^k).
// Fractions are rounded down to a whole byte ("1.5KiB" is 1536, "0.3KiB" 307);
// digits past the 18th after the point are ignored. A string without a unit
// is not a size (integers belong in JSON numbers). Sizes past 2^64 - 1 bytes
// give UINT64_MAX: callers bound the result.
//
// FormatByteSize is its inverse for display and for ConfigToJson: the largest
// unit that holds the size exactly ("2GiB", "1536MiB", "64MB"), else bytes
// ("1395864371B"). ParseByteSize(FormatByteSize(n)) == n for every n.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace dsanalyze {

// BadInput "\"<text>\" is not a size (...)" when `text` is not one.
Result<uint64_t> ParseByteSize(std::string_view text);

std::string FormatByteSize(uint64_t bytes);

// For people reading a log: the size in the largest binary unit it reaches,
// whole when exact ("2GiB", "512B"), else to one decimal, rounded ("7.6GiB",
// "161.1MiB"). Not parsed back.
std::string FormatByteSizeRounded(uint64_t bytes);

}  // namespace dsanalyze
