#!/usr/bin/env python3
"""`dsanalyze order` on bad input (ctest curriculum.order_bad_input.np1).

Each case runs one `dsanalyze order` command that must be refused: exit code 2,
stderr exactly one line "dsanalyze: error: ..." holding the case's substrings,
nothing on stdout, and nothing written: no --out.tmp, and --out absent or, where
a previous order sits there, byte-for-byte unchanged.

Environment: NP, MPIEXEC, DSANALYZE.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

MPIEXEC = os.environ["MPIEXEC"]
DSANALYZE = os.environ["DSANALYZE"]


def analyse(work, name, samples):
    return cli_check.run_analysis(
        work, name, {"type": "synthetic_mod", "num_samples": samples, "modulus": 7},
        [{"name": "mod", "metric": "value"}, {"name": "total", "metric": "sum"}])


def refused(name, args, out, substrings, previous=None, cwd=None):
    """Runs `dsanalyze order ARGS --out OUT` (in CWD) and checks that it was refused."""
    command = [DSANALYZE, "order"] + args + ["--out", out]
    out = os.path.join(cwd or "", out)
    if previous is not None:
        open(out, "wb").write(previous)
    elif os.path.isfile(out):
        os.remove(out)
    r = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    lines = r.stderr.splitlines()
    problems = cli_check.error_line_problems(r, substrings)
    if os.path.exists(out + ".tmp"):
        problems.append(out + ".tmp was left")
    if previous is None and os.path.lexists(out) and not os.path.isdir(out):
        problems.append(out + " was written")
    if previous is not None and open(out, "rb").read() != previous:
        problems.append("the previous " + out + " changed")
    if problems:
        sys.exit("FAIL: %s: %s" % (name, "; ".join(problems)))
    print("ok: %s: %s" % (name, lines[0]))


def main():
    with tempfile.TemporaryDirectory() as work:
        good = analyse(work, "good", 100)
        other = analyse(work, "other", 90)
        out = os.path.join(work, "order.npy")
        refused("missing analysis", ["--analysis", work + "/none", "--metric", "mod"], out,
                ["none", "no such directory"])
        refused("unknown metric", ["--analysis", good, "--metric", "mdo"], out,
                ['no metric "mdo"', 'did you mean "mod"', "its metrics: mod, total"])
        refused("accumulate metric", ["--analysis", good, "--metric", "total"], out,
                ["total", "accumulate_value_over_samples"])
        refused("out in a missing folder", ["--analysis", good, "--metric", "mod"],
                os.path.join(work, "missing", "order.npy"), ["no such folder"])
        refused("out is a folder", ["--analysis", good, "--metric", "mod"], work,
                ["is a folder"])
        refused("out is standard output", ["--analysis", good, "--metric", "mod"], "-",
                ["--out -: written to a file only"], cwd=work)
        refused("zero buckets", ["--analysis", good, "--metric", "mod", "--buckets", "0"], out,
                ["--buckets", "positive integer"])
        refused("more buckets than samples",
                ["--analysis", good, "--metric", "mod", "--buckets", "101"], out,
                ["--buckets 101", "(100)"], previous=b"an order made earlier")
        refused("no metric", ["--analysis", good], out, ["--metric"])
        refused("metric twice", ["--analysis", good, "--metric", "mod", "--metric", "mod"], out,
                ["--metric mod", "given twice"], previous=b"an order made earlier")
        for seed in ("-1", "18446744073709551616", "1.5", "0x10"):
            refused("seed " + seed,
                    ["--analysis", good, "--metric", "mod", "--buckets", "2", "--seed", seed],
                    out, ["--seed", '"%s"' % seed, "18446744073709551615"])
        for ext in ("idx", "bin"):
            shutil.copy(os.path.join(other, "mod", "mod_sample_to_metric." + ext),
                        os.path.join(good, "mod", "mod_sample_to_metric." + ext))
        refused("files disagree on N", ["--analysis", good, "--metric", "mod"], out,
                ["mod_index_to_sample: holds 100 sample ids but sample_to_metric has 90 "
                 "samples"],
                previous=b"an order made earlier")
    print("order bad input: all cases refused cleanly")


main()
