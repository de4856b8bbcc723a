#!/usr/bin/env python3
"""summary.json's "spearman", each metric's spread and extremes, and the
scores' statistics without NaN placeholders, recomputed here with the
standard library alone from the metric files (sample_to_metric), for a run on
$NP ranks (its ranks' sums of rank products; and a metric too wide for them,
whose correlations rank 0 reads from the files) and for the merge of two
parts of the same data (which must give the whole run's figures). The extremes of a dataset of tokens carry their
first 8 token ids and token count (read from the token files here), shown on
report.html; those of synthetic_mod and of a merge carry none. The run's sums
are also checked when made in chunks of 8 rows and for a sparse metric. Also:
report.html's summary box holds every warning of the run's log and of
summary.json, and a constant metric's ρ is null.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "batching"))
from batch_reference import read_pair  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
from score_reference import read_idx_sizes  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
failures = []


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("FAIL: " + msg)


def run(work, name, dataset, metrics, **output):
    """Analyses into WORK/NAME on $NP ranks, with OUTPUT's extra output keys; returns
    the path and the log."""
    out = os.path.join(work, name)
    config = os.path.join(work, name + ".json")
    with open(config, "w") as f:
        json.dump({"dataset": dataset, "metrics": metrics, "output": dict(output, path=out)}, f)
    proc = subprocess.run([os.environ["MPIEXEC"], "-n", os.environ["NP"], DSANALYZE, "--config",
                           config, "--log-level", "warn", "--progress", "never"],
                          capture_output=True, text=True, check=True)
    return out, proc.stderr


def average_ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and values[order[j]] == values[order[i]]:
            j += 1
        for k in range(i, j):
            ranks[order[k]] = (i + 1 + j) / 2.0
        i = j
    return ranks


def spearman(a, b):
    ra, rb = average_ranks(a), average_ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va, vb = sum((x - ma) ** 2 for x in ra), sum((y - mb) ** 2 for y in rb)
    return None if va == 0 or vb == 0 else cov / math.sqrt(va * vb)


def nearest_rank(sorted_values, p):
    return sorted_values[max(1, math.ceil(p * len(sorted_values) / 100)) - 1]


def spread(values):
    n = len(values)
    mean = sum(values) / n
    m2 = sum((v - mean) ** 2 for v in values) / n
    m3 = sum((v - mean) ** 3 for v in values) / n
    s = sorted(values)
    return math.sqrt(m2), nearest_rank(s, 75) - nearest_rank(s, 25), m3 / m2 ** 1.5 if m2 else 0


def close(a, b, tol=1e-9):
    return (a is None and b is None) or (a is not None and b is not None and
                                         abs(a - b) <= tol * max(1.0, abs(b)))


def document_tokens(prefix):
    """The token ids of each document of PREFIX (written by `dsanalyze generate`)."""
    sizes = read_idx_sizes(prefix)
    data = open(prefix + ".bin", "rb").read()
    width = len(data) // sum(sizes)  # unsigned ids: 2 bytes for a vocabulary < 65,536
    elements, docs = list(struct.unpack("<%d%s" % (sum(sizes), "BH?I???Q"[width - 1]), data)), []
    for size in sizes:
        docs.append(elements[:size])
        elements = elements[size:]
    return docs


def with_preview(sample, value, docs):
    """An extreme as summary.json lists it: with its first 8 token ids and its token count
    for a dataset of tokens (docs), without for one that has none (docs None)."""
    e = {"sample": sample, "value": value}
    if docs is not None:
        e.update(first_tokens=docs[sample][:8], tokens=len(docs[sample]))
    return e


def check_analysis(label, out, names, nan_value, docs=None):
    summary = json.load(open(os.path.join(out, "summary.json")))
    values = {m: read_pair(os.path.join(out, m, m + "_sample_to_metric")) for m in names}
    rho = summary.get("spearman", {})
    for a in names:
        check(sorted(rho.get(a, {})) == sorted(set(names) - {a}), "%s: spearman[%s] has %s"
              % (label, a, sorted(rho.get(a, {}))))
        for b in names:
            if a != b and b in rho.get(a, {}):
                want = spearman(values[a], values[b])
                check(close(rho[a][b], want), "%s: rho %s,%s = %s, want %s" % (label, a, b,
                                                                              rho[a][b], want))
    for m in names:
        e, v = summary["metrics"][m], values[m]
        ids = sorted(range(len(v)), key=lambda i: (v[i], i))
        high = sorted(range(len(v)), key=lambda i: (-v[i], i))
        want = {"lowest": [with_preview(i, v[i], docs) for i in ids[:5]],
                "highest": [with_preview(i, v[i], docs) for i in high[:5]]}
        check(e.get("extremes") == want, "%s: %s extremes %s, want %s" % (label, m,
                                                                           e.get("extremes"), want))
        got = (e.get("std"), e.get("iqr"), e.get("skew"))
        check(all(close(g, w) for g, w in zip(got, spread(v))),
              "%s: %s std/iqr/skew %s, want %s" % (label, m, got, spread(v)))
    if "quality" not in names:
        return summary
    # The descending score: NaN placeholders out of its score statistics.
    q = summary["metrics"]["quality"]["score"]
    scores = sorted(-x / 100.0 for x in values["quality"] if x != nan_value)
    check(q["nan"]["samples"] == len(values["quality"]) - len(scores), "%s: nan %s" % (label, q))
    check(close(q["min"], scores[0]) and close(q["max"], scores[-1]) and
          close(q["mean"], sum(scores) / len(scores)) and
          all(close(q["percentiles"]["p%d" % p], nearest_rank(scores, p)) for p in (0, 10, 50, 100))
          and close(q["std"], spread(scores)[0]), "%s: score block %s" % (label, q))
    return summary


def box_of(out):
    page = open(os.path.join(out, "report.html")).read()
    start = page.find('<section id="summary">')
    check(start != -1 and "<section" not in page[:start], "the summary box is not the first section")
    return page[start:page.find("</section>", start)]


def main():
    work = tempfile.mkdtemp(prefix="spearman_extremes.")
    try:
        prefix = os.path.join(work, "tok")
        subprocess.run([DSANALYZE, "generate", prefix, "--documents", "2000", "--vocab-size", "300",
                        "--max-length", "200"], check=True, capture_output=True)
        with open(os.path.join(work, "q.jsonl"), "w") as f:
            f.writelines('{"score": %s}\n' % ("NaN" if d % 97 == 5 else repr(d * 37 % 50 / 10.0))
                         for d in range(2000))
        with open(os.path.join(work, "flat.jsonl"), "w") as f:
            f.writelines('{"score": 0.5}\n' for _ in range(2000))
        tokens = {"type": "documents", "prefixes": [prefix]}
        score = {"file": os.path.join(work, "q.jsonl"), "per": "document"}
        metrics = [{"name": "seqlen", "metric": "seqlen"},
                   {"name": "vocab_rarity", "metric": "vocab_rarity",
                    "params": {"vocab_size": 300}},
                   {"name": "quality", "metric": "score",
                    "params": dict(score, scale=100, descending=True, nan=-7)},
                   {"name": "flat", "metric": "score",
                    "params": {"file": os.path.join(work, "flat.jsonl"), "per": "document",
                               "scale": 10}}]
        names = [m["name"] for m in metrics]
        docs = document_tokens(prefix)
        whole, log = run(work, "whole", tokens, metrics)
        summary = check_analysis("run", whole, names, -7, docs)
        page = open(os.path.join(whole, "report.html")).read()
        low = summary["metrics"]["seqlen"]["extremes"]["highest"][0]
        check(" ".join(map(str, low["first_tokens"])) + " … (" in page,
              "report.html lacks the longest sample's first token ids %s" % low["first_tokens"])
        # A dataset without tokens: extremes without a preview.
        synthetic, _ = run(work, "synthetic", {"type": "synthetic_mod", "num_samples": 3000,
                                               "modulus": 7},
                           [{"name": "mod", "metric": "value"}, {"name": "mod2",
                                                                  "metric": "value"}])
        check_analysis("synthetic_mod", synthetic, ["mod", "mod2"], None)
        check(summary["spearman"]["seqlen"]["flat"] is None, "a constant metric's rho is not null")
        box = box_of(whole)
        # Logged warnings, and the line printed before logging starts (more ranks than cores).
        warnings = [l.split("[warning] ", 1)[1] for l in log.splitlines() if "[warning] " in l] + \
            [l[len("dsanalyze: warning: "):] for l in log.splitlines()
             if l.startswith("dsanalyze: warning: ")]
        check(warnings, "the run logged no warning: %s" % log)
        for w in warnings:
            check(w.split("; ")[0].replace('"', "&quot;") in box,
                  "log warning not in the summary box: %s" % w)
        for needle in ("%d samples have a NaN score" % summary["metrics"]["quality"]["score"]["nan"]
                       ["samples"], "metric flat is constant",
                       "seqlen and vocab_rarity would give almost the same curriculum"):
            check(needle in box, "not in the summary box: " + needle)
        # A score spanning ~10^7 integers: wider than the run's count tables
        # (pipeline/rank_sums.h), so rank 0 streams the files instead.
        with open(os.path.join(work, "wide.jsonl"), "w") as f:
            f.writelines('{"score": %s}\n' % repr(d * 7919 % 2000 / 2000.0) for d in range(2000))
        wide = [metrics[0], {"name": "wide", "metric": "score",
                             "params": {"file": os.path.join(work, "wide.jsonl"),
                                        "per": "document", "scale": 10 ** 7}}]
        wide_out, _ = run(work, "wide", tokens, wide)
        check_analysis("wide", wide_out, ["seqlen", "wide"], None, docs)
        # The sums ride on the first metric's sample_to_metric write (pipeline/rank_sums.h):
        # in chunks of 8 rows here, through the dense tables' loop; and a score whose
        # 51 values span ~490,000 integers, looked up by binary search.
        chunked, _ = run(work, "chunked", tokens, metrics[:2], chunk_bytes=64)
        check_analysis("chunk_bytes 64", chunked, ["seqlen", "vocab_rarity"], None, docs)
        sparse = [metrics[0], dict(metrics[2], name="sparse",
                                   params=dict(score, scale=10 ** 5, nan=-7))]
        sparse_out, _ = run(work, "sparse", tokens, sparse, chunk_bytes=64)
        check_analysis("sparse", sparse_out, ["seqlen", "sparse"], -7, docs)
        # vocab_rarity of a part counts the part's tokens only: merge refuses it.
        mergeable = [m for m in metrics if m["name"] != "vocab_rarity"]
        names = [m["name"] for m in mergeable]
        parts = [run(work, "part%d" % i, dict(tokens, sample_range=r), mergeable)[0]
                 for i, r in enumerate(([0, 700], [700, 2000]))]
        merged = os.path.join(work, "merged")
        subprocess.run([DSANALYZE, "merge", *parts, "--out", merged], check=True,
                       capture_output=True)
        merged_summary = check_analysis("merge", merged, names, -7)  # no dataset at hand
        whole_rho = {a: {b: r for b, r in row.items() if b in names}
                     for a, row in summary["spearman"].items() if a in names}
        check(merged_summary["spearman"] == whole_rho,
              "the merge's spearman differs from the whole run's")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit(1)
    print("ok: spearman, spread, extremes and scores on %s ranks and merged" % os.environ["NP"])


main()
