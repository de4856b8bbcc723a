#!/usr/bin/env python3
"""What `dsanalyze batches` accepts as DeepSpeed does (ctest batching.config_forms.np1).

- A DeepSpeed config written as DeepSpeed reads it (hjson.load, then int(),
  bool() and str() of the dynamic_batching values: data_pipeline/config.py):
  //, # and /* */ comments (and the same characters inside strings, which
  are not comments), numeric strings for the counts (" 2_0 ", "+8"),
  "enabled": 1 and "lr_scaling_method": null (DeepSpeed's "None": no
  scaling). The plan must be byte for byte the plan of the same values given
  as flags, and plan.json must name the config keys as their source.
- -q (after or before `batches`): exit 0, nothing printed, the same plan.
- An analysis that wrote only sample_to_metric (output.files), which is all
  DeepSpeed reads: the dataloader and random orders plan from it exactly
  what they plan from a full analysis.

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
SECTION = "data_efficiency.data_sampling.dynamic_batching."
FILES = ["microbatch_offsets.npy", "microbatch_sample_ids.npy", "batch_sizes.npy",
         "batch_max_seqlens.npy", "lr_scale.npy"]

CONFIG = """// dynamic batching, as a DeepSpeed user writes it
{
  "train_batch_size": 2,  # two micro-batches a step
  /* data efficiency:
     one section */
  "data_efficiency": {
    "seed": 7,
    "data_sampling": {"dynamic_batching": {
      "enabled": 1,
      "metrics_path": "%s",
      "max_tokens": " 2_0 ",      // a string, read by int()
      "min_batch_size": "2",
      "max_batch_size": "+8",
      "sequence_picking_order": "random", # metrics_path's "//" and "#" are text
      "lr_scaling_method": null
    }}
  }
}
"""


def fail(message):
    sys.exit("FAIL: " + message)


def batches(args, prefix=()):
    r = subprocess.run([DSANALYZE, *prefix, "batches"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (args, r.returncode, r.stderr))
    return r


def arrays(plan):
    return {name: open(os.path.join(plan, name), "rb").read() for name in FILES}


def check_config_forms(work, analysis):
    path = os.path.join(work, "ds.json")
    with open(path, "w") as f:
        # "DIR//full#1": a comment's characters inside a string
        f.write(CONFIG % (os.path.dirname(analysis) + "//" + os.path.basename(analysis)))
    batches(["--ds-config", path, "--metric", "mod", "--out", os.path.join(work, "from_config")])
    batches(["--analysis", analysis, "--metric", "mod", "--max-tokens", "20", "--min-batch-size",
             "2", "--max-batch-size", "8", "--effective-batch-size", "2", "--order", "random",
             "--seed", "7", "--lr-scaling", "none", "--out", os.path.join(work, "from_flags")])
    if arrays(os.path.join(work, "from_config")) != arrays(os.path.join(work, "from_flags")):
        fail("the config's hjson comments and numeric strings planned other batches than flags")
    params = json.load(open(os.path.join(work, "from_config", "plan.json")))["parameters"]
    want = {"max_tokens": 20, "min_batch_size": 2, "max_batch_size": 8,
            "lr_scaling_method": "none", "sequence_picking_order": "random"}
    for key, value in want.items():
        got = params[key]
        if got != {"value": value, "from": path + ": " + SECTION + key}:
            fail("parameters.%s: %r, want %r from the config" % (key, got, value))
    print("ok: comments, numeric strings, enabled 1 and null scaling: the plan of the flags")


def check_quiet(work, analysis):
    flags = ["--analysis", analysis, "--metric", "mod", "--max-tokens", "20",
             "--effective-batch-size", "2"]
    loud = batches(flags + ["--out", os.path.join(work, "loud")])
    if not loud.stdout:
        fail("without -q: no summary")
    for name, args, prefix in (("-q", ["-q"], ()), ("--quiet", ["--quiet"], ()),
                               ("-q before batches", [], ("-q",))):
        out = os.path.join(work, "quiet")
        r = batches(flags + args + ["--out", out], prefix)
        if r.stdout or r.stderr:
            fail("%s: printed %r %r" % (name, r.stdout, r.stderr))
        if arrays(out) != arrays(os.path.join(work, "loud")):
            fail("%s: another plan" % name)
        print("ok: %s: nothing printed, the same plan" % name)


def check_partial(work, full):
    dataset = {"type": "synthetic_mod", "num_samples": 100, "modulus": 7}
    metrics = [{"name": "mod", "metric": "value"}]
    partial = cli_check.run_analysis(work, "partial", dataset, metrics,
                                     {"files": ["sample_to_metric", "reports"]})
    for order in ("dataloader", "random"):
        plans = []
        for name, analysis in (("full", full), ("partial", partial)):
            out = os.path.join(work, "%s_%s" % (name, order))
            batches(["--analysis", analysis, "--metric", "mod", "--max-tokens", "20",
                     "--effective-batch-size", "2", "--order", order, "--out", out])
            plans.append(arrays(out))
        if plans[0] != plans[1]:
            fail("the %s order planned otherwise from sample_to_metric alone" % order)
        print("ok: the %s order from an analysis of sample_to_metric alone" % order)


def main():
    with tempfile.TemporaryDirectory() as work:
        analysis = cli_check.run_analysis(
            work, "full#1", {"type": "synthetic_mod", "num_samples": 100, "modulus": 7},
            [{"name": "mod", "metric": "value"}])
        check_config_forms(work, analysis)
        check_quiet(work, analysis)
        check_partial(work, analysis)


main()
