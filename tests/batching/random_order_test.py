#!/usr/bin/env python3
"""`dsanalyze batches --order random` against Python's own random module
(ctest batching.random_order.np1).

With one sample per micro-batch (--max-batch-size 1, effective batch size 1)
the plan's microbatch_sample_ids is the shuffled list itself, less its last
entry (DeepSpeed never packs the last sample). Lists of 1 to 100,000 entries
(--sample-ids picks and orders them from one analysis) are shuffled with
several seeds, including 0, 2^32 and 2^63 - 1 (two-word keys) and a negative
one (Python seeds with its absolute value), and compared with
random.Random(seed).shuffle of the same (value, id) list. The test also
counts, through a getrandbits wrapper, that _randbelow rejected draws.

Environment: NP, MPIEXEC, DSANALYZE.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402

MPIEXEC = os.environ["MPIEXEC"]
DSANALYZE = os.environ["DSANALYZE"]
N = 100000


class Counting(random.Random):
    """random.Random that counts its getrandbits draws. Defining getrandbits
    (not _randbelow) keeps Python's own _randbelow_with_getrandbits, which
    random.Random.__init_subclass__ picks for such a subclass: the shuffle
    under test is Python's, and each of its len - 1 _randbelow calls draws
    once plus once per rejection."""

    def __init__(self, seed):
        super().__init__(seed)
        self.draws = 0

    def getrandbits(self, k):
        self.draws += 1
        return super().getrandbits(k)


def fail(message):
    sys.exit("FAIL: " + message)


def run(work):
    config = {"dataset": {"type": "synthetic_mod", "num_samples": N, "modulus": 97},
              "metrics": [{"name": "mod", "metric": "value"}],
              "output": {"path": os.path.join(work, "an")}}
    json.dump(config, open(os.path.join(work, "run.json"), "w"))
    subprocess.run([MPIEXEC, "-n", os.environ["NP"], DSANALYZE, "--config",
                    os.path.join(work, "run.json"), "--quiet"], check=True)
    values = ref.read_pair(os.path.join(work, "an", "mod", "mod_sample_to_metric"))
    rng = random.Random(5)
    rejected = 0
    for size in [1, 2, 3, 5, 17, 100, 1000, 4097, 65537, N]:
        ids = rng.sample(range(N), size)
        ids_path = os.path.join(work, "ids.npy")
        ref.write_npy(ids_path, ids)
        for seed in [1234, 0, 2 ** 32, 2 ** 63 - 1, -99]:
            out = os.path.join(work, "plan_%d_%d" % (size, seed))
            r = subprocess.run([DSANALYZE, "batches", "--analysis", os.path.join(work, "an"),
                                "--metric", "mod", "--out", out, "--max-tokens", "1000",
                                "--effective-batch-size", "1", "--max-batch-size", "1",
                                "--order", "random", "--seed", str(seed),
                                "--sample-ids", ids_path], capture_output=True, text=True)
            if size == 1:  # a one-sample list leaves nothing to pack: DeepSpeed's assert
                if r.returncode != 2 or os.path.exists(out):
                    fail("size 1: expected exit 2, got %d: %s" % (r.returncode, r.stderr))
                continue
            if r.returncode != 0:
                fail("size %d seed %d: rc %d: %s" % (size, seed, r.returncode, r.stderr))
            python = Counting(seed)
            metrics = [(values[i], i) for i in ids]
            python.shuffle(metrics)
            rejected += python.draws - (len(metrics) - 1)
            got = ref.read_npy(os.path.join(out, "microbatch_sample_ids.npy"))
            want = [i for _, i in metrics][:-1]
            if got != want:
                first = next(k for k in range(len(want)) if k >= len(got) or got[k] != want[k])
                fail("size %d seed %d: differs from random.Random(seed).shuffle at %d"
                     % (size, seed, first))
    if rejected == 0:
        fail("no _randbelow draw was rejected: the rejection path is untested")
    print("random_order: every shuffle matches Python's (%d draws rejected)" % rejected)


def main():
    with tempfile.TemporaryDirectory(prefix="batches_random_") as work:
        run(work)


if __name__ == "__main__":
    main()
