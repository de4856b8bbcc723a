#!/usr/bin/env python3
"""Every HTML page dsanalyze writes, checked in a real browser (Debian's
headless chromium over its DevTools protocol: one launch for all pages) and
by Debian's tidy.

Pages: report.html of a demo run, of a 4-metric run with scores and a
vocabulary metric (its save path and token files named `<script>`), of a
merge, and of 100 metrics; `curriculum --html`, `batches --html`,
`compare --html`. Each page, at 1280 and 390 px wide:
  - loads without a console error, an exception or a failed resource, fetches
    nothing and holds no script;
  - has every chart (svg) non-empty (a box and drawn shapes) and inside the
    page width, and nothing wider than the page;
  - has a screenshot that is not blank.
The run pages' DOM holds every number of their summary.json (read from the
file, as page/numbers.h writes it), opens with the summary box holding every
warning, has no label of more than 4 significant digits but whole numbers,
and no text under 10 px at 390 px; tidy gives them no warning (the other
pages: no error); text from paths renders as text; 100 metrics stay under 2 MB. Bad --html paths are one error line, exit 2, nothing written.
With DOCS_IMAGES=DIR the 1280 px screenshots are saved there (docs/images/).
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402
import headless_chromium  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
# The report.html pages: also held to tidy's warnings, 10 px text at 390 px
# and labels of at most 4 significant digits.
RUN_PAGES = ("run", "scores-vocab", "merge", "100-metrics")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def cli(*args, expect=(0,)):
    proc = subprocess.run([DSANALYZE] + [str(a) for a in args], capture_output=True, text=True)
    if proc.returncode not in expect:
        fail("%s: exit %d: %s" % (" ".join(map(str, args[:2])), proc.returncode, proc.stderr))
    return proc


def make_inputs(work):
    """The analyses and pages to check: {name: html path}, and the summaries."""
    demo_set = {"type": "synthetic_mod", "num_samples": 100000}
    demo = cli_check.run_analysis(work, "demo", demo_set, [{"name": "mod", "metric": "value"},
                                                           {"name": "batch_sum", "metric": "sum"}])
    other = cli_check.run_analysis(work, "other", dict(demo_set, num_samples=60000),
                                   [{"name": "mod", "metric": "value"}])
    prefix = os.path.join(work, "data", "<script>tok")
    cli("generate", prefix, "--documents", 3000, "--vocab-size", 500, "--max-length", 300)
    with open(os.path.join(work, "q.jsonl"), "w") as f:
        f.writelines('{"score": %s}\n' % ("NaN" if d % 700 == 3 else repr((d * 7919 % 1000) / 997.0))
                     for d in range(3000))
    tokens = {"type": "documents", "prefixes": [prefix]}
    score = {"file": os.path.join(work, "q.jsonl"), "per": "document"}
    vocab = cli_check.run_analysis(work, "<script>", tokens, [
        {"name": "seqlen", "metric": "seqlen"},
        {"name": "total_vocab_freq", "metric": "total_vocab_freq", "params": {"vocab_size": 500}},
        {"name": "quality", "metric": "score", "params": dict(score, scale=1000, nan=-1)},
        {"name": "quality_bins", "metric": "score",
         "params": dict(score, bins=10, descending=True, nan=-1)}])
    parts = [cli_check.run_analysis(work, "part%d" % i, dict(tokens, sample_range=r), [
        {"name": "seqlen", "metric": "seqlen"},
        {"name": "total_vocab_freq", "metric": "total_vocab_freq", "params": {"vocab_size": 500}}])
        for i, r in enumerate(([0, 1000], [1000, 3000]))]
    merged = os.path.join(work, "merged")
    cli("merge", *parts, "--out", merged)
    many = cli_check.run_analysis(work, "many", dict(demo_set, num_samples=5000),
                                  [{"name": "m%03d" % i, "metric": "value"} for i in range(100)])
    pages = {name: os.path.join(path, "report.html") for name, path in
             (("run", demo), ("scores-vocab", vocab), ("merge", merged), ("100-metrics", many))}
    pages["curriculum"] = os.path.join(work, "curriculum.html")
    cli("curriculum", "--analysis", demo, "--global-batch-size", 512, "--train-steps", 3000,
        "--html", pages["curriculum"], expect=(0, 1))
    pages["batches"] = os.path.join(work, "batches.html")
    cli("batches", "--analysis", vocab, "--out", os.path.join(work, "plan"), "--max-tokens", 2048,
        "--effective-batch-size", 4, "--html", pages["batches"])
    pages["compare"] = os.path.join(work, "compare.html")
    cli("compare", demo, other, "--html", pages["compare"], expect=(1,))
    summaries = {name: os.path.join(os.path.dirname(pages[name]), "summary.json")
                 for name in ("run", "scores-vocab", "merge")}
    return pages, summaries


def numbers_of(value, out):
    """Every number in a JSON value (not booleans)."""
    if isinstance(value, dict):
        for v in value.values():
            numbers_of(v, out)
    elif isinstance(value, list):
        for v in value:
            numbers_of(v, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out.add(float(value))
    return out


def visible_text(dom):
    """The page's text as people read it: no markup, no style, no config dump."""
    dom = re.sub(r"<(style|pre|title)\b.*?</\1>", " ", dom, flags=re.S)
    return html.unescape(re.sub(r"<[^>]*>", " ", dom))


def shown_numbers(text):
    """The numbers in `text`, thousands separators read as such."""
    return {float(t.replace(",", "")) for t in
            re.findall(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)}


def check_summary_numbers(name, dom, summary_path):
    """Every number of summary.json is on the page as numbers.h writes it:
    integers exactly, others to 4 significant digits; byte counts and seconds
    are shown in their units (MiB, s) and not compared."""
    with open(summary_path) as f:
        summary = json.load(f)
    for key in ("peak_rss_bytes", "peak_anon_bytes", "timings", "memory"):
        summary.pop(key, None)
    shown = shown_numbers(html.unescape(re.sub(r"<[^>]*>", " ", dom)))
    missing = []
    for x in sorted(numbers_of(summary, set())):
        want = x if x == int(x) and abs(x) < 1e15 else float("%.4g" % x)
        if want not in shown and not (abs(x) >= 1000 and float(round(x)) in shown):
            missing.append(x)
    if missing:
        fail("%s: summary.json numbers not on the page: %s" % (name, missing[:10]))


def check_labels(name, dom):
    """No number a person reads has more than 4 significant digits unless it
    is a whole number (an exact count, id or value)."""
    long = [t for t in re.findall(r"\d[\d,]*\.\d+", visible_text(dom))
            if len(t.replace(",", "").replace(".", "").lstrip("0")) > 4]
    if long:
        fail("%s: numbers with more than 4 significant digits: %s" % (name, long[:10]))


def check_summary_box(name, dom, summary_path):
    """The summary box is the page's first section and holds every warning:
    the run's (placeholder curriculum step, parts merge refuses) and NaN scores."""
    first = re.search(r"<section id=\"([^\"]*)\"", dom)
    if not first or first.group(1) != "summary":
        fail("%s: the first section is %s, not the summary box" % (name, first and first.group(1)))
        return
    box = visible_text(dom[first.start():dom.find("</section>", first.start())])
    with open(summary_path) as f:
        summary = json.load(f)
    wanted = []
    if os.path.exists(os.path.join(os.path.dirname(summary_path), "curriculum_config.json")) and \
            summary["config"]["output"].get("total_curriculum_step", 0) == 0:
        wanted.append("total_curriculum_step is a placeholder")
    for metric, e in summary["metrics"].items():
        if "not_mergeable" in e:
            wanted.append(e["not_mergeable"])
        nan = e.get("score", {}).get("nan", {}).get("samples", 0)
        if nan:
            wanted.append("%s: %d samples have a NaN score" % (metric, nan))
    for w in wanted:
        if w not in box:
            fail("%s: the summary box lacks the warning: %s" % (name, w))


def blank(png):
    width, height, bpp, rows = headless_chromium.png_pixels(png)
    inked = sum(1 for row in rows for i in range(0, len(row), bpp) if min(row[i:i + 3]) < 200)
    return inked < 0.005 * width * height


def check_layout(name, width, page):
    m = page["measure"]
    for e in page["errors"]:
        fail("%s at %d px: %s" % (name, width, e))
    if m["resources"] or m["scripts"]:
        fail("%s: fetched %s, %d script element(s)" % (name, m["resources"], m["scripts"]))
    if m["scroll_width"] > m["width"]:
        fail("%s at %d px: content %d px wide" % (name, width, m["scroll_width"]))
    shown = [s for s in m["svgs"] if not s["folded"]]
    if not shown:
        fail("%s: no chart" % name)
    for i, s in enumerate(shown):
        if s["width"] < 50 or s["height"] < 50 or s["shapes"] < 3:
            fail("%s at %d px: chart %d is empty: %s" % (name, width, i, s))
        if s["left"] < 0 or s["right"] > m["width"] + 0.5:
            fail("%s at %d px: chart %d outside the page: %s" % (name, width, i, s))
    if width == 390 and name in RUN_PAGES and m["smallest"]["px"] < 10:
        fail("%s at 390 px: text of %.1f px: %s" % (name, m["smallest"]["px"], m["smallest"]))
    if blank(page["thumb"]):
        fail("%s at %d px: the screenshot is blank" % (name, width))


def check_tidy(name, path, warnings_too):
    proc = subprocess.run(["tidy", "-e", "-q", path], capture_output=True, text=True)
    if proc.returncode >= 2 or "Error:" in proc.stderr or (warnings_too and proc.stderr.strip()):
        fail("%s: tidy: %s" % (name, proc.stderr))


def check_pages(work, pages, summaries):
    docs = os.environ.get("DOCS_IMAGES")
    with headless_chromium.Browser(work) as browser:
        for name, path in pages.items():
            check_tidy(name, path, name in RUN_PAGES)
            for width in (1280, 390):
                page = browser.load("file://" + path, width, shot_scale=0.5 if docs else None)
                check_layout(name, width, page)
                if width == 1280 and name in summaries:
                    check_summary_numbers(name, page["dom"], summaries[name])
                    check_summary_box(name, page["dom"], summaries[name])
                if width == 1280 and name in RUN_PAGES:
                    check_labels(name, page["dom"])
                if width == 1280 and name == "scores-vocab" and (
                        "&lt;script&gt;" not in page["dom"] or "<script" in page["dom"]):
                    fail("scores-vocab: the path <script> is not rendered as text")
                if docs and width == 1280 and name != "100-metrics":
                    with open(os.path.join(docs, "report-%s.png" % name), "wb") as f:
                        f.write(page["png"])
    if os.path.getsize(pages["100-metrics"]) >= 2 << 20:
        fail("100 metrics: report.html is %d bytes" % os.path.getsize(pages["100-metrics"]))


def check_bad_paths(work, pages):
    demo = os.path.dirname(pages["run"])
    bad = os.path.join(work, "no-such-folder", "x.html")
    for args in (["curriculum", "--analysis", demo, "--global-batch-size", "8", "--html", bad],
                 ["batches", "--analysis", demo, "--metric", "mod", "--out",
                  os.path.join(work, "plan2"), "--max-tokens", "100", "--effective-batch-size",
                  "2", "--html", bad],
                 ["compare", demo, demo, "--html", bad]):
        proc = subprocess.run([DSANALYZE] + args, capture_output=True, text=True)
        for p in cli_check.error_line_problems(proc, ["no-such-folder"]):
            fail("%s --html into a missing folder: %s" % (args[0], p))
    if os.path.exists(os.path.join(work, "plan2")):
        fail("batches with a bad --html wrote its --out")


def main():
    work = tempfile.mkdtemp(prefix="html_pages.")
    try:
        pages, summaries = make_inputs(work)
        if not failures:
            start = time.monotonic()
            check_pages(work, pages, summaries)
            print("browser and tidy checks: %.1f s; 100 metrics: report.html of %d bytes" %
                  (time.monotonic() - start, os.path.getsize(pages["100-metrics"])))
            check_bad_paths(work, pages)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit(1)
    print("ok: 7 pages at 1280 and 390 px")


main()
