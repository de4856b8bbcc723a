#!/usr/bin/env python3
"""Other processes using a save path S while runs commit into it
(docs/reliability.md, "Writers and readers during a commit").

    concurrent_test.py writer|readers|held

writer:  a thread creates a file in S about every 0.5 ms (by path, as a user's
         program would) while 20 runs commit into S, alternating two configs.
         Every file it created is in S afterwards with its bytes (under its
         own name, or its name plus the documented suffix), verify passes,
         and nothing is left beside S.
readers: `dsanalyze verify S` in two loops while 16 runs commit into S,
         alternating two configs with different metrics: no verify fails,
         and no lock file is left behind.
held:    a reader that holds the save path's lock (`flock -s`, the command
         reliability.md gives): with DSANALYZE_LOCK_WAIT=0.3 a run started
         meanwhile gives up at its swap, exit 3 and one line naming the lock,
         S unchanged; with the default wait a run is not refused, waits at its
         swap and commits once the reader is done. No lock file is left.

Environment: NP, MPIEXEC, DSANALYZE.
"""
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

DSANALYZE = os.environ["DSANALYZE"]
# Enough samples that a verify reads for a while (before the readers' lock,
# about half of these loops saw a verify fail with 3,000 samples and one
# reader; every one with these).
READ_SAMPLES, READERS = 100000, 2
CONFIGS = (
    [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
    [{"name": "tvf", "metric": "sum"}, {"name": "other", "metric": "value"}],
)


def fail(message):
    sys.exit("FAIL: " + message)


def write_configs(work, save, samples=3000):
    dataset = {"type": "synthetic_mod", "num_samples": samples, "modulus": 97}
    paths = []
    for i, metrics in enumerate(CONFIGS):
        path = os.path.join(work, "config%d.json" % i)
        with open(path, "w") as f:
            json.dump({"dataset": dataset, "metrics": metrics, "output": {"path": save}}, f)
        paths.append(path)
    return paths


def run(config, env=None):
    return subprocess.run([os.environ["MPIEXEC"], "-n", os.environ["NP"], DSANALYZE, "--config",
                           config, "--quiet"], capture_output=True, text=True, env=env)


def run_ok(config):
    proc = run(config)
    if proc.returncode != 0:
        fail("run of %s exited %d: %s" % (config, proc.returncode, proc.stderr))
    return proc


def beside(save):
    """The entries beside S that a run makes (locks, staging folder, list)."""
    prefix = "." + os.path.basename(save) + ".dsanalyze"
    return sorted(e for e in os.listdir(os.path.dirname(save)) if e.startswith(prefix))


def verify(save):
    proc = subprocess.run([DSANALYZE, "verify", save], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


class Writer(threading.Thread):
    """Creates S/wNNNNNN holding "NNNNNN" about every 0.5 ms until stopped."""

    def __init__(self, save):
        super().__init__()
        self.save, self.created, self.errors = save, 0, []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            name = "w%06d" % self.created
            try:
                with open(os.path.join(self.save, name), "x") as f:
                    f.write(name[1:])
                self.created += 1
            except OSError as e:
                self.errors.append("%s: %s" % (name, e))
            time.sleep(0.0005)


def writer_test(work):
    save = os.path.join(work, "S")
    configs = write_configs(work, save)
    run_ok(configs[0])
    writer = Writer(save)
    writer.start()
    warnings, commits = [], 0
    try:
        # At least 20 commits, and on until the writer has made 1,000 files
        # (a fast machine commits 20 times before it has).
        while commits < 20 or (writer.created < 1000 and commits < 400):
            commits += 1
            warnings += [l for l in run_ok(configs[commits % 2]).stderr.splitlines() if l]
    finally:
        writer.stop.set()
        writer.join()
    if writer.errors:
        fail("the writer failed to create %d file(s), e.g. %s" % (len(writer.errors),
                                                                  writer.errors[0]))
    found = {}
    for name in os.listdir(save):
        m = re.fullmatch(r"w(\d{6})(\.before-commit(-\d+)?)?", name)
        if m:
            with open(os.path.join(save, name)) as f:
                if f.read() != m.group(1):
                    fail("%s does not hold what the writer wrote" % name)
            found[m.group(1)] = found.get(m.group(1), 0) + 1
    lost = writer.created - len(found)
    print("writer: %d files created during %d commits, %d in S, %d lost, %d doubled; "
          "warnings: %d" % (writer.created, commits, len(found), lost,
                           sum(n > 1 for n in found.values()), len(warnings)))
    if lost or any(n > 1 for n in found.values()):
        fail("%d of the writer's %d files lost" % (lost, writer.created))
    if writer.created < 1000:
        fail("the writer created only %d files: the commits did not overlap it" % writer.created)
    rc, out = verify(save)
    if rc != 0:
        fail("verify after the commits exited %d: %s" % (rc, out))
    if beside(save):
        fail("left beside S: %s" % beside(save))


def snapshot(save):
    digest = {}
    for root, _, files in os.walk(save):
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                digest[os.path.relpath(os.path.join(root, name), save)] = \
                    hashlib.sha256(f.read()).hexdigest()
    return digest


def verify_loop_test(work):
    save = os.path.join(work, "S")
    configs = write_configs(work, save, READ_SAMPLES)
    run_ok(configs[0])
    stop, results = threading.Event(), []

    def loop():
        while not stop.is_set():
            results.append(verify(save))

    readers = [threading.Thread(target=loop) for _ in range(READERS)]
    for reader in readers:
        reader.start()
    try:
        for i in range(16):
            run_ok(configs[(i + 1) % 2])
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    failed = [out for rc, out in results if rc != 0]
    print("readers: %d verify runs during 16 commits, %d failed" % (len(results), len(failed)))
    if failed:
        fail("%d of %d verify runs failed, e.g.: %s" % (len(failed), len(results), failed[0]))
    if len(results) < 16:
        fail("only %d verify runs: the loop did not overlap the commits" % len(results))
    if beside(save):
        fail("left beside S: %s" % beside(save))


def held_lock_test(work):
    save = os.path.join(work, "S")
    configs = write_configs(work, save)
    lock = os.path.join(work, ".S.dsanalyze.lock")
    run_ok(configs[0])
    before = snapshot(save)
    # With a wait shorter than the reader's hold, the run gives up: exit 3.
    # (flock's child `sleep` inherits the locked file: end the whole group)
    reader = subprocess.Popen(["flock", "-s", lock, "sleep", "3"], start_new_session=True)
    time.sleep(0.2)
    proc = run(configs[0], dict(os.environ, DSANALYZE_LOCK_WAIT="0.3"))
    os.killpg(reader.pid, signal.SIGKILL)
    reader.wait()
    lines = proc.stderr.splitlines()
    expected = "output.path %s: cannot commit: the save path is being read (lock %s held" % (
        save, lock)
    if proc.returncode != 3 or len(lines) != 1 or expected not in lines[0]:
        fail("run while a reader holds the lock: exit %d, %r (expected exit 3 and one line "
             "with %r)" % (proc.returncode, proc.stderr, expected))
    if snapshot(save) != before:
        fail("the run that gave up changed S")
    before = snapshot(save)
    # The reader holds the lock for 1.5 s: the run (default wait) commits after it.
    reader = subprocess.Popen(["flock", "-s", lock, "sleep", "1.5"])
    time.sleep(0.2)
    start = time.monotonic()
    run_ok(configs[1])
    took = time.monotonic() - start
    reader.wait()
    if snapshot(save) == before:
        fail("the run that waited for the reader did not commit")
    if took < 1.0:
        fail("the run committed after %.2f s, while the reader held the lock for 1.5 s" % took)
    print("held lock: the run waited %.2f s for a 1.5 s reader; with a 0.3 s wait: %s"
          % (took, lines[0]))
    if beside(save):
        fail("left beside S: %s" % beside(save))


def main():
    mode = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        if mode == "writer":
            writer_test(work)
        elif mode == "readers":
            verify_loop_test(work)
        elif mode == "held":
            held_lock_test(work)
        else:
            fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
