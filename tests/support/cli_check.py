"""Checks shared by the Python tests of dsanalyze's commands.

    sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
    import cli_check

error_line_problems: what is wrong with a refused command's output (the house
rule: exit 2, one line "dsanalyze: error: ...", nothing on stdout).
run_analysis: runs one analysis under mpiexec (env MPIEXEC, NP, DSANALYZE).
"""
import json
import os
import subprocess


def error_line_problems(proc, expected):
    """Problems of `proc` (a finished subprocess.run with text output) as a
    refusal: exit 2, one error line holding every string of `expected`, and
    nothing on stdout. An empty list when it is one."""
    lines = proc.stderr.splitlines()
    problems = []
    if proc.returncode != 2:
        problems.append("exit code %d, expected 2" % proc.returncode)
    if len(lines) != 1 or not lines[0].startswith("dsanalyze: error: "):
        problems.append("stderr is not one error line: %r" % proc.stderr)
    problems += ["the error lacks %r" % s for s in expected if s not in proc.stderr]
    if proc.stdout:
        problems.append("stdout: %r" % proc.stdout[:200])
    return problems


def run_analysis(work, name, dataset, metrics, output=None):
    """Analyses `dataset` with `metrics` into WORK/NAME (the config is
    WORK/NAME.json, with `output`'s keys added to its output section) on $NP
    ranks and returns WORK/NAME."""
    out = os.path.join(work, name)
    config = {"dataset": dataset, "metrics": metrics, "output": dict(output or {}, path=out)}
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    subprocess.run([os.environ["MPIEXEC"], "-n", os.environ["NP"], os.environ["DSANALYZE"],
                    "--config", path, "--quiet"], check=True)
    return out
