"""Torch-free stand-ins of the parts of DeepSpeed that scripts/dsanalyze_deepspeed.py uses.

DeepSpeed cannot be installed here (it needs torch), so these follow the
semantics of DeepSpeed's code (deepspeed/runtime/data_pipeline/data_sampling/
variable_batch_size_and_lr.py, deepspeed/runtime/data_pipeline/config.py,
deepspeed/runtime/engine.py) and of the torch classes it builds on, as far as
a training loop can see them:
  - torch's DistributedSampler(shuffle=False, drop_last=False): indices padded
    from the front to a multiple of the replicas, rank r taking r, r + R, ...;
  - torch's DataLoader: batches of batch_size sampler indices (the last one
    short), each collated by collate_fn;
  - dataloader_for_variable_batch_size and lr_scheduler_for_variable_batch_size
    (VariableBatchSizeLR: at step(0), and after each optimizer step, the
    base scheduler's LR times scale_lr(base batch size, batch_sizes[t mod len]));
  - the config's data_efficiency section with DeepSpeed's defaults;
  - an engine with its accessors, whose step() steps the LR scheduler at each
    gradient-accumulation boundary; PipelineEngine a subclass;
  - DeepSpeed's own wrapper, get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed,
    planning with batch_by_seqlens (tests/batching/batch_reference.py): what
    the drop-in must reproduce.
Every function takes DeepSpeed's parameter names, so a keyword DeepSpeed does
not take fails here too.
"""
import math
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402

MODULE = "deepspeed.runtime.data_pipeline.data_sampling.variable_batch_size_and_lr"


class DistributedSampler:
    def __init__(self, dataset, num_replicas, rank, shuffle, drop_last):
        assert not shuffle and not drop_last
        self.size, self.num_replicas, self.rank = len(dataset), num_replicas, rank
        self.total = math.ceil(self.size / num_replicas) * num_replicas

    def __iter__(self):
        indices = list(range(self.size))
        while len(indices) < self.total:
            indices += indices[:self.total - len(indices)]
        return iter(indices[self.rank:self.total:self.num_replicas])

    def __len__(self):
        return self.total // self.num_replicas


class DataLoader:
    def __init__(self, dataset, batch_size, sampler, num_workers, collate_fn, pin_memory):
        self.dataset, self.batch_size, self.sampler = dataset, batch_size, sampler
        self.num_workers, self.collate_fn, self.pin_memory = num_workers, collate_fn, pin_memory

    def __iter__(self):
        indices = list(self.sampler)
        for i in range(0, len(indices), self.batch_size):
            yield self.collate_fn([self.dataset[j] for j in indices[i:i + self.batch_size]])

    def __len__(self):
        return math.ceil(len(self.sampler) / self.batch_size)


class Optimizer:
    def __init__(self, lr):
        self.param_groups = [{"lr": lr}]


class DecayScheduler:
    """A user's LR scheduler: lr0 * (1 - t / steps) at step t, torch's step() protocol."""

    def __init__(self, optimizer, steps):
        self.optimizer, self.steps = optimizer, steps
        self.lr0 = optimizer.param_groups[0]["lr"]
        self.last_epoch = 0
        self._last_lr = [self.lr0]

    def get_lr(self):
        return [self.lr0 * (1 - self.last_epoch / self.steps)]

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        self._last_lr = self.get_lr()
        self.optimizer.param_groups[0]["lr"] = self._last_lr[0]


class ConstantScheduler(DecayScheduler):
    """DeepSpeed's StubLRScheduler: the optimizer's LR, unchanged."""

    def __init__(self, optimizer):
        super().__init__(optimizer, 1)

    def get_lr(self):
        return [self.lr0]


def scale_lr(base_batch_size, batch_size, base_lr=1, method="linear"):
    if method == "linear":
        return base_lr * batch_size / base_batch_size
    if method == "sqrt":
        return base_lr * math.sqrt(batch_size / base_batch_size)
    if method is None or method.upper() == "NONE":
        return base_lr
    raise ValueError("Unknown scaling method: {}".format(method))


class VariableBatchSizeLR:
    def __init__(self, lr_scheduler, base_batch_size, batch_sizes, dataloader,
                 lr_scaling_method="linear", last_epoch=-1, verbose=False):
        self.base_lr_scheduler, self.base_batch_size = lr_scheduler, base_batch_size
        self.batch_sizes, self.dataloader = batch_sizes, dataloader
        self.lr_scaling_method, self.last_epoch, self.verbose = lr_scaling_method, last_epoch, verbose
        self.base_lrs = lr_scheduler.get_lr()
        self.step(0)

    def step(self, epoch=None):
        groups = self.base_lr_scheduler.optimizer.param_groups
        unscaled = self.base_lrs if epoch == 0 else self.base_lr_scheduler._last_lr
        for group, lr in zip(groups, unscaled):
            group["lr"] = lr
        self.base_lr_scheduler.step(epoch)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        size = self.batch_sizes[self.last_epoch % len(self.batch_sizes)]
        for group in groups:
            group["lr"] = scale_lr(self.base_batch_size, size, group["lr"], self.lr_scaling_method)


def dataloader_for_variable_batch_size(dataset, microbatch_ids, batch_max_seqlens,
                                       dataloader_rank=0, dataloader_batch_size=1,
                                       dataloader_num_replicas=1, dataloader_collate_fn=None,
                                       dataloader_num_workers=2, dataloader_pin_memory=False,
                                       required_microbatches_of_same_seqlen=False,
                                       sample_padding_fn=None):
    sampler = DistributedSampler(dataset=microbatch_ids, num_replicas=dataloader_num_replicas,
                                 rank=dataloader_rank, shuffle=False, drop_last=False)

    def collate(list_microbatch_ids):
        batch = []
        for batch_id, ids in list_microbatch_ids:
            data = [dataset[i] for i in ids]
            if required_microbatches_of_same_seqlen:
                assert sample_padding_fn is not None
                longest = batch_max_seqlens[batch_id]
                assert all(len(s) <= longest for s in data)
                data = [sample_padding_fn(s, longest) for s in data]
            batch += data
        return dataloader_collate_fn(batch) if dataloader_collate_fn else batch

    loader = DataLoader(dataset=microbatch_ids, batch_size=dataloader_batch_size, sampler=sampler,
                        num_workers=dataloader_num_workers, collate_fn=collate,
                        pin_memory=dataloader_pin_memory)
    kwargs = dict(dataset=microbatch_ids, batch_size=dataloader_batch_size,
                  pin_memory=dataloader_pin_memory, data_sampler=sampler, collate_fn=collate,
                  num_local_io_workers=dataloader_num_workers)
    return loader, kwargs


def lr_scheduler_for_variable_batch_size(base_batch_size, batch_sizes, dataloader,
                                         lr_scheduler_or_optimizer, lr_scaling_method="linear",
                                         verbose=False):
    if isinstance(lr_scheduler_or_optimizer, Optimizer):
        base = ConstantScheduler(lr_scheduler_or_optimizer)
    elif hasattr(lr_scheduler_or_optimizer, "optimizer"):
        base = lr_scheduler_or_optimizer
    else:
        raise ValueError("Unknown type for lr_scheduler_or_optimizer")
    return VariableBatchSizeLR(base, base_batch_size, batch_sizes, dataloader, lr_scaling_method,
                               verbose=verbose)


def data_efficiency_config(ds_config):
    """DeepSpeed's get_data_efficiency_config, for the keys dynamic batching reads."""
    efficiency = ds_config.get("data_efficiency", {})
    sampling = efficiency.get("data_sampling", {})
    batching = dict(sampling.get("dynamic_batching", {}))
    batching["enabled"] = bool(batching.get("enabled", False))
    batching["lr_scaling_method"] = str(batching.get("lr_scaling_method", "linear"))
    batching["min_batch_size"] = int(batching.get("min_batch_size", 1))
    batching["max_batch_size"] = int(batching["max_batch_size"]) \
        if "max_batch_size" in batching else None
    batching["sequence_picking_order"] = str(batching.get("sequence_picking_order",
                                                          "dataloader"))
    if batching["enabled"]:
        batching["max_tokens"] = int(batching["max_tokens"])
    batching["verbose"] = bool(batching.get("verbose", False))
    return {"seed": efficiency.get("seed", 1234),
            "data_sampling": {"num_workers": sampling.get("num_workers", 0),
                              "pin_memory": sampling.get("pin_memory", False),
                              "dynamic_batching": batching}}


class Group:
    def __init__(self, rank, size):
        self._rank, self._size = rank, size

    def rank(self):
        return self._rank

    def size(self):
        return self._size


class Engine:
    """DeepSpeedEngine as the training loop sees it; step() records the LR each optimizer
    step trains at, then steps the LR scheduler (engine._take_model_step)."""

    def __init__(self, ds_config, rank=0, world_size=1, optimizer=None, lr_scheduler=None):
        self.micro = ds_config["train_micro_batch_size_per_gpu"]
        self.accumulation = ds_config.get("gradient_accumulation_steps", 1)
        self.world_size = world_size
        self._config = types.SimpleNamespace(
            data_efficiency_config=data_efficiency_config(ds_config))
        self.data_parallel_group = Group(rank, world_size)
        self.optimizer = optimizer or Optimizer(ds_config.get("lr", 0.1))
        self.lr_scheduler = lr_scheduler
        self.micro_steps, self.trained = 0, []

    def train_batch_size(self):
        return self.micro * self.accumulation * self.world_size

    def train_micro_batch_size_per_gpu(self):
        return self.micro

    def gradient_accumulation_steps(self):
        return self.accumulation

    def __call__(self, batch):
        if self.micro_steps % self.accumulation == 0:
            self.trained.append(([], None))
        self.trained[-1][0].append(batch)
        return 0.0

    def backward(self, loss):
        pass

    def step(self):
        self.micro_steps += 1
        if self.micro_steps % self.accumulation == 0:
            self.trained[-1] = (self.trained[-1][0], self.optimizer.param_groups[0]["lr"])
            if self.lr_scheduler is not None:
                self.lr_scheduler.step()


class PipelineEngine(Engine):
    pass


def deepspeed_call(dataset, engine, seqlens, dataloader_collate_fn=None, sample_padding_fn=None):
    """DeepSpeed's get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed given the
    seqlens, with batch_by_seqlens' plan from the reference."""
    efficiency = engine._config.data_efficiency_config
    sampling = efficiency["data_sampling"]
    batching = sampling["dynamic_batching"]
    assert batching["enabled"]
    assert len(seqlens) == len(dataset)
    effective = engine.train_batch_size()
    pipeline = isinstance(engine, PipelineEngine)
    micro, sizes, longest = ref.plan(seqlens, batching["max_tokens"], None,
                                     batching["min_batch_size"], batching["max_batch_size"],
                                     batching["sequence_picking_order"], effective, pipeline,
                                     efficiency["seed"])
    microbatch_ids = [(k // effective, mb) for k, mb in enumerate(micro)]
    loader, kwargs = dataloader_for_variable_batch_size(
        dataset=dataset, microbatch_ids=microbatch_ids, batch_max_seqlens=longest,
        dataloader_rank=engine.data_parallel_group.rank(),
        dataloader_batch_size=engine.train_micro_batch_size_per_gpu(),
        dataloader_num_replicas=engine.data_parallel_group.size(),
        dataloader_collate_fn=dataloader_collate_fn,
        dataloader_num_workers=sampling["num_workers"],
        dataloader_pin_memory=sampling["pin_memory"],
        required_microbatches_of_same_seqlen=pipeline, sample_padding_fn=sample_padding_fn)
    scheduler = lr_scheduler_for_variable_batch_size(
        base_batch_size=effective, batch_sizes=sizes, dataloader=loader,
        lr_scheduler_or_optimizer=engine.lr_scheduler or engine.optimizer,
        lr_scaling_method=batching["lr_scaling_method"], verbose=batching["verbose"])
    return loader, scheduler, kwargs


def train(engine, dataloader, lr_scheduler):
    """The training loop of docs/usage.md §15 on `engine`: returns, per optimizer step, the
    collated micro-batches it trained on and its LR."""
    engine.lr_scheduler = lr_scheduler
    batches = iter(dataloader)
    for _ in range(len(dataloader) // engine.gradient_accumulation_steps()):
        for _ in range(engine.gradient_accumulation_steps()):
            engine.backward(engine(next(batches)))
            engine.step()
    return engine.trained


def modules():
    """The stand-ins as the modules the drop-in imports (to put in sys.modules)."""
    ds = types.ModuleType(MODULE)
    ds.dataloader_for_variable_batch_size = dataloader_for_variable_batch_size
    ds.lr_scheduler_for_variable_batch_size = lr_scheduler_for_variable_batch_size
    pipe = types.ModuleType("deepspeed.runtime.pipe.engine")
    pipe.PipelineEngine = PipelineEngine
    found = {MODULE: ds, pipe.__name__: pipe}
    for name in (MODULE, pipe.__name__):
        parts = name.split(".")
        for i in range(1, len(parts)):
            found.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    return found
