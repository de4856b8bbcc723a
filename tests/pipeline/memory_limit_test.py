#!/usr/bin/env python3
"""A run under a memory limit, end to end, under mpiexec -n $NP.

memory.limit_per_rank of 64MiB is below what the in-memory pipeline needs
(pipeline/memory_plan.h), so the run maps in windows, keeps each metric's
values in a ValueStore that spills to memory.scratch, and sorts out of core
in passes. Checked, for two datasets (6M synthetic_mod samples, value + sum;
a generated documents corpus with seqlen, vocab_rarity and its dependency
total_vocab_freq), at 1 and 2 map threads:

  - every file of every metric folder is byte-identical to the run without a
    limit (and so to DeepSpeed's bytes, which the golden tests hold it to);
  - summary.json's "memory" block says "out of core", names the scratch directory,
    counts the sort passes (> 1 for the 6M-sample metric) and the bytes the
    largest rank spilled (> 0);
  - the scratch directory is empty afterwards;
  - with a limit the run fits, the plan is "in memory" and the files equal too;
  - a full scratch (the test hook DSANALYZE_TEST_SCRATCH_BYTES) is one error
    line naming the scratch directory and the bytes it needed, exit 3, the
    previous results in the save path untouched and the scratch empty;
  - a run killed (SIGKILL, every rank) in the middle of its sort, its
    spilled values in scratch files it holds open, leaves the scratch
    directory empty, and so does the next run with the same scratch;
  - a scratch directory that does not exist, in one that does, is created
    (mode 0777 less the umask, as mkdir and the save path) and left empty;
  - the log's words are true: sizes as the docs print them ("162.3MiB", not
    bytes), the plan "out of core" (not "spilled") for a limit below the
    process's own estimate, and how much the largest rank spilled, 0B for a
    small dataset whose values fit the stores' memory.
"""
import re
import filecmp
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

NP = os.environ["NP"]
MPIEXEC, DSANALYZE = os.environ["MPIEXEC"], os.environ["DSANALYZE"]


def fail(message):
    sys.exit("FAIL: " + message)


def run(work, name, config, env=None, expect=0):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    proc = subprocess.run([MPIEXEC, "-n", NP, DSANALYZE, "--config", path, "--quiet",
                           "--progress", "never"], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), timeout=300)
    if proc.returncode != expect:
        fail("%s: exit %d, expected %d: %s" % (name, proc.returncode, expect, proc.stderr))
    return proc


def metric_files(save):
    return sorted(os.path.relpath(p, save) for p in glob.glob(os.path.join(save, "*", "*")))


def same_outputs(a, b, label):
    files = metric_files(a)
    if not files or files != metric_files(b):
        fail("%s: the runs wrote different files: %s vs %s" % (label, files, metric_files(b)))
    for rel in files:
        if not filecmp.cmp(os.path.join(a, rel), os.path.join(b, rel), shallow=False):
            fail("%s: %s differs from the run without a limit" % (label, rel))
    # The rank sums behind "spearman" (pipeline/rank_sums.h), read from the
    # spilled stores under a limit: the same correlations.
    rho = [json.load(open(os.path.join(d, "summary.json"))).get("spearman") for d in (a, b)]
    if rho[0] != rho[1]:
        fail("%s: spearman %r, without a limit %r" % (label, rho[1], rho[0]))


def summary_memory(save):
    with open(os.path.join(save, "summary.json")) as f:
        return json.load(f).get("memory")


def check_spilled(save, scratch, sorted_metric, label):
    memory = summary_memory(save)
    if not memory or memory.get("plan") != "out of core":
        fail("%s: summary.json memory block %r, expected plan 'out of core'" % (label, memory))
    if memory.get("scratch") != scratch or memory.get("limit_per_rank") != "64MiB":
        fail("%s: summary.json memory block %r" % (label, memory))
    if sorted_metric:  # a dataset big enough to spill and to need several passes
        if memory.get("spilled_bytes_max_rank", 0) <= 0:
            fail("%s: nothing spilled: %r" % (label, memory))
        passes = memory.get("sort_passes", {}).get(sorted_metric, 0)
        if passes < 2:
            fail("%s: %s sorted in %d pass(es), expected several" % (label, sorted_metric, passes))
    if os.listdir(scratch):
        fail("%s: scratch not empty: %s" % (label, os.listdir(scratch)))


def datasets(work):
    corpus = os.path.join(work, "corpus")
    subprocess.run([DSANALYZE, "generate", corpus, "--documents", "60000", "--vocab-size",
                    "5000", "--min-length", "1", "--max-length", "200", "--seed", "3"],
                   check=True, capture_output=True)
    synthetic = {"dataset": {"type": "synthetic_mod", "num_samples": 6_000_000,
                             "modulus": 100000},
                 "metrics": [{"name": "mod", "metric": "value"},
                             {"name": "total", "metric": "sum"}]}
    documents = {"dataset": {"type": "documents", "prefixes": [corpus]},
                 "metrics": [{"name": "seqlen", "metric": "seqlen"},
                             {"name": "rarity", "metric": "vocab_rarity",
                              "params": {"vocab_size": 5000}}]}
    return [("synthetic", synthetic, "mod"), ("documents", documents, None)]


def with_output(config, save, threads, memory=None):
    c = dict(config, output={"path": save, "chunk_bytes": 1 << 16},
             map={"threads": threads, "batch_size": 1024})
    if memory:
        c["memory"] = memory
    return c


def check_equal_runs(work, scratch):
    for name, config, sorted_metric in datasets(work):
        plain = os.path.join(work, name + "-plain")
        run(work, name + "-plain", with_output(config, plain, 1))
        if summary_memory(plain) is not None:
            fail("%s: a run without a limit wrote a memory block" % name)
        for threads in (1, 2):
            label = "%s, %d thread(s)" % (name, threads)
            save = os.path.join(work, "%s-limited-%d" % (name, threads))
            run(work, label.replace(" ", "_"), with_output(
                config, save, threads, {"limit_per_rank": "64MiB", "scratch": scratch}))
            same_outputs(plain, save, label)
            check_spilled(save, scratch, sorted_metric, label)
        roomy = os.path.join(work, name + "-roomy")
        run(work, name + "-roomy", with_output(config, roomy, 1, {"limit_per_rank": "8GiB"}))
        same_outputs(plain, roomy, name + ", roomy limit")
        if (summary_memory(roomy) or {}).get("plan") != "in memory":
            fail("%s: an 8GiB limit gave %r" % (name, summary_memory(roomy)))
    return datasets(work)[0][1]


def snapshot(folder):
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                out[os.path.relpath(os.path.join(root, f), folder)] = fh.read()
    return out


def check_scratch_full(work, scratch, config):
    save = os.path.join(work, "full")
    memory = {"limit_per_rank": "64MiB", "scratch": scratch}
    run(work, "full-good", with_output(config, save, 1))
    before = snapshot(save)
    proc = run(work, "full", with_output(config, save, 1, memory),
               env={"DSANALYZE_TEST_SCRATCH_BYTES": "100000"}, expect=3)
    check_full_line(proc, scratch, "scratch full")
    if snapshot(save) != before:
        fail("scratch full: the save path changed")
    if os.listdir(scratch):
        fail("scratch full: scratch not empty: %s" % os.listdir(scratch))


def check_full_line(proc, scratch, label):
    """One error line naming the scratch and the bytes the write needed."""
    errors = [l for l in proc.stderr.splitlines() if "error" in l.lower()]
    if len(errors) != 1 or not re.match(
            r"dsanalyze: error: scratch %s: no space left on device for [1-9]\d* more bytes, "
            r"after \d+ bytes this rank spilled" % re.escape(scratch), errors[0]):
        fail("%s: expected one error line naming the scratch and the bytes, got %r" %
             (label, proc.stderr))
    print("%s: %s" % (label, errors[0]))


def scratch_files_open(pid, scratch):
    """The files in `scratch` that process `pid` holds open (unnamed ones
    read "SCRATCH/#INODE (deleted)")."""
    fds = os.path.join("/proc", str(pid), "fd")
    links = [os.readlink(os.path.join(fds, fd)) for fd in os.listdir(fds)]
    return [l for l in links if l.startswith(scratch + "/")]


def check_killed(work, scratch, config):
    """SIGKILL to every rank while rank 0 is paused in its sort."""
    save = os.path.join(work, "killed")
    path = os.path.join(work, "killed.json")
    with open(path, "w") as f:
        json.dump(with_output(config, save, 1, {"limit_per_rank": "64MiB", "scratch": scratch}), f)
    pid_file = os.path.join(work, "paused.pid")
    env = dict(os.environ, DSANALYZE_TEST_PAUSE_AT="sort:0", DSANALYZE_TEST_PAUSE_FILE=pid_file)
    proc = subprocess.Popen([MPIEXEC, "-n", NP, DSANALYZE, "--config", path, "--quiet"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 120
    while not os.path.exists(pid_file) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    if not os.path.exists(pid_file):
        os.killpg(proc.pid, signal.SIGKILL)
        fail("killed: rank 0 never paused in its sort")
    time.sleep(0.1)  # the pid file is written just before the stop
    spilling = scratch_files_open(int(open(pid_file).read()), scratch)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    if not spilling:
        fail("killed: rank 0 held no scratch file when killed: the kill did not hit a spill")
    time.sleep(0.2)
    if os.listdir(scratch):
        fail("killed: scratch not empty: %s" % os.listdir(scratch))
    run(work, "after-kill", with_output(config, save, 1, {"limit_per_rank": "64MiB",
                                                          "scratch": scratch}))
    if os.listdir(scratch):
        fail("killed: the next run left the scratch with %s" % os.listdir(scratch))


def check_created(work):
    """A missing scratch directory in an existing one is made, as mkdir makes it."""
    scratch = os.path.join(work, "new_scratch")
    save = os.path.join(work, "created")
    config = {"dataset": {"type": "synthetic_mod", "num_samples": 1000},
              "metrics": [{"name": "mod", "metric": "value"}], "output": {"path": save},
              "memory": {"limit_per_rank": "64MiB", "scratch": scratch}}
    old = os.umask(0o027)
    try:
        run(work, "created", config)
    finally:
        os.umask(old)
    if not os.path.isdir(scratch) or os.listdir(scratch):
        fail("created: %s is not an empty directory after the run" % scratch)
    mode = os.stat(scratch).st_mode & 0o777
    if mode != 0o750:
        fail("created: %s has mode %o, expected 750 (0777 less the umask 027)" % (scratch, mode))


def check_tmpfs_full(work):
    """A real full file system: scratch on a 1 MiB tmpfs (private mount namespace)."""
    scratch = os.path.join(work, "tmpfs")
    os.mkdir(scratch)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", scratch]).returncode:
        print("SKIP: cannot mount a tmpfs")
        sys.exit(77)
    try:
        config = datasets(work)[0][1]
        save = os.path.join(work, "tmpfs-save")
        run(work, "tmpfs-good", with_output(config, save, 1))
        before = snapshot(save)
        proc = run(work, "tmpfs-full", with_output(
            config, save, 1, {"limit_per_rank": "64MiB", "scratch": scratch}), expect=3)
        check_full_line(proc, scratch, "tmpfs full")
        if snapshot(save) != before:
            fail("tmpfs full: the save path changed")
        if os.listdir(scratch):
            fail("tmpfs full: scratch not empty: %s" % os.listdir(scratch))
    finally:
        subprocess.run(["umount", scratch])


def check_plan_words(work, scratch):
    save = os.path.join(work, "words")
    config = {"dataset": {"type": "synthetic_mod", "num_samples": 100000},
              "metrics": [{"name": "mod", "metric": "value"}],
              "output": {"path": save}, "memory": {"limit_per_rank": "64MiB", "scratch": scratch}}
    path = os.path.join(work, "words.json")
    with open(path, "w") as f:
        json.dump(config, f)
    proc = subprocess.run([MPIEXEC, "-n", NP, DSANALYZE, "--config", path, "--progress", "never"],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        fail("plan words: exit %d: %s" % (proc.returncode, proc.stderr))
    plan = re.search(r"memory: limit 64MiB per rank, in-memory estimate (\S+): (.*)", proc.stderr)
    if not plan or not re.fullmatch(r"\d+(\.\d)?[KMGT]iB", plan.group(1)):
        fail("plan words: the estimate is not a size as the docs print it: %s" % proc.stderr)
    if not plan.group(2).startswith("out of core, spilling to " + scratch + " what exceeds "):
        fail("plan words: %r" % plan.group(2))
    if "memory: the largest rank spilled 0B to " + scratch not in proc.stderr:
        fail("plan words: no line saying nothing was spilled: %s" % proc.stderr)
    memory = summary_memory(save)
    if memory.get("plan") != "out of core" or memory.get("spilled_bytes_max_rank") != 0:
        fail("plan words: summary.json %r" % memory)


def main():
    if sys.argv[1:] == ["tmpfs"]:
        if os.geteuid() != 0:
            print("SKIP: needs root (mounts a tmpfs)")
            sys.exit(77)
        if not os.environ.get("MEMORY_TEST_IN_NAMESPACE"):
            os.execvpe("unshare", ["unshare", "-m", "--propagation", "private", sys.executable] +
                       sys.argv, dict(os.environ, MEMORY_TEST_IN_NAMESPACE="1"))
        with tempfile.TemporaryDirectory() as work:
            check_tmpfs_full(work)
        print("memory limit: %s rank(s): a full scratch file system is exit 3, one line" % NP)
        return
    with tempfile.TemporaryDirectory() as work:
        check_created(work)
        scratch = os.path.join(work, "scratch")
        os.mkdir(scratch)
        check_plan_words(work, scratch)
        config = check_equal_runs(work, scratch)
        check_scratch_full(work, scratch, config)
        check_killed(work, scratch, config)
    print("memory limit: %s rank(s): out-of-core runs equal the in-memory runs; scratch left empty"
          % NP)


if __name__ == "__main__":
    main()
