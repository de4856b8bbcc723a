#!/usr/bin/env python3
"""megatron_core end to end (docs/config.md, "megatron_core"), on $NP ranks.

Caches laid out as Megatron-Core lays them out (core_cache.py: hashed names,
JSON descriptions, Core's dtypes), over token files whose documents hold
several sequences. For each case, the metric files of the megatron_core
analysis equal those of a `documents` dataset whose rows are Core's
dataset[i] texts (the reference's, padding left out):
  - a 2-way weighted blend cached under path_to_cache, int32 sample_index,
    also with its token files moved (a cache made on another machine);
  - add_extra_token_to_sequence false, a lone valid GPTDataset with its padded
    last sample, int64 sample_index, found in Core's default folder;
  - a 9-way blend whose index is computed (its files removed): Core's
    numpy-order normalisation (Megatron-DeepSpeed's differs on these weights)
    and size sum ceil(S·w_k) (not the 1.005 surplus sum);
  - no weights and no blend files: Core's exhaustive blend.
The cached blend's summary.json has each metric's per-component statistics;
`order --megatron-core-cache` rewrites the cached blend's index (and the lone
dataset's shuffle_index) to the order, copying the rest.
Then the refusals, each one error line and exit 2.
Usage: core_test.py   (env: NP, MPIEXEC, DSANALYZE, SOURCE_DIR)
"""
import collections
import filecmp
import json
import os
import random
import shutil
import subprocess
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blend_reference as ref  # noqa: E402
import cli_check  # noqa: E402
import component_stats  # noqa: E402
import core_cache  # noqa: E402
import score_reference  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
SEQ = 16
METRICS = [{"name": "seqlen", "metric": "seqlen"}, {"name": "ent", "metric": "token_entropy"},
           {"name": "tvf", "metric": "total_vocab_freq", "params": {"vocab_size": 300}}]
# Weights whose Megatron-DeepSpeed normalisation (left-to-right sum) moves the
# 9-way blend's index away from Core's (numpy.sum, pairwise from 8 values).
NINE = [6.235, 6.847, 6.79, 4.424, 8.952, 7.56, 7.71, 3.74, 3.962]


def corpus(work, name, rng):
    """Token files of 12-20 documents of 1-3 sequences each; the sequences."""
    documents = [[[rng.randrange(1, 299) for _ in range(rng.randrange(1, 25))]
                  for _ in range(rng.randrange(1, 4))] for _ in range(rng.randrange(12, 21))]
    prefix = os.path.join(work, name)
    return prefix, core_cache.write_tokens(prefix, documents)


def same_as_reference(work, name, dataset, samples):
    out = cli_check.run_analysis(work, name, dataset, METRICS)
    flat = os.path.join(work, name + "_flat")
    core_cache.write_tokens(flat, [[s] for s in samples])
    docs = cli_check.run_analysis(work, name + "_docs", {"type": "documents", "prefixes": [flat]},
                                  METRICS)
    for m in METRICS:
        for f in sorted(os.listdir(os.path.join(docs, m["name"]))):
            if f.endswith((".bin", ".idx")) and not filecmp.cmp(
                    os.path.join(out, m["name"], f), os.path.join(docs, m["name"], f),
                    shallow=False):
                raise AssertionError("%s: %s/%s differs from Core's samples" % (name, m["name"], f))
    return json.load(open(os.path.join(out, "summary.json")))["dataset"]


def data_path(prefixes, weights):
    return [v for w, p in zip(weights, prefixes) for v in (repr(w), p)] if weights else prefixes


def weighted_blend(work, cache, names, weights, requested, rng, extra=True):
    """Components and the Core blend of `weights` for `requested` samples;
    returns (data_path, Core's samples, blend md5, dataset_index)."""
    once, targets, builds = core_cache.blend_sizes(weights, requested)
    prefixes, descriptions, samples = [], [], []
    for k, name in enumerate(names):
        prefix, sequences = corpus(work, name, rng)
        d, s = core_cache.write_gpt(cache, prefix, sequences, "train", SEQ, builds[k], rng, extra)
        prefixes.append(prefix)
        descriptions.append(d)
        samples.append(s)
    twice = core_cache.normalize(once)
    which, sample = ref.blending_indices(twice, sum(targets))
    md5 = core_cache.write_blend(cache, "train", descriptions, twice, sum(targets), which, sample)
    return (data_path(prefixes, weights), [samples[k][j] for k, j in zip(which, sample)], md5,
            which)


def check_cached_blend(work, rng):
    cache = os.path.join(work, "cache2")
    path, samples, md5, which = weighted_blend(work, cache, ["web", "books"], [30, 70], 200, rng)
    block = same_as_reference(work, "two", {"type": "megatron_core", "path_to_cache": cache,
                                            "data_path": path}, samples)
    if block["type"] != "megatron_core" or md5 not in block["blend_description"]:
        raise AssertionError("two: summary.json's dataset block: %r" % block)
    listed = json.loads(subprocess.run([DSANALYZE, "inspect", "--config",
                                        os.path.join(work, "two.json"), "--json"],
                                       check=True, capture_output=True, text=True).stdout)
    if listed["dataset"] != block:
        raise AssertionError("two: inspect --config %r, summary.json %r" % (listed["dataset"], block))
    component_stats.check(os.path.join(work, "two"), ["seqlen", "ent"], which,
                          [path[1], path[3]], "two")
    check_order_cache(work, os.path.join(work, "two"), cache,
                      ("-dataset_index.npy", "-dataset_sample_index.npy"))
    # A cache made on another machine: its descriptions name folders that are
    # not here; data_path's prefixes of the same file names are used.
    here = os.path.join(work, "here")
    os.makedirs(here)
    for name in ["web", "books"]:
        for ext in [".bin", ".idx"]:
            shutil.move(os.path.join(work, name + ext), os.path.join(here, name + ext))
    moved = [path[0], os.path.join(here, "web"), path[2], os.path.join(here, "books")]
    same_as_reference(work, "made_elsewhere",
                      {"type": "megatron_core", "path_to_cache": cache, "data_path": moved},
                      samples)
    return cache, moved


def check_lone_valid_without_extra_token(work, rng):
    prefix, sequences = corpus(work, "lone", rng)
    cache = os.path.join(prefix, "cache", "GPTDataset_indices")  # Core's default folder
    _, samples = core_cache.write_gpt(cache, prefix, sequences, "valid", SEQ, None, rng,
                                      extra=False, drop_last=False, sample_descr="<i8")
    if {len(s) for s in samples} == {SEQ}:
        raise AssertionError("lone: the reference has no padded last sample")
    same_as_reference(work, "lone", {"type": "megatron_core", "split": "valid",
                                     "add_extra_token_to_sequence": False,
                                     "data_path": [prefix]}, samples)
    check_order_cache(work, os.path.join(work, "lone"), cache, ("-shuffle_index.npy",))


def check_computed_nine(work, rng):
    cache = os.path.join(work, "cache9")
    names = ["c%d" % k for k in range(len(NINE))]
    path, samples, md5, _ = weighted_blend(work, cache, names, NINE, 300, rng, extra=False)
    _, deepspeed = ref.normalise(NINE)
    if ref.blending_indices(deepspeed, len(samples)) == ref.blending_indices(
            core_cache.normalize(core_cache.normalize(NINE)), len(samples)):
        raise AssertionError("nine: the weights no longer tell the two normalisations apart")
    if len(samples) == sum(ref.component_samples(300, ref.normalise(NINE)[0])):
        raise AssertionError("nine: Core's size equals Megatron-DeepSpeed's")
    for f in os.listdir(cache):
        if f.startswith(md5):
            os.remove(os.path.join(cache, f))
    same_as_reference(work, "nine", {"type": "megatron_core", "path_to_cache": cache,
                                     "num_samples": 300, "add_extra_token_to_sequence": False,
                                     "data_path": path}, samples)


def check_exhaustive(work, rng):
    cache = os.path.join(work, "cache_ex")
    prefixes, lengths, samples = [], [], []
    for name in ["e0", "e1", "e2"]:
        prefix, sequences = corpus(work, name, rng)
        _, s = core_cache.write_gpt(cache, prefix, sequences, "train", SEQ, None, rng)
        prefixes.append(prefix)
        lengths.append(len(s))
        samples.append(s)
    which, sample = core_cache.exhaustive(lengths)
    same_as_reference(work, "exhaustive", {"type": "megatron_core", "path_to_cache": cache,
                                           "data_path": prefixes},
                      [samples[k][j] for k, j in zip(which, sample)])


def npy_descr(path):
    with open(path, "rb") as f:
        head = f.read(128).decode("latin1")
    return head[head.index("'descr': '") + 10:].split("'")[0]


def check_order_cache(work, analysis, cache, rewritten):
    """`order --megatron-core-cache` over ANALYSIS: OUT_DIR holds CACHE's files,
    those named by the `rewritten` suffixes permuted by the order (entry i the
    old entry order[i]) in their dtypes, the others copied byte for byte."""
    out = os.path.join(work, os.path.basename(analysis) + "_curriculum_cache")
    order = os.path.join(work, os.path.basename(analysis) + "_order.npy")
    proc = subprocess.run([DSANALYZE, "order", "--analysis", analysis, "--metric", "ent",
                           "--buckets", "3", "--seed", "5", "--megatron-core-cache", out,
                           "--out", order], capture_output=True, text=True, check=True)
    if "--data-cache-path " + out not in proc.stdout:
        raise AssertionError("order: the flag to change is not printed: %r" % proc.stdout)
    ids = score_reference.read_npy_1d(order)
    wanted = os.listdir(cache)  # every file Megatron-LM reads, no other
    if sorted(os.listdir(out)) != sorted(wanted) or not wanted:
        raise AssertionError("order: %r, expected copies of %r" % (os.listdir(out), wanted))
    for f in wanted:
        a, b = os.path.join(cache, f), os.path.join(out, f)
        if not f.endswith(rewritten):
            if not filecmp.cmp(a, b, shallow=False):
                raise AssertionError("order: %s is not a copy" % f)
            continue
        old, new = score_reference.read_npy_1d(a), score_reference.read_npy_1d(b)
        if new != [old[i] for i in ids] or npy_descr(a) != npy_descr(b):
            raise AssertionError("order: %s is not %s permuted by the order" % (b, a))
    # Without --out: the same files, and nothing else in OUT_DIR (the order
    # itself is never written there).
    alone = out + "_alone"
    subprocess.run([DSANALYZE, "order", "--analysis", analysis, "--metric", "ent", "--buckets",
                    "3", "--seed", "5", "--megatron-core-cache", alone], capture_output=True,
                   check=True)
    if sorted(os.listdir(alone)) != sorted(wanted):
        raise AssertionError("order without --out: %r, expected %r" % (os.listdir(alone), wanted))
    for f in wanted:
        if not filecmp.cmp(os.path.join(out, f), os.path.join(alone, f), shallow=False):
            raise AssertionError("order without --out: %s differs from the one with --out" % f)
    check_order_windows(work, analysis, cache, out, rewritten)
    if rewritten != ("-shuffle_index.npy",):
        check_order_wide_sample_index(work, analysis, cache)


def check_order_wide_sample_index(work, analysis, cache):
    """A blend's entries that do not fit the packing tried first: a sample
    index of 2^40 or a dataset index of 1000 (not 4 bytes a sample: the
    8-byte packing), and a sample index of 2^48 + 7 (not 8 bytes either: two
    arrays). Each time the files are still the cache's permuted by the order,
    the entries placed by one metric's cursors and gathered by the ids of an
    order by two metrics."""
    for suffix, fmt, value in [("-dataset_sample_index.npy", "<Q", 1 << 40),
                               ("-dataset_index.npy", "<h", 1000),
                               ("-dataset_sample_index.npy", "<Q", (1 << 48) + 7)]:
        check_order_patched_entry(work, analysis, cache, suffix, fmt, value)


def check_order_patched_entry(work, analysis, cache, suffix, fmt, value):
    """check_order_wide_sample_index with the first entry of the cache's file
    ending in SUFFIX set to VALUE (struct format FMT)."""
    [index] = [os.path.join(cache, f) for f in os.listdir(cache) if f.endswith(suffix)]
    with open(index, "rb") as f:
        original = f.read()
    patched = bytearray(original)
    first = len(original) - struct.calcsize(fmt) * len(score_reference.read_npy_1d(index))
    patched[first:first + struct.calcsize(fmt)] = struct.pack(fmt, value)
    runs = {"placed": ["--metric", "ent"], "gathered": ["--metric", "ent", "--metric", "seqlen"]}
    try:
        with open(index, "wb") as f:
            f.write(patched)
        olds = {f: score_reference.read_npy_1d(os.path.join(cache, f))
                for f in os.listdir(cache) if f.endswith("index.npy") and "-dataset" in f}
        for name, metrics in runs.items():
            out = os.path.join(work, "wide_cache_" + name)
            order = os.path.join(work, "wide_order_%s.npy" % name)
            shutil.rmtree(out, ignore_errors=True)
            subprocess.run([DSANALYZE, "order", "--analysis", analysis] + metrics +
                           ["--buckets", "3", "--seed", "5", "--megatron-core-cache", out,
                            "--out", order], capture_output=True, check=True)
    finally:
        with open(index, "wb") as f:
            f.write(original)
    for name in runs:
        ids = score_reference.read_npy_1d(os.path.join(work, "wide_order_%s.npy" % name))
        for f, old in olds.items():
            new = score_reference.read_npy_1d(os.path.join(work, "wide_cache_" + name, f))
            if new != [old[i] for i in ids]:
                raise AssertionError("order (%s): with %s's first entry %d, %s is not permuted "
                                     "by it" % (name, suffix, value, f))


def check_order_windows(work, analysis, cache, out, rewritten):
    """The entries placed a window of buckets at a time (the test-only cap on
    a window's bytes: one bucket each) give OUT's files; an order by two
    metrics, whose entries are gathered by the ids instead, is the files
    permuted by its --out."""
    windows = out + "_windows"
    subprocess.run([DSANALYZE, "order", "--analysis", analysis, "--metric", "ent", "--buckets",
                    "3", "--seed", "5", "--megatron-core-cache", windows], capture_output=True,
                   check=True, env=dict(os.environ, DSANALYZE_TEST_ORDER_WINDOW_BYTES="1"))
    for f in os.listdir(out):
        if not filecmp.cmp(os.path.join(out, f), os.path.join(windows, f), shallow=False):
            raise AssertionError("order in windows: %s differs from the one in one window" % f)
    two, order = out + "_two_metrics", out + "_two_metrics.npy"
    subprocess.run([DSANALYZE, "order", "--analysis", analysis, "--metric", "ent", "--metric",
                    "seqlen", "--buckets", "3", "--seed", "5", "--megatron-core-cache", two,
                    "--out", order], capture_output=True, check=True)
    ids = score_reference.read_npy_1d(order)
    for f in os.listdir(cache):
        if f.endswith(rewritten):
            old = score_reference.read_npy_1d(os.path.join(cache, f))
            if score_reference.read_npy_1d(os.path.join(two, f)) != [old[i] for i in ids]:
                raise AssertionError("order by two metrics: %s is not permuted by it" % f)


def refused(work, name, dataset, expected):
    out = os.path.join(work, name)
    with open(out + ".json", "w") as f:
        json.dump({"dataset": dataset, "metrics": METRICS[:1], "output": {"path": out}}, f)
    proc = subprocess.run([os.environ["MPIEXEC"], "-n", "1", DSANALYZE, "--config", out + ".json",
                           "--quiet"], capture_output=True, text=True)
    problems = cli_check.error_line_problems(proc, expected)
    if problems:
        raise AssertionError("%s: %s" % (name, "; ".join(problems)))


def check_refusals(work, cache, path):
    good = {"type": "megatron_core", "path_to_cache": cache, "data_path": path}
    swapped = path[2:] + path[:2]
    refused(work, "order", dict(good, data_path=swapped),
            ["dataset.data_path[1]", path[3], "comes at another place in",
             os.path.join(work, "web")])
    refused(work, "other_data", dict(good, data_path=[path[0], os.path.join(work, "x"), path[2],
                                                      path[3]]),
            ["dataset.data_path[1]", "is not in the cached blend, whose component 0 is"])
    refused(work, "weights", dict(good, data_path=["50", path[1], "50", path[3]]),
            ["dataset.data_path: its weights normalised are", "(is it another blend?)"])
    refused(work, "zero_weight", dict(good, data_path=["0", path[1], "1", path[3]]),
            ["config: dataset.data_path[0]", "not a positive number"])
    refused(work, "negative_weight", dict(good, data_path=["1", path[1], "-2", path[3]]),
            ["config: dataset.data_path[2]", "not a positive number"])
    refused(work, "missing_split", dict(good, split="test"),
            ["config: dataset.num_samples: required key is missing"])
    refused(work, "no_description", dict(good, split="test", num_samples=10),
            ["config: dataset.data_path[1]", "no GPTDataset test description"])
    refused(work, "bad_split", dict(good, split="training"), ["config: dataset.split"])
    # A second blend over the same data: which one training uses is the user's to say.
    other = os.path.join(work, "other_cache")
    shutil.copytree(cache, other)
    blend = [f for f in os.listdir(other) if f.endswith("BlendedDataset-train-description.txt")]
    with open(os.path.join(other, blend[0])) as f:
        described = json.load(f, object_pairs_hook=collections.OrderedDict)
    core_cache.write_blend(other, "train", described["datasets"], described["weights"], 4,
                           [0, 1, 0, 1], [0, 0, 1, 1])
    refused(work, "several", dict(good, path_to_cache=other),
            ["dataset.path_to_cache: " + other, "holds 2 train blends", "dataset.description_hash"])
    # A component's description missing from the cache.
    partial = os.path.join(work, "partial_cache")
    shutil.copytree(cache, partial)
    for f in os.listdir(partial):
        if f.endswith("GPTDataset-train-description.txt"):
            os.remove(os.path.join(partial, f))
            break
    refused(work, "partial", dict(good, path_to_cache=partial),
            ["dataset.path_to_cache: " + partial, "has no GPTDataset description of component",
             "(was the cache copied in part?)"])
    # order --megatron-core-cache: only over a megatron_core analysis, never
    # into the cache it read.
    order = [DSANALYZE, "order", "--metric", "seqlen", "--megatron-core-cache"]
    for name, args, expected in [
            ("order_type", [os.path.join(work, "x_cache"), "--analysis",
                            os.path.join(work, "two_docs")],
             ["order: --megatron-core-cache: " + os.path.join(work, "two_docs"),
              "of a documents dataset"]),
            ("order_same", [cache, "--analysis", os.path.join(work, "two")],
             ["order: --megatron-core-cache: " + cache, "is the cache folder"])]:
        problems = cli_check.error_line_problems(
            subprocess.run(order + args, capture_output=True, text=True), expected)
        if problems:
            raise AssertionError("%s: %s" % (name, "; ".join(problems)))
    # Maps that disagree with the .idx: another corpus under the same name.
    moved = os.path.join(work, "moved")
    os.makedirs(moved)
    corpus(moved, os.path.basename(path[1]), random.Random(99))
    corpus(moved, os.path.basename(path[3]), random.Random(98))
    refused(work, "maps_vs_idx", dict(good, data_path=[path[0], os.path.join(moved, "web"),
                                                       path[2], os.path.join(moved, "books")]),
            ["dataset.data_path[1]"])


def main():
    rng = random.Random(45)
    with tempfile.TemporaryDirectory() as work:
        cache, path = check_cached_blend(work, rng)
        check_lone_valid_without_extra_token(work, rng)
        check_computed_nine(work, rng)
        check_exhaustive(work, rng)
        check_refusals(work, cache, path)
    print("megatron_core: Core's samples on %s rank(s); every bad input refused" % os.environ["NP"])


if __name__ == "__main__":
    main()
