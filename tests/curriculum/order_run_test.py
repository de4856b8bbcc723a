#!/usr/bin/env python3
"""`dsanalyze order` end to end, under mpiexec -n $NP (ctest curriculum.order_run.np<k>).

A generated documents dataset is analysed at NP ranks (seqlen, and a coarse
repeated_ngram_ratio with many ties), also with dataset.sample_indices (shuffled,
partly negative ids). `dsanalyze order` then writes orders that this script
recomputes independently, with the standard library only: each metric's values
per sample from sample_to_metric (position i has id i, or sample_indices[i]), an
order sorted by (values..., id), equal-count buckets, and the PRNG and
Fisher-Yates of docs/format.md §2.12. Every .npy must equal the recomputed one
exactly, so the output is the same for any NP.

Environment: NP, MPIEXEC, DSANALYZE.
"""
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

NP = os.environ["NP"]
MPIEXEC = os.environ["MPIEXEC"]
DSANALYZE = os.environ["DSANALYZE"]
DEEPSPEED_CODES = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}
M64 = (1 << 64) - 1


def fail(message):
    sys.exit("FAIL: " + message)


def read_pair(prefix):
    """The elements of PREFIX.bin as ints (deepspeed dtype table), front to back."""
    idx = open(prefix + ".idx", "rb").read()
    fmt = DEEPSPEED_CODES[idx[17]]
    data = open(prefix + ".bin", "rb").read()
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def read_npy_i8(path):
    raw = open(path, "rb").read()
    if raw[:8] != b"\x93NUMPY\x01\x00":
        fail(path + ": not a version 1.0 .npy")
    header_len = struct.unpack_from("<H", raw, 8)[0]
    header = raw[10:10 + header_len].decode()
    n = (len(raw) - 10 - header_len) // 8
    if (10 + header_len) % 64 or "'descr': '<i8'" not in header or "(%d,)" % n not in header:
        fail(path + ": unexpected header " + header)
    return list(struct.unpack_from("<%dq" % n, raw, 10 + header_len))


def write_npy_i8(path, values):
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dq" % len(values), *values))


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def shuffle(ids, seed, bucket):
    """Fisher-Yates with splitmix64 keyed by (seed, bucket): docs/format.md §2.12."""
    state = mix((mix(seed) + bucket) & M64)
    for i in range(len(ids) - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & M64
        j = (mix(state) * (i + 1)) >> 64
        ids[i], ids[j] = ids[j], ids[i]


def expected_order(values, ids, buckets, seed, descending):
    """values: one list per metric, by position; ids: the id of each position."""
    sign = -1 if descending else 1
    order = [ids[p] for p in sorted(range(len(ids)),
                                    key=lambda p: tuple(sign * v[p] for v in values) + (ids[p],))]
    if not buckets:
        return order
    n, out = len(order), []
    for b in range(buckets):
        piece = order[b * n // buckets:(b + 1) * n // buckets]
        shuffle(piece, seed, b)
        out += piece
    return out


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def analyse(work, name, sample_indices=None):
    dataset = {"type": "documents", "prefixes": [work + "/tok"]}
    if sample_indices:
        dataset["sample_indices"] = sample_indices
    config = {"dataset": dataset, "output": {"path": work + "/" + name},
              "metrics": [{"name": "seqlen", "metric": "seqlen"},
                          {"name": "rep", "metric": "repeated_ngram_ratio",
                           "params": {"n": 1, "scale": 7}}],
              "map": {"threads": 1, "batch_size": 64}}
    json.dump(config, open(work + "/" + name + ".json", "w"))
    run(MPIEXEC, "-n", NP, DSANALYZE, "--config", work + "/" + name + ".json", "--quiet")
    return work + "/" + name


def check(analysis, ids, metrics, buckets=0, seed=0, descending=False):
    out = analysis + ".order.npy"
    args = [DSANALYZE, "order", "--analysis", analysis, "--out", out]
    for m in metrics:
        args += ["--metric", m]
    if buckets:
        args += ["--buckets", str(buckets), "--seed", str(seed)]
    if descending:
        args.append("--descending")
    run(*args)
    values = [read_pair("%s/%s/%s_sample_to_metric" % (analysis, m, m)) for m in metrics]
    want = expected_order(values, ids, buckets, seed, descending)
    got = read_npy_i8(out)
    if got != want:
        first = next(i for i in range(min(len(got), len(want))) if got[i] != want[i])
        fail("%s: position %d holds %d, expected %d" % (" ".join(args), first, got[first],
                                                        want[first]))
    if os.path.exists(out + ".tmp"):
        fail(out + ".tmp left behind")
    return got


def main():
    with tempfile.TemporaryDirectory() as work:
        run(DSANALYZE, "generate", work + "/tok", "--documents", "3000", "--vocab-size", "50",
            "--min-length", "1", "--max-length", "40", "--seed", "3")
        plain = analyse(work, "plain")
        n = len(read_pair(plain + "/seqlen/seqlen_sample_to_metric"))
        ids = list(range(n))
        got = check(plain, ids, ["seqlen"])
        if got != read_pair(plain + "/seqlen/seqlen_index_to_sample"):
            fail("the order by one metric is not index_to_sample read front to back")
        check(plain, ids, ["seqlen"], buckets=10, seed=7)
        check(plain, ids, ["seqlen"], buckets=7, seed=2, descending=True)
        check(plain, ids, ["rep"], buckets=n)
        check(plain, ids, ["rep", "seqlen"])
        check(plain, ids, ["rep", "seqlen"], buckets=3, seed=11, descending=True)

        shuffled = [i * 5 - 4000 for i in range(n)]
        random.Random(5).shuffle(shuffled)
        write_npy_i8(work + "/ids.npy", shuffled)
        with_ids = analyse(work, "with_ids", work + "/ids.npy")
        check(with_ids, shuffled, ["seqlen"], buckets=4, seed=1)
        check(with_ids, shuffled, ["rep"], descending=True)
    print("order end to end on %s ranks: all checks passed" % NP)


main()
