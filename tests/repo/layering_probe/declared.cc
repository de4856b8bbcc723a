// The control probe (repo.layering_probe): a library that declares only
// util, calling util. Its link check must link.
#include <string>

#include "util/closest_name.h"

namespace dsanalyze {

std::string LayeringProbeDeclared() { return DidYouMean("utill", {}); }

}  // namespace dsanalyze
