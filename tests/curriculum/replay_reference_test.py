#!/usr/bin/env python3
"""`dsanalyze curriculum --json` against an independent replay of DeepSpeed.

Makes a small real analysis (dsanalyze generate + a run with seqlen and
vocab_rarity under mpiexec -n $NP), then for several DeepSpeed configs
replays DeepSpeed's sampler here, written from data_sampler.py and
curriculum_scheduler.py (commit 38327e07f) with plain Python lists in place of
numpy: update_difficulty per step, and get_new_cluster's samples — value
lookups, percentile lookups (with the percentile_merged rows), two metrics
intersected minus earlier clusters, single_cluster metrics — and compares
every changed step's difficulties, new cluster size and eligible pool with
the --json output. Only the .idx/.bin files are read (docs/format.md §1).
Standard library only. Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

DEEPSPEED_CODES = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}


def read_rows(prefix):
    """The rows of PREFIX.idx/.bin (DeepSpeed's dtype codes) as lists of ints."""
    with open(prefix + ".idx", "rb") as f:
        idx = f.read()
    code = idx[17]
    rows = struct.unpack_from("<Q", idx, 18)[0]
    sizes = struct.unpack_from("<%di" % rows, idx, 34)
    with open(prefix + ".bin", "rb") as f:
        data = f.read()
    fmt = DEEPSPEED_CODES[code]
    flat = struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data)
    out, at = [], 0
    for n in sizes:
        out.append(list(flat[at:at + n]))
        at += n
    return out


class Scheduler:
    """CurriculumScheduler's update_difficulty, for one metric's config."""

    def __init__(self, c):
        self.c, self.current = c, c["min_difficulty"]

    def get(self, step):
        s, lo, hi = self.c["schedule_config"], self.c["min_difficulty"], self.c["max_difficulty"]
        if self.c["schedule_type"] == "fixed_discrete":
            if step > s["max_step"][-1]:
                return s["difficulty"][-1]
            for i, m in enumerate(s["max_step"]):
                if step <= m:
                    return s["difficulty"][i]
        degree = 1 if self.c["schedule_type"] == "fixed_linear" else s["root_degree"]
        d = math.floor((float(step) / s["total_curriculum_step"]) ** (1.0 / degree) * (hi - lo) + lo)
        d -= d % s["difficulty_step"]
        return min(d, hi)

    def update(self, step):
        if self.current < self.c["max_difficulty"]:
            self.current = self.get(step)
        return self.current


class Sampler:
    """get_next_global_batch's curriculum part and get_new_cluster, sizes only."""

    def __init__(self, metrics, n):
        self.metrics, self.n = metrics, n
        self.sched = {m: Scheduler(c) for m, c in metrics.items()}
        self.i2s, self.i2m = {}, {}
        for m, c in metrics.items():
            if c["clustering_type"] != "single_cluster":
                self.i2s[m] = read_rows(c["index_to_sample_path"])
                if c["difficulty_type"] == "value":
                    self.i2m[m] = read_rows(c["index_to_metric_path"])
        self.current, self.clusters, self.epoch_size = {}, [], None

    def by_value(self, m, start, end):
        out = None
        for row in range(len(self.i2s[m])):
            if start < self.i2m[m][row][0] <= end:
                out = (out or []) + self.i2s[m][row]
        return out

    def by_percentile(self, m, start, end):
        out = None
        if self.epoch_size is None:
            self.epoch_size = sum(len(x) for x in self.i2s[m])
        top = self.metrics[m]["max_difficulty"]
        per = self.epoch_size // top
        start_count, end_count = per * start, per * end
        if end == top:
            end_count = self.epoch_size
        count = 0
        for row in self.i2s[m]:
            if count + len(row) > start_count:
                row_start = max(0, start_count - count)
                row_end = len(row) if count + len(row) <= end_count else end_count - count
                out = (out or []) + row[row_start:row_end]
            count += len(row)
            if count >= end_count:
                break
        return out

    def lookup(self, m, start, end):
        if self.metrics[m]["difficulty_type"] == "value":
            return self.by_value(m, start, end)
        return self.by_percentile(m, start, end)

    def new_cluster(self, previous):
        scheduled = [m for m, c in self.metrics.items() if c["clustering_type"] != "single_cluster"]
        new = None
        if len(scheduled) > 1:
            for m, c in self.metrics.items():
                if c["clustering_type"] == "single_cluster":
                    part = list(range(self.n))
                else:
                    low = float("-inf") if c["difficulty_type"] == "value" else 0
                    part = self.lookup(m, low, self.current[m]) or []
                new = part if new is None else sorted(set(new) & set(part))
            taken = set().union(*self.clusters) if self.clusters else set()
            new = [x for x in new if x not in taken]
        else:
            if not self.clusters:
                new = list(range(self.n))
            for m in scheduled:
                new = self.lookup(m, previous[m], self.current[m])
        if new:
            self.clusters.append(set(new))
            return len(new)
        return 0

    def replay(self, steps):
        out, eligible = [], 0
        for step in range(1, steps + 1):
            changed, previous = False, {}
            for m, c in self.metrics.items():
                d = self.sched[m].update(step)
                changed = changed or m not in self.current or d != self.current[m]
                default = float("-inf") if c["difficulty_type"] == "value" else 0
                previous[m] = self.current.get(m, default)
                self.current[m] = d
            if changed:
                size = self.new_cluster(previous)
                eligible += size
                out.append({"step": step, "difficulty": dict(self.current),
                            "new_cluster_size": size, "eligible": eligible})
        return out


def run(*args, ok=(0,)):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit("FAIL: %s exited %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def make_analysis(work, env):
    data = os.path.join(work, "data", "demo")
    run(env["DSANALYZE"], "generate", data, "--documents", "400", "--vocab-size", "300",
        "--min-length", "1", "--max-length", "90", "--seed", "3")
    config = {"dataset": {"type": "documents", "prefixes": [data], "dtype_codes": "megatron"},
              "metrics": [{"name": "seqlen", "metric": "seqlen"},
                          {"name": "vocab_rarity", "metric": "vocab_rarity",
                           "params": {"vocab_size": 300}}],
              "output": {"path": os.path.join(work, "out"), "total_curriculum_step": 60}}
    path = os.path.join(work, "run.json")
    with open(path, "w") as f:
        json.dump(config, f)
    run(env["MPIEXEC"], "-n", env["NP"], env["DSANALYZE"], "--config", path, "--quiet")
    with open(os.path.join(work, "out", "summary.json")) as f:
        return json.load(f)["metrics"]["seqlen"]["samples"]


def entry(out, metric, difficulty_type, lo, hi, schedule_type, schedule_config,
          clustering="schedule_based"):
    kind = "index_to_sample_percentile_merged" if difficulty_type == "percentile" else "index_to_sample"
    return {"index_to_sample_path": "%s/%s/%s_%s" % (out, metric, metric, kind),
            "index_to_metric_path": "%s/%s/%s_index_to_metric" % (out, metric, metric),
            "difficulty_type": difficulty_type, "clustering_type": clustering,
            "min_difficulty": lo, "max_difficulty": hi, "schedule_type": schedule_type,
            "schedule_config": schedule_config}


def scenarios(out):
    root = {"total_curriculum_step": 70, "difficulty_step": 1, "root_degree": 2}
    linear8 = {"total_curriculum_step": 50, "difficulty_step": 8}
    seq_value = entry(out, "seqlen", "value", 4, 90, "fixed_linear", linear8)
    rarity_pct = entry(out, "vocab_rarity", "percentile", 5, 100, "fixed_root",
                       {"total_curriculum_step": 40, "difficulty_step": 5, "root_degree": 3})
    rarity_single = dict(rarity_pct, clustering_type="single_cluster")
    discrete = entry(out, "seqlen", "percentile", 10, 100, "fixed_discrete",
                     {"difficulty": [10, 35, 20, 100], "max_step": [5, 9, 14]})
    return {
        "proposed": None,  # the analysis's own curriculum_config.json
        "value_linear": {"seqlen": seq_value},
        "percentile_root": {"seqlen": entry(out, "seqlen", "percentile", 1, 100, "fixed_root", root)},
        "percentile_plain_index": {"seqlen": dict(entry(out, "seqlen", "percentile", 1, 100,
                                                        "fixed_root", root),
                                                  index_to_sample_path="%s/seqlen/seqlen_index_to_sample" % out)},
        "discrete_down_and_up": {"seqlen": discrete},
        "two_intersected": {"seqlen": seq_value, "vocab_rarity": rarity_pct},
        "one_scheduled_one_single": {"vocab_rarity": rarity_single, "seqlen": seq_value},
        "two_scheduled_one_single": {"seqlen": seq_value, "vocab_rarity": rarity_pct,
                                     "seqlen_again": dict(discrete, clustering_type="single_cluster")},
    }


def check(name, metrics, work, out, n, env):
    steps, batch = 120, 4
    args = [env["DSANALYZE"], "curriculum", "--analysis", out, "--global-batch-size", str(batch),
            "--train-steps", str(steps), "--json", os.path.join(work, name + ".json")]
    if metrics is None:
        with open(os.path.join(out, "curriculum_config.json")) as f:
            metrics = json.load(f)["data_efficiency"]["data_sampling"]["curriculum_learning"][
                "curriculum_metrics"]
    else:
        config = {"data_efficiency": {"data_sampling": {"curriculum_learning": {
            "enabled": True, "curriculum_metrics": metrics}}}}
        path = os.path.join(work, name + "_ds.json")
        with open(path, "w") as f:
            json.dump(config, f)
        args += ["--ds-config", path]
    p = run(*args, ok=(0, 1))
    with open(os.path.join(work, name + ".json")) as f:
        got = json.load(f)
    expected = Sampler(metrics, n).replay(steps)
    if got["steps"] != expected:
        for g, e in zip(got["steps"], expected):
            if g != e:
                sys.exit("FAIL: %s: dsanalyze %s, reference %s" % (name, g, e))
        sys.exit("FAIL: %s: %d steps, reference %d" % (name, len(got["steps"]), len(expected)))
    for w in got["warnings"]:
        if sorted(w) != ["fix", "kind", "message", "metric", "severity", "step"]:
            sys.exit("FAIL: %s: warning keys %s" % (name, sorted(w)))
    errors = sum(1 for w in got["warnings"] if w["severity"] == "error")
    if (p.returncode == 1) != bool(errors):
        sys.exit("FAIL: %s: exit %d with %d errors" % (name, p.returncode, errors))
    print("%s: %d changed steps, %d clusters, %d warnings: same as the reference" % (
        name, len(expected), sum(1 for s in expected if s["new_cluster_size"]), len(got["warnings"])))


def main():
    env = {k: os.environ[k] for k in ("NP", "MPIEXEC", "DSANALYZE")}
    with tempfile.TemporaryDirectory() as work:
        n = make_analysis(work, env)
        out = os.path.join(work, "out")
        for name, metrics in scenarios(out).items():
            check(name, metrics, work, out, n, env)


if __name__ == "__main__":
    main()
