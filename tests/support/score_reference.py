#!/usr/bin/env python3
"""A reference for per-document scores: which documents each sample is cut from.

Standalone (Python 3 standard library only, no numpy), for end-to-end tests of
metrics that read one input value per document (the `score` metric):

  pieces(dataset)            for every iteration position, the list of
                             (document, tokens) pieces of its sample, in token order
  read_npy(path)             (shape, values) of a little-endian .npy array, C order
  read_npy_1d(path)          the values of a 1-D .npy array as a list
  write_npy(path, descr, values)  a 1-D .npy array of that dtype ('<f4', '<i2', ...)
  write_idx(prefix, sizes)   a .idx/.bin pair of uint8 zeros with these row sizes
  reduce(pieces, scores, how) one sample's value from its pieces' scores

`dataset` is a dsanalyze config's "dataset" section (docs/config.md), as a dict:
  {"type": "documents", "prefixes": [...]}
  {"type": "packed", "prefixes": [...], "seq_length": L}
  {"type": "megatron_gpt", "prefix": P, "index_prefix": I}  (or "doc_idx",
      "sample_idx", "shuffle_idx" paths instead of "index_prefix")
Other keys (dtype_codes, ignore_token_ids, sample_indices, seq_length for
megatron_gpt) do not change the pieces and are ignored. Documents are the rows
of the token files, numbered across the files in config order; only the .idx
sizes are read (docs/format.md §1), never the .bin. Pieces with no tokens are
left out; a document a sample meets twice (a repeated doc_idx entry) appears
twice. The pieces are those of lib/dataset (Dataset::AppendDocumentPieces):
  documents     sample i is document i, one piece of its length (also when 0)
  packed        sample k is the stream tokens [kL, kL + L]: the rows it overlaps,
                each with the overlap (the token two samples share counts in both)
  megatron_gpt  position i is sample j = shuffle_idx[i], from cut sample_idx[j]
                to cut sample_idx[j+1] inclusive, one piece per doc_idx position
  megatron_blend position i is component dataset_index[i]'s megatron_gpt
                position dataset_sample_index[i] (the two .npy files), its
                documents numbered after those of the components before it

Command line:
  score_reference.py pieces CONFIG.json             one JSON list of [document, tokens]
                                                    pairs per position, a line each
  score_reference.py reduce CONFIG.json SCORES.npy HOW
                                                    one value per position (repr of
                                                    the double), SCORES per document
  score_reference.py --self-test                    checks this module on made-up files
CONFIG.json is a whole config (its "dataset" key is used) or the section alone.
"""
import ast
import bisect
import json
import math
import os
import struct
import sys
import tempfile

IDX_MAGIC = b"MMIDIDX\x00\x00"

# .npy descr (without the byte-order character) -> struct format character.
NPY_CODES = {"i1": "b", "i2": "h", "i4": "i", "i8": "q",
             "u1": "B", "u2": "H", "u4": "I", "u8": "Q",
             "f4": "f", "f8": "d"}


def read_idx_sizes(prefix):
    """The row sizes of PREFIX.idx (docs/format.md §1), as a list of ints."""
    path = prefix + ".idx"
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 34 or data[:9] != IDX_MAGIC:
        raise ValueError("%s: not an MMapIndexedDataset index" % path)
    rows, docs = struct.unpack_from("<QQ", data, 18)
    if len(data) != 34 + 12 * rows + 8 * docs:
        raise ValueError("%s: %d bytes, expected %d" % (path, len(data), 34 + 12 * rows + 8 * docs))
    return list(struct.unpack_from("<%di" % rows, data, 34))


def read_npy(path):
    """(shape, values) of a .npy array (format 1.0-3.0, C order, little-endian
    int/uint of 1-8 bytes or float32/float64); values flat, in C order."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY" or data[6] not in (1, 2, 3):
        raise ValueError("%s: not a .npy file of version 1.0-3.0" % path)
    if data[6] == 1:
        (length,), start = struct.unpack_from("<H", data, 8), 10
    else:
        (length,), start = struct.unpack_from("<I", data, 8), 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    descr, shape = header["descr"], tuple(header["shape"])
    if header["fortran_order"]:
        raise ValueError("%s: Fortran order" % path)
    code = NPY_CODES.get(descr[1:])
    if code is None or descr[0] not in "<|" or (descr[0] == "|" and descr[2] != "1"):
        raise ValueError("%s: dtype %r is not a little-endian int or float" % (path, descr))
    count = math.prod(shape)
    offset = start + length
    if len(data) - offset != count * struct.calcsize(code):
        raise ValueError("%s: data is not %d items of %s" % (path, count, descr))
    return shape, list(struct.unpack_from("<%d%s" % (count, code), data, offset))


def read_npy_1d(path):
    """The values of a 1-D .npy array (see read_npy) as a list."""
    shape, values = read_npy(path)
    if len(shape) != 1:
        raise ValueError("%s: shape %r, expected 1-D" % (path, shape))
    return values


def _documents(dataset):
    sizes = []
    for prefix in dataset["prefixes"]:
        sizes += read_idx_sizes(prefix)
    return [[(d, n)] for d, n in enumerate(sizes)]  # an empty document is still its sample


def _packed(dataset):
    sizes = []
    for prefix in dataset["prefixes"]:
        sizes += read_idx_sizes(prefix)
    starts = [0]
    for n in sizes:
        starts.append(starts[-1] + n)
    length = dataset["seq_length"]
    out = []
    for k in range((starts[-1] - 1) // length):
        lo, hi = k * length, k * length + length + 1
        row = bisect.bisect_right(starts, lo) - 1
        pieces = []
        while starts[row] < hi:
            tokens = min(starts[row + 1], hi) - max(starts[row], lo)
            if tokens > 0:
                pieces.append((row, tokens))
            row += 1
        out.append(pieces)
    return out


def _map_paths(dataset):
    if "index_prefix" in dataset:
        return [dataset["index_prefix"] + "_%s.npy" % m
                for m in ("doc_idx", "sample_idx", "shuffle_idx")]
    return [dataset["doc_idx"], dataset["sample_idx"], dataset["shuffle_idx"]]


def _megatron_gpt(dataset):
    sizes = read_idx_sizes(dataset["prefix"])
    doc_path, sample_path, shuffle_path = _map_paths(dataset)
    doc_idx = read_npy_1d(doc_path)
    shape, sample_idx = read_npy(sample_path)
    if len(shape) != 2 or shape[1] != 2:
        raise ValueError("%s: shape %r, expected (samples + 1, 2)" % (sample_path, shape))
    out = []
    for j in read_npy_1d(shuffle_path):
        p0, o0, p1, o1 = sample_idx[2 * j:2 * j + 4]
        pieces = []
        for p in range(p0, p1 + 1):
            lo = o0 if p == p0 else 0
            hi = o1 + 1 if p == p1 else sizes[doc_idx[p]]
            if hi > lo:
                pieces.append((doc_idx[p], hi - lo))
        out.append(pieces)
    return out


def _megatron_blend(dataset):
    # Sample i is component dataset_index[i]'s position dataset_sample_index[i]
    # (a cached index only); documents are numbered across the components in order.
    per_component, first = [], 0
    for entry in dataset["datasets"]:
        per_component.append([[(d + first, n) for d, n in p] for p in _megatron_gpt(entry)])
        first += len(read_idx_sizes(entry["prefix"]))
    which = read_npy_1d(dataset["dataset_index"])
    sample = read_npy_1d(dataset["dataset_sample_index"])
    return [per_component[k][j] for k, j in zip(which, sample)]


def pieces(dataset):
    """For every iteration position, the (document, tokens) pieces of its sample."""
    kinds = {"documents": _documents, "packed": _packed, "megatron_gpt": _megatron_gpt,
             "megatron_blend": _megatron_blend}
    if dataset.get("type") not in kinds:
        raise ValueError("dataset type %r has no documents" % dataset.get("type"))
    return kinds[dataset["type"]](dataset)


def reduce(sample_pieces, scores, how):
    """One sample's value from the scores (indexed by document) of its pieces:
    token_mean  float64 sum of score * tokens in piece order, over the total tokens;
                one piece: its score as it is; with no tokens the plain mean
    min, max    the smallest / largest piece score
    first       the score of the first piece
    A sample without pieces (no tokens) raises ValueError."""
    if not sample_pieces:
        raise ValueError("a sample without pieces has no value")
    values = [float(scores[d]) for d, _ in sample_pieces]
    if how == "token_mean":
        if len(values) == 1:
            return values[0]
        total, tokens = 0.0, 0
        for value, (_, n) in zip(values, sample_pieces):
            total += value * float(n)
            tokens += n
        if tokens == 0:
            return sum(values) / float(len(values))
        return total / float(tokens)
    if how == "min":
        return min(values)
    if how == "max":
        return max(values)
    if how == "first":
        return values[0]
    raise ValueError("unknown reduction %r" % how)


# ---- self-test: made-up files, expected values worked out by hand ----

def write_idx(prefix, sizes):
    """Writes an MMapIndexedDataset pair of uint8 zeros with these row sizes."""
    pointers, offset = [], 0
    for n in sizes:
        pointers.append(offset)
        offset += n
    with open(prefix + ".idx", "wb") as f:
        f.write(IDX_MAGIC + struct.pack("<QBQQ", 1, 1, len(sizes), len(sizes) + 1))
        f.write(struct.pack("<%di" % len(sizes), *sizes))
        f.write(struct.pack("<%dq" % len(sizes), *pointers))
        f.write(struct.pack("<%dq" % (len(sizes) + 1), *range(len(sizes) + 1)))
    with open(prefix + ".bin", "wb") as f:
        f.write(bytes(offset))


def write_npy(path, descr, values, shape=None, version=1):
    """Writes `values` as a .npy array of `descr` ('<f8', '<i2', ...), C order."""
    shape = (len(values),) if shape is None else shape
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, shape)
    prefix = 10 if version == 1 else 12
    header += " " * ((-(prefix + len(header) + 1)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]))
        f.write(struct.pack("<H" if version == 1 else "<I", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), NPY_CODES[descr[1:]]), *values))


def _check(got, expected, what):
    if got != expected:
        raise AssertionError("%s: got %r, expected %r" % (what, got, expected))


def _self_test_pieces(d):
    write_idx(d + "/a", [3, 0, 2])
    write_idx(d + "/empty", [])
    write_idx(d + "/b", [4])
    files = [d + "/a", d + "/empty", d + "/b"]
    _check(pieces({"type": "documents", "prefixes": files}),
           [[(0, 3)], [(1, 0)], [(2, 2)], [(3, 4)]], "documents")
    # 9 tokens, L = 2: windows 0-2, 2-4, 4-6, 6-8; rows [0,3) [3,3) [3,5) [5,9).
    _check(pieces({"type": "packed", "prefixes": files, "seq_length": 2}),
           [[(0, 3)], [(0, 1), (2, 2)], [(2, 1), (3, 2)], [(3, 3)]], "packed")
    _check(pieces({"type": "packed", "prefixes": files, "seq_length": 8}),
           [[(0, 3), (2, 2), (3, 4)]], "packed, one sample")
    # docs/format.md §3.3's example, with int32 / int64 / uint32 maps as Megatron writes them.
    write_idx(d + "/tok", [3, 5, 4])
    write_npy(d + "/m_doc_idx.npy", "<i4", [2, 0, 1])
    write_npy(d + "/m_sample_idx.npy", "<i8", [0, 0, 1, 0, 2, 1], (3, 2), 2)
    write_npy(d + "/m_shuffle_idx.npy", "<u4", [1, 0])
    gpt = {"type": "megatron_gpt", "prefix": d + "/tok", "index_prefix": d + "/m"}
    _check(pieces(gpt), [[(0, 3), (1, 2)], [(2, 4), (0, 1)]], "megatron_gpt")
    # One sample through doc_idx [0 1 0 1]: both rows twice.
    write_npy(d + "/r_doc_idx.npy", "<i8", [0, 1, 0, 1])
    write_npy(d + "/r_sample_idx.npy", "<i8", [0, 1, 3, 3], (2, 2))
    write_npy(d + "/r_shuffle_idx.npy", "<i8", [0])
    _check(pieces({"type": "megatron_gpt", "prefix": d + "/tok", "doc_idx": d + "/r_doc_idx.npy",
                   "sample_idx": d + "/r_sample_idx.npy",
                   "shuffle_idx": d + "/r_shuffle_idx.npy"}),
           [[(0, 2), (1, 5), (0, 3), (1, 4)]], "megatron_gpt, repeated doc_idx entries")


def _self_test_npy(d):
    extremes = {"i1": [-128, 127], "i2": [-32768, 32767], "i4": [-2**31, 2**31 - 1],
                "i8": [-2**63, 2**63 - 1], "u1": [0, 255], "u2": [0, 65535],
                "u4": [0, 2**32 - 1], "u8": [0, 2**64 - 1],
                "f4": [-1.5, 0.25], "f8": [0.1, -1e300]}
    for code, values in extremes.items():
        for order in ("<", "|") if code[1] == "1" else ("<",):
            for version in (1, 2, 3):
                path = "%s/%s%s_%d.npy" % (d, "le" if order == "<" else "na", code, version)
                write_npy(path, order + code, values + [0, 1], version=version)
                _check(read_npy_1d(path), values + [0, 1], path)
    write_npy(d + "/nan.npy", "<f8", [float("nan"), float("inf")])
    nan, inf = read_npy_1d(d + "/nan.npy")
    _check((math.isnan(nan), inf), (True, float("inf")), "non-finite floats")
    write_npy(d + "/2d.npy", "<u2", [1, 2, 3, 4, 5, 6], (3, 2))
    _check(read_npy(d + "/2d.npy"), ((3, 2), [1, 2, 3, 4, 5, 6]), "2-D")
    _expect_error(read_npy_1d, d + "/2d.npy")
    write_npy(d + "/big.npy", "<i4", [1])
    with open(d + "/big.npy", "r+b") as f:
        data = f.read().replace(b"'<i4'", b"'>i4'")
        f.seek(0)
        f.write(data)
    _expect_error(read_npy_1d, d + "/big.npy")


def _expect_error(function, *args):
    try:
        function(*args)
    except ValueError:
        return
    raise AssertionError("%s%r: no ValueError" % (function.__name__, args))


def _self_test_reduce():
    p = [(1, 3), (0, 2)]
    scores = [2.0, 0.5]
    _check(reduce(p, scores, "token_mean"), (0.5 * 3 + 2.0 * 2) / 5, "token_mean")
    _check(reduce(p, scores, "min"), 0.5, "min")
    _check(reduce(p, scores, "max"), 2.0, "max")
    _check(reduce(p, scores, "first"), 0.5, "first")
    _check(reduce([(0, 7)], [3], "token_mean"), 3.0, "integer scores")
    # The sum runs in piece order: 1e16 + 1 rounds back to 1e16 in double, 1 + 1 does not.
    big = [(0, 1), (1, 1), (2, 1)]
    _check(reduce(big, [1e16, 1.0, 1.0], "token_mean"), 1e16 / 3, "order")
    _check(reduce(big, [1.0, 1.0, 1e16], "token_mean"), (1e16 + 2) / 3, "order")
    _check(reduce([(1, 0)], scores, "token_mean"), 0.5, "an empty document")
    _expect_error(reduce, [], scores, "token_mean")
    _expect_error(reduce, p, scores, "median")


def self_test():
    with tempfile.TemporaryDirectory() as d:
        _self_test_pieces(d)
        _self_test_npy(d)
    _self_test_reduce()
    print("score_reference: self-test passed")


def _dataset_of(config_path):
    with open(config_path) as f:
        config = json.load(f)
    return config.get("dataset", config)


def main(argv):
    if argv == ["--self-test"]:
        self_test()
        return 0
    if len(argv) == 2 and argv[0] == "pieces":
        for p in pieces(_dataset_of(argv[1])):
            print(json.dumps([list(x) for x in p]))
        return 0
    if len(argv) == 4 and argv[0] == "reduce":
        scores = read_npy_1d(argv[2])
        for p in pieces(_dataset_of(argv[1])):
            print(repr(reduce(p, scores, argv[3])))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
