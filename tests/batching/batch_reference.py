"""An independent reference for `dsanalyze batches`, standard library only.

DeepSpeed's batch_by_seqlens (variable_batch_size_and_lr.py) as the issue
states its semantics, by brute force: every candidate batch end is tried and
every micro-batch re-summed, as DeepSpeed does, so nothing here shares the
linear-time reasoning of lib/batching/planner.cc.
"""
import math
import random
import struct

DEEPSPEED_CODES = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}


class NotEnough(Exception):
    """DeepSpeed's assert: fewer micro-batches than the effective batch size."""


def read_pair(prefix):
    """The elements of PREFIX.bin as ints (deepspeed dtype table), front to back."""
    idx = open(prefix + ".idx", "rb").read()
    fmt = DEEPSPEED_CODES[idx[17]]
    data = open(prefix + ".bin", "rb").read()
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def read_npy(path):
    """A 1-D '<i8' or '<f8' .npy as a list."""
    raw = open(path, "rb").read()
    assert raw[:8] == b"\x93NUMPY\x01\x00", path
    header_len = struct.unpack_from("<H", raw, 8)[0]
    header = raw[10:10 + header_len].decode()
    code = "q" if "'<i8'" in header else "d"
    n = (len(raw) - 10 - header_len) // 8
    assert "(%d,)" % n in header and (10 + header_len) % 64 == 0, path + ": " + header
    return list(struct.unpack_from("<%d%s" % (n, code), raw, 10 + header_len))


def write_npy(path, values, descr="<i8", code="q"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


def valid(mb, max_tokens, min_size, max_size):
    if min_size and len(mb) < min_size:
        return False
    if max_size and len(mb) > max_size:
        return False
    return sum(v for v, _ in mb) <= max_tokens


def plan(seqlens, max_tokens, filter_ids=None, min_size=1, max_size=None, order="dataloader",
         effective=1, same_size=False, seed=1234):
    """(micro-batches as id lists, batch sizes, batch max seqlens)."""
    ids = range(len(seqlens)) if filter_ids is None else filter_ids
    metrics = [(seqlens[i], i) for i in ids]
    if order == "random":
        random.Random(seed).shuffle(metrics)
    elif order == "seqlen":
        metrics.sort()
    metrics = [m for m in metrics if m[0] <= max_tokens]
    step = effective if same_size else 1
    micro, start = [], 0
    while start < len(metrics):
        best = start
        for end in range(start + step, len(metrics), step):
            batch = metrics[start:end]
            if all(valid(batch[b::step], max_tokens, min_size, max_size) for b in range(step)):
                best = end
        if best == start:
            break
        batch = metrics[start:best]
        micro += [batch[b::step] for b in range(step)]
        start = best
    if len(micro) < effective:
        raise NotEnough()
    micro = micro[:len(micro) - len(micro) % effective]
    sizes, longest = [], []
    for b in range(0, len(micro), effective):
        group = micro[b:b + effective]
        sizes.append(sum(len(mb) for mb in group))
        longest.append(max(v for mb in group for v, _ in mb))
    return [[i for _, i in mb] for mb in micro], sizes, longest


def lr_scale(method, batch_size, effective):
    if method == "linear":
        return 1 * batch_size / effective
    if method == "sqrt":
        return math.sqrt(batch_size / effective)
    return 1.0
