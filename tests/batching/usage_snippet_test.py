#!/usr/bin/env python3
"""docs/usage.md §15's Python snippet and its ValueError example, run (ctest batching.usage_snippet.np1).

The snippet is a DeepSpeed training script that imports the drop-in
(scripts/dsanalyze_deepspeed.py) and trains on a `dsanalyze batches` plan. It
runs here as written on each of two data-parallel ranks, DeepSpeed being the
torch-free stand-ins of tests/batching/deepspeed_standin.py (deepspeed.initialize
builds their engine from the snippet's config file, micro batch 2 and gradient
accumulation 2): at every optimizer step each rank must train on what
DeepSpeed's own call (batch_by_seqlens from the reference) gives it, at the same
learning rate. The section's example ValueError must be the drop-in's message
for the mismatch it describes.

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402
import deepspeed_standin as ds  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
WORLD = 2


def fail(message):
    sys.exit("FAIL: " + message)


def section():
    text = open(os.path.join(os.environ["SOURCE_DIR"], "docs", "usage.md")).read()
    part = text[text.index("## 15. Variable batch size"):]
    return part[:part.index("\n## ")]


def snippet(text):
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    if len(blocks) != 1:
        fail("usage.md §15 has %d python blocks, expected 1" % len(blocks))
    return blocks[0]


class Model:
    def parameters(self):
        return []


class Dataset:
    def __init__(self, seqlens):
        self.seqlens = seqlens

    def __len__(self):
        return len(self.seqlens)

    def __getitem__(self, i):
        return (i, self.seqlens[i])


def collate(samples):
    return [i for i, _ in samples]


def deepspeed_module(rank, engines):
    module = ds.modules()["deepspeed"]

    def initialize(model, model_parameters, config):
        engines.append(ds.Engine(json.load(open(config)), rank, WORLD))
        return engines[-1], None, None, None

    module.initialize = initialize
    return module


def run_snippet(code, dataset, rank):
    """Runs the snippet as a script beside a copy of the drop-in would run."""
    engines = []
    saved = dict(sys.modules)
    sys.modules.update(ds.modules())
    sys.modules["deepspeed"] = deepspeed_module(rank, engines)
    sys.modules.pop("dsanalyze_deepspeed", None)
    sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "scripts"))
    try:
        exec(code, {"model": Model(), "dataset": dataset, "collate_fn": collate})
    finally:
        sys.path.pop(0)
        sys.modules.clear()
        sys.modules.update(saved)
    return engines[0]


def check_training(code, dataset, config):
    for rank in range(WORLD):
        got = run_snippet(code, dataset, rank).trained
        engine = ds.Engine(config, rank, WORLD)
        want = ds.train(engine, *ds.deepspeed_call(dataset, engine, dataset.seqlens, collate)[:2])
        if not want or got != want:
            fail("rank %d: the snippet trains %d steps otherwise than DeepSpeed's call (%d)"
                 % (rank, len(got), len(want)))
    return len(want)


def check_error_example(text, dataset):
    """The example's mismatch (max_tokens 4096 in the config, 2048 in the plan) raises the
    example's message."""
    example = re.search(r"\n    (ValueError: .*?)\n\n", text, re.S).group(1)
    example = " ".join(example.split())
    subprocess.run([DSANALYZE, "batches", "--analysis", "out/documents", "--max-tokens", "2048",
                    "--effective-batch-size", "8", "--max-batch-size", "64", "--order", "seqlen",
                    "--out", "out/batches"], check=True, stdout=subprocess.DEVNULL)
    config = {"train_micro_batch_size_per_gpu": 8, "data_efficiency": {
        "seed": 1234, "data_sampling": {"dynamic_batching": {
            "enabled": True, "max_tokens": 4096, "max_batch_size": 64,
            "sequence_picking_order": "seqlen"}}}}
    sys.modules.update(ds.modules())
    sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "scripts"))
    import dsanalyze_deepspeed
    try:
        dsanalyze_deepspeed.get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(
            dataset, ds.Engine(config), "out/batches")
    except ValueError as e:
        if "ValueError: " + str(e) != example:
            fail("the example ValueError is not the drop-in's:\n%s\n%s" % (example, e))
        return
    fail("no ValueError for the example's mismatch")


def main():
    text = section()
    code = snippet(text)
    config_path = re.search(r'config="(.*?)"', code).group(1)
    plan = re.search(r'\(\s*dataset, engine, "(.*?)"', code).group(1)
    with tempfile.TemporaryDirectory(prefix="batches_snippet_") as work:
        os.chdir(work)
        subprocess.run([DSANALYZE, "generate", "docs", "--documents", "300", "--vocab-size", "500",
                        "--min-length", "1", "--max-length", "200", "--seed", "3"], check=True,
                       stdout=subprocess.DEVNULL)
        os.makedirs("out")
        cli_check.run_analysis(os.path.join(work, "out"), "documents",
                               {"type": "documents", "prefixes": [os.path.join(work, "docs")]},
                               [{"name": "seqlen", "metric": "seqlen"}])
        config = {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2,
                  "data_efficiency": {"seed": 1234, "data_sampling": {"dynamic_batching": {
                      "enabled": True, "metrics_path": "out/documents", "max_tokens": 600,
                      "max_batch_size": 64, "sequence_picking_order": "seqlen"}}}}
        json.dump(config, open(config_path, "w"))
        subprocess.run([DSANALYZE, "batches", "--ds-config", config_path, "--data-parallel-size",
                        str(WORLD), "--out", plan], check=True, stdout=subprocess.DEVNULL)
        dataset = Dataset(ref.read_pair("out/documents/seqlen/seqlen_sample_to_metric"))
        steps = check_training(code, dataset, config)
        check_error_example(text, dataset)
        os.chdir("/")
    print("usage snippet: both ranks train as DeepSpeed's call at each of %d steps; the "
          "example ValueError is the drop-in's" % steps)


main()
