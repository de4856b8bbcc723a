#!/usr/bin/env python3
"""The `batches --html`, `curriculum --html` and `compare --html` pages read
by a person (ctest page.view_pages): in headless chromium at 1280 and 390 px
(tests/support/headless_chromium.py) and by tidy.

Each page:
  - opens with its summary box (the first section, #summary);
  - has in that box every warning the command's machine-readable output holds
    (plan.json's warnings; the curriculum --json groups, message and fix; the
    placeholder total_curriculum_step) and, for compare of two datasets, the
    sentence saying so and a descending score's mean and median in scores;
  - writes numbers for people: no number with a fraction has more than 4
    significant digits, every integer of 5 digits or more has thousands
    separators, and no `null` or plan.json key path shows;
  - has no text smaller than 10 px at 390 px (chart text: its font size
    times the chart's scale);
  - gets no warning from tidy.
The inputs are small: 3,000 and 2,000 generated documents.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402
import headless_chromium  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
failures = []

# Evaluated in the page: the first section's id, the summary box's text, the
# visible text, and the smallest rendered font size (px) with its text.
READ = """(() => {
  const first = document.querySelector('body > section');
  const summary = document.getElementById('summary');
  let smallest = {px: 1e9, text: ''};
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim());
    if (!own.length || !el.getClientRects().length) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {  // times the chart's scale (rotated text too)
      const m = el.getScreenCTM();
      px *= Math.hypot(m.a, m.b);
    }
    if (px < smallest.px) smallest = {px: px, text: own[0].textContent.trim().slice(0, 60)};
  }
  return {first: first ? first.id : null, summary: summary ? summary.textContent : '',
          text: document.body.innerText + ' ' +
                [...document.querySelectorAll('svg text')].map(t => t.textContent).join(' '),
          smallest: smallest};
})()"""


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def cli(*args, expect=(0,)):
    proc = subprocess.run([DSANALYZE] + [str(a) for a in args], capture_output=True, text=True)
    if proc.returncode not in expect:
        fail("%s: exit %d: %s" % (" ".join(map(str, args[:2])), proc.returncode, proc.stderr))
    return proc


def scores_of(documents, step):
    """Per document a score in thousandths (exact at scale 1000), under step / 1000."""
    return [(d * 7919 % step) / 1000.0 for d in range(documents)]


def analysis(work, name, documents, length, seed, step):
    """seqlen and a descending score at scale 1000 (its files hold -1000 x score)."""
    prefix = os.path.join(work, name + "_tokens")
    cli("generate", prefix, "--documents", documents, "--vocab-size", 500, "--max-length", length,
        "--seed", seed)
    scores = os.path.join(work, name + "_scores.jsonl")
    with open(scores, "w") as f:
        f.writelines('{"score": %r}\n' % s for s in scores_of(documents, step))
    return cli_check.run_analysis(work, name, {"type": "documents", "prefixes": [prefix]}, [
        {"name": "seqlen", "metric": "seqlen"},
        {"name": "quality", "metric": "score",
         "params": {"file": scores, "per": "document", "scale": 1000, "descending": True}}],
        output={"curriculum_metric": "seqlen"})


def make_pages(work):
    """{name: (page, the texts its summary box must hold)}."""
    a, b = analysis(work, "a", 3000, 300, 1, 1000), analysis(work, "b", 2000, 400, 2, 800)
    pages = {name: os.path.join(work, name + ".html") for name in ("batches", "curriculum",
                                                                    "compare")}
    cli("batches", "--analysis", a, "--metric", "seqlen", "--out", os.path.join(work, "plan"), "--max-tokens", 250,
        "--effective-batch-size", 4, "--html", pages["batches"])
    with open(os.path.join(work, "plan", "plan.json")) as f:
        plan = json.load(f)
    if not any(w["kind"] == "too_long" for w in plan["warnings"]):
        fail("the batches case drops no sample: %r" % plan["warnings"])
    report = os.path.join(work, "curriculum.json")
    cli("curriculum", "--analysis", a, "--global-batch-size", 256, "--train-steps", 3000,
        "--json", report, "--html", pages["curriculum"], expect=(0, 1))
    with open(report) as f:
        groups = json.load(f)["groups"]
    cli("compare", a, b, "--html", pages["compare"], expect=(1,))
    return {
        "batches": (pages["batches"], [w[k] for w in plan["warnings"] for k in ("message",
                                                                                "fix")]),
        "curriculum": (pages["curriculum"],
                       [g[k] for g in groups for k in ("message", "fix")] +
                       ["total_curriculum_step is 110,000"]),
        # The score row in scores (not the files' -1000 x score): mean and median.
        "compare": (pages["compare"], ["A and B are analyses of different datasets",
                                       "quality (score)"] + [
            "%.4g → %.4g" % (f(scores_of(3000, 1000)), f(scores_of(2000, 800)))
            for f in (lambda v: sum(v) / len(v), lambda v: sorted(v)[(len(v) + 1) // 2 - 1])]),
    }


def significant_digits(number):
    digits = number.replace(",", "").replace(".", "").lstrip("0")
    return len(digits)


def check_numbers(name, text):
    # Numbers standing alone: not part of a word, a path or a version.
    for m in re.finditer(r"(?<![\w./\-])\d[\d,]*(?:\.\d+)?(?![\w/])", text):
        number = m.group(0).rstrip(",")
        if "." in number and significant_digits(number) > 4:
            fail("%s: %r has more than 4 significant digits: ...%s..." %
                 (name, number, text[max(0, m.start() - 40):m.end() + 10]))
        if "." not in number and "," not in number and len(number) >= 5:
            fail("%s: %r has no thousands separators: ...%s..." %
                 (name, number, text[max(0, m.start() - 40):m.end() + 10]))
    for raw in ("null", "counts.", "padding_efficiency.", "lr_scale.min"):
        if re.search(r"(?<![\w.])" + re.escape(raw), text):
            fail("%s: %r shows on the page" % (name, raw))


def check_page(name, width, read, wanted):
    if read["first"] != "summary":
        fail("%s at %d px: the first section is %r, not the summary" % (name, width,
                                                                         read["first"]))
    for text in wanted:
        if text not in read["summary"]:
            fail("%s: the summary box lacks %r" % (name, text))
    if width == 390 and read["smallest"]["px"] < 10:
        fail("%s at 390 px: text of %.1f px: %r" % (name, read["smallest"]["px"],
                                                     read["smallest"]["text"]))
    if width == 1280:
        check_numbers(name, read["text"])


def main():
    work = tempfile.mkdtemp(prefix="view_pages.")
    try:
        pages = make_pages(work)
        with headless_chromium.Browser(work) as browser:
            for name, (path, wanted) in pages.items():
                tidy = subprocess.run(["tidy", "-e", "-q", path], capture_output=True, text=True)
                if tidy.stderr.strip():
                    fail("%s: tidy: %s" % (name, tidy.stderr))
                for width in (1280, 390):
                    page = browser.load("file://" + path, width)
                    for e in page["errors"]:
                        fail("%s at %d px: %s" % (name, width, e))
                    read = browser.call("Runtime.evaluate", expression=READ,
                                        returnByValue=True)["result"]["value"]
                    check_page(name, width, read, wanted)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit(1)
    print("ok: batches, curriculum and compare pages: summary first, numbers, 390 px, tidy")


main()
