// The failing probe (repo.layering_probe): a library that declares only util,
// calling report/ (PercentileKey), which it does not declare. It compiles (the
// header is on the include path of every folder); its link check must fail
// with an undefined reference to PercentileKey.
#include <string>

#include "report/metric_stats.h"

namespace dsanalyze {

std::string LayeringProbeUndeclared() { return PercentileKey(5); }

}  // namespace dsanalyze
