// Numbers for people: how every page (report.html, the curriculum, batches
// and compare pages, their SVG charts) writes a number a person reads. The
// machine-readable values stay exact in summary.json and plan.json; these
// are for labels, tables and marks only.
//
// One rule each, so two pages never print one value two ways:
// - a count (samples, tokens, steps, distinct values) is exact, with
//   thousands separators: Count(52025444) == "52,025,444";
// - any other value has at most `digits` significant digits, with thousands
//   separators in its integer part and no exponent below 1e15:
//   Significant(0.004655210999999326) == "0.004655",
//   Significant(1234567.8) == "1,234,568", Significant(-0.0) == "0";
// - a share is a percentage of `digits` significant digits:
//   Percent(0.138945666662643) == "13.89%";
// - a duration in seconds, a size in bytes: Seconds(0.0047) == "0.0047 s",
//   Bytes(1610612736) == "1.5 GiB".
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace dsanalyze {

std::string Count(uint64_t n);
std::string Count(int64_t n);
std::string Significant(double v, int digits = 4);
std::string Percent(double fraction, int digits = 4);
std::string Seconds(double seconds);
std::string Bytes(uint64_t bytes);

}  // namespace dsanalyze
