#!/usr/bin/env python3
"""`dsanalyze batches`' plan.json, terminal summary and --svg (ctest batching.plan_report.np1).

Each plan is made from a DeepSpeed config and flags, and checked against
what the test works out itself: every parameter's value and where it came
from (flag, "FILE: key.path" or "default"; the analysis from metrics_path
when there is no --analysis; the effective batch size from micro batch x
gradient accumulation x --data-parallel-size), the arrays against the
brute-force reference, the counts, both padding efficiencies, the batch-size
and LR-scale ranges recomputed from the arrays, the warnings (kind, numbers,
fix), the summary lines (the same warnings), the chart's two histograms and
its batch size and LR at each step (read back from the drawn lines); the
LR-scale lint and that its fix bounds the spread; and plans of values near
2^53 whose token total passes 2^63 and 2^64 (huge_values).

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
SECTION = "data_efficiency.data_sampling.dynamic_batching."
ARRAYS = ["microbatch_offsets", "microbatch_sample_ids", "batch_sizes", "batch_max_seqlens",
          "lr_scale"]


def fail(message):
    sys.exit("FAIL: " + message)


def expect(what, got, want):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def run(args):
    r = subprocess.run([DSANALYZE, "batches"] + args, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: rc %d: %s" % (args, r.returncode, r.stderr))
    return r.stdout


def check_parameters(plan, want):
    """`want`: key -> (value, from)."""
    for key, (value, source) in want.items():
        expect("parameters." + key, plan["parameters"][key], {"value": value, "from": source})


def check_numbers(plan, out, seqlens, reference, effective, scaling):
    micro, sizes, longest = reference
    arrays = {name: ref.read_npy(os.path.join(out, name + ".npy")) for name in ARRAYS}
    expect("microbatch_sample_ids", arrays["microbatch_sample_ids"], [i for m in micro for i in m])
    expect("batch_sizes", arrays["batch_sizes"], sizes)
    expect("batch_max_seqlens", arrays["batch_max_seqlens"], longest)
    tokens = sum(seqlens[i] for m in micro for i in m)
    counts = plan["counts"]
    expect("counts", (counts["microbatches"], counts["batches"], counts["tokens"],
                      counts["samples"]),
           (len(micro), len(sizes), tokens, sum(sizes)))
    padded_micro = sum(len(m) * max(seqlens[i] for i in m) for m in micro)
    padded_batch = sum(s * m for s, m in zip(sizes, longest))
    eff = plan["padding_efficiency"]
    if not (math.isclose(eff["microbatch"], tokens / padded_micro, rel_tol=1e-12) and
            math.isclose(eff["batch"], tokens / padded_batch, rel_tol=1e-12)):
        fail("padding_efficiency %r, want %r" % (eff, (tokens / padded_micro,
                                                       tokens / padded_batch)))
    expect("batch_size", plan["batch_size"], {"min": min(sizes), "max": max(sizes)})
    lr = [ref.lr_scale(scaling, s, effective) for s in sizes]
    expect("lr_scale range", plan["lr_scale"], {"min": min(lr), "max": max(lr)})
    return counts


def check_summary(stdout, plan, out, effective):
    lines = stdout.splitlines()
    c = plan["counts"]
    expect("summary line 1", lines[0],
           "batches: wrote %s: %d batches of %d micro-batches, %d of %d samples, %d tokens"
           % (out, c["batches"], effective, c["samples"], c["samples_in"], c["tokens"]))
    warnings = ["warning: %s: %s; fix: %s" % (w["kind"], w["message"], w["fix"])
                for w in plan["warnings"]]
    expect("summary warnings", [x for x in lines if x.startswith("warning: ")], warnings)


def line_values(chart, index, top, hi):
    """The values the index-th polyline (a mean line) of the steps chart draws, one per step:
    its points come in pairs (a step's left and right end) at y = top + H - v / hi * H."""
    lines = [e for e in chart.iter() if e.tag.endswith("polyline")]
    points = [tuple(map(float, p.split(","))) for p in lines[index].get("points").split()]
    height = (520 - 90 - 80 - 50) / 2
    return [(top + height - y) / height * hi for _, y in points[::2]]


def check_steps_chart(chart, sizes, lr):
    """The third chart: batch size and LR at each step, read back from the drawn lines (a
    plan of up to 512 batches gets one column a step)."""
    title = next(e.text for e in chart.iter() if e.tag.endswith("text"))
    expect("steps chart title", title, "over training: %d steps" % len(sizes))
    drawn = line_values(chart, 0, 90, max(sizes))
    if [round(v) for v in drawn] != sizes:
        fail("steps chart batch sizes %r, want %r" % (drawn[:8], sizes[:8]))
    drawn = line_values(chart, 1, 90 + (520 - 90 - 80 - 50) / 2 + 50, max(lr))
    if any(abs(a - b) > max(lr) / 1000 for a, b in zip(drawn, lr)) or len(drawn) != len(lr):
        fail("steps chart LR scales %r, want %r" % (drawn[:8], lr[:8]))


def nearest_rank(values, p):
    ordered = sorted(values)
    return ordered[max(1, -(-p * len(ordered) // 100)) - 1]


def chart_bars(chart):
    """The (first, last, count) of each bar, from its tooltip "first..last: n things"."""
    bars = []
    for rect in (e for e in chart.iter() if e.tag.endswith("rect")):
        tip = next((e.text for e in rect if e.tag.endswith("title")), None)
        if tip is None:
            continue
        span, count = tip.replace(",", "").split(": ")
        first, _, last = span.partition("..")
        bars.append((int(first), int(last or first), int(count.split()[0])))
    return bars


def check_sizes_chart(chart, sizes):
    """The batch-size histogram against the plan's exact batch sizes: every batch in its
    own bar, the p10/p50/p90 marks the exact nearest-rank percentiles, and sizes that span
    a decade or more (DeepSpeed's 8..366) on a log axis, where a linear one crowds them
    into a bar or two."""
    bars = chart_bars(chart)
    for first, last, count in bars:
        expect("batches of %d..%d samples" % (first, last), count,
               sum(1 for s in sizes if first <= s <= last))
    expect("batches in the bars", sum(c for _, _, c in bars), len(sizes))
    texts = [e.text or "" for e in chart.iter() if e.tag.endswith("text")]
    expect("batch sizes chart marks", sorted(t for t in texts if t.startswith("p")),
           sorted("p%d = %s" % (p, format(nearest_rank(sizes, p), ",")) for p in (10, 50, 90)))
    log = any("log scale" in t for t in texts)
    if log != (max(sizes) >= 10 * min(sizes)):
        fail("batch sizes %d..%d drawn on a %s axis" % (min(sizes), max(sizes),
                                                       "log" if log else "linear"))
    return log


def check_tokens_chart(chart, tokens):
    """The tokens-per-micro-batch histogram against the exact tokens of each micro-batch: its
    bars are one binning of equal width (a bar's tooltip "first..last: n micro-batches") that
    counts every micro-batch in its own bar, and its p10/p50/p90 marks are the exact
    nearest-rank percentiles. Binning twice (fixed token bins, then the chart's) moved
    micro-batches into the wrong bars and the marks off the true percentiles."""
    bars = chart_bars(chart)
    widths = {last - first for first, last, _ in bars}
    if len(widths) != 1:
        fail("tokens chart: bars of several widths %r: binned more than once" % sorted(widths))
    for first, last, count in bars:
        expect("micro-batches of %d..%d tokens" % (first, last), count,
               sum(1 for t in tokens if first <= t <= last))
    expect("micro-batches in the bars", sum(c for _, _, c in bars), len(tokens))
    marks = sorted(e.text for e in chart.iter() if e.tag.endswith("text") and
                   (e.text or "").startswith("p"))
    expect("tokens chart marks", marks,
           sorted("p%d = %s" % (p, format(nearest_rank(tokens, p), ",")) for p in (10, 50, 90)))


def check_svg(path, sizes, tokens, lr):
    """`tokens`: the tokens of each micro-batch (padding excluded)."""
    root = ET.parse(path).getroot()
    charts = [c for c in root if c.tag.endswith("svg")]
    titles = [re.sub(r"(?<=\d),(?=\d{3})", "", next(e.text for e in c.iter()
                                                     if e.tag.endswith("text"))) for c in charts]
    want = ["batch sizes: N = %d batches, %d distinct values" % (len(sizes), len(set(sizes))),
            "tokens per micro-batch: N = %d micro-batches, %d distinct values"
            % (len(tokens), len(set(tokens)))]
    if len(titles) != 3 or titles[:2] != want:
        fail("svg charts %r, want %r and the steps chart" % (titles, want))
    log = check_sizes_chart(charts[0], sizes)
    check_tokens_chart(charts[1], tokens)
    check_steps_chart(charts[2], sizes, lr)
    return log


def micro_tokens(reference, seqlens):
    return [sum(seqlens[i] for i in m) for m in reference[0]]


def config_plan(work, analysis, seqlens):
    """Parameters from a config (metrics_path, micro x accumulation x data parallel), a flag
    overriding the config's order, defaults; warnings for too-long samples and a trim."""
    biggest = max(seqlens)
    max_tokens = biggest - 1
    cfg = os.path.join(work, "ds.json")
    json.dump({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2,
               "data_efficiency": {"data_sampling": {"dynamic_batching": {
                   "enabled": True, "metrics_path": analysis, "max_tokens": max_tokens,
                   "max_batch_size": 5, "sequence_picking_order": "seqlen",
                   "lr_scaling_method": "sqrt"}}}}, open(cfg, "w"))
    out = os.path.join(work, "plan")
    svg = os.path.join(work, "plan.svg")
    stdout = run(["--ds-config", cfg, "--data-parallel-size", "3", "--order", "random",
                  "--out", out, "--svg", svg])
    plan = json.load(open(os.path.join(out, "plan.json")))
    expect("analysis", plan["analysis"], analysis)
    expect("dataset_samples", plan["dataset_samples"], len(seqlens))
    check_parameters(plan, {
        "epochs": (1, "default"),
        "max_tokens": (max_tokens, cfg + ": " + SECTION + "max_tokens"),
        "effective_batch_size": (12, cfg + ": train_micro_batch_size_per_gpu x "
                                 "gradient_accumulation_steps x --data-parallel-size"),
        "min_batch_size": (1, "default"), "max_batch_size": (5, cfg + ": " + SECTION +
                                                             "max_batch_size"),
        "sequence_picking_order": ("random", "--order"), "seed": (1234, "default"),
        "lr_scaling_method": ("sqrt", cfg + ": " + SECTION + "lr_scaling_method")})
    reference = ref.plan(seqlens, max_tokens, None, 1, 5, "random", 12, False, 1234)
    counts = check_numbers(plan, out, seqlens, reference, 12, "sqrt")
    too_long = sum(1 for v in seqlens if v > max_tokens)
    kinds = {w["kind"]: w for w in plan["warnings"]}
    expect("warning kinds", sorted(kinds), ["too_long", "trimmed"])
    expect("too_long count", counts["too_long"], too_long)
    if not kinds["too_long"]["message"].startswith("%d samples" % too_long) or \
            kinds["too_long"]["fix"] != "raise max_tokens to %d to keep them" % biggest:
        fail("too_long warning: %r" % kinds["too_long"])
    if "the last %d micro-batches (%d samples)" % (counts["trimmed_microbatches"],
                                                    counts["trimmed_samples"]) \
            not in kinds["trimmed"]["message"]:
        fail("trimmed warning: %r" % kinds["trimmed"])
    check_summary(stdout, plan, out, 12)
    check_svg(svg, reference[1], micro_tokens(reference, seqlens),
              [ref.lr_scale("sqrt", s, 12) for s in reference[1]])


def stopped_plan(work, analysis, seqlens):
    """The config's seed; --analysis over metrics_path; packing stopped by tokens."""
    cfg = os.path.join(work, "ds2.json")
    json.dump({"train_batch_size": 2, "data_efficiency": {"seed": 5, "data_sampling": {
        "dynamic_batching": {"enabled": True, "metrics_path": "/nonexistent",
                             "max_tokens": 400, "min_batch_size": 4}}}}, open(cfg, "w"))
    out = os.path.join(work, "plan2")
    svg = os.path.join(work, "plan2.svg")
    stdout = run(["--ds-config", cfg, "--analysis", analysis, "--out", out, "--svg", svg])
    plan = json.load(open(os.path.join(out, "plan.json")))
    expect("analysis", plan["analysis"], analysis)
    check_parameters(plan, {
        "effective_batch_size": (2, cfg + ": train_batch_size"),
        "min_batch_size": (4, cfg + ": " + SECTION + "min_batch_size"),
        "max_batch_size": (None, "default"), "sequence_picking_order": ("dataloader", "default"),
        "seed": (5, cfg + ": data_efficiency.seed"), "lr_scaling_method": ("linear", "default")})
    reference = ref.plan(seqlens, 400, None, 4, None, "dataloader", 2, False, 5)
    counts = check_numbers(plan, out, seqlens, reference, 2, "linear")
    left = counts["left_where_packing_stopped"]
    want = "packing stopped at sample position %d: %d samples (%.1f%% of the data)" % (
        counts["packing_stopped_at"], left, 100.0 * left / len(seqlens))
    stopped = [w for w in plan["warnings"] if w["kind"] == "packing_stopped"]
    if len(stopped) != 1 or not stopped[0]["message"].startswith(want) or \
            stopped[0]["fix"] != "raise max_tokens or lower min_batch_size":
        fail("packing_stopped warning: %r, want it to start %r" % (stopped, want))
    check_summary(stdout, plan, out, 2)
    check_svg(svg, reference[1], micro_tokens(reference, seqlens),
              [ref.lr_scale("linear", s, 2) for s in reference[1]])


def largest_budget(work, analysis, seqlens):
    """max_tokens up to 2^63 - 1 (the flag's range): every sample fits one micro-batch."""
    largest = 2 ** 63 - 1
    out = os.path.join(work, "plan3")
    svg = os.path.join(work, "plan3.svg")
    stdout = run(["--analysis", analysis, "--max-tokens", str(largest),
                  "--effective-batch-size", "1", "--out", out, "--svg", svg])
    plan = json.load(open(os.path.join(out, "plan.json")))
    reference = ref.plan(seqlens, largest, effective=1)
    check_numbers(plan, out, seqlens, reference, 1, "linear")
    expect("max_tokens", plan["parameters"]["max_tokens"]["value"], largest)
    check_summary(stdout, plan, out, 1)
    check_svg(svg, reference[1], micro_tokens(reference, seqlens), reference[1])


def lint_analysis(work):
    """700 one-token documents and 100 of 140..150 tokens: under the seqlen order the first
    batches hold hundreds of samples, the last ones a few."""
    prefixes = []
    for name, count, low, high in (("short", 700, 1, 1), ("long", 100, 140, 150)):
        prefixes.append(os.path.join(work, name))
        subprocess.run([DSANALYZE, "generate", prefixes[-1], "--documents", str(count),
                        "--vocab-size", "50", "--min-length", str(low), "--max-length",
                        str(high), "--seed", "5"], check=True, stdout=subprocess.DEVNULL)
    analysis = cli_check.run_analysis(work, "lint_an", {"type": "documents",
                                                         "prefixes": prefixes},
                                      [{"name": "seqlen", "metric": "seqlen"}])
    return analysis, ref.read_pair(os.path.join(analysis, "seqlen", "seqlen_sample_to_metric"))


def lr_lint(work):
    """The LR-scale lint: a warning exactly when the largest LR scale is more than 10 times the
    smallest, whose fix (max_batch_size floor(10 S / E) linear, floor(100 S / E) sqrt, S the
    smallest batch) planned again caps the LR scale at 10 times the first plan's smallest."""
    analysis, seqlens = lint_analysis(work)
    for scaling, min_size, factor in (("linear", 1, 10), ("sqrt", 1, 100), ("linear", 2, 10)):
        args = ["--analysis", analysis, "--max-tokens", "300", "--effective-batch-size", "2",
                "--order", "seqlen", "--lr-scaling", scaling, "--min-batch-size", str(min_size)]
        out = os.path.join(work, "lint")
        stdout = run(args + ["--out", out])
        plan = json.load(open(os.path.join(out, "plan.json")))
        micro, sizes, _ = ref.plan(seqlens, 300, None, min_size, None, "seqlen", 2)
        lr = [ref.lr_scale(scaling, s, 2) for s in sizes]
        if max(lr) <= 10 * min(lr):
            fail("%s: the lint case has LR x%g to x%g: no spread to lint" % (scaling, min(lr),
                                                                           max(lr)))
        bound = factor * min(sizes) // 2
        lint = [w for w in plan["warnings"] if w["kind"] == "lr_scale"]
        want = ("the LR scale spans x%.4g to x%.4g (%s scaling, batches of %d to %d samples): "
                "the largest batches train at %.4g times the learning rate of the smallest"
                % (min(lr), max(lr), scaling, min(sizes), max(sizes), max(lr) / min(lr)))
        want_fix = ("max_batch_size %d (--max-batch-size %d) caps a batch at %d samples and the "
                    "LR scale at x%.4g, 10 times this plan's smallest"
                    % (bound, bound, 2 * bound, ref.lr_scale(scaling, 2 * bound, 2)))
        if len(lint) != 1 or not lint[0]["message"].startswith(want) or \
                lint[0]["fix"] != want_fix:
            fail("lr_scale warning %r, want %r and fix %r" % (lint, want, want_fix))
        check_summary(stdout, plan, out, 2)
        if scaling == "linear" and min_size == 1:  # batches of a few to hundreds of samples
            svg = os.path.join(work, "lint.svg")
            run(args + ["--out", out + "-svg", "--svg", svg])
            if not check_svg(svg, sizes, micro_tokens((micro, sizes), seqlens), lr):
                fail("the lint plan's batch sizes %d..%d are not on a log axis"
                     % (min(sizes), max(sizes)))
        run(args + ["--max-batch-size", str(bound), "--out", out])
        fixed = json.load(open(os.path.join(out, "plan.json")))
        if fixed["lr_scale"]["max"] > 10 * min(lr) * (1 + 1e-12):
            fail("%s: the fix left LR x%r, want at most x%g" % (scaling, fixed["lr_scale"],
                                                              10 * min(lr)))


def huge_values(work):
    """Values near 2^53: the token total passes int64 (2^63) and uint64 (2^64) and stays exact
    (an int64 total wrapped to "-4944952390852804608 tokens" and efficiency -36.6%); plan.json
    holds it as an integer up to 2^64 - 1, past that the nearest double."""
    n = 2200
    values = [2 ** 53 - i for i in range(n)]
    scores = os.path.join(work, "huge.npy")
    ref.write_npy(scores, [float(v) for v in values], "<f8", "d")
    analysis = cli_check.run_analysis(
        work, "huge", {"type": "synthetic_mod", "num_samples": n, "modulus": 7},
        [{"name": "s", "metric": "score", "params": {"file": scores, "per": "sample",
                                                      "scale": 1}}])
    ids = os.path.join(work, "first.npy")
    ref.write_npy(ids, list(range(1500)))
    for extra, past in (([], 2 ** 64), (["--sample-ids", ids], 2 ** 63)):
        out = os.path.join(work, "huge_plan%d" % len(extra))
        stdout = run(["--analysis", analysis, "--metric", "s", "--max-tokens", str(2 ** 63 - 1),
                      "--effective-batch-size", "1", "--out", out] + extra)
        plan = json.load(open(os.path.join(out, "plan.json")))
        c = plan["counts"]
        total = sum(values[:c["samples"]])  # the dataloader order plans a prefix
        if total <= past:
            fail("the case does not pass %d: %d" % (past, total))
        expect("tokens in plan.json", c["tokens"], total if total < 2 ** 64 else float(total))
        expect("summary line 1", stdout.splitlines()[0].split(", ")[-1], "%d tokens" % total)
        for kind, e in plan["padding_efficiency"].items():
            if not 0.99 < e <= 1.0:
                fail("padding efficiency per %s: %r" % (kind, e))
        print("ok: %d tokens (past %d) exact" % (total, past))


def main():
    with tempfile.TemporaryDirectory(prefix="batches_report_") as work:
        prefix = os.path.join(work, "docs")
        subprocess.run([DSANALYZE, "generate", prefix, "--documents", "400", "--vocab-size",
                        "500", "--min-length", "1", "--max-length", "150", "--seed", "11"],
                       check=True, stdout=subprocess.DEVNULL)
        analysis = cli_check.run_analysis(work, "an", {"type": "documents",
                                                       "prefixes": [prefix]},
                                          [{"name": "seqlen", "metric": "seqlen"}])
        seqlens = ref.read_pair(os.path.join(analysis, "seqlen", "seqlen_sample_to_metric"))
        config_plan(work, analysis, seqlens)
        stopped_plan(work, analysis, seqlens)
        largest_budget(work, analysis, seqlens)
        lr_lint(work)
        huge_values(work)
    print("plan report: parameters, counts, efficiency, ranges, warnings, summary and chart")


main()
