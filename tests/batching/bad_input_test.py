#!/usr/bin/env python3
"""`dsanalyze batches` on bad input (ctest batching.bad_input.np1).

Each case runs one `dsanalyze batches` command that must be refused: exit code
2, stderr exactly one line "dsanalyze: error: ..." holding the case's
substrings, nothing on stdout, and nothing written: no --out (or the previous
plan there unchanged) and no staging folder beside it. The DeepSpeed config
cases cover what DeepSpeed's hjson.load and int()/bool() take differently
from JSON (hjson_cases), the flag cases options that contradict each other
or a chart the commit would delete.

Environment: NP, MPIEXEC, DSANALYZE.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

MPIEXEC = os.environ["MPIEXEC"]
DSANALYZE = os.environ["DSANALYZE"]
FLAGS = ["--metric", "mod", "--max-tokens", "20", "--effective-batch-size", "2"]


def analyse(work, name, samples, dataset_extra=None, files=None):
    dataset = {"type": "synthetic_mod", "num_samples": samples, "modulus": 7}
    dataset.update(dataset_extra or {})
    return cli_check.run_analysis(
        work, name, dataset,
        [{"name": "mod", "metric": "value"}, {"name": "total", "metric": "sum"}],
        {"files": files} if files else None)


def snapshot(folder):
    if not os.path.isdir(folder):
        return None
    return {n: open(os.path.join(folder, n), "rb").read() for n in sorted(os.listdir(folder))}


def refused(name, args, out, substrings):
    before = snapshot(out)
    r = subprocess.run([DSANALYZE, "batches"] + args + ["--out", out], capture_output=True,
                       text=True)
    lines = r.stderr.splitlines()
    problems = cli_check.error_line_problems(r, substrings)
    if snapshot(out) != before:
        problems.append(out + " was written or changed")
    parent = os.path.dirname(out)
    if os.path.isdir(parent) and any(".staging-" in e for e in os.listdir(parent)):
        problems.append("a staging folder was left")
    if problems:
        sys.exit("FAIL: %s: %s (stderr: %r)" % (name, "; ".join(problems), r.stderr))
    print("ok: %s: %s" % (name, lines[0]))


def write_two_values_a_row(prefix, rows):
    """A DeepSpeed pair of `rows` rows of two uint8 values each."""
    with open(prefix + ".bin", "wb") as f:
        f.write(bytes([1, 2] * rows))
    with open(prefix + ".idx", "wb") as f:
        f.write(b"MMIDIDX\x00\x00" + struct.pack("<QBQQ", 1, 1, rows, 2))
        f.write(struct.pack("<%di" % rows, *([2] * rows)))
        f.write(struct.pack("<%dq" % rows, *[2 * r for r in range(rows)]))
        f.write(struct.pack("<2q", 0, rows))


def config(work, name, doc):
    path = os.path.join(work, name + ".ds.json")
    json.dump(doc, open(path, "w"))
    return path


def config_text(work, name, text):
    path = os.path.join(work, name + ".ds.json")
    with open(path, "w") as f:
        f.write(text)
    return path


# A config with one dynamic_batching entry written as `entry` (raw text), on
# line 4 of the file.
SECTION_TEXT = """{
  "train_batch_size": 2,
  "data_efficiency": {"data_sampling": {"dynamic_batching": {"enabled": true,
    %s
  }}}
}
"""


def hjson_cases(work, good, out):
    """DeepSpeed reads the config with hjson.load and refuses duplicate keys."""
    def text(name, entry):
        return ["--analysis", good, "--ds-config", config_text(work, name, SECTION_TEXT % entry)]

    refused("duplicate key", text("dup", '"max_tokens": 20,\n    "max_tokens": 30'), out,
            ["dup.ds.json: line 5: duplicate key \"max_tokens\" (first at line 4)",
             "DeepSpeed refuses"])
    refused("quoteless key (hjson)", text("quoteless", "max_tokens: 20"), out,
            ["quoteless.ds.json: line 4, column 5: at \"max_tokens: 2",
             "hjson syntax dsanalyze does not read"])
    refused("quoteless value (hjson)", text("value", '"max_tokens": 20, "lr_scaling_method": sqrt'),
            out, ["value.ds.json: line 4, column 44: at \"sqrt", "hjson syntax"])
    refused("trailing comma (hjson)", text("trailing", '"max_tokens": 20,'), out,
            ["trailing.ds.json: line 5, column 3: at \"}}}", "hjson syntax"])
    refused("unclosed comment", text("comment", '"max_tokens": 20 /* to do'), out,
            ["comment.ds.json: line 4, column 22: a /* comment that is never closed"])
    refused("misspelt dynamic_batching key", text("typo", '"max_tokens": 20, "min_batchsize": 2'),
            out, ['dynamic_batching: unknown key "min_batchsize" (did you mean "min_batch_size"?)'])
    refused("enabled as a string", ["--analysis", good, "--ds-config", config(work, "enabled", {
            "train_batch_size": 2, "data_efficiency": {"data_sampling": {
                "dynamic_batching": {"enabled": "false", "max_tokens": 20}}}})], out,
            ["dynamic_batching.enabled: expected true or false, got \"false\"",
             "DeepSpeed takes any non-empty string as true"])
    refused("max_tokens int() refuses", text("4k", '"max_tokens": "4k"'), out,
            ['dynamic_batching.max_tokens: expected an integer, got "4k"', "int()"])
    refused("max_tokens past int64", text("huge", '"max_tokens": "99999999999999999999"'), out,
            ["dynamic_batching.max_tokens: is out of the 64-bit integer range"])
    refused("max_tokens null", text("null", '"max_tokens": null'), out,
            ["dynamic_batching.max_tokens: expected an integer, got null"])
    refused("seed as a string", ["--analysis", good, "--ds-config", config(work, "seed", {
            "train_batch_size": 2, "data_efficiency": {"seed": "1234", "data_sampling": {
                "dynamic_batching": {"enabled": True, "max_tokens": 20}}}})], out,
            ['data_efficiency.seed: expected an integer, got "1234"', "random.Random"])
    refused("train_batch_size auto", ["--analysis", good, "--ds-config", config(work, "auto", {
            "train_batch_size": "auto", "data_efficiency": {"data_sampling": {
                "dynamic_batching": {"enabled": True, "max_tokens": 20}}}})], out,
            ['auto.ds.json sets train_batch_size to "auto"', "Hugging Face Trainer",
             "give --effective-batch-size"])


def flag_cases(work, good, out):
    """Flags that contradict each other, and charts --out would delete."""
    refused("--data-parallel-size with --effective-batch-size",
            ["--analysis", good, "--data-parallel-size", "2"] + FLAGS, out,
            ["--effective-batch-size cannot be given with --data-parallel-size"])
    refused("--max-tokens past int64", ["--analysis", good, "--metric", "mod", "--max-tokens",
            "99999999999999999999", "--effective-batch-size", "2"], out,
            ['--max-tokens: expected an integer from -9223372036854775808 to '
             '9223372036854775807, got "99999999999999999999"'])
    for page in ("--svg", "--html"):
        refused("%s inside --out" % page, ["--analysis", good, page,
                os.path.join(out, "chart.svg")] + FLAGS, out,
                [page + " " + os.path.join(out, "chart.svg") + ": is inside --out " + out,
                 "deleted with the previous plan"])
        refused("%s is --out" % page, ["--analysis", good, page, out] + FLAGS, out,
                [page + " " + out + ": is --out"])
        fresh = os.path.join(work, "fresh")  # not there yet: the chart was written, then swapped out
        refused("%s is a new --out" % page, ["--analysis", good, page, fresh] + FLAGS, fresh,
                [page + " " + fresh + ": is --out"])
    page = os.path.join(work, "page.svg")
    refused("--svg and --html one file", ["--analysis", good, "--svg", page, "--html", page] +
            FLAGS, out, ["--html " + page + ": is also --svg"])


def config_cases(work, good, out):
    section = {"enabled": True, "max_tokens": 20}

    def with_section(**keys):
        return {"train_batch_size": 2, "data_efficiency": {"data_sampling": {
            "dynamic_batching": dict(section, **keys)}}}

    refused("no section and no flags", ["--analysis", good, "--ds-config",
            config(work, "none", {"train_batch_size": 4})], out,
            ["none.ds.json: has no data_efficiency.data_sampling.dynamic_batching section",
             "--max-tokens"])
    refused("no config and no flags", ["--analysis", good], out,
            ["no max_tokens", "--max-tokens"])
    refused("max_tokens 0", ["--analysis", good, "--max-tokens", "0",
                             "--effective-batch-size", "2"], out,
            ["--max-tokens: must be at least 1, got 0"])
    refused("max_tokens negative in the config", ["--analysis", good, "--ds-config",
            config(work, "neg", with_section(max_tokens=-5))], out,
            ["neg.ds.json: data_efficiency.data_sampling.dynamic_batching.max_tokens",
             "at least 1, got -5"])
    refused("min above max", ["--analysis", good, "--ds-config",
            config(work, "minmax", with_section(min_batch_size=5, max_batch_size=3))], out,
            ["min_batch_size 5 is above max_batch_size 3"])
    refused("unknown order", ["--analysis", good, "--order", "seqln"] + FLAGS, out,
            ["--order", '"seqln"', 'did you mean "seqlen"'])
    refused("unknown scaling", ["--analysis", good, "--ds-config",
            config(work, "lr", with_section(lr_scaling_method="cubic"))], out,
            ["lr_scaling_method", '"cubic"', "linear, sqrt or none"])
    refused("data-parallel size 0", ["--analysis", good, "--max-tokens", "20",
                                     "--data-parallel-size", "0"], out,
            ["--data-parallel-size: must be at least 1, got 0"])
    refused("effective batch size 0", ["--analysis", good, "--max-tokens", "20",
                                       "--effective-batch-size", "0"], out,
            ["--effective-batch-size: must be at least 1, got 0"])
    refused("train_batch_size 0", ["--analysis", good, "--ds-config",
            config(work, "tbs", dict(with_section(), train_batch_size=0))], out,
            ["tbs.ds.json: train_batch_size"])
    refused("no analysis and no metrics_path", ["--ds-config", config(work, "nopath",
            with_section())], out, ["no analysis", "--analysis", "metrics_path"])
    refused("metrics_path not a folder", ["--ds-config", config(work, "gone", with_section(
            metrics_path=os.path.join(work, "gone")))], out,
            ["gone.ds.json: data_efficiency.data_sampling.dynamic_batching.metrics_path: ",
             "gone: no such directory"])
    refused("dynamic batching disabled", ["--analysis", good, "--ds-config",
            config(work, "off", with_section(enabled=False))], out,
            ["dynamic_batching.enabled", "set it true"])


def id_cases(work, good, out):
    ids = os.path.join(work, "ids.npy")
    ref.write_npy(ids, [3, 100, 5])
    refused("filter id out of range", ["--analysis", good, "--sample-ids", ids] + FLAGS, out,
            ["ids.npy: entry 1 is 100", "not a sample id"])
    ref.write_npy(ids, [3, -1])
    refused("negative filter id", ["--analysis", good, "--sample-ids", ids] + FLAGS, out,
            ["entry 1 is -1"])
    ref.write_npy(ids, [3, 4, 3])
    refused("repeated filter id", ["--analysis", good, "--sample-ids", ids] + FLAGS, out,
            ["entry 2 repeats the id 3"])
    ref.write_npy(ids, [3.0, 4.0], "<f8", "d")
    refused("float filter ids", ["--analysis", good, "--sample-ids", ids] + FLAGS, out,
            ["ids.npy", "<f8"])


def analysis_cases(work, good, out):
    refused("accumulate metric", ["--analysis", good, "--metric", "total"] + FLAGS[2:], out,
            ["total", "accumulate_value_over_samples"])
    no_values = analyse(work, "no_values", 50,
                        files=["index_to_sample", "index_to_metric", "reports"])
    refused("no sample_to_metric", ["--analysis", no_values] + FLAGS, out,
            ["mod_sample_to_metric: not written: the run's output.files left out "
             "sample_to_metric"])
    two = analyse(work, "two", 50)
    write_two_values_a_row(os.path.join(two, "mod", "mod_sample_to_metric"), 50)
    refused("two values a sample", ["--analysis", two] + FLAGS, out,
            ["mod_sample_to_metric: row 0: has 2 elements, expected exactly 1"])
    scores = os.path.join(work, "scores.npy")
    ref.write_npy(scores, [float(i % 5 - 2) for i in range(50)], "<f8", "d")
    negative = cli_check.run_analysis(
        work, "negative", {"type": "synthetic_mod", "num_samples": 50, "modulus": 7},
        [{"name": "s", "metric": "score", "params": {"file": scores, "per": "sample",
                                                      "scale": 1}}])
    refused("negative lengths", ["--analysis", negative, "--metric", "s"] + FLAGS[2:], out,
            ["s_sample_to_metric: row 0: holds the value -2", "cannot be negative"])
    refused("negative lengths, seqlen order", ["--analysis", negative, "--metric", "s",
            "--order", "seqlen"] + FLAGS[2:], out,
            ["s_index_to_metric: holds the value -2", "cannot be negative"])
    partial = analyse(work, "partial", 50, files=["sample_to_metric", "reports"])
    refused("seqlen order without index files", ["--analysis", partial, "--order", "seqlen"] +
            FLAGS, out, ["mod_index_to_sample: not written",
                         "the seqlen order reads the index files"])
    indices = os.path.join(work, "indices.npy")
    ref.write_npy(indices, list(range(49, -1, -1)))
    shuffled = analyse(work, "shuffled", 50, {"sample_indices": indices})
    refused("sample_indices analysis", ["--analysis", shuffled] + FLAGS,
            out, ["dataset.sample_indices", "--sample-ids"])
    refused("fewer micro-batches than the effective batch size",
            ["--analysis", good, "--metric", "mod", "--max-tokens", "20",
             "--effective-batch-size", "1000"], out,
            ["fewer than the effective batch size 1000"])
    for effective in ["100000000000", str(2 ** 63 - 1)]:  # one micro-batch each: not allocated
        refused("same-size micro-batches, effective batch size " + effective,
                ["--analysis", good, "--metric", "mod", "--max-tokens", "20",
                 "--same-size-microbatches", "--effective-batch-size", effective], out,
                ["fewer than the effective batch size " + effective])


def main():
    with tempfile.TemporaryDirectory() as work:
        good = analyse(work, "good", 100)
        out = os.path.join(work, "plan")
        config_cases(work, good, out)
        id_cases(work, good, out)
        analysis_cases(work, good, out)
        subprocess.run([DSANALYZE, "batches", "--analysis", good, "--out",
                        out] + FLAGS, check=True, stdout=subprocess.DEVNULL)
        hjson_cases(work, good, out)
        flag_cases(work, good, out)
        refused("previous plan kept", ["--analysis", good, "--metric", "mod", "--max-tokens",
                                       "20", "--effective-batch-size", "1000"], out,
                ["fewer than the effective"])
        # A file of the user's in the previous plan's folder, which the new
        # plan would delete with it.
        open(os.path.join(out, "notes.txt"), "w").write("mine")
        refused("a user's file in the previous plan", ["--analysis", good] + FLAGS, out,
                ["holds notes.txt", "would be deleted with it"])
        os.remove(os.path.join(out, "notes.txt"))
        os.makedirs(os.path.join(work, "user"))
        open(os.path.join(work, "user", "notes.txt"), "w").write("mine")
        refused("out is a user's folder", ["--analysis", good] + FLAGS,
                os.path.join(work, "user"), ["not a plan"])
        refused("out in a missing folder", ["--analysis", good] + FLAGS,
                os.path.join(work, "missing", "plan"), ["no such folder"])
        for page in ("--svg", "--html"):
            refused("%s to standard output" % page, ["--analysis", good, page, "-"] + FLAGS,
                    out, [page + " -: written to a file only"])
    print("batches bad input: all cases refused cleanly")


main()
