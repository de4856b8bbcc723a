#!/usr/bin/env python3
"""`dsanalyze batches` against an independent reference (ctest batching.run.np1).

Several analyses are made with the real pipeline (documents of generated
lengths, and synthetic_mod, whose values include 0 and many ties). On each,
every picking order x min/max batch size x same-size micro-batches x filter
ids x max_tokens (all samples fit; some too long; so small that packing stops
early) is planned by `dsanalyze batches` and by tests/batching/
batch_reference.py (DeepSpeed's batch_by_seqlens by brute force); the five
arrays must match exactly (lr_scale to the bit), plan.json's counts must add
up, and where the reference fails (fewer micro-batches than the effective
batch size) the command must exit 2 with one line and no --out.

Environment: NP, MPIEXEC, DSANALYZE.
"""
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

MPIEXEC = os.environ["MPIEXEC"]
DSANALYZE = os.environ["DSANALYZE"]
ARRAYS = ["microbatch_offsets", "microbatch_sample_ids", "batch_sizes", "batch_max_seqlens",
          "lr_scale"]


def fail(message):
    sys.exit("FAIL: " + message)


def analyse(work, name, dataset, metric):
    return cli_check.run_analysis(work, name, dataset, [{"name": metric, "metric": metric}])


def documents(work, name, n, lo, hi):
    prefix = os.path.join(work, name + "_docs")
    subprocess.run([DSANALYZE, "generate", prefix, "--documents", str(n), "--vocab-size", "500",
                    "--min-length", str(lo), "--max-length", str(hi), "--seed", str(n)],
                   check=True, stdout=subprocess.DEVNULL)
    return analyse(work, name, {"type": "documents", "prefixes": [prefix]}, "seqlen"), "seqlen"


def expected_arrays(micro, sizes, longest, effective, scaling):
    offsets = [0]
    for mb in micro:
        offsets.append(offsets[-1] + len(mb))
    return {"microbatch_offsets": offsets,
            "microbatch_sample_ids": [i for mb in micro for i in mb],
            "batch_sizes": sizes, "batch_max_seqlens": longest,
            "lr_scale": [ref.lr_scale(scaling, s, effective) for s in sizes]}


def check_case(work, analysis, metric, seqlens, case):
    max_tokens, (lo, hi), order, same, filt, effective, scaling = case
    out = os.path.join(work, "plan")
    args = [DSANALYZE, "batches", "--analysis", analysis, "--metric", metric, "--out", out,
            "--max-tokens", str(max_tokens), "--effective-batch-size", str(effective),
            "--order", order, "--seed", "77", "--lr-scaling", scaling,
            "--min-batch-size", str(lo)]
    if hi:
        args += ["--max-batch-size", str(hi)]
    if same:
        args.append("--same-size-microbatches")
    if filt is not None:
        args += ["--sample-ids", filt[0]]
    if os.path.isdir(out):
        shutil.rmtree(out)
    r = subprocess.run(args, capture_output=True, text=True)
    try:
        micro, sizes, longest = ref.plan(seqlens, max_tokens, filt[1] if filt else None, lo,
                                         hi or None, order, effective, same, 77)
    except ref.NotEnough:
        lines = r.stderr.splitlines()
        if r.returncode != 2 or len(lines) != 1 or "fewer than the effective" not in lines[0] \
                or os.path.exists(out):
            fail("%s %s: expected a refusal, got rc %d: %s" % (analysis, case, r.returncode,
                                                               r.stderr))
        return "refused"
    if r.returncode != 0:
        fail("%s %s: rc %d: %s" % (analysis, case, r.returncode, r.stderr))
    want = expected_arrays(micro, sizes, longest, effective, scaling)
    for name in ARRAYS:
        got = ref.read_npy(os.path.join(out, name + ".npy"))
        if got != want[name]:
            fail("%s %s: %s differs:\n got %s\nwant %s" % (analysis, case, name, got[:40],
                                                             want[name][:40]))
    counts = json.load(open(os.path.join(out, "plan.json")))["counts"]
    total = counts["too_long"] + counts["left_where_packing_stopped"] + \
        counts["trimmed_samples"] + counts["samples"]
    if total != counts["samples_in"] or counts["samples"] != len(want["microbatch_sample_ids"]):
        fail("%s %s: plan.json counts do not add up: %s" % (analysis, case, counts))
    return "stopped" if counts["left_where_packing_stopped"] > 1 else "planned"


def run(work):
    analyses = [documents(work, "short", 40, 1, 30) + (3,),
                documents(work, "long", 150, 5, 200) + (4,),
                (analyse(work, "mod", {"type": "synthetic_mod", "num_samples": 90,
                                       "modulus": 7}, "value"), "value", 2)]
    seen = set()
    for analysis, metric, effective in analyses:
        seqlens = [v for v in ref.read_pair(os.path.join(analysis, metric,
                                                         metric + "_sample_to_metric"))]
        n = len(seqlens)
        rng = random.Random(n)
        subset = rng.sample(range(n), n * 2 // 3)
        filt_path = os.path.join(work, os.path.basename(analysis) + "_ids.npy")
        ref.write_npy(filt_path, subset)
        biggest = max(seqlens)
        # Every picking order x same-size x filter x E, each with 5 of the 15
        # (max_tokens, min/max batch size) pairs, rotating so that every 3
        # consecutive combinations cover all 15 (the whole product, 360 runs
        # an analysis, is too slow under the sanitizers).
        limits = list(itertools.product(
            [biggest * 3, max(biggest * 2 // 3, 1), max(biggest // 2, 1)],
            [(1, 0), (0, 0), (3, 0), (1, 4), (2, 6)]))
        combos = itertools.product(["dataloader", "seqlen", "random"], [False, True],
                                   [None, (filt_path, subset)], [1, effective])
        for k, (order, same, filt, e) in enumerate(combos):
            for j in range(5):
                max_tokens, sizes = limits[(k * 5 + j) % len(limits)]
                case = (max_tokens, sizes, order, same, filt, e, "linear")
                seen.add(check_case(work, analysis, metric, seqlens, case))
        for scaling in ["sqrt", "none"]:
            check_case(work, analysis, metric, seqlens,
                       (biggest * 3, (1, 0), "random", False, None, effective, scaling))
    if seen != {"refused", "planned", "stopped"}:
        fail("the cases did not cover refusals, full plans and early stops: %s" % seen)
    print("batches_run: every case matches the reference")


def main():
    with tempfile.TemporaryDirectory(prefix="batches_run_") as work:
        run(work)


if __name__ == "__main__":
    main()
