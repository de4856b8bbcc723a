#!/usr/bin/env python3
"""The score metric end to end, under mpiexec -n $NP with 1 and 2 map threads.

Every run's sample_to_metric is checked value by value against an independent
computation in Python (tests/support/score_reference.py: the documents each
sample is cut from, read from the .idx sizes and the index maps, and the
reductions in float64 in piece order), and the two thread counts must write
byte-identical metric folders. Since the expectation does not depend on the
rank count, passing at every NP means the same bytes for any rank count.

Covered: megatron_gpt samples spanning 1, 2 and many documents; packed over two
files; documents with an empty document and NaN scores mapped by "nan";
synthetic_mod per sample; scores as float32, float64, int16 and int64 .npy and
JSON lines (line order and id_field); token_mean, min, max, first; scale with
ties at .5; bins with tied scores, descending; summary.json's score block,
with its count of NaN scores.

Env: NP, MPIEXEC, DSANALYZE, SOURCE_DIR (as dsanalyze_add_mpi_test sets them).
"""
import filecmp
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import score_reference as ref  # noqa: E402

NP, MPIEXEC, DSANALYZE = os.environ["NP"], os.environ["MPIEXEC"], os.environ["DSANALYZE"]
# dtype codes of the DeepSpeed table (docs/format.md §1.2), which outputs use.
OUT_CODES = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}


def fail(message):
    sys.exit("FAIL: " + message)


def sample_to_metric(out, metric):
    """The values of OUT/metric/metric_sample_to_metric (one element per row)."""
    prefix = os.path.join(out, metric, metric + "_sample_to_metric")
    with open(prefix + ".idx", "rb") as f:
        code = f.read()[17]
    fmt = OUT_CODES[code]
    with open(prefix + ".bin", "rb") as f:
        data = f.read()
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def run(work, name, config):
    """Runs `config` with 1 and 2 threads; returns the 1-thread output folder."""
    outs = []
    for threads in (1, 2):
        out = os.path.join(work, "out", "%s-t%d" % (name, threads))
        config = dict(config, output={"path": out}, map={"threads": threads, "batch_size": 37})
        path = os.path.join(work, name + ".json")
        with open(path, "w") as f:
            json.dump(config, f)
        p = subprocess.run([MPIEXEC, "-n", NP, DSANALYZE, "--config", path, "--quiet"],
                           cwd=work, capture_output=True, text=True)
        if p.returncode != 0:
            fail("%s (threads %d): exit %d: %s" % (name, threads, p.returncode, p.stderr))
        p = subprocess.run([DSANALYZE, "verify", out], capture_output=True, text=True)
        if p.returncode != 0:
            fail("%s: verify: %s" % (name, p.stdout + p.stderr))
        outs.append(out)
    for m in config["metrics"]:
        a, b = (os.path.join(o, m["name"]) for o in outs)
        files = sorted(os.listdir(a))
        _, mismatch, errors = filecmp.cmpfiles(a, b, files, shallow=False)
        if mismatch or errors or files != sorted(os.listdir(b)):
            fail("%s/%s: 1 and 2 threads differ: %s" % (name, m["name"], mismatch + errors))
    return outs[0]


def expected_values(scores, per_position, params, ids=None):
    """What the score metric should write, per iteration position.
    per_position: each position's score (before the params' mapping)."""
    nan = params.get("nan")
    sign = -1.0 if params.get("descending") else 1.0
    if "scale" in params:
        return [nan if math.isnan(x) else round(sign * x * params["scale"])
                for x in per_position]
    ids = ids or list(range(len(per_position)))
    ranked = sorted((sign * x + 0.0, ids[i], i) for i, x in enumerate(per_position)
                    if not math.isnan(x))
    out = [nan] * len(per_position)
    for r, (_, _, i) in enumerate(ranked):
        out[i] = r * params["bins"] // len(ranked)
    return out


def check(out, name, metric, want):
    got = sample_to_metric(out, metric)
    if got != want:
        bad = [i for i in range(min(len(got), len(want))) if got[i] != want[i]][:5]
        fail("%s/%s: %d values, expected %d; first differences at %s: got %s, want %s" % (
            name, metric, len(got), len(want), bad, [got[i] for i in bad],
            [want[i] for i in bad]))


def per_document(dataset, scores, how):
    return [ref.reduce(p, scores, how) for p in ref.pieces(dataset)]


def score_entry(name, file, **params):
    return {"name": name, "metric": "score", "params": dict(file=file, **params)}


def write_jsonl(path, scores, shuffle_seed=None):
    rows = list(range(len(scores)))
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(rows)
    with open(path, "w") as f:
        for r in rows:
            line = {"doc": r, "score": scores[r], "other": "x"}
            f.write(json.dumps(line if shuffle_seed is not None else
                               {"score": scores[r], "len": 1}) + "\n")


def megatron_case(work, tag, documents, max_length, seq_length):
    """A generated token file with GPT maps; the pieces must include 1-, 2- and
    many-document samples (max_length small against seq_length gives many)."""
    prefix = os.path.join(work, "data", tag)
    subprocess.run([DSANALYZE, "generate", prefix, "--documents", str(documents),
                    "--vocab-size", "300", "--min-length", "1", "--max-length", str(max_length),
                    "--seed", str(len(tag)), "--gpt-maps", str(seq_length)],
                   check=True, capture_output=True)
    return {"type": "megatron_gpt", "prefix": prefix, "seq_length": seq_length,
            "index_prefix": prefix + "_train_indexmap"}


def check_megatron_spans(work):
    ds = megatron_case(work, "long", 400, 300, 128)
    counts = [len(p) for p in ref.pieces(ds)]
    if not (1 in counts and 2 in counts and max(counts) >= 3):
        fail("megatron 'long' pieces do not cover 1, 2 and 3+ documents: %s" % sorted(set(counts)))
    rng = random.Random(1)
    n = len(ref.read_idx_sizes(ds["prefix"]))
    f8 = [rng.uniform(-5, 5) for _ in range(n)]
    f4 = [struct.unpack("<f", struct.pack("<f", x))[0] for x in f8]
    i2 = [rng.randrange(-3000, 3000) for _ in range(n)]
    i8 = [rng.randrange(-(1 << 40), 1 << 40) for _ in range(n)]
    ties = [rng.randrange(4) / 4 for _ in range(n)]
    for name, descr, values in (("f8", "<f8", f8), ("f4", "<f4", f4), ("i2", "<i2", i2),
                                ("i8", "<i8", i8), ("ties", "<f8", ties)):
        ref.write_npy(os.path.join(work, name + ".npy"), descr, values)
    write_jsonl(os.path.join(work, "lines.jsonl"), f8)
    write_jsonl(os.path.join(work, "ids.jsonl"), f8, shuffle_seed=7)
    metrics = [
        ("mean_f4", "f4.npy", "token_mean", {"scale": 1000}, f4),
        ("min_f8", "f8.npy", "min", {"scale": 100}, f8),
        ("max_i2", "i2.npy", "max", {"scale": 1}, i2),
        ("first_i8", "i8.npy", "first", {"scale": 1, "descending": True}, i8),
        ("mean_i8", "i8.npy", "token_mean", {"scale": 0.001}, i8),
        ("bins_f8", "f8.npy", "token_mean", {"bins": 7}, f8),
        ("bins_ties", "ties.npy", "first", {"bins": 5, "descending": True}, ties),
        ("half", "ties.npy", "first", {"scale": 2}, ties),  # 0.25·2 = 0.5, 0.75·2 = 1.5
        ("lines", "lines.jsonl", "token_mean", {"scale": 1000}, f8),
        ("ids", "ids.jsonl", "max", {"bins": 10, "id_field": "doc"}, f8),
    ]
    entries = [score_entry(m, f, per="document", reduce=how, **p) for m, f, how, p, _ in metrics]
    out = run(work, "megatron_long", {"dataset": ds, "metrics": entries})
    for m, _, how, p, scores in metrics:
        check(out, "megatron_long", m, expected_values(scores, per_document(ds, scores, how), p))
    check_summary(out, ds, f8)


def check_summary(out, ds, f8):
    """summary.json's score blocks: scores from the scaled values, bin ranges."""
    with open(os.path.join(out, "summary.json")) as f:
        metrics = json.load(f)["metrics"]
    s = metrics["mean_f4"]["score"]
    values = sample_to_metric(out, "mean_f4")
    if (s["scale"], s["min"], s["max"]) != (1000, min(values) / 1000, max(values) / 1000):
        fail("mean_f4 score block %s" % s)
    per_sample = per_document(ds, f8, "token_mean")
    bins = sample_to_metric(out, "bins_f8")
    want = []
    for b in range(7):
        xs = [x for x, v in zip(per_sample, bins) if v == b]
        want.append([min(xs), max(xs)] if xs else None)
    if metrics["bins_f8"]["score"]["bin_scores"] != want:
        fail("bins_f8 bin_scores %s, want %s" % (metrics["bins_f8"]["score"]["bin_scores"], want))
    with open(os.path.join(out, "mean_f4", "mean_f4_histogram.svg")) as f:
        if "mean_f4 score" not in f.read():
            fail("mean_f4's histogram has no score axis")


def check_many_documents_and_packed(work):
    short = megatron_case(work, "short", 600, 12, 64)
    counts = [len(p) for p in ref.pieces(short)]
    if min(counts) < 3:
        fail("megatron 'short' has samples of fewer than 3 documents: %s" % min(counts))
    long_prefix = os.path.join(work, "data", "long")
    packed = {"type": "packed", "prefixes": [long_prefix, short["prefix"]], "seq_length": 50}
    for name, ds in (("megatron_short", short), ("packed", packed)):
        n = sum(len(ref.read_idx_sizes(p)) for p in ds.get("prefixes", [ds.get("prefix")]))
        scores = [random.Random(n).gauss(0, 1) for _ in range(n)]
        ref.write_npy(os.path.join(work, name + ".npy"), "<f8", scores)
        params = {"scale": 1e6}
        out = run(work, name, {"dataset": ds, "metrics": [
            score_entry("q", name + ".npy", per="document", **params)]})
        check(out, name, "q", expected_values(scores, per_document(ds, scores, "token_mean"),
                                              params))


def check_documents_with_nan(work):
    prefix = os.path.join(work, "data", "docs")
    sizes = [3, 0, 5, 1, 0, 7] * 30  # empty documents are samples too
    ref.write_idx(prefix, sizes)
    rng = random.Random(3)
    scores = [float("nan") if i % 11 == 4 else rng.uniform(0, 1) for i in range(len(sizes))]
    ref.write_npy(os.path.join(work, "docs.npy"), "<f4", scores)
    scores = ref.read_npy_1d(os.path.join(work, "docs.npy"))
    ds = {"type": "documents", "prefixes": [prefix]}
    metrics = [("scaled", {"scale": 1000, "nan": -1}), ("binned", {"bins": 4, "nan": 99})]
    out = run(work, "documents", {"dataset": ds, "metrics": [
        score_entry(m, "docs.npy", per="document", **p) for m, p in metrics]})
    per_sample = per_document(ds, scores, "token_mean")
    if [x for x in per_sample if not math.isnan(x)] != [x for x in scores if not math.isnan(x)]:
        fail("a document's score is not its sample's")
    for m, p in metrics:
        check(out, "documents", m, expected_values(scores, per_sample, p))
    # The NaN count is summed over every rank's samples, in summary.json and
    # in the run's closing lines.
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)["metrics"]
    nans = sum(math.isnan(x) for x in per_sample)
    p = subprocess.run([MPIEXEC, "-n", NP, DSANALYZE, "--config",
                        os.path.join(work, "documents.json"), "--progress", "always"],
                       cwd=work, capture_output=True, text=True)
    for m, params in metrics:
        if summary[m]["score"].get("nan") != {"value": params["nan"], "samples": nans}:
            fail("documents/%s: score.nan %s, want %d samples at %d" % (
                m, summary[m]["score"].get("nan"), nans, params["nan"]))
        said = ", %d NaN scores given value %d;" % (nans, params["nan"])
        if not any(line.startswith(m + ": ") and said in line for line in p.stderr.splitlines()):
            fail("documents/%s: the run's summary lines lack %r: %s" % (m, said, p.stderr))


def check_per_sample(work):
    n = 1000
    rng = random.Random(4)
    scores = [rng.randrange(50) / 10 for _ in range(n)]  # many ties
    ref.write_npy(os.path.join(work, "samples.npy"), "<f8", scores)
    ds = {"type": "synthetic_mod", "num_samples": n}
    metrics = [("bins", {"bins": 8}), ("desc", {"scale": 10, "descending": True})]
    out = run(work, "per_sample", {"dataset": ds, "metrics": [
        score_entry(m, "samples.npy", per="sample", **p) for m, p in metrics]})
    for m, p in metrics:
        check(out, "per_sample", m, expected_values(scores, scores, p))


def main():
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "data"))
        check_megatron_spans(work)
        check_many_documents_and_packed(work)
        check_documents_with_nan(work)
        check_per_sample(work)
    print("score metric on %s ranks, 1 and 2 threads: all checks passed" % NP)


if __name__ == "__main__":
    main()
