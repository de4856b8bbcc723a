#!/usr/bin/env python3
"""`dsanalyze batches --epochs K` (ctest batching.epochs.np1).

Epoch 1 of a K-epoch plan is the one-epoch plan, which is batch_by_seqlens'
(tests/batching/batch_reference.py); each later epoch e holds epoch 1's
batches, every array entry with them, in the order
random.Random(seed + e - 1).shuffle(list(range(B))) gives, computed here by
Python itself (seeds past int64 and negative ones included). plan.json names
the epochs and their source, the counts stay one epoch's, and the summary
says how many batches the files hold.

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
ARRAYS = ["microbatch_offsets", "microbatch_sample_ids", "batch_sizes", "batch_max_seqlens",
          "lr_scale"]


def fail(message):
    sys.exit("FAIL: " + message)


def plan_batches(out, effective):
    """The plan's batches, each (its micro-batches as id lists, size, longest, LR scale)."""
    a = {name: ref.read_npy(os.path.join(out, name + ".npy")) for name in ARRAYS}
    offsets, ids = a["microbatch_offsets"], a["microbatch_sample_ids"]
    micro = [ids[offsets[k]:offsets[k + 1]] for k in range(len(offsets) - 1)]
    if len(micro) != effective * len(a["batch_sizes"]) or offsets[-1] != len(ids):
        fail("%s: %d micro-batches for %d batches" % (out, len(micro), len(a["batch_sizes"])))
    return [(micro[b * effective:(b + 1) * effective], a["batch_sizes"][b],
             a["batch_max_seqlens"][b], a["lr_scale"][b]) for b in range(len(a["batch_sizes"]))]


def batches(args, out):
    r = subprocess.run([DSANALYZE, "batches"] + args + ["--out", out], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("%s: rc %d: %s" % (args, r.returncode, r.stderr))
    return r.stdout


def check_case(work, analysis, seqlens, order, seed, epochs, same_size):
    effective = 3
    args = ["--analysis", analysis, "--max-tokens", "500", "--effective-batch-size",
            str(effective), "--order", order, "--seed", str(seed)]
    args += ["--same-size-microbatches"] if same_size else []
    one = os.path.join(work, "one")
    many = os.path.join(work, "many")
    batches(args, one)
    stdout = batches(args + ["--epochs", str(epochs)], many)
    first = plan_batches(one, effective)
    micro, sizes, longest = ref.plan(seqlens, 500, None, 1, None, order, effective, same_size,
                                     seed)
    if [b[0] for b in first] != [micro[i:i + effective] for i in range(0, len(micro),
                                                                        effective)] or \
            [b[1] for b in first] != sizes or [b[2] for b in first] != longest:
        fail("%s seed %d: the one-epoch plan is not batch_by_seqlens'" % (order, seed))
    got = plan_batches(many, effective)
    want = list(first)
    for e in range(2, epochs + 1):
        p = list(range(len(first)))
        random.Random(seed + e - 1).shuffle(p)
        want += [first[j] for j in p]
    if got != want:
        bad = next(i for i, (g, w) in enumerate(zip(got + [None] * len(want), want)) if g != w)
        fail("%s seed %d: batch %d of %d (epoch %d) differs from the seed rule's"
             % (order, seed, bad, len(want), bad // len(first) + 1))
    plan = json.load(open(os.path.join(many, "plan.json")))
    if plan["parameters"]["epochs"] != {"value": epochs, "from": "--epochs"} or \
            plan["counts"]["batches"] != len(first):
        fail("plan.json epochs %r, counts.batches %r" % (plan["parameters"]["epochs"],
                                                         plan["counts"]["batches"]))
    line = ("  %d epochs: epoch 1 as DeepSpeed plans it, each later epoch e its batches "
            "reshuffled by random.Random(seed + e - 1); %d batches in all"
            % (epochs, epochs * len(first)))
    if line not in stdout.splitlines():
        fail("summary lacks %r:\n%s" % (line, stdout))


def main():
    with tempfile.TemporaryDirectory(prefix="batches_epochs_") as work:
        prefix = os.path.join(work, "docs")
        subprocess.run([DSANALYZE, "generate", prefix, "--documents", "300", "--vocab-size",
                        "500", "--min-length", "1", "--max-length", "200", "--seed", "4"],
                       check=True, stdout=subprocess.DEVNULL)
        analysis = cli_check.run_analysis(work, "an", {"type": "documents",
                                                       "prefixes": [prefix]},
                                          [{"name": "seqlen", "metric": "seqlen"}])
        seqlens = ref.read_pair(os.path.join(analysis, "seqlen", "seqlen_sample_to_metric"))
        for order, seed, epochs, same_size in (("seqlen", 1234, 3, False),
                                               ("random", 7, 2, True),
                                               ("dataloader", 2 ** 63 - 1, 3, False),
                                               ("seqlen", -5, 2, False)):
            check_case(work, analysis, seqlens, order, seed, epochs, same_size)
        r = subprocess.run([DSANALYZE, "batches", "--analysis", analysis, "--max-tokens", "500",
                            "--effective-batch-size", "2", "--epochs", "0", "--out",
                            os.path.join(work, "zero")], capture_output=True, text=True)
        if r.returncode != 2 or "--epochs" not in r.stderr or os.path.exists(
                os.path.join(work, "zero")):
            fail("--epochs 0: rc %d, %r" % (r.returncode, r.stderr))
    print("epochs: epoch 1 is DeepSpeed's plan, later epochs its batches by the seed rule")


main()
