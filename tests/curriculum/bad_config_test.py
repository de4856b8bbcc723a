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

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

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
    out = cli_check.run_analysis(
        work, "out", {"type": "documents", "prefixes": [data], "dtype_codes": "megatron"},
        [{"name": "seqlen", "metric": "seqlen"}], {"total_curriculum_step": 30})
    with open(os.path.join(out, "curriculum_config.json")) as f:
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


def rename(key, new):
    """Moves e[key] (dotted path) to the sibling key `new`: a misspelling."""
    def change(e):
        *path, last = key.split(".")
        for p in path:
            e = e[p]
        e[new] = e.pop(last)
    return change


def with_top(base, **keys):
    doc = copy.deepcopy(base)
    doc.update(keys)
    return doc


LEGACY = {"enabled": True, "curriculum_type": "seqlen", "min_difficulty": 8,
          "max_difficulty": 40, "schedule_type": "fixed_linear",
          "schedule_config": {"total_curriculum_step": 20, "difficulty_step": 8}}


def misspellings(base, flags):
    entry = KEY[:-1] + ": unknown key "
    config = KEY + "schedule_config: unknown key "
    return {
        "difficulty_typ": (with_seqlen(base, rename("difficulty_type", "difficulty_typ")), flags,
                           [entry + '"difficulty_typ" (did you mean "difficulty_type"?)']),
        "root_degre": (with_seqlen(base, rename("schedule_config.root_degree", "root_degre")),
                       flags, [config + '"root_degre" (did you mean "root_degree"?)']),
        "total_curriculum_steps": (
            with_seqlen(base, rename("schedule_config.total_curriculum_step",
                                     "total_curriculum_steps")),
            flags, [config + '"total_curriculum_steps" (did you mean "total_curriculum_step"?)']),
        "difficulty_stepp": (with_seqlen(base, set_key("schedule_config.difficulty_stepp", 16)),
                             flags, [config + '"difficulty_stepp" (did you mean "difficulty_step"?)']),
    }


def trust_cases(base, work, flags):
    """Issue 33's: min > max, output folders, batch keys, the legacy section."""
    steps = ["--train-steps", "20"]
    nodir = os.path.join(work, "nodir")
    return {
        "min_above_max": (with_seqlen(base, lambda e: e.update(min_difficulty=50, max_difficulty=10)),
                          flags,
                          [KEY + "min_difficulty: 50 is above max_difficulty 10"]),
        "svg_no_folder": (None, flags + ["--svg", os.path.join(nodir, "x.svg")],
                          [os.path.join(nodir, "x.svg") + ": no such folder: " + nodir]),
        "json_no_folder": (None, flags + ["--json", os.path.join(nodir, "x.json")],
                           [os.path.join(nodir, "x.json") + ": no such folder: " + nodir]),
        "svg_stdout": (None, flags + ["--svg", "-"], ["--svg -", "file"]),
        "html_stdout": (None, flags + ["--html", "-"], ["--html -", "file"]),
        "html_no_folder": (None, flags + ["--html", os.path.join(nodir, "x.html")],
                           [os.path.join(nodir, "x.html") + ": no such folder: " + nodir]),
        "batch_auto": (with_top(base, train_batch_size="auto"), steps,
                       ["train_batch_size", '"auto"', "--global-batch-size"]),
        "batch_disagrees": (with_top(base, train_batch_size=512, train_micro_batch_size_per_gpu=4,
                                     gradient_accumulation_steps=16), steps,
                            ["train_batch_size: 512 is not train_micro_batch_size_per_gpu 4 x "
                             "gradient_accumulation_steps 16 x data-parallel size 1",
                             "= 64"]),
        "legacy_and_data_efficiency": (with_top(base, curriculum_learning=LEGACY), flags,
                                       ["curriculum_learning: the legacy top-level curriculum",
                                        "both enabled"]),
        "legacy_misspelt": (with_top({}, curriculum_learning=dict(LEGACY, curriculum_typ="seqlen")),
                            flags, ['curriculum_learning: unknown key "curriculum_typ" '
                                    '(did you mean "curriculum_type"?)']),
    }


def cases(base, work):
    """name -> (DeepSpeed config or raw text or None, extra args, substrings)."""
    flags = ["--global-batch-size", "4", "--train-steps", "20"]
    return {**misspellings(base, flags), **trust_cases(base, work, flags),
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
        "not_json": ("{\"data_efficiency\": ", flags,
                     ["line 1, column 21: the file ends inside a value"]),
        "hjson_syntax": ("{\n  data_efficiency: {}\n}", flags,
                         ["line 2, column 3: at \"data_efficiency: {}\"",
                          "hjson syntax dsanalyze does not read"]),
        "duplicate_key": ("{\"train_batch_size\": 8,\n\"train_batch_size\": 4}", flags,
                          ["line 2: duplicate key \"train_batch_size\" (first at line 1)"]),
        "no_batch_size": (None, ["--train-steps", "20"], ["--global-batch-size"]),
        "zero_train_steps": (None, ["--global-batch-size", "4", "--train-steps", "0"],
                             ["--train-steps"]),
        "data_parallel_ignored": (None, ["--global-batch-size", "4", "--data-parallel-size", "2"],
                                  ["--global-batch-size cannot be given with "
                                   "--data-parallel-size"]),
        "not_an_analysis": (None, flags + ["--analysis", os.path.join(work, "data")],
                            ["not an analysis folder"]),
        "unreadable_index": (with_seqlen(base, set_key("index_to_sample_path",
                                                       os.path.join(work, "data", "demo"))),
                             flags, [os.path.join(work, "data", "demo")]),
        # Cut at the NUL, the path would be the analysis's own index file.
        "index_path_with_nul": (
            with_seqlen(base, set_key("index_to_sample_path", os.path.join(
                work, "out", "seqlen", "seqlen_index_to_sample") + "\0.x")),
            flags, [KEY + "index_to_sample_path", "holds a NUL character"]),
    }


def run_case(name, spec, work, out):
    config, extra, expected = spec
    report, chart = os.path.join(work, name + ".json"), os.path.join(work, name + ".svg")
    args = [os.environ["DSANALYZE"], "curriculum"] + extra
    # A case's own --json or --svg replaces the default one.
    for option in ("--json", "--svg"):
        if option not in extra:
            args += [option, report if option == "--json" else chart]
    report = extra[extra.index("--json") + 1] if "--json" in extra else report
    chart = extra[extra.index("--svg") + 1] if "--svg" in extra else chart
    if "--analysis" not in extra:
        args += ["--analysis", out]
    if config is not None:
        path = os.path.join(work, name + "_ds.json")
        with open(path, "w") as f:
            f.write(config if isinstance(config, str) else json.dumps(config))
        args += ["--ds-config", path]
    before, listing = snapshot(out), sorted(os.listdir(work))
    p = subprocess.run(args, capture_output=True, text=True, timeout=10, cwd=work)
    lines = p.stderr.splitlines()
    problems = cli_check.error_line_problems(p, expected)
    written = [f for f in (report, chart, report + ".tmp", chart + ".tmp") if f != "-"]
    if any(os.path.exists(f) for f in written) or sorted(os.listdir(work)) != listing:
        problems.append("wrote --json or --svg, or a file in the work folder")
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
