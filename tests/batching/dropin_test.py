#!/usr/bin/env python3
"""scripts/dsanalyze_deepspeed.py against DeepSpeed's own call (ctest batching.dropin.np1).

DeepSpeed's dataloader and LR scheduler are the torch-free stand-ins of
tests/batching/deepspeed_standin.py. For world size 1 and 2, micro batch 1
and 2, gradient accumulation 1 and 2 and the three orders, every rank trains
with the drop-in on a `dsanalyze batches` plan and with DeepSpeed's wrapper
(batch_by_seqlens from the reference) on the same config; at every optimizer
step both train on the same collated micro-batches at the same LR, the
ranks' samples together are that batch's, and the LR is the optimizer's times
scale_lr of its size. Also: a user LR scheduler (engine.lr_scheduler over
engine.optimizer), num_workers and pin_memory, a PipelineEngine (same-size
micro-batches, padded to the batch's longest), a 2-epoch plan (epoch 2 by the
seed rule), the ValueError for each mismatch (and its command makes a plan the
drop-in takes), and the values DeepSpeed treats alike.

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402
import deepspeed_standin as ds  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
MAX_TOKENS = 600


def fail(message):
    sys.exit("FAIL: " + message)


class Sample:
    def __init__(self, sample_id, length):
        self.id, self.length = sample_id, length

    def __len__(self):
        return self.length


class Dataset:
    def __init__(self, seqlens):
        self.seqlens = seqlens

    def __len__(self):
        return len(self.seqlens)

    def __getitem__(self, i):
        return Sample(i, self.seqlens[i])


def collate(samples):
    return [(s.id, len(s)) for s in samples]


def pad(sample, length):
    return Sample(sample.id, length)


def ds_config(micro, accumulation, order, **batching):
    section = dict({"enabled": True, "max_tokens": MAX_TOKENS, "sequence_picking_order": order},
                   **batching)
    return {"train_micro_batch_size_per_gpu": micro, "gradient_accumulation_steps": accumulation,
            "data_efficiency": {"seed": 7, "data_sampling": {"dynamic_batching": section}}}


def make_plan(work, analysis, effective, order, extra=()):
    out = os.path.join(work, "plan_%d_%s%s" % (effective, order, "_".join(extra)))
    subprocess.run([DSANALYZE, "batches", "--analysis", analysis, "--max-tokens", str(MAX_TOKENS),
                    "--effective-batch-size", str(effective), "--order", order, "--seed", "7",
                    "--out", out] + list(extra), check=True, stdout=subprocess.DEVNULL)
    return out


def run_both(dropin, dataset, config, world, plan, engine_class=ds.Engine, scheduler=None,
             padding=None):
    """Per rank, what the drop-in and DeepSpeed's call train on: ([steps], [steps])."""
    got = []
    for rank in range(world):
        runs = []
        for call in ("dropin", "deepspeed"):
            engine = engine_class(config, rank, world)
            if scheduler:
                engine.lr_scheduler = scheduler(engine.optimizer)
            if call == "dropin":
                loader, lr, kwargs = dropin.get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(  # noqa: E501
                    dataset, engine, plan, dataloader_collate_fn=collate,
                    sample_padding_fn=padding)
            else:
                loader, lr, kwargs = ds.deepspeed_call(dataset, engine, dataset.seqlens,
                                                       collate, padding)
            io = {k: v for k, v in kwargs.items() if k not in ("collate_fn", "data_sampler")}
            runs.append((ds.train(engine, loader, lr), io, loader.num_workers, loader.pin_memory,
                         lr.base_batch_size, lr.lr_scaling_method, lr.verbose))
        if runs[0] != runs[1]:
            fail("rank %d of %d: the drop-in trains otherwise than DeepSpeed's call (%s)"
                 % (rank, world, plan))
        got.append(runs[0][0])
    return got


def check_steps(per_rank, seqlens, config, world):
    """Each step's samples over all ranks are the reference's batch, at the scaled LR."""
    b = config["data_efficiency"]["data_sampling"]["dynamic_batching"]
    effective = config["train_micro_batch_size_per_gpu"] * \
        config["gradient_accumulation_steps"] * world
    micro, sizes, _ = ref.plan(seqlens, MAX_TOKENS, None, 1, None, b["sequence_picking_order"],
                               effective, False, 7)
    if any(len(steps) != len(sizes) for steps in per_rank):
        fail("%d steps per rank, want %d" % (len(per_rank[0]), len(sizes)))
    for s, size in enumerate(sizes):
        trained = sorted(i for steps in per_rank for batch in steps[s][0] for i, _ in batch)
        if trained != sorted(i for mb in micro[s * effective:(s + 1) * effective] for i in mb):
            fail("step %d: the ranks train on other samples than batch %d" % (s, s))
        if any(abs(steps[s][1] - 0.1 * size / effective) > 1e-12 for steps in per_rank):
            fail("step %d: LR %r, want %r" % (s, [st[s][1] for st in per_rank],
                                               0.1 * size / effective))


def matrix(dropin, work, analysis, dataset):
    cases = 0
    for world in (1, 2):
        for micro in (1, 2):
            for accumulation in (1, 2):
                for order in ("seqlen", "dataloader", "random"):
                    plan = make_plan(work, analysis, micro * accumulation * world, order)
                    config = ds_config(micro, accumulation, order)
                    per_rank = run_both(dropin, dataset, config, world, plan)
                    check_steps(per_rank, dataset.seqlens, config, world)
                    cases += 1
    return cases


def variants(dropin, work, analysis, dataset):
    """A user scheduler, workers, pinned memory and verbose, a pipeline engine with padding."""
    config = ds_config(2, 2, "random", lr_scaling_method="sqrt", verbose=True)
    config["data_efficiency"]["data_sampling"].update(num_workers=3, pin_memory=True)
    plan = make_plan(work, analysis, 8, "random", ["--lr-scaling", "sqrt"])
    got = run_both(dropin, dataset, config, 2, plan,
                   scheduler=lambda optimizer: ds.DecayScheduler(optimizer, 1000))
    _, sizes, _ = ref.plan(dataset.seqlens, MAX_TOKENS, None, 1, None, "random", 8, False, 7)
    want = [0.1 * (1 - s / 1000) * (size / 8) ** 0.5 for s, size in enumerate(sizes)]
    if any(abs(step[1] - w) > 1e-12 for steps in got for step, w in zip(steps, want)):
        fail("user scheduler: LR %r, want %r" % ([s[1] for s in got[0]][:4], want[:4]))
    config = ds_config(1, 2, "seqlen")
    plan = make_plan(work, analysis, 4, "seqlen", ["--same-size-microbatches"])
    got = run_both(dropin, dataset, config, 2, plan, engine_class=ds.PipelineEngine, padding=pad)
    _, _, longest = ref.plan(dataset.seqlens, MAX_TOKENS, None, 1, None, "seqlen", 4, True, 7)
    for steps in got:
        for s, (batches, _) in enumerate(steps):
            if any(length != longest[s] for batch in batches for _, length in batch):
                fail("pipeline: step %d not padded to %d" % (s, longest[s]))


def epochs(dropin, work, analysis, dataset):
    """A 2-epoch plan: epoch 1 as DeepSpeed's call, then the batches in the seed rule's order."""
    config = ds_config(1, 2, "seqlen")
    plan = make_plan(work, analysis, 4, "seqlen", ["--epochs", "2"])
    for rank in range(2):
        engine = ds.Engine(config, rank, 2)
        loader, lr, _ = dropin.get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(
            dataset, engine, plan, dataloader_collate_fn=collate)
        got = ds.train(engine, loader, lr)
        engine = ds.Engine(config, rank, 2)
        want = ds.train(engine, *ds.deepspeed_call(dataset, engine, dataset.seqlens, collate)[:2])
        order = list(range(len(want)))
        random.Random(7 + 1).shuffle(order)
        if got != want + [want[b] for b in order]:
            fail("rank %d: a 2-epoch plan trains otherwise than epoch 1 then the seed rule"
                 % rank)


def expect_refusal(dropin, dataset, engine, plan, words):
    try:
        dropin.get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(
            dataset, engine, plan)
    except ValueError as e:
        message = str(e)
        if not all(w in message for w in words):
            fail("ValueError %r lacks %r" % (message, words))
        return message
    fail("no ValueError for %r" % (words,))


def refusals(dropin, work, analysis, dataset):
    """One ValueError per mismatch, naming the key and both values; the command it gives makes
    a plan the drop-in takes. Values DeepSpeed treats alike are taken."""
    key = "data_efficiency.data_sampling.dynamic_batching."
    cases = [({"train_micro_batch_size_per_gpu": 2}, ["train_batch_size is 8", "4 in the plan"]),
             ({"max_tokens": 500}, [key + "max_tokens is 500", "600 in the plan"]),
             ({"min_batch_size": 2}, [key + "min_batch_size is 2", "1 in the plan"]),
             ({"max_batch_size": 5}, [key + "max_batch_size is 5", "none in the plan"]),
             ({"sequence_picking_order": "seqlen"},
              [key + "sequence_picking_order is seqlen", "random in the plan"]),
             ({"lr_scaling_method": "sqrt"}, [key + "lr_scaling_method is sqrt",
                                              "linear in the plan"]),
             ({"seed": 8}, ["data_efficiency.seed is 8", "7 in the plan"]),
             ({"engine": ds.PipelineEngine}, ["isinstance(engine, PipelineEngine)", "is True",
                                              "False in the plan"])]
    for change, words in cases:
        plan = make_plan(work, analysis, 4, "random")  # the command below replaces it
        config = ds_config(1, 2, "random")
        batching = config["data_efficiency"]["data_sampling"]["dynamic_batching"]
        engine_class = change.pop("engine", ds.Engine)
        for k, v in change.items():
            (config if k.startswith("train") else
             config["data_efficiency"] if k == "seed" else batching)[k] = v
        engine = engine_class(config, 0, 2)
        message = expect_refusal(dropin, dataset, engine, plan, words + ["dsanalyze batches"])
        command = shlex.split(message[message.index("dsanalyze batches"):])
        subprocess.run([DSANALYZE] + command[1:], check=True, stdout=subprocess.DEVNULL)
        dropin.get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(
            dataset, engine_class(config, 0, 2), plan, sample_padding_fn=pad)
    engine = ds.Engine(ds_config(1, 2, "random"), 0, 2)
    expect_refusal(dropin, Dataset(dataset.seqlens[:-1]), engine, plan,
                   ["len(dataset) is %d" % (len(dataset) - 1), "has %d samples" % len(dataset)])
    engine = ds.Engine(ds_config(1, 2, "random", enabled=False), 0, 2)
    expect_refusal(dropin, dataset, engine, plan, [key + "enabled is false"])
    alike(dropin, work, analysis, dataset)


def alike(dropin, work, analysis, dataset):
    """min_batch_size 0 and 1, max_batch_size 0 and none, "None" and "none", and the seed of
    a one-epoch seqlen plan make no difference to DeepSpeed: the drop-in takes them."""
    plan = make_plan(work, analysis, 4, "seqlen", ["--lr-scaling", "none"])
    config = ds_config(1, 2, "seqlen", min_batch_size=0, max_batch_size=0,
                       lr_scaling_method=None)
    config["data_efficiency"]["seed"] = 99
    for rank in range(2):
        engine = ds.Engine(config, rank, 2)
        got = ds.train(engine, *dropin.get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(  # noqa: E501
            dataset, engine, plan, dataloader_collate_fn=collate)[:2])
        engine = ds.Engine(config, rank, 2)
        want = ds.train(engine, *ds.deepspeed_call(dataset, engine, dataset.seqlens, collate)[:2])
        if got != want:
            fail("alike values: rank %d trains otherwise than DeepSpeed's call" % rank)


def main():
    sys.modules.update(ds.modules())
    sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "scripts"))
    import dsanalyze_deepspeed as dropin
    with tempfile.TemporaryDirectory(prefix="batches_dropin_") as work:
        prefix = os.path.join(work, "docs")
        subprocess.run([DSANALYZE, "generate", prefix, "--documents", "240", "--vocab-size",
                        "500", "--min-length", "1", "--max-length", "200", "--seed", "5"],
                       check=True, stdout=subprocess.DEVNULL)
        analysis = cli_check.run_analysis(work, "an", {"type": "documents",
                                                       "prefixes": [prefix]},
                                          [{"name": "seqlen", "metric": "seqlen"}])
        dataset = Dataset(ref.read_pair(os.path.join(analysis, "seqlen",
                                                     "seqlen_sample_to_metric")))
        cases = matrix(dropin, work, analysis, dataset)
        variants(dropin, work, analysis, dataset)
        epochs(dropin, work, analysis, dataset)
        refusals(dropin, work, analysis, dataset)
    print("drop-in: %d cases train as DeepSpeed's call at every step; mismatches refused"
          % cases)


main()
