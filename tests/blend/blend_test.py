#!/usr/bin/env python3
"""megatron_blend end to end (docs/config.md, "megatron_blend"), on $NP ranks.

Generated blends of 2-5 components (`dsanalyze generate` token files; GPT maps
built here as Megatron builds them, blend_reference.py: some components span
several epochs, some with a separate last epoch), raw and normalised weights,
the blend index written as Megatron caches it with a uint8, int16 or int64
dataset_index. For each blend:
  - every metric's .bin/.idx files equal those of a `documents` dataset whose
    rows are the blend's samples, written out here one per row from the token
    files and maps (an independent path through the existing readers); the
    score metric per document on the blend equals, per sample on the
    documents, the per-sample values tests/support/score_reference.py reduces;
  - the index computed from "weights" and "train_samples" gives the same files
    as the cached one;
  - summary.json's "dataset" block and `inspect --config` give each
    component's draws, epochs and (computed) weights.
One blend is also run in two sample_range halves and merged (the same files and
summary.json "dataset" block as the whole run), and read by the commands after
a run: `order`, `batches` and `curriculum` give on the blend what they give on
its samples as documents. Map threads alternate between 1 and 2 across blends.
Usage: blend_test.py   (env: NP, MPIEXEC, DSANALYZE, SOURCE_DIR)
"""
import filecmp
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blend_reference as ref  # noqa: E402
import component_stats  # noqa: E402
import score_reference  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
VOCAB = 300
SEQ = 16

# (name, per-component (documents, max length), weights, train_samples, index dtype)
BLENDS = [
    ("two", [(40, 30), (25, 12)], [0.7, 0.3], 200, "|u1"),
    ("three_raw", [(30, 20), (60, 40), (12, 9)], [3, 5, 2], 150, "<i2"),
    ("tie", [(20, 25), (20, 25), (20, 25)], [1, 1, 1], 120, "<i8"),
    ("five", [(15, 10), (30, 30), (8, 40), (50, 8), (22, 22)],
     [0.1, 0.25, 0.05, 0.4, 0.2], 260, "|u1"),
]


def metrics(score_file, per):
    m = [{"name": "seqlen", "metric": "seqlen"},
         {"name": "vr", "metric": "vocab_rarity", "params": {"vocab_size": VOCAB}},
         {"name": "svr", "metric": "seqlen_vocab_rarity", "params": {"vocab_size": VOCAB}},
         {"name": "tvf", "metric": "total_vocab_freq", "params": {"vocab_size": VOCAB}},
         {"name": "utr", "metric": "unique_token_ratio"},
         {"name": "ent", "metric": "token_entropy"},
         {"name": "rep", "metric": "repeated_ngram_ratio"},
         {"name": "q", "metric": "score",
          "params": {"file": score_file, "per": per, "scale": 1000}}]
    return m


def rows(prefix):
    """The token rows of a `generate` pair (uint16, megatron code 8)."""
    sizes = score_reference.read_idx_sizes(prefix)
    data = open(prefix + ".bin", "rb").read()
    values = struct.unpack("<%dH" % (len(data) // 2), data)
    out, offset = [], 0
    for s in sizes:
        out.append(values[offset:offset + s])
        offset += s
    return out


def write_rows(prefix, token_rows):
    """A uint16 MMapIndexedDataset pair (megatron code 8) holding `token_rows`."""
    sizes = [len(r) for r in token_rows]
    pointers, offset = [], 0
    for n in sizes:
        pointers.append(offset)
        offset += 2 * n
    with open(prefix + ".idx", "wb") as f:
        f.write(score_reference.IDX_MAGIC + struct.pack("<QBQQ", 1, 8, len(sizes), len(sizes) + 1))
        f.write(struct.pack("<%di" % len(sizes), *sizes))
        f.write(struct.pack("<%dq" % len(sizes), *pointers))
        f.write(struct.pack("<%dq" % (len(sizes) + 1), *range(len(sizes) + 1)))
    with open(prefix + ".bin", "wb") as f:
        for r in token_rows:
            f.write(struct.pack("<%dH" % len(r), *r))


def component(work, name, k, documents, max_length, samples, rng):
    """Token files and Megatron maps for `samples` samples; the config entry,
    the samples' tokens by training index, and (epochs, separate_last_epoch)."""
    prefix = os.path.join(work, "%s_c%d" % (name, k))
    subprocess.run([DSANALYZE, "generate", prefix, "--documents", str(documents),
                    "--vocab-size", str(VOCAB), "--max-length", str(max_length),
                    "--seed", str(rng.randrange(1 << 30))], check=True, stdout=subprocess.DEVNULL)
    token_rows = rows(prefix)
    doc_idx, sample_idx, shuffle_idx, epochs, separate = ref.gpt_maps(
        [len(r) for r in token_rows], SEQ, samples, rng)
    maps = prefix + "_maps"
    score_reference.write_npy(maps + "_doc_idx.npy", "<i4", doc_idx)
    score_reference.write_npy(maps + "_sample_idx.npy", "<i4",
                              [v for pair in sample_idx for v in pair], (len(sample_idx), 2))
    score_reference.write_npy(maps + "_shuffle_idx.npy", "<i8", shuffle_idx)
    flat, start = [], []
    for r in doc_idx:
        start.append(len(flat))
        flat.extend(token_rows[r])
    cut = [start[p] + o for p, o in sample_idx]
    tokens = [flat[cut[j]:cut[j + 1] + 1] for j in shuffle_idx]
    return {"prefix": prefix, "index_prefix": maps}, tokens, (epochs, separate)


def metric_files(out):
    found = []
    for root, _, files in os.walk(out):
        found += [os.path.relpath(os.path.join(root, f), out) for f in files
                  if f.endswith((".bin", ".idx"))]
    return sorted(found)


def same_files(a, b, what):
    fa, fb = metric_files(a), metric_files(b)
    if fa != fb or not fa:
        raise AssertionError("%s: different files: %r vs %r" % (what, fa, fb))
    for f in fa:
        if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False):
            raise AssertionError("%s: %s differs" % (what, f))


def run(work, name, dataset, metric_list, threads, **output):
    config = {"dataset": dataset, "metrics": metric_list,
              "output": dict(output, path=os.path.join(work, name)),
              "map": {"threads": threads, "batch_size": 37}}
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(config, f)
    subprocess.run([os.environ["MPIEXEC"], "-n", os.environ["NP"], DSANALYZE, "--config", path,
                    "--quiet"], check=True)
    return os.path.join(work, name), path


def check_blend(work, case, threads, rng):
    name, shapes, weights, train_samples, descr = case
    once, twice = ref.normalise(weights)
    need = ref.component_samples(train_samples, once)
    entries, tokens, spans = [], [], []
    for k, (documents, max_length) in enumerate(shapes):
        e, t, s = component(work, name, k, documents, max_length, need[k], rng)
        entries.append(e)
        tokens.append(t)
        spans.append(s)
    n = sum(need)
    which, sample = ref.blending_indices(twice, n)
    index = os.path.join(work, name + "_index.npy")
    sample_index = os.path.join(work, name + "_sample_index.npy")
    score_reference.write_npy(index, descr, which)
    score_reference.write_npy(sample_index, "<i8", sample)
    cached = {"type": "megatron_blend", "datasets": entries, "dtype_codes": "megatron",
              "seq_length": SEQ, "dataset_index": index, "dataset_sample_index": sample_index}

    # Per-document scores over the blend's documents (components in order).
    documents = sum(len(score_reference.read_idx_sizes(e["prefix"])) for e in entries)
    doc_scores = os.path.join(work, name + "_doc_scores.npy")
    score_reference.write_npy(doc_scores, "<f8", [rng.random() for _ in range(documents)])
    blend_out, blend_config = run(work, name, cached, metrics(doc_scores, "document"), threads)

    # The independent path: the blend's samples written out as documents.
    samples = [tokens[k][j] for k, j in zip(which, sample)]
    flat = os.path.join(work, name + "_flat")
    write_rows(flat, samples)
    pieces = score_reference.pieces(cached)
    scores = score_reference.read_npy_1d(doc_scores)
    per_sample = os.path.join(work, name + "_sample_scores.npy")
    score_reference.write_npy(per_sample, "<f8",
                              [score_reference.reduce(p, scores, "token_mean") for p in pieces])
    docs_out, _ = run(work, name + "_docs", {"type": "documents", "prefixes": [flat]},
                      metrics(per_sample, "sample"), threads)
    same_files(blend_out, docs_out, name + ": blend vs its samples as documents")
    component_stats.check(blend_out, ["seqlen", "vr", "q"], which,
                          [e["prefix"] for e in entries], name)

    computed = dict(cached, weights=weights, train_samples=train_samples)
    del computed["dataset_index"], computed["dataset_sample_index"]
    computed_out, _ = run(work, name + "_computed", computed, metrics(doc_scores, "document"),
                          3 - threads)
    same_files(blend_out, computed_out, name + ": computed index vs cached")
    check_description(computed_out, name, which, spans, twice, train_samples)
    return blend_out, blend_config, docs_out


def check_description(out, name, which, spans, twice, train_samples):
    block = json.load(open(os.path.join(out, "summary.json")))["dataset"]
    listed = json.loads(subprocess.run(
        [DSANALYZE, "inspect", "--config", out + ".json", "--json"], check=True,
        capture_output=True, text=True).stdout)["dataset"]
    if listed != block:
        raise AssertionError("%s: inspect --config and summary.json differ" % name)
    if block["samples"] != len(which) or block.get("train_samples") != train_samples:
        raise AssertionError("%s: samples or train_samples: %r" % (name, block))
    for k, c in enumerate(block["components"]):
        if c["samples_drawn"] != which.count(k) or c["weight"] != twice[k]:
            raise AssertionError("%s: component %d: %r" % (name, k, c))
        if c["samples_drawn"] > c["samples"] or c["epochs"] != spans[k][0]:
            raise AssertionError("%s: component %d draws or epochs: %r vs %r" % (name, k, c, spans[k]))


def check_range_merge(work, blend_out, blend_config):
    """sample_range halves merged give the whole run's files and dataset block."""
    config = json.load(open(blend_config))
    n = json.load(open(os.path.join(blend_out, "summary.json")))["dataset"]["samples"]
    parts = []
    for part, (lo, hi) in enumerate([(0, n // 2), (n // 2, n)]):
        c = dict(config)
        c["dataset"] = dict(config["dataset"], sample_range=[lo, hi])
        c["metrics"] = [m for m in config["metrics"] if m["name"] in ("seqlen", "utr", "q")]
        out, _ = run(work, "part%d" % part, c["dataset"], c["metrics"], 1)
        parts.append(out)
    merged = os.path.join(work, "merged")
    subprocess.run([DSANALYZE, "merge"] + parts + ["--out", merged], check=True,
                   stdout=subprocess.DEVNULL)
    for metric in ("seqlen", "utr", "q"):
        same_files(os.path.join(blend_out, metric), os.path.join(merged, metric),
                   "merge of sample_range halves, " + metric)
    blocks = [json.load(open(os.path.join(out, "summary.json")))["dataset"]
              for out in (blend_out, merged)]
    if blocks[0] != blocks[1]:
        raise AssertionError("merged dataset block %r, whole run's %r" % (blocks[1], blocks[0]))
    per = [{m: json.load(open(os.path.join(out, "summary.json")))["metrics"][m]["per_component"]
            for m in ("seqlen", "utr", "q")} for out in (blend_out, merged)]
    if per[0] != per[1]:
        raise AssertionError("merged per_component %r, whole run's %r" % (per[1], per[0]))
    if "per component" not in open(os.path.join(merged, "report.html")).read():
        raise AssertionError("merged report.html has no per-component chart")
    # A component's files missing where the merge runs: the merge is exact but
    # leaves per_component out, saying so in one warning line that names why.
    prefix = config["dataset"]["datasets"][0]["prefix"]
    os.rename(prefix + ".idx", prefix + ".idx.away")
    try:
        bare = os.path.join(work, "merged_elsewhere")
        proc = subprocess.run([DSANALYZE, "merge"] + parts + ["--out", bare], capture_output=True,
                              text=True)
    finally:
        os.rename(prefix + ".idx.away", prefix + ".idx")
    lines = proc.stderr.splitlines()
    if (proc.returncode != 0 or len(lines) != 1 or "no per-component statistics" not in lines[0]
            or prefix + ".idx" not in lines[0]):
        raise AssertionError("merge without the blend's files: exit %d, stderr %r"
                             % (proc.returncode, proc.stderr))
    metrics = json.load(open(os.path.join(bare, "summary.json")))["metrics"]
    if any("per_component" in metrics[m] for m in ("seqlen", "utr", "q")):
        raise AssertionError("merge without the blend's files wrote per_component")
    same_files(os.path.join(blend_out, "q"), os.path.join(bare, "q"),
               "merge without the blend's files, q")


def check_commands(blend_out, docs_out):
    """order, batches and curriculum read the blend as its samples as documents."""
    def output_of(out, command, path):
        subprocess.run([DSANALYZE] + command + ["--analysis", out, "--out", path], check=True,
                       stdout=subprocess.DEVNULL)
        if os.path.isfile(path):
            return open(path, "rb").read()
        return {f: open(os.path.join(path, f), "rb").read()
                for f in sorted(os.listdir(path)) if f.endswith(".npy")}

    order = ["order", "--metric", "seqlen", "--buckets", "3"]
    batches = ["batches", "--max-tokens", str(3 * SEQ), "--effective-batch-size", "2",
               "--order", "random", "--seed", "7"]
    for command, suffix in ((order, "_order.npy"), (batches, "_batches")):
        got = [output_of(out, command, out + suffix) for out in (blend_out, docs_out)]
        if got[0] != got[1] or not got[0]:
            raise AssertionError("%s over the blend differs from the documents'" % command[0])
    replays = [json.loads(subprocess.run(
        [DSANALYZE, "curriculum", "--analysis", out, "--global-batch-size", "4",
         "--train-steps", "40", "--json", "-"], capture_output=True, text=True).stdout)["steps"]
        for out in (blend_out, docs_out)]
    if replays[0] != replays[1] or not replays[0]:
        raise AssertionError("curriculum over the blend %r, documents %r" % tuple(replays))


def main():
    rng = random.Random(20261205)
    with tempfile.TemporaryDirectory() as work:
        first = None
        for i, case in enumerate(BLENDS):
            result = check_blend(work, case, 1 + i % 2, rng)
            first = first or result
        check_range_merge(work, first[0], first[1])
        check_commands(first[0], first[2])
    print("megatron_blend on %s ranks: %d blends, all checks passed" % (os.environ["NP"], len(BLENDS)))


if __name__ == "__main__":
    main()
