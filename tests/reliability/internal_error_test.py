#!/usr/bin/env python3
"""Exceptions and inputs that are not files (docs/reliability.md, "Memory and
internal errors" and "Bad input").

    internal_error_test.py throw   a run on $NP ranks, an exception thrown at a point
    internal_error_test.py fifo    every command given a FIFO (or a device) as input

throw: the test-only hook (lib/util/fault_point.h, DSANALYZE_TEST_THROW_AT)
throws std::bad_alloc or a std::runtime_error at a point of the run. Each case
asserts exit code 3, exactly one line "dsanalyze: error: ..." holding the
case's words and nothing else error-like, the job gone within its bound, the
save path holding its previous analysis byte for byte, and nothing hidden
left beside it (no staging folder, no lock file). The one exception: a rank
other than 0 that throws while rank 0 waits for it in a collective; the
launcher then kills rank 0, whose staging folder and lock stay until the next
run, which the case runs and checks (it removes them and succeeds).

fifo: each command's input replaced by a FIFO that no process writes (opened
for reading, it would wait for a writer forever, past SIGTERM), or /dev/zero.
Each must exit 2 within a few seconds with one error line naming the file:
verify, compare, curriculum (the analysis and --ds-config), order, batches
(--sample-ids, --ds-config), merge, and inspect (a dataset .idx, or one that
links to /dev/zero).

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
NP = int(os.environ.get("NP", "1"))
ERROR_WORDS = re.compile(
    r"error|fatal|abort|exception|terminat|assert|segmentation|signal|core dump", re.I)
LOG_LINE = re.compile(r"^\[\d\d:\d\d:\d\d\.\d{3}\] \[(info|debug|trace|warning)\] ")


def fail(message):
    sys.exit("FAIL: " + message)


def snapshot(folder):
    """{relative path: sha256 or None for a folder} of everything below `folder`."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
            else:
                out[rel] = None
    return out


def one_error_line(name, proc, words):
    """Problems with `proc`'s output: exactly one error-like line, the
    "dsanalyze: error: " one, holding every word; else only log lines."""
    text = proc.stderr + proc.stdout
    errors = [l for l in text.splitlines()
              if l.startswith("dsanalyze: error: ") or ERROR_WORDS.search(l)]
    stray = [l for l in proc.stderr.splitlines() if l and not l.startswith("dsanalyze: error: ")
             and not LOG_LINE.match(l)]
    problems = []
    if len(errors) != 1 or not errors[0].startswith("dsanalyze: error: "):
        problems.append("%d error lines, expected one: %r" % (len(errors), errors))
    else:
        problems += ["the line lacks %r" % w for w in words if w not in errors[0]]
    if stray:
        problems.append("stray stderr lines: %r" % stray[:5])
    return ["%s: %s" % (name, p) for p in problems]


# --- throw ----------------------------------------------------------------------

def config_for(work, save):
    path = os.path.join(work, "run.json")
    with open(path, "w") as f:
        json.dump({"dataset": {"type": "synthetic_mod", "num_samples": 200000, "modulus": 5000},
                   "metrics": [{"name": "v", "metric": "value"}], "output": {"path": save}}, f)
    return path


def mpiexec(config, env=(), timeout=30):
    argv = [os.environ["MPIEXEC"], "-n", str(NP)]
    for k, v in env:
        argv += ["-env", k, v]
    argv += [DSANALYZE, "--config", config, "--quiet"]
    start = time.monotonic()
    # Its own process group: a job that does not end is killed whole (mpiexec,
    # its proxy and the ranks), never left behind.
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        err += "\n(killed after %d s)" % timeout
    proc = subprocess.CompletedProcess(argv, child.returncode, out, err)
    return proc, time.monotonic() - start


def throw_cases():
    """(name, point:rank, kind, words, seconds, clean) for this rank count."""
    last = NP - 1
    cases = [
        ("map_bad_alloc", "map:%d" % last, "bad_alloc",
         ["map: out of memory (std::bad_alloc)"], 10, True),
        ("sort_bad_alloc", "sort:0", "bad_alloc",
         ["sort of metric v: out of memory (std::bad_alloc)"], 10, True),
        ("sort_error_every_rank", "sort:*", "error",
         ["sort of metric v: internal error: test exception at sort"], 10, True),
        # Rank 0 alone, past every stage's catch: the last resort of cli::Run.
        ("report_error_rank0", "report:0", "error",
         ["rank 0: internal error: test exception at report"], 10, True),
    ]
    if NP > 1:
        cases += [
            # Every rank throws where no stage catches: they agree, rank 0 prints.
            ("write_error_every_rank", "write:*", "error",
             ["internal error: test exception at write"], 10, True),
            # Rank `last` alone while rank 0 waits for its keys: ended by the launcher.
            ("write_error_last_rank", "write:%d" % last, "error",
             ["rank %d: internal error: test exception at write" % last], 12, False),
        ]
    return cases


def throw(work):
    save = os.path.join(work, "save")
    config = config_for(work, save)
    proc, _ = mpiexec(config)
    if proc.returncode != 0:
        fail("the good run failed: %s" % proc.stderr)
    with open(os.path.join(save, "notes.txt"), "w") as f:
        f.write("the user's notes\n")
    before = snapshot(save)
    problems = []
    for name, at, kind, words, seconds, clean in throw_cases():
        proc, took = mpiexec(config, [("DSANALYZE_TEST_THROW_AT", at),
                                      ("DSANALYZE_TEST_THROW", kind)])
        print("%s: exit %d in %.2f s: %s" % (name, proc.returncode, took, proc.stderr.strip()))
        if proc.returncode != 3:
            problems.append("%s: exit %d, expected 3" % (name, proc.returncode))
        problems += one_error_line(name, proc, words)
        if took > seconds:
            problems.append("%s: took %.1f s, more than %d" % (name, took, seconds))
        if snapshot(save) != before:
            problems.append("%s: the save path changed" % name)
        left = sorted(n for n in os.listdir(work) if n.startswith("."))
        if clean and left:
            problems.append("%s: left beside the save path: %s" % (name, left))
        if not clean:
            # The next run removes what the killed rank 0 left, and succeeds.
            proc, _ = mpiexec(config)
            left = sorted(n for n in os.listdir(work) if n.startswith("."))
            if proc.returncode != 0 or left:
                problems.append("%s: the next run: exit %d, left %s" %
                                (name, proc.returncode, left))
            before = snapshot(save)
    if problems:
        fail("\n".join(problems))
    print("ok: %d cases on %d rank(s)" % (len(throw_cases()), NP))


# --- fifo -----------------------------------------------------------------------

def refused_fast(name, argv, words, seconds=5):
    """Runs `argv`; problems unless it exits 2 within `seconds` with one line."""
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 5)
    except subprocess.TimeoutExpired:
        return ["%s: still running after %d s (waiting on the FIFO?)" % (name, seconds + 5)]
    took = time.monotonic() - start
    print("%s: exit %d in %.2f s: %s" % (name, proc.returncode, took, proc.stderr.strip()))
    problems = ["%s: %s" % (name, p) for p in cli_check.error_line_problems(proc, words)]
    if took > seconds:
        problems.append("%s: took %.1f s" % (name, took))
    return problems


def with_fifo(path):
    """Replaces the file at `path` by a FIFO; returns a function that puts it back."""
    saved = path + ".saved"
    os.rename(path, saved)
    os.mkfifo(path)

    def restore():
        os.remove(path)
        os.rename(saved, path)
    return restore


def fifo_cases(work, analysis, part):
    summary = os.path.join(analysis, "summary.json")
    s2m = os.path.join(analysis, "seqlen", "seqlen_sample_to_metric.idx")
    order = os.path.join(work, "order.npy")
    ds_config = os.path.join(work, "ds.json")
    os.mkfifo(ds_config)
    ids = os.path.join(work, "ids.npy")
    os.mkfifo(ids)
    not_regular = "not a regular file (a FIFO"
    return [
        ("verify", summary, [DSANALYZE, "verify", analysis], ["summary.json", not_regular]),
        ("compare", summary, [DSANALYZE, "compare", analysis, part],
         ["summary.json", not_regular]),
        ("curriculum", os.path.join(analysis, "curriculum_config.json"),
         [DSANALYZE, "curriculum", "--analysis", analysis, "--global-batch-size", "16"],
         ["curriculum_config.json", not_regular]),
        ("curriculum_ds_config", None, [DSANALYZE, "curriculum", "--analysis", analysis,
                                        "--ds-config", ds_config], ["ds.json", not_regular]),
        ("order", s2m, [DSANALYZE, "order", "--analysis", analysis, "--metric", "seqlen",
                        "--out", order], ["sample_to_metric.idx", not_regular]),
        ("batches_sample_ids", None, [DSANALYZE, "batches", "--analysis", analysis,
                                      "--max-tokens", "2048", "--effective-batch-size", "8",
                                      "--sample-ids", ids, "--out", os.path.join(work, "b")],
         ["ids.npy", not_regular]),
        ("batches_ds_config", None, [DSANALYZE, "batches", "--ds-config", ds_config, "--out",
                                     os.path.join(work, "b")], ["ds.json", not_regular]),
        ("merge", summary, [DSANALYZE, "merge", analysis, part, "--out",
                            os.path.join(work, "merged")],
         ["summary.json", not_regular]),
    ]


def fifo(work):
    prefix = os.path.join(work, "docs")
    subprocess.run([DSANALYZE, "generate", prefix, "--documents", "300", "--vocab-size", "100",
                    "--max-length", "40", "--seed", "3"], check=True, stdout=subprocess.DEVNULL)
    analysis = cli_check.run_analysis(work, "analysis", {"type": "documents", "prefixes": [prefix]},
                                      [{"name": "seqlen", "metric": "seqlen"}])
    part = cli_check.run_analysis(work, "part", {"type": "documents", "prefixes": [prefix]},
                                  [{"name": "seqlen", "metric": "seqlen"}])
    problems = []
    for name, path, argv, words in fifo_cases(work, analysis, part):
        restore = with_fifo(path) if path else None
        problems += refused_fast(name, argv, words)
        if restore:
            restore()
    restore = with_fifo(prefix + ".idx")
    problems += refused_fast("inspect", [DSANALYZE, "inspect", prefix],
                             ["docs.idx", "not a regular file (a FIFO"])
    restore()
    os.symlink("/dev/zero", os.path.join(work, "zero.idx"))
    problems += refused_fast("inspect_dev_zero", [DSANALYZE, "inspect", os.path.join(work, "zero")],
                             ["zero.idx", "not a regular file (a character device)"])
    if problems:
        fail("\n".join(problems))
    print("ok: every command refused its FIFO input")


def main(argv):
    if len(argv) != 2 or argv[1] not in ("throw", "fifo"):
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="internal_error_")
    try:
        (throw if argv[1] == "throw" else fifo)(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
