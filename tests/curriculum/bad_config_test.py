#!/usr/bin/env python3
"""The bad-input rules for `dsanalyze curriculum`, one malformed input per case.

tests/reliability/bad_input_test.py runs run configs only; this is the same
discipline for the curriculum subcommand. On a real analysis (made once with
mpiexec -n $NP), each case runs
  dsanalyze curriculum --analysis A [--ds-config CASE.json] ... --json J --svg S
and asserts: exit code 2; stderr exactly one line, "dsanalyze: error: ...",
holding the case's substrings (the key path or option, and the problem);
nothing on stdout; nothing written (J and S absent, the analysis folder
unchanged, by a snapshot of every file's bytes). Standard library only.
Environment: NP, MPIEXEC, DSANALYZE.
"""
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile

KEY = "data_efficiency.data_sampling.curriculum_learning.curriculum_metrics.seqlen."


def snapshot(root):
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def make_analysis(work):
    dsa = os.environ["DSANALYZE"]
    data = os.path.join(work, "data", "demo")
    subprocess.run([dsa, "generate", data, "--documents", "120", "--vocab-size", "100",
                    "--min-length", "1", "--max-length", "40"], check=True, capture_output=True)
    config = {"dataset": {"type": "documents", "prefixes": [data], "dtype_codes": "megatron"},
              "metrics": [{"name": "seqlen", "metric": "seqlen"}],
              "output": {"path": os.path.join(work, "out"), "total_curriculum_step": 30}}
    with open(os.path.join(work, "run.json"), "w") as f:
        json.dump(config, f)
    subprocess.run([os.environ["MPIEXEC"], "-n", os.environ["NP"], dsa, "--config",
                    os.path.join(work, "run.json"), "--quiet"], check=True)
    with open(os.path.join(work, "out", "curriculum_config.json")) as f:
        proposed = json.load(f)
    return {"data_efficiency": proposed["data_efficiency"]}


def with_seqlen(base, change):
    doc = copy.deepcopy(base)
    change(doc["data_efficiency"]["data_sampling"]["curriculum_learning"]["curriculum_metrics"]
           ["seqlen"])
    return doc


def set_key(key, value):
    def change(e):
        *path, last = key.split(".")
        for p in path:
            e = e[p]
        e[last] = value
    return change


def drop_key(key):
    return lambda e: e.pop(key)


def discrete(e):
    e["schedule_type"] = "fixed_discrete"
    e["schedule_config"] = {"difficulty": [1, 50, 100], "max_step": [5]}


def cases(base, work):
    """name -> (DeepSpeed config or raw text or None, extra args, substrings)."""
    flags = ["--global-batch-size", "4", "--train-steps", "20"]
    return {
        "custom_schedule": (with_seqlen(base, set_key("schedule_type", "custom")), flags,
                            [KEY + "schedule_type", "custom", "cannot be replayed"]),
        "unknown_schedule": (with_seqlen(base, set_key("schedule_type", "fixed_step")), flags,
                             [KEY + "schedule_type", "unknown schedule type"]),
        "missing_key": (with_seqlen(base, drop_key("max_difficulty")), flags,
                        [KEY + "max_difficulty", "required"]),
        "wrong_type": (with_seqlen(base, set_key("min_difficulty", "1")), flags,
                       [KEY + "min_difficulty", "expected an integer"]),
        "discrete_lengths": (with_seqlen(base, discrete), flags,
                             [KEY + "schedule_config.difficulty", "one more entry than max_step"]),
        "difficulty_step_0": (with_seqlen(base, set_key("schedule_config.difficulty_step", 0)),
                              flags, [KEY + "schedule_config.difficulty_step", "positive"]),
        "total_step_0": (with_seqlen(base, set_key("schedule_config.total_curriculum_step", 0)),
                         flags, [KEY + "schedule_config.total_curriculum_step", "positive"]),
        "not_json": ("{\"data_efficiency\": ", flags, ["not valid JSON"]),
        "no_train_steps": (None, ["--global-batch-size", "4"], ["--train-steps"]),
        "no_batch_size": (None, ["--train-steps", "20"], ["--global-batch-size"]),
        "zero_train_steps": (None, ["--global-batch-size", "4", "--train-steps", "0"],
                             ["--train-steps"]),
        "not_an_analysis": (None, flags + ["--analysis", os.path.join(work, "data")],
                            ["not an analysis folder"]),
        "unreadable_index": (with_seqlen(base, set_key("index_to_sample_path",
                                                       os.path.join(work, "data", "demo"))),
                             flags, [os.path.join(work, "data", "demo")]),
    }


def run_case(name, spec, work, out):
    config, extra, expected = spec
    report, chart = os.path.join(work, name + ".json"), os.path.join(work, name + ".svg")
    args = [os.environ["DSANALYZE"], "curriculum", "--json", report, "--svg", chart] + extra
    if "--analysis" not in extra:
        args += ["--analysis", out]
    if config is not None:
        path = os.path.join(work, name + "_ds.json")
        with open(path, "w") as f:
            f.write(config if isinstance(config, str) else json.dumps(config))
        args += ["--ds-config", path]
    before = snapshot(out)
    p = subprocess.run(args, capture_output=True, text=True, timeout=10)
    lines = p.stderr.splitlines()
    problems = []
    if p.returncode != 2:
        problems.append("exit %d, expected 2" % p.returncode)
    if len(lines) != 1 or not lines[0].startswith("dsanalyze: error: "):
        problems.append("stderr is not one error line: %r" % p.stderr)
    problems += ["error lacks %r" % s for s in expected if s not in p.stderr]
    if p.stdout:
        problems.append("stdout not empty: %r" % p.stdout[:200])
    if os.path.exists(report) or os.path.exists(chart):
        problems.append("wrote --json or --svg")
    if snapshot(out) != before:
        problems.append("the analysis folder changed")
    for problem in problems:
        print("FAIL %s: %s" % (name, problem))
    if not problems:
        print("ok   %s: %s" % (name, lines[0]))
    return not problems


def main():
    with tempfile.TemporaryDirectory() as work:
        base = make_analysis(work)
        out = os.path.join(work, "out")
        results = [run_case(n, s, work, out) for n, s in cases(base, work).items()]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
