"""Lays out a Megatron-Core cache folder (docs/config.md, "megatron_core") over
prefixes that `dsanalyze generate --gpt-maps L` made, for scripts/bench.sh's
cases MC, PC and OC. Python 3 standard library only.

  bench_core_cache.py CACHE SEQ_LENGTH SAMPLES PREFIX...

Each prefix's Megatron-DeepSpeed maps (PREFIX_train_indexmap_{doc,sample,
shuffle}_idx.npy, dtypes int32, int32, uint32: those of Core's
document_index, sample_index and shuffle_index) are hard-linked into CACHE
under Core's names (<md5>-GPTDataset-train-<what>, the md5 that of the JSON
description written beside them, as tests/blend/core_cache.py writes them), so
a sample of the Core cache is the same sample of the prefix's maps. The blend
of the prefixes with equal weights over SAMPLES samples is cached as Core
caches it (<md5>-BlendedDataset-train-{description.txt, dataset_index.npy,
dataset_sample_index.npy}). With equal weights Core's greedy blend
(helpers.cpp build_blending_indices) takes the components in turn: sample i is
component i % K's sample i // K, which is what megatron_blend computes for
equal weights too, so the blend reads the samples MB reads. SAMPLES must be at
most K times the smallest component.
"""
import array
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "blend"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support"))
import core_cache  # noqa: E402


def npy_length(path):
    with open(path, "rb") as f:
        f.read(8)
        header = f.read(struct.unpack("<H", f.read(2))[0]).decode()
    return int(header.split("'shape': (")[1].split(",")[0])


def write_npy(path, descr, data):
    """data: an array.array of the item size of descr, written as a 1-D array."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(data))
    header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        data.tofile(f)


def link(src, dst):
    if os.path.exists(dst):
        os.remove(dst)
    os.link(src, dst)


def main():
    cache, seq, samples, prefixes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    k = len(prefixes)
    os.makedirs(cache, exist_ok=True)
    weights = core_cache.normalize([1.0] * k)
    weights = core_cache.normalize(weights)  # Core normalises twice
    targets = [int(math.ceil(samples * w)) for w in weights]
    descriptions = []
    for prefix, target in zip(prefixes, targets):
        maps = prefix + "_train_indexmap_%s_idx.npy"
        if samples > k * npy_length(maps % "shuffle"):
            sys.exit("bench_core_cache: %s has fewer than %d samples" % (prefix, samples // k))
        fields = core_cache.gpt_description(prefix, int(math.ceil(target * 1.005)), "train", seq)
        text, md5 = core_cache._describe(fields)
        base = os.path.join(cache, "%s-GPTDataset-train-" % md5)
        with open(base + "description.txt", "w") as f:
            f.write(text)
        for what, ds in (("document_index", "doc"), ("sample_index", "sample"),
                         ("shuffle_index", "shuffle")):
            link(maps % ds, base + what + ".npy")
        descriptions.append(fields)
    size = sum(targets)
    which = array.array("h", range(k)) * (size // k + 1)
    del which[size:]
    per = array.array("q", range(size // k + 1))
    sample = array.array("q", bytes(8 * size))
    for j in range(k):
        sample[j::k] = per[:len(range(j, size, k))]
    # write_blend takes lists; the arrays are written here, the description by it.
    md5 = core_cache.write_blend(cache, "train", descriptions, weights, size, [], [])
    base = os.path.join(cache, "%s-BlendedDataset-train-" % md5)
    write_npy(base + "dataset_index.npy", "<i2", which)
    write_npy(base + "dataset_sample_index.npy", "<i8", sample)
    print(size)


if __name__ == "__main__":
    main()
