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
// It may also throw there, to test what an exception does at that point
// (docs/reliability.md, "Memory and internal errors"): when
// DSANALYZE_TEST_THROW_AT names `point` and this rank ("<point>:<rank>", the
// rank "*" for every rank), the first such call throws std::bad_alloc if
// DSANALYZE_TEST_THROW is "bad_alloc", else a std::runtime_error. A
// FaultPoint may throw only where the run's code can take an exception.
//
// Cost when unarmed: the environment is read once (first call); later calls
// test one bool. Thread-safe: only one call per process ever pauses.
//
// FaultFails(point) is the other kind of test-only point: true when
// DSANALYZE_TEST_FAIL_AT names `point` and this process's rank (the same
// "<point>:<rank>" form), and the caller then fails there as if its system
// call had (a failure no test can cause from outside, such as a rename
// within one folder). The variable is read at every call, so a unit test can
// set it around the one call it means; callers are rare steps (the commit's
// swap), not loops.
#pragma once

namespace dsanalyze {

void FaultPoint(const char* point);
bool FaultFails(const char* point);

}  // namespace dsanalyze
