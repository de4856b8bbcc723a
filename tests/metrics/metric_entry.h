// A metrics[index] config entry for tests that create metrics by name.
#pragma once

#include <string>

#include "config/config.h"

namespace dsanalyze::test {

inline MetricConfig Entry(std::string name, std::string metric, size_t index = 0) {
  MetricConfig m;
  m.name = std::move(name);
  m.metric = std::move(metric);
  m.index = index;
  return m;
}

}  // namespace dsanalyze::test
