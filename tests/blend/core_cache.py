"""A writer of Megatron-Core dataset caches, written from Core's code
(megatron/core/datasets/gpt_dataset.py, blended_dataset.py,
blended_megatron_dataset_builder.py, utils.py, helpers.cpp); Python 3 standard
library only, no numpy. The files are laid out and named as Core lays them out
(<md5 of the description>-<Class>-<split>-<what>, JSON descriptions), with
Core's dtypes: int32 document_index, int32 or int64 sample_index, uint32
shuffle_index, int16 dataset_index, int64 dataset_sample_index. Permutations
come from Python's random, not numpy's: the maps are Core's in shape and
meaning, not in their exact shuffle.

  write_tokens(prefix, documents)   uint16 .bin/.idx whose documents hold
                                    several sequences (--split-sentences data)
  normalize(weights)                utils.normalize (w / numpy.sum(w))
  blend_sizes(weights, S)           (once-normalised weights, per-component
                                    targets ceil(S·w), builds ceil(target·1.005))
  write_gpt(...)                    one GPTDataset's description and maps; the
                                    samples' tokens by index (Core's dataset[i]
                                    text, padding left out)
  write_blend(...)                  a BlendedDataset's description and index
"""
import collections
import hashlib
import json
import math
import os
import struct

import blend_reference as ref
import score_reference


def write_tokens(prefix, documents):
    """documents: lists of sequences (token lists). Returns the sequences."""
    sequences = [s for d in documents for s in d]
    sizes = [len(s) for s in sequences]
    pointers, offset = [], 0
    for n in sizes:
        pointers.append(offset)
        offset += 2 * n
    bounds = [0]
    for d in documents:
        bounds.append(bounds[-1] + len(d))
    with open(prefix + ".idx", "wb") as f:
        f.write(score_reference.IDX_MAGIC + struct.pack("<QBQQ", 1, 8, len(sizes), len(bounds)))
        f.write(struct.pack("<%di" % len(sizes), *sizes))
        f.write(struct.pack("<%dq" % len(sizes), *pointers))
        f.write(struct.pack("<%dq" % len(bounds), *bounds))
    with open(prefix + ".bin", "wb") as f:
        for s in sequences:
            f.write(struct.pack("<%dH" % len(s), *s))
    return sequences


def normalize(weights):
    total = ref.numpy_sum([float(w) for w in weights])
    return [float(w) / total for w in weights]


def blend_sizes(weights, requested):
    once = normalize(weights)
    targets = [int(math.ceil(requested * w)) for w in once]
    return once, targets, [int(math.ceil(t * (1 + 0.005))) for t in targets]


def _sample_idx(sizes, doc_idx, seq, epochs, tokens, drop_last, extra):
    """helpers.cpp build_sample_idx."""
    if drop_last:
        n = (epochs * tokens - extra) // seq
    else:
        n = int(math.ceil(float(epochs * tokens - extra) / seq))
    out = [(0, 0)]
    position, offset = 0, 0
    while len(out) <= n:
        remaining = seq + extra
        while remaining != 0:
            length = sizes[doc_idx[position]] - offset
            remaining -= length
            if remaining <= 0:
                offset += remaining + length - extra
                remaining = 0
            elif position == len(doc_idx) - 1:
                offset = sizes[doc_idx[position]] - extra
                break
            else:
                position += 1
                offset = 0
        out.append((position, offset))
    return out


def _maps(sizes, seq, num_samples, extra, drop_last, rng):
    """GPTDataset's document, sample and shuffle indices (all sequences in the split)."""
    tokens = sum(sizes)
    epochs = 1
    if num_samples is not None:
        while epochs * tokens < num_samples * seq + extra:
            epochs += 1
    separate, before_last = False, 0
    if epochs > 1:
        before_last = ((epochs - 1) * tokens - extra) // seq
        per_epoch = (tokens - extra) // seq
        separate = num_samples - before_last < int(0.80 * per_epoch)
    rows = list(range(len(sizes)))
    if separate:
        first, last = rows * (epochs - 1), list(rows)
        rng.shuffle(first)
        rng.shuffle(last)
        doc_idx = first + last
    else:
        doc_idx = rows * epochs
        rng.shuffle(doc_idx)
    sample_idx = _sample_idx(sizes, doc_idx, seq, epochs, tokens, drop_last, extra)
    total = len(sample_idx) - 1
    head = list(range(before_last if separate else total))
    tail = list(range(len(head), total))
    rng.shuffle(head)
    rng.shuffle(tail)
    return doc_idx, sample_idx, head + tail


def _describe(fields):
    """(description text, md5) as MegatronDataset / BlendedDataset write them."""
    text = json.dumps(fields, indent=4)
    return text, hashlib.md5(text.encode("utf-8")).hexdigest()


def gpt_description(prefix, num_samples, split, seq):
    d = collections.OrderedDict()
    d["class"] = "GPTDataset"
    d["dataset_path"] = prefix
    d["num_samples"] = num_samples
    d["index_split"] = split
    d["random_seed"] = 1234
    d["sequence_length"] = seq
    d["split"] = "100,0,0"
    d["split_matrix"] = [[0, 1.0], None, None]
    d["tokenizer"] = {"class": "TestTokenizer", "vocab": 300}
    return d


def write_gpt(cache, prefix, sequences, split, seq, num_samples, rng, extra=True, drop_last=True,
              sample_descr="<i4"):
    """Writes one GPTDataset's four files; returns (description, samples by index)."""
    sizes = [len(s) for s in sequences]
    doc_idx, sample_idx, shuffle_idx = _maps(sizes, seq, num_samples, int(extra), drop_last, rng)
    fields = gpt_description(prefix, num_samples, split, seq)
    text, md5 = _describe(fields)
    base = os.path.join(cache, "%s-GPTDataset-%s-" % (md5, split))
    os.makedirs(cache, exist_ok=True)
    with open(base + "description.txt", "w") as f:
        f.write(text)
    score_reference.write_npy(base + "document_index.npy", "<i4", doc_idx)
    score_reference.write_npy(base + "sample_index.npy", sample_descr,
                              [v for p in sample_idx for v in p], (len(sample_idx), 2))
    score_reference.write_npy(base + "shuffle_index.npy", "<u4", shuffle_idx)
    flat, start = [], []
    for r in doc_idx:
        start.append(len(flat))
        flat.extend(sequences[r])
    cut = [start[p] + o for p, o in sample_idx]
    samples = [flat[cut[j]:cut[j + 1] + int(extra)] for j in shuffle_idx]
    return fields, samples


def write_blend(cache, split, descriptions, weights, size, which, sample):
    """A BlendedDataset's description and index (weights as Core stores them)."""
    d = collections.OrderedDict()
    d["class"] = "BlendedDataset"
    d["datasets"] = descriptions
    d["split"] = split
    d["weights"] = weights
    d["size"] = size
    text, md5 = _describe(d)
    base = os.path.join(cache, "%s-BlendedDataset-%s-" % (md5, split))
    with open(base + "description.txt", "w") as f:
        f.write(text)
    score_reference.write_npy(base + "dataset_index.npy", "<i2", which)
    score_reference.write_npy(base + "dataset_sample_index.npy", "<i8", sample)
    return md5


def exhaustive(sizes):
    """helpers.cpp build_exhaustive_blending_indices: (dataset_index, dataset_sample_index)."""
    total = sum(sizes)
    weights = [s / float(total) for s in sizes]
    drawn, which, sample = [0] * len(sizes), [], []
    unspent = set(range(len(sizes)))
    for i in range(total):
        x = max(float(i), 1.0)
        best, best_error = -1, -float("inf")
        for k in sorted(unspent):
            error = weights[k] * x - float(drawn[k])
            if error > best_error:
                best, best_error = k, error
        which.append(best)
        sample.append(drawn[best])
        drawn[best] += 1
        if drawn[best] == sizes[best]:
            unspent.discard(best)
    return which, sample
