// FaultPoint: a named place where a fault-injection test may stop this
// process, to kill it there ("a rank dies here", deterministically) or to
// signal and resume it (tests/reliability/fault_test.sh). Not a user feature:
// nothing documented for users sets the variables that arm it.
//
// FaultPoint(point) does nothing unless DSANALYZE_TEST_PAUSE_AT names `point`
// and this process's rank; then the first such call announces the pid and
// stops the whole process with SIGSTOP. The variables, the announcement and
// the list of points: docs/reliability.md, "The test-only pause hook".
//
// Cost when unarmed: the environment is read once (first call); later calls
// test one bool. Thread-safe: only one call per process ever pauses.
#pragma once

namespace dsanalyze {

void FaultPoint(const char* point);

}  // namespace dsanalyze
