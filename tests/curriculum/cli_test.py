#!/usr/bin/env python3
"""What `dsanalyze curriculum` says and how it exits, on a real analysis.

Made once with mpiexec -n $NP (generate + a seqlen run), then:
  - a DeepSpeed-tutorial config (a percentile schedule_based metric and
    seqlen_truncate as single_cluster): the truncation's steps are one grouped
    note, never "use a larger difficulty_step"; exit 0;
  - a value-based config with a fine difficulty_step: its many findings come
    out one line per kind and metric, the --json keeps every occurrence (with
    kind, severity, step, metric) and the groups; warnings exit 0, or 1 with
    --strict;
  - an empty first cluster is an error: exit 1 without --strict;
  - no --train-steps and no train_iters: the largest total_curriculum_step,
    said in the header;
  - `--json -` writes the JSON to stdout (no file named "-");
  - the legacy top-level curriculum_learning replays as DeepSpeed's
    CurriculumScheduler would (the reference Scheduler of
    replay_reference_test.py), every sample eligible from step 1.
Standard library only. Environment: NP, MPIEXEC, DSANALYZE.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402
from replay_reference_test import Scheduler  # noqa: E402

FINDING = ("error: ", "warning: ", "note: ")


def make_analysis(work):
    dsa = os.environ["DSANALYZE"]
    data = os.path.join(work, "data", "demo")
    subprocess.run([dsa, "generate", data, "--documents", "300", "--vocab-size", "100",
                    "--min-length", "1", "--max-length", "120", "--seed", "5"],
                   check=True, capture_output=True)
    out = cli_check.run_analysis(
        work, "out", {"type": "documents", "prefixes": [data], "dtype_codes": "megatron"},
        [{"name": "seqlen", "metric": "seqlen"}], {"total_curriculum_step": 30})
    with open(os.path.join(out, "summary.json")) as f:
        return out, json.load(f)["metrics"]["seqlen"]["samples"]


def metric(out, difficulty_type, lo, hi, schedule_config, clustering="schedule_based"):
    kind = "_percentile_merged" if difficulty_type == "percentile" else ""
    return {"index_to_sample_path": "%s/seqlen/seqlen_index_to_sample%s" % (out, kind),
            "index_to_metric_path": "%s/seqlen/seqlen_index_to_metric" % out,
            "difficulty_type": difficulty_type, "clustering_type": clustering,
            "min_difficulty": lo, "max_difficulty": hi, "schedule_type": "fixed_linear",
            "schedule_config": schedule_config}


def ds_config(work, name, metrics, **top):
    doc = dict(top, data_efficiency={"data_sampling": {"curriculum_learning": {
        "enabled": True, "curriculum_metrics": metrics}}})
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


class Failed(Exception):
    pass


def expect(condition, what):
    if not condition:
        raise Failed(what)


def run(work, out, *args):
    p = subprocess.run([os.environ["DSANALYZE"], "curriculum", "--analysis", out] + list(args),
                       capture_output=True, text=True, timeout=60, cwd=work)
    expect(p.returncode in (0, 1), "exit %d: %s" % (p.returncode, p.stderr))
    return p


def findings(p):
    return [line for line in p.stdout.splitlines() if line.startswith(FINDING)]


def check_tutorial(work, out, n):
    truncate = metric(out, "value", 8, 120, {"total_curriculum_step": 60, "difficulty_step": 8},
                      clustering="single_cluster")
    path = ds_config(work, "tutorial", {
        "seqlen": metric(out, "percentile", 10, 100, {"total_curriculum_step": 40,
                                                      "difficulty_step": 10}),
        "seqlen_truncate": truncate}, train_batch_size=4)
    p = run(work, out, "--ds-config", path, "--train-steps", "60", "--json",
            os.path.join(work, "tutorial_report.json"))
    expect(p.returncode == 0, "exit %d, expected 0:\n%s" % (p.returncode, p.stdout))
    expect("difficulty_step" not in p.stdout, "advises difficulty_step:\n" + p.stdout)
    with open(os.path.join(work, "tutorial_report.json")) as f:
        report = json.load(f)
    notes = [w for w in report["warnings"] if w["kind"] == "single_cluster_change"]
    expect(len(notes) >= 5, "%d single_cluster_change occurrences" % len(notes))
    expect(all(w["severity"] == "note" and w["metric"] == "seqlen_truncate" for w in notes),
           "notes: %s" % notes[:2])
    lines = [l for l in findings(p) if "single_cluster_change" in l]
    expect(len(lines) == 1 and lines[0].startswith("note: steps %d..%d, %d times: " % (
        notes[0]["step"], notes[-1]["step"], len(notes))), "grouped line: %s" % lines)
    return "%d single_cluster_change notes in one line, exit 0" % len(notes)


def check_value_flood(work, out, n):
    path = ds_config(work, "value", {"seqlen": metric(
        out, "value", 1, 120, {"total_curriculum_step": 400, "difficulty_step": 1})},
        train_batch_size=8)
    report_path = os.path.join(work, "value_report.json")
    p = run(work, out, "--ds-config", path, "--train-steps", "300", "--json", report_path)
    with open(report_path) as f:
        report = json.load(f)
    occurrences, groups = report["warnings"], report["groups"]
    expect(len(occurrences) >= 50, "only %d occurrences" % len(occurrences))
    for w in occurrences:
        expect(sorted(w) == ["fix", "kind", "message", "metric", "severity", "step"], sorted(w))
    expect(sum(g["count"] for g in groups) == len(occurrences), "groups do not add up")
    expect(len(findings(p)) == len(groups) <= 5, "%d finding lines for %d groups" % (
        len(findings(p)), len(groups)))
    severities = {w["severity"] for w in occurrences}
    expect("error" not in severities and "warning" in severities, severities)
    expect(p.returncode == 0, "warnings alone exit %d" % p.returncode)
    strict = run(work, out, "--ds-config", path, "--train-steps", "300", "--strict")
    expect(strict.returncode == 1, "--strict with warnings exits %d" % strict.returncode)
    return "%d occurrences in %d lines; exit 0, --strict 1" % (len(occurrences), len(groups))


def check_error(work, out, n):
    path = ds_config(work, "empty_start", {"seqlen": metric(
        out, "value", 0, 120, {"total_curriculum_step": 10, "difficulty_step": 120})},
        train_batch_size=8)
    p = run(work, out, "--ds-config", path, "--train-steps", "10")
    expect(p.returncode == 1, "an empty first cluster exits %d" % p.returncode)
    expect(any(l.startswith("error: step 1: empty_first_cluster: ") for l in findings(p)),
           p.stdout)
    return "empty_first_cluster is an error, exit 1"


def check_default_steps(work, out, n):
    p = run(work, out, "--global-batch-size", "4", "--json", "-")
    report = json.loads(p.stdout)
    expect(not os.path.exists(os.path.join(work, "-")), "wrote a file named -")
    expect(report["train_steps"] == 30 and report["train_steps_from"] ==
           "largest total_curriculum_step", report["train_steps"])
    table = run(work, out, "--global-batch-size", "4").stdout.splitlines()[0]
    expect(table.endswith(", 30 steps (largest total_curriculum_step; --train-steps to change)"),
           table)
    return "--json - on stdout; 30 steps from the schedule"


def check_legacy(work, out, n):
    legacy = {"enabled": True, "curriculum_type": "seqlen", "min_difficulty": 8,
              "max_difficulty": 120, "schedule_type": "fixed_linear",
              "schedule_config": {"total_curriculum_step": 50, "difficulty_step": 8}}
    path = os.path.join(work, "legacy.json")
    with open(path, "w") as f:
        json.dump({"train_batch_size": 4, "curriculum_learning": legacy}, f)
    p = run(work, out, "--ds-config", path, "--json", "-")
    expect(p.returncode == 0, "exit %d" % p.returncode)
    steps = json.loads(p.stdout)["steps"]
    scheduler, expected, last = Scheduler(legacy), [], None
    for step in range(1, 51):
        d = scheduler.update(step)
        if d != last:
            expected.append((step, d))
        last = d
    got = [(s["step"], s["difficulty"]["seqlen"]) for s in steps]
    expect(got == expected, "difficulties %s, DeepSpeed's %s" % (got, expected))
    expect(all(s["eligible"] == n for s in steps), "not every sample eligible from step 1")
    return "%d steps as DeepSpeed's scheduler, all %d samples eligible" % (len(got), n)


def main():
    failed = False
    with tempfile.TemporaryDirectory() as work:
        out, n = make_analysis(work)
        for check in (check_tutorial, check_value_flood, check_error, check_default_steps,
                      check_legacy):
            try:
                print("ok   %s: %s" % (check.__name__, check(work, out, n)))
            except Failed as e:
                failed = True
                print("FAIL %s: %s" % (check.__name__, e))
            except Exception as e:  # the old binary's output may not parse at all
                failed = True
                print("FAIL %s: %r" % (check.__name__, e))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
