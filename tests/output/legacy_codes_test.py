#!/usr/bin/env python3
"""output.dtype_codes "deepspeed-legacy", end to end, under mpiexec -n $NP.

At three sizes whose files need the dtypes the two DeepSpeed tables code
differently (uint16, uint32 and uint64: ids past 2^32 from sample_indices,
a sum past 2^32), a legacy run must
  - finish (its own report reads the files back), and verify clean;
  - hold the same rows and elements as the default run (compare: all equal),
    each .idx coded with DeepSpeed's legacy table: decoded here with that
    table, written from DeepSpeed's facts below, the .bin holds exactly the
    elements the pointers give, as DeepSpeed's legacy reader reads them;
  - be read by curriculum, order (the same order file as the default run's)
    and merge: merging legacy shards writes legacy files equal to the whole
    legacy run, and records the table.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

NP = os.environ["NP"]
MPIEXEC = os.environ["MPIEXEC"]
DSANALYZE = os.environ["DSANALYZE"]

# DeepSpeed before 0.13.3, deepspeed/runtime/data_pipeline/data_sampling/
# indexed_dataset.py (commit 3abdb1e87): dtypes = {1: np.uint8, 2: np.int8,
# 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float64, 7: np.double,
# 8: np.uint16, 9: np.uint32, 10: np.uint64}; code(dtype) is the first key.
LEGACY = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "d", 7: "d", 8: "H", 9: "I", 10: "Q"}
# DeepSpeed from 0.13.3: 6 uint16, 7 uint32, 8 uint64; 1..5 as above.
CURRENT = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}
MAGIC = b"MMIDIDX\x00\x00"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run(args, expect=(0,), **kw):
    proc = subprocess.run(args, capture_output=True, text=True, **kw)
    if proc.returncode not in expect:
        fail("%s exited %d: %s%s" % (" ".join(args), proc.returncode, proc.stdout, proc.stderr))
    return proc


def analyse(work, name, config, table, sample_range=None):
    save = os.path.join(work, name)
    c = json.loads(json.dumps(config))
    c["output"] = {"path": save, "dtype_codes": table}
    if sample_range:
        c["dataset"]["sample_range"] = sample_range
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(c, f)
    run([MPIEXEC, "-n", NP, DSANALYZE, "--config", path, "--quiet"])
    return save


def decode(prefix, table):
    """(format char, row sizes, elements) as DeepSpeed's MMapIndexedDataset reads them."""
    with open(prefix + ".idx", "rb") as f:
        idx = f.read()
    if idx[:9] != MAGIC or struct.unpack_from("<Q", idx, 9)[0] != 1:
        fail(prefix + ".idx: not an MMIDIDX version 1 index")
    code = idx[17]
    if code not in table:
        fail("%s.idx: code %d is not in the table" % (prefix, code))
    fmt = table[code]
    item = struct.calcsize(fmt)
    rows, _docs = struct.unpack_from("<QQ", idx, 18)
    sizes = struct.unpack_from("<%di" % rows, idx, 34)
    pointers = struct.unpack_from("<%dq" % rows, idx, 34 + 4 * rows)
    offset = 0
    for r in range(rows):  # the reader takes row r at pointers[r], sizes[r] elements
        if pointers[r] != offset:
            fail("%s.idx: row %d's pointer %d, not %d" % (prefix, r, pointers[r], offset))
        offset += sizes[r] * item
    with open(prefix + ".bin", "rb") as f:
        data = f.read()
    if len(data) != offset:
        fail("%s.bin: %d bytes, the legacy reader expects %d" % (prefix, len(data), offset))
    return code, fmt, sizes, struct.unpack("<%d%s" % (len(data) // item, fmt), data)


def prefixes(save):
    for root, _, files in os.walk(save):
        for f in sorted(files):
            if f.endswith(".idx"):
                yield os.path.relpath(os.path.join(root, f[:-4]), save)


def check_legacy_files(current, legacy, wanted):
    """Every pair decodes with its table to the same rows; legacy codes seen."""
    codes = set()
    for rel in prefixes(current):
        _, fmt_c, sizes_c, elems_c = decode(os.path.join(current, rel), CURRENT)
        code, fmt_l, sizes_l, elems_l = decode(os.path.join(legacy, rel), LEGACY)
        if (fmt_c, sizes_c, elems_c) != (fmt_l, sizes_l, elems_l):
            fail("%s: the legacy file reads as %s, the current one as %s" % (rel, fmt_l, fmt_c))
        codes.add((fmt_l, code))
    missing = [w for w in wanted if w not in codes]
    if missing:
        fail("%s: expected legacy (dtype, code) %s among %s" % (legacy, missing, sorted(codes)))


def write_ids(path, ids):
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % len(ids)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%dq" % len(ids), *ids))


def check_size(work, name, config, wanted):
    n = config["dataset"]["num_samples"]
    current = analyse(work, name + "-current", config, "deepspeed")
    legacy = analyse(work, name + "-legacy", config, "deepspeed-legacy")
    check_legacy_files(current, legacy, wanted)
    run([DSANALYZE, "verify", legacy])
    out = run([DSANALYZE, "compare", current, legacy]).stdout
    if " 0 different" not in out:
        fail(name + ": compare: " + out)
    out = run([DSANALYZE, "curriculum", "--analysis", legacy, "--global-batch-size", "16",
               "--train-steps", "100"], expect=(0, 1)).stdout
    if "curriculum: " + os.path.join(legacy, "curriculum_config.json") not in out:
        fail(name + ": curriculum: " + out)
    orders = []
    for save in (current, legacy):
        orders.append(os.path.join(work, os.path.basename(save) + ".npy"))
        run([DSANALYZE, "order", "--analysis", save, "--metric", "mod", "--out", orders[-1]])
    if open(orders[0], "rb").read() != open(orders[1], "rb").read():
        fail(name + ": order of the legacy analysis differs from the current one's")
    half = n // 2
    parts = [analyse(work, name + "-a", config, "deepspeed-legacy", [0, half]),
             analyse(work, name + "-b", config, "deepspeed-legacy", [half, n])]
    merged = os.path.join(work, name + "-merged")
    run([DSANALYZE, "merge"] + parts + ["--out", merged])
    run([DSANALYZE, "verify", merged])
    check_legacy_files(current, merged, wanted)
    recorded = json.load(open(os.path.join(merged, "summary.json")))["config"]["output"]
    if recorded.get("dtype_codes") != "deepspeed-legacy":
        fail(name + ": merged summary.json records %r" % recorded)


def main():
    with tempfile.TemporaryDirectory() as work:
        def synthetic(n, modulus):
            return {"dataset": {"type": "synthetic_mod", "num_samples": n, "modulus": modulus},
                    "metrics": [{"name": "mod", "metric": "value"},
                                {"name": "total", "metric": "sum"}],
                    "map": {"batch_size": 512}}
        # uint16 values and ids: code 8 to the legacy table.
        check_size(work, "small", synthetic(300, 300), [("H", 8)])
        # uint32 values and ids (9), and a sum past 2^32: uint64 (10).
        check_size(work, "large", synthetic(100000, 100000), [("I", 9), ("Q", 10)])
        # ids past 2^32 (sample_indices): index_to_sample uint64, code 10.
        ids = os.path.join(work, "ids.npy")
        write_ids(ids, [(1 << 33) + 3 * i for i in range(2000)])
        config = synthetic(2000, 1000)
        config["dataset"]["sample_indices"] = ids
        check_size(work, "wide_ids", config, [("Q", 10), ("H", 8)])
    print("deepspeed-legacy: %s rank(s): run, verify, compare, curriculum, order and merge "
          "read it; codes are the legacy table's" % NP)


main()
