#!/usr/bin/env python3
"""Sample ids at and above 2^32, end to end, under mpiexec -n $NP.

200,000 synthetic_mod samples (value of position i: (i + 7) mod 10000) get ids
2^32 + 3*k + jitter (jitter 0..2, so the ids are distinct), shuffled, through
dataset.sample_indices (an int64 .npy). Every output file is compared byte for
byte with the files this script computes on its own (standard library only:
.npy and .idx/.bin through struct and array), format.md §1 and §2; then
dsanalyze verify must pass. The sample dtype must be uint64 (code 8).

A second run spreads the ids over most of the int64 range: every 1000th id is
moved to 2^62 + k or to -2^40 - k, so the (value, id) pairs no longer fit a
64-bit key (sort/sort_key.h: the 16-byte WideKey path) and the sample
dtype is int64 (code 5). summary.json records the index path the shuffled ids
take: the rank-ordered gather on one rank, the sample sort on more.
"""
import array
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

N = 200_000
MODULUS, OFFSET = 10000, 7
BASE = 1 << 32
IDX_MAGIC = b"MMIDIDX\x00\x00"
# DeepSpeed's dtype codes (format.md §1.2) and the array typecodes of the dtypes used here.
CODES = {"H": 6, "q": 5, "Q": 8}


def fail(message):
    sys.exit("FAIL: " + message)


def write_npy_i8(path, values):
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        array.array("q", values).tofile(f)


def expected_pair(rows, typecode):
    """The .idx and .bin bytes of a pair with these rows (lists of ints), doc_idx [0, len]."""
    data = array.array(typecode)
    sizes = array.array("i")
    pointers = array.array("q")
    item = data.itemsize
    for row in rows:
        pointers.append(len(data) * item)
        sizes.append(len(row))
        data.extend(row)
    idx = IDX_MAGIC + struct.pack("<QBQQ", 1, CODES[typecode], len(rows), 2)
    idx += sizes.tobytes() + pointers.tobytes() + struct.pack("<2q", 0, len(rows))
    return idx, data.tobytes()


def large_ids(spread):
    rng = random.Random(20261202)
    ids = [BASE + 3 * k + rng.randrange(3) for k in range(N)]
    rng.shuffle(ids)
    if spread:
        for k in range(0, N, 1000):
            ids[k] = (1 << 62) + k if k % 2000 == 0 else -(1 << 40) - k
    return ids


def expected_files(ids, id_typecode):
    values = [(i + OFFSET) % MODULUS for i in range(N)]
    by_value = [[] for _ in range(MODULUS)]
    for position, v in enumerate(values):
        by_value[v].append(ids[position])
    for row in by_value:
        row.sort()
    step = max(1, MODULUS // 100)
    merged = [sum(by_value[k:k + step], []) for k in range(0, MODULUS, step)]
    files = {
        "sample_to_metric": expected_pair([[v] for v in values], "H"),
        "index_to_metric": expected_pair([[v] for v in range(MODULUS)], "H"),
        "index_to_sample": expected_pair(by_value, id_typecode),
        "index_to_sample_percentile_merged": expected_pair(merged, id_typecode),
    }
    return files


def check(spread):
    np_ = os.environ["NP"]
    mpiexec, dsanalyze = os.environ["MPIEXEC"], os.environ["DSANALYZE"]
    ids = large_ids(spread)
    id_typecode, id_dtype = ("q", "int64") if spread else ("Q", "uint64")
    files = expected_files(ids, id_typecode)
    with tempfile.TemporaryDirectory() as work:
        write_npy_i8(os.path.join(work, "ids.npy"), ids)
        save = os.path.join(work, "out")
        config = {"dataset": {"type": "synthetic_mod", "num_samples": N,
                              "sample_indices": os.path.join(work, "ids.npy")},
                  "metrics": [{"name": "mod", "metric": "value"}],
                  "output": {"path": save, "chunk_bytes": 1 << 16}}
        with open(os.path.join(work, "config.json"), "w") as f:
            json.dump(config, f)
        run = subprocess.run([mpiexec, "-n", np_, dsanalyze, "--config",
                              os.path.join(work, "config.json"), "--quiet"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            fail("dsanalyze exited %d: %s" % (run.returncode, run.stderr))
        for kind, (idx, bin_) in files.items():
            prefix = os.path.join(save, "mod", "mod_" + kind)
            for ext, want in ((".idx", idx), (".bin", bin_)):
                with open(prefix + ext, "rb") as f:
                    got = f.read()
                if got != want:
                    at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                              min(len(got), len(want)))
                    fail("%s%s: %d bytes, expected %d; first difference at byte %d"
                         % (kind, ext, len(got), len(want), at))
        with open(os.path.join(save, "summary.json")) as f:
            summary = json.load(f)["metrics"]["mod"]
        if summary["sample_dtype"] != id_dtype:
            fail("summary.json sample_dtype %s, expected %s" % (summary["sample_dtype"], id_dtype))
        # Shuffled ids lie in ascending ranges only when one rank holds them
        # all (pipeline/index_path.h); the values fit 14 bits.
        path = "rank_ordered" if np_ == "1" else "sample_sort"
        if summary.get("index_path") != path:
            fail("summary.json index_path %s, expected %s" % (summary.get("index_path"), path))
        verify = subprocess.run([dsanalyze, "verify", save], capture_output=True, text=True)
        if verify.returncode != 0:
            fail("verify exited %d: %s" % (verify.returncode, verify.stdout + verify.stderr))
    print("large ids: %d samples, ids %d..%d, every file as expected (%s rank(s))"
          % (N, min(ids), max(ids), np_))


def main():
    check(spread=False)
    check(spread=True)


if __name__ == "__main__":
    main()
