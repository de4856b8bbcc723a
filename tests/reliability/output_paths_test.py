#!/usr/bin/env python3
"""No command writes into an analysis (docs/reliability.md, "Outputs stay out of analyses").

    output_paths_test.py table|issue

table: every output option of every command pointed into an analysis, each
       case one command that must be refused: exit 2, one error line naming
       the option, the path and the input or analysis it lies in, nothing on
       stdout, and every file of the work folder (analyses, links, inputs)
       byte-for-byte as before. The options are read from each command's
       --help (every option taking a value is an output here unless it is
       in NOT_OUTPUTS, so a new output option needs its row), plus
       generate's prefix. The targets, for the analysis the command reads
       and for one it does not: summary.json, a metric file, a new file in
       the analysis and in a metric folder, the metric folder, the analysis
       folder itself (a save path, merge --out, may be an analysis it does
       not read: replaced whole), each also reached through ".." and
       through symbolic links (to a metric folder, to summary.json); and the
       command's other inputs (a DeepSpeed config, a sample-ids file). At the
       end every analysis passes `verify`. Controls: each command succeeds
       with its outputs outside every analysis, beside a folder holding
       another tool's summary.json and inside it, and `curriculum --json -`
       still writes to stdout.
issue: issue 43's four reproductions (curriculum --html, compare --html,
       order --out twice, curriculum --json into the analysis), each refused
       and followed by a passing `verify`.

One small analysis and two parts of it (for merge) are made once per process,
by the run as a single process. Environment: DSANALYZE, SOURCE_DIR.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
COMMANDS = ("curriculum", "compare", "order", "batches", "verify", "inspect", "merge",
            "generate")
# Options taking a value that name no output (what they read, or a setting).
NOT_OUTPUTS = {"--analysis", "--ds-config", "--sample-ids", "--metric", "--order",
               "--lr-scaling", "--rows", "--dtype-codes", "--config", "--progress"}
METRIC_FILE = os.path.join("seqlen", "seqlen_sample_to_metric.idx")


def fail(message):
    sys.exit("FAIL: " + message)


def run(args, cwd, **kw):
    return subprocess.run([DSANALYZE] + args, cwd=cwd, capture_output=True, text=True,
                          timeout=30, **kw)


def analyse(work, name, sample_range=None):
    dataset = {"type": "documents", "prefixes": [os.path.join(work, "data", "tok")]}
    if sample_range:
        dataset["sample_range"] = sample_range
    config = os.path.join(work, "configs", name + ".json")
    with open(config, "w") as f:
        json.dump({"dataset": dataset, "metrics": [{"name": "seqlen", "metric": "seqlen"}],
                   "output": {"path": os.path.join(work, name), "total_curriculum_step": 20}}, f)
    p = run(["--config", config, "--quiet"], work)
    if p.returncode != 0:
        fail("the analysis %s: exit %d: %s" % (name, p.returncode, p.stderr))
    return os.path.join(work, name)


def setup():
    """The work folder: analyses A (read by curriculum, compare, order,
    batches), B (compare's other side), P0 and P1 (merge's parts), N (read by
    no command), links into each, the other inputs, and outs/."""
    work = os.path.realpath(tempfile.mkdtemp(prefix="output_paths_"))
    for d in ("data", "configs", "outs"):
        os.mkdir(os.path.join(work, d))
    p = run(["generate", os.path.join(work, "data", "tok"), "--documents", "200", "--vocab-size",
             "100", "--min-length", "1", "--max-length", "40", "--seed", "3"], work)
    if p.returncode != 0:
        fail("generate: " + p.stderr)
    a = analyse(work, "A")
    analyse(work, "P0", [0, 100])
    analyse(work, "P1", [100, 200])
    for copy in ("B", "N"):
        shutil.copytree(a, os.path.join(work, copy))
    for name in ("A", "B", "P0", "P1", "N"):
        os.symlink(os.path.join(work, name, "seqlen"), os.path.join(work, name + "_to_metric"))
        os.symlink(os.path.join(work, name, "summary.json"),
                   os.path.join(work, name + "_to_summary"))
    shutil.copyfile(os.path.join(a, "curriculum_config.json"), os.path.join(work, "ds.json"))
    with open(os.path.join(work, "ids.npy"), "wb") as f:  # int64 ids 0..9, NumPy 1.0
        header = "{'descr': '<i8', 'fortran_order': False, 'shape': (10,), }"
        header += " " * (64 - 11 - len(header)) + "\n"
        f.write(b"\x93NUMPY\x01\x00" + bytes([len(header), 0]) + header.encode())
        f.write(b"".join(i.to_bytes(8, "little") for i in range(10)))
    return work


def spec(work, command):
    """(arguments before the output options, the output options with a
    harmless value each, the analyses it reads, its other inputs)."""
    w = lambda *p: os.path.join(work, *p)  # noqa: E731
    outs = {"--json": w("outs", "r.json"), "--svg": w("outs", "c.svg"),
            "--html": w("outs", "p.html"), "--out": w("outs", command + "_out"),
            "--megatron-core-cache": w("outs", "core_cache")}
    if command == "curriculum":
        return (["curriculum", "--analysis", w("A"), "--ds-config", w("ds.json"),
                 "--global-batch-size", "4"],
                {k: outs[k] for k in ("--json", "--svg", "--html")}, [w("A")], [w("ds.json")])
    if command == "compare":
        return ["compare", w("A"), w("B")], {"--html": outs["--html"]}, [w("A"), w("B")], []
    if command == "order":
        return (["order", "--analysis", w("A"), "--metric", "seqlen"],
                {k: outs[k] for k in ("--out", "--megatron-core-cache")}, [w("A")], [])
    if command == "batches":
        return (["batches", "--analysis", w("A"), "--max-tokens", "64",
                 "--effective-batch-size", "2", "--sample-ids", w("ids.npy")],
                {k: outs[k] for k in ("--out", "--svg", "--html")}, [w("A")], [w("ids.npy")])
    if command == "merge":
        return ["merge", w("P0"), w("P1")], {"--out": outs["--out"]}, [w("P0"), w("P1")], []
    if command == "generate":
        return (["generate", "--documents", "5", "--max-length", "8"], {"prefix": w("outs", "g")},
                [], [])
    return [command], {}, [], []


def help_outputs(command):
    """The options of `command --help` that take a value and are not in NOT_OUTPUTS."""
    text = run([command, "--help"], "/").stdout
    options = re.findall(r"^\s+(?:-\w,)?(--[\w-]+) TEXT", text, re.M)
    return {o for o in options if o not in NOT_OUTPUTS}


def targets(work, analysis, command):
    """(label, path) of the places inside `analysis` an output is pointed at."""
    x = os.path.join(work, analysis)
    places = [("summary.json", os.path.join(x, "summary.json")),
              ("a metric file", os.path.join(x, METRIC_FILE)),
              ("a new file", os.path.join(x, "new_output")),
              ("a new file in a metric folder", os.path.join(x, "seqlen", "new_output")),
              ("the metric folder", os.path.join(x, "seqlen")),
              ("summary.json through ..", os.path.join(work, "data", "..", analysis,
                                                       "summary.json")),
              ("a new file through ..", os.path.join(x, "seqlen", "..", "new_output")),
              ("a link to a metric folder", os.path.join(work, analysis + "_to_metric", "x")),
              ("a link to a metric folder, then ..",
               os.path.join(work, analysis + "_to_metric", "..", "summary.json"))]
    if command != "generate":  # a prefix writes PREFIX.bin beside these, not into them
        places.append(("a link to summary.json", os.path.join(work, analysis + "_to_summary")))
        if not (command == "merge" and analysis == "N"):  # a save path may be one, replaced whole
            places += [("the analysis folder", x), ("the analysis folder as X/.", x + "/.")]
    return places


def snapshot(work):
    """{path: (kind, sha256 or link target)} of everything but outs/."""
    snap = {}
    for root, dirs, files in os.walk(work):
        dirs[:] = [d for d in dirs if os.path.join(root, d) != os.path.join(work, "outs")]
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                snap[path] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                snap[path] = ("dir", "")
            else:
                with open(path, "rb") as f:
                    snap[path] = ("file", hashlib.sha256(f.read()).hexdigest())
    return snap


def refused_case(work, command, flag, path, named):
    """Problems of one command with `flag` at `path`, which must be refused
    naming `named` ("the input X" or "the analysis X")."""
    base, outs, _, _ = spec(work, command)
    args = list(base)
    for other, value in outs.items():
        if other != flag and other != "prefix":
            args += [other, value]
    args += [path] if flag == "prefix" else [flag, path]
    before = snapshot(work)
    p = run(args, work)
    shown = path + ".bin" if flag == "prefix" else path
    problems = cli_check.error_line_problems(p, [flag + " " + shown + ": is ", named + ","])
    if snapshot(work) != before:
        problems.append("the work folder changed")
    return problems


def check_help(work):
    problems = []
    for command in COMMANDS:
        _, outs, _, _ = spec(work, command)
        found = help_outputs(command)
        want = set(outs) - {"prefix"}
        if found != want:
            problems.append("%s --help has output options %s, the table %s" %
                            (command, sorted(found), sorted(want)))
    return problems


def table_cases(work):
    """(command, flag, path, what the error must name, label) of every case."""
    cases = []
    for command in COMMANDS:
        _, outs, reads, others = spec(work, command)
        for flag in outs:
            for analysis in ([os.path.basename(r) for r in reads] or []) + ["N"]:
                read = os.path.join(work, analysis) in reads
                named = ("the input " + os.path.join(work, analysis) if read
                         else "the analysis " + analysis)
                for label, path in targets(work, analysis, command):
                    cases.append((command, flag, path, named, analysis + ": " + label))
            for other in others:
                cases.append((command, flag, other, "the input " + other, "another input"))
    return cases


# Outputs the controls leave out: order --megatron-core-cache needs an
# analysis of a megatron_core dataset (tests/blend/core_test.py writes one).
CONTROL_NEEDS_OTHER_DATA = ("--megatron-core-cache",)


def controls(work):
    """Each command with its outputs outside every analysis succeeds."""
    foreign = os.path.join(work, "outs", "foreign")
    os.mkdir(foreign)
    with open(os.path.join(foreign, "summary.json"), "w") as f:
        json.dump({"tool": "another tool", "metrics": {"x": {}}}, f)
    problems = []
    for command in COMMANDS:
        base, outs, _, _ = spec(work, command)
        for where in ("outs", "foreign") if outs else ():
            args = list(base)
            for flag, value in outs.items():
                if flag in CONTROL_NEEDS_OTHER_DATA:
                    continue
                value = value if where == "outs" else os.path.join(foreign, os.path.basename(value))
                args += [value] if flag == "prefix" else [flag, value]
            p = run(args, work)
            if p.returncode not in (0, 1) or p.stderr:
                problems.append("control %s into %s: exit %d: %s" %
                                (command, where, p.returncode, p.stderr.strip()))
    p = run(spec(work, "curriculum")[0] + ["--json", "-"], work)
    if p.returncode not in (0, 1) or not p.stdout.startswith("{"):
        problems.append("curriculum --json -: exit %d, stdout %r" % (p.returncode, p.stdout[:80]))
    return problems


def verify_all(work, names):
    problems = []
    for name in names:
        p = run(["verify", os.path.join(work, name)], work)
        if p.returncode != 0:
            problems.append("verify %s: exit %d: %s" %
                            (name, p.returncode, (p.stdout + p.stderr)[-300:]))
    return problems


def table():
    work = setup()
    problems = check_help(work)
    cases = table_cases(work)
    for command, flag, path, named, label in cases:
        problems += ["%s %s at %s (%s): %s" % (command, flag, label, path, p)
                     for p in refused_case(work, command, flag, path, named)]
    problems += verify_all(work, ("A", "B", "P0", "P1", "N"))
    problems += controls(work)
    if problems:
        fail("\n".join(problems))
    shutil.rmtree(work)
    print("output paths: %d outputs into analyses or inputs refused, analyses intact" % len(cases))


def issue():
    work = setup()
    kc, other = os.path.join(work, "A"), os.path.join(work, "B")
    curriculum = ["curriculum", "--analysis", kc, "--global-batch-size", "4"]
    order = ["order", "--analysis", kc, "--metric", "seqlen"]
    reproductions = [
        curriculum + ["--html", os.path.join(kc, "summary.json")],
        ["compare", kc, other, "--html", os.path.join(kc, "summary.json")],
        order + ["--out", os.path.join(kc, "seqlen", "seqlen_index_to_sample.bin")],
        order + ["--out", os.path.join(kc, "summary.json")],
        curriculum + ["--json", os.path.join(kc, METRIC_FILE)],
    ]
    problems = []
    for args in reproductions:
        before = snapshot(work)
        p = run(args, work)
        problems += [" ".join(args[:1] + args[-2:]) + ": " + q
                     for q in cli_check.error_line_problems(p, ["the input " + kc])]
        problems += verify_all(work, ("A",))
        if snapshot(work) != before:
            problems.append(" ".join(args) + ": the analysis changed")
    if problems:
        fail("\n".join(problems))
    shutil.rmtree(work)
    print("issue 43's reproductions: all refused, the analysis intact")


if __name__ == "__main__":
    if sys.argv[1:] == ["table"]:
        table()
    elif sys.argv[1:] == ["issue"]:
        issue()
    else:
        sys.exit(__doc__)
