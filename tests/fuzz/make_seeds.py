#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: small valid and near-valid inputs.

Usage: tests/fuzz/make_seeds.py OUT_DIR
    (writes OUT_DIR/{idx,npy,config,jsonl,dsconfig,maps}/)

The committed corpus (tests/fuzz/corpus/) started from these seeds and was
then grown by fuzzing and minimized with scripts/fuzz.sh --merge. Inputs are
built from the byte formats of docs/format.md, not copied from
golden files. idx inputs start with the target's options byte (see
idx_fuzz.cc): bits 0-1 code table (0 deepspeed, 1 legacy, 2 megatron), bit 2
allow floats, bits 3-4 the .bin size (0 exact, 1 short, 2 long, 3 half).
"""
import json
import os
import struct
import sys

MAGIC = b"MMIDIDX\x00\x00"


def idx_bytes(code, sizes, itemsize, doc_idx, version=1, pointers=None, rows=None, docs=None):
    if pointers is None:
        pointers, off = [], 0
        for s in sizes:
            pointers.append(off)
            off += s * itemsize
    head = MAGIC + struct.pack("<QBQQ", version, code,
                               len(sizes) if rows is None else rows,
                               len(doc_idx) if docs is None else docs)
    return (head + struct.pack("<%di" % len(sizes), *sizes) +
            struct.pack("<%dq" % len(pointers), *pointers) +
            struct.pack("<%dq" % len(doc_idx), *doc_idx))


def idx_seeds():
    # (table options, code, itemsize) for every dtype of the three tables.
    codes = [(0, c, s) for c, s in [(1, 1), (2, 1), (3, 2), (4, 4), (5, 8), (6, 2), (7, 4), (8, 8)]]
    codes += [(1, 8, 2), (1, 9, 4), (1, 10, 8), (2, 8, 2), (4 | 2, 7, 4), (4 | 1, 6, 8)]
    out = {}
    for opt, code, item in codes:
        out["valid_t%d_c%d" % (opt, code)] = bytes([opt]) + idx_bytes(
            code, [3, 0, 5, 1], item, [0, 2, 4])
    sizes, doc = [2, 4, 1], [0, 1, 3]
    out["empty"] = bytes([0]) + idx_bytes(1, [], 1, [0])
    out["no_doc_idx"] = bytes([0]) + idx_bytes(1, [1, 2], 1, [])
    out["bin_short"] = bytes([1 << 3]) + idx_bytes(4, sizes, 4, doc)
    out["bin_long"] = bytes([2 << 3]) + idx_bytes(4, sizes, 4, doc)
    out["bin_half"] = bytes([3 << 3]) + idx_bytes(4, sizes, 4, doc)
    out["truncated"] = bytes([0]) + idx_bytes(4, sizes, 4, doc)[:-5]
    out["short_header"] = bytes([0]) + MAGIC + b"\x01\x00"
    out["bad_magic"] = bytes([0]) + b"MMIDIDY" + idx_bytes(4, sizes, 4, doc)[7:]
    out["version2"] = bytes([0]) + idx_bytes(4, sizes, 4, doc, version=2)
    out["unknown_code"] = bytes([2]) + idx_bytes(9, sizes, 4, doc)
    out["float_code"] = bytes([2]) + idx_bytes(7, sizes, 4, doc)
    out["negative_size"] = bytes([0]) + idx_bytes(4, [2, -1, 1], 4, doc, pointers=[0, 8, 4])
    out["pointer_gap"] = bytes([0]) + idx_bytes(4, sizes, 4, doc, pointers=[0, 9, 25])
    out["wrong_table"] = bytes([0]) + idx_bytes(8, sizes, 2, doc)  # uint16 pointers, uint64 table
    out["rows_overflow"] = bytes([0]) + idx_bytes(4, sizes, 4, doc, rows=(1 << 62) + 3)
    out["docs_overflow"] = bytes([0]) + idx_bytes(4, sizes, 4, doc, docs=(1 << 61) + 3)
    out["doc_idx_first"] = bytes([0]) + idx_bytes(4, sizes, 4, [1, 2, 3])
    out["doc_idx_decreasing"] = bytes([0]) + idx_bytes(4, sizes, 4, [0, 2, 1])
    out["doc_idx_past_rows"] = bytes([0]) + idx_bytes(4, sizes, 4, [0, 1, 4])
    out["sizes_overflow"] = bytes([0]) + idx_bytes(
        5, [0x7fffffff] * 3, 8, [0], pointers=[0, 0x7fffffff * 8, 0x7fffffff * 16])
    return out


def npy_bytes(descr, shape, data, version=1, fortran="False", header=None, align=64):
    if header is None:
        shape_text = "(%s)" % "".join("%d, " % d for d in shape).rstrip(" ")
        if len(shape) > 1:
            shape_text = "(" + ", ".join(str(d) for d in shape) + ")"
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape_text)
    length_bytes = 2 if version == 1 else 4
    pad = (-(10 + length_bytes - 2 + len(header) + 1)) % align
    text = (header + " " * pad + "\n").encode("latin1")
    fmt = "<H" if version == 1 else "<I"
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack(fmt, len(text)) + text + data


def npy_seeds():
    out = {}
    for descr, fmt in [("<i8", "q"), ("<u8", "Q"), ("<i4", "i"), ("<u4", "I"), ("<i2", "h"),
                       ("<u2", "H"), ("|u1", "B"), ("|i1", "b")]:
        vals = [0, 1, 2, 5, 3, 4][: 6]
        out["v1" + descr.replace("<", "le_").replace("|", "na_")] = npy_bytes(
            descr, [6], struct.pack("<6" + fmt, *vals))
    out["v2_2d"] = npy_bytes("<i4", [2, 3], struct.pack("<6i", 1, 2, 3, 4, 5, 6), version=2)
    out["v3_scalar"] = npy_bytes("<i8", [], struct.pack("<q", 42), version=3)
    out["empty"] = npy_bytes("<i8", [0], b"")
    out["empty_2d"] = npy_bytes("<i8", [3, 0], b"")
    out["u8_big"] = npy_bytes("<u8", [2], struct.pack("<2Q", 1 << 63, 7))
    out["unaligned"] = npy_bytes("<i8", [2], struct.pack("<2q", 9, 8), align=1)
    out["long_suffix"] = npy_bytes("<i8", [2], struct.pack("<2q", 1, 2),
                                   header="{'descr': '<i8', 'fortran_order': False, 'shape': (2L,), }")
    out["fortran"] = npy_bytes("<i8", [2], struct.pack("<2q", 1, 2), fortran="True")
    out["big_endian"] = npy_bytes(">i8", [2], struct.pack(">2q", 1, 2))
    out["float"] = npy_bytes("<f8", [2], struct.pack("<2d", 1, 2))
    out["structured"] = npy_bytes("", [], b"", header="{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }")
    out["truncated"] = npy_bytes("<i8", [4], struct.pack("<3q", 1, 2, 3))
    out["trailing"] = npy_bytes("<i8", [2], struct.pack("<3q", 1, 2, 3))
    out["shape_overflow"] = npy_bytes("<i8", [1 << 40, 1 << 40], b"")
    out["shape_int_not_tuple"] = npy_bytes("<i8", [], b"", header="{'descr': '<i8', 'fortran_order': False, 'shape': (5), }")
    out["extra_key"] = npy_bytes("<i8", [], b"", header="{'descr': '<i8', 'fortran_order': False, 'shape': (), 'x': 1}")
    out["version9"] = npy_bytes("<i8", [1], struct.pack("<q", 1))[:6] + b"\x09\x00" + npy_bytes("<i8", [1], struct.pack("<q", 1))[8:]
    out["header_past_end"] = b"\x93NUMPY\x01\x00\xff\xff{'descr'"
    out["no_magic"] = b"NUMPY\x01\x00"
    return out


def config_seeds(repo):
    out = {}
    for name in sorted(os.listdir(os.path.join(repo, "configs"))):
        if name.endswith(".json"):
            with open(os.path.join(repo, "configs", name), "rb") as f:
                out["configs_" + name[:-5]] = f.read()
    sm = {"dataset": {"type": "synthetic_mod", "num_samples": 100000},
          "metrics": [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
          "output": {"path": "out"}, "map": {"threads": 1, "batch_size": 1024}}
    out["doc_synthetic"] = json.dumps(sm).encode()
    full = {"dataset": {"type": "megatron_gpt", "prefix": "p", "doc_idx": "d.npy",
                        "sample_idx": "s.npy", "shuffle_idx": "h.npy", "seq_length": 8,
                        "dtype_codes": "deepspeed-legacy", "ignore_token_ids": [0, -1],
                        "sample_indices": "ids.npy"},
            "metrics": [{"name": "a.b-c_1", "metric": "seqlen", "plugin": "lib.so",
                         "params": {"x": [1, 2.5, None, True]}}],
            "output": {"path": "o", "dtype_codes": "deepspeed", "chunk_bytes": 64, "fsync": True},
            "map": {"threads": 256, "batch_size": 16777216}}
    out["full_megatron"] = json.dumps(full).encode()
    out["packed_1e7"] = b'{"dataset":{"type":"packed","prefixes":["a","b"],"seq_length":1e7},' \
                        b'"metrics":[{"name":"s","metric":"seqlen"}],"output":{"path":"o"}}'
    out["duplicate_key"] = b'{"dataset":{"type":"synthetic_mod","num_samples":1,"num_samples":2},' \
                           b'"metrics":[{"name":"m","metric":"value"}],"output":{"path":"o"}}'
    out["syntax_error"] = b'{"dataset": {"type": "synthetic_mod",\n  "num_samples": 5,, }}'
    out["unknown_key"] = b'{"dataset":{"type":"synthetic_mod","num_sample":1},"metrics":[],"output":{"path":"o"}}'
    out["bad_name"] = b'{"dataset":{"type":"synthetic_mod","num_samples":1},' \
                      b'"metrics":[{"name":"../x","metric":"value"},{"name":"m","metric":"value"},' \
                      b'{"name":"m","metric":"sum"}],"output":{"path":"o"}}'
    out["wrong_types"] = b'{"dataset":{"type":"synthetic_mod","num_samples":"5","modulus":1.5,' \
                         b'"offset":-9223372036854775808},"metrics":{},"output":[],"map":{"threads":"2"}}'
    out["not_object"] = b'[1, "a", null, {"a": {}}]'
    return out


def jsonl_seeds():
    # The options byte: bit 0 id mode, bits 1-7 the number of rows.
    def opt(rows, ids=False):
        return bytes([rows << 1 | (1 if ids else 0)])
    out = {}
    out["three"] = opt(3) + b'{"score": 1}\n{"score": 2.5, "x": [1, {}]}\n{"score": -3e2}\n'
    out["no_final_newline"] = opt(2) + b'{"score": 1}\r\n{"score": 2}'
    out["ids"] = opt(3, True) + b'{"id": 2, "score": 1}\n{"score": 0, "id": 0}\n{"id": 1, "score": 7}\n'
    out["non_finite"] = opt(3) + b'{"score": NaN}\n{"score": -Infinity, "s": "NaN"}\n{"score": Infinity}\n'
    out["blank_line"] = opt(2) + b'{"score": 1}\n \n{"score": 2}\n'
    out["missing_field"] = opt(1) + b'{"scor": 1}\n'
    out["string_score"] = opt(1) + b'{"score": "1"}\n'
    out["two_objects"] = opt(2) + b'{"score": 1} {"score": 2}\n'
    out["across_lines"] = opt(1) + b'{"score":\n 1}\n'
    out["duplicate_id"] = opt(2, True) + b'{"id": 0, "score": 1}\n{"id": 0, "score": 2}\n'
    out["id_past_end"] = opt(1, True) + b'{"id": 18446744073709551615, "score": 1}\n'
    out["big_numbers"] = opt(3) + b'{"score": 1e308}\n{"score": 9223372036854775808}\n{"score": -0.0}\n'
    out["not_object"] = opt(1) + b'[1, 2]\n'
    return out


def dsconfig_seeds():
    def metric(**extra):
        m = {"index_to_sample_path": "a/m_index_to_sample", "index_to_metric_path": "a/m_index_to_metric",
             "difficulty_type": "value", "clustering_type": "schedule_based",
             "min_difficulty": 8, "max_difficulty": 1024, "schedule_type": "fixed_root",
             "schedule_config": {"total_curriculum_step": 1000, "difficulty_step": 8, "root_degree": 2}}
        m.update(extra)
        return m

    def config(metrics, **top):
        c = {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8,
             "data_efficiency": {"seed": 3, "data_sampling": {"curriculum_learning": {
                 "enabled": True, "curriculum_metrics": metrics}}}}
        c.update(top)
        return json.dumps(c).encode()
    out = {}
    out["root"] = config({"seqlen": metric()})
    out["linear_percentile"] = config({"p": metric(
        difficulty_type="percentile", min_difficulty=1, max_difficulty=100, schedule_type="fixed_linear",
        schedule_config={"total_curriculum_step": 10, "difficulty_step": 1})}, train_iters=20)
    out["discrete"] = config({"d": metric(schedule_type="fixed_discrete", schedule_config={
        "difficulty": [8, 64, 1024], "max_step": [10, 20]})}, gradient_accumulation_steps="auto")
    out["single_cluster"] = config({"s": {"difficulty_type": "value", "clustering_type": "single_cluster",
                                          "min_difficulty": 1, "max_difficulty": 2,
                                          "schedule_type": "fixed_linear",
                                          "schedule_config": {"total_curriculum_step": 1,
                                                              "difficulty_step": 1}}})
    out["legacy"] = json.dumps({"train_batch_size": 8, "curriculum_learning": {
        "enabled": True, "curriculum_type": "seqlen", "min_difficulty": 8, "max_difficulty": 64,
        "schedule_type": "fixed_linear",
        "schedule_config": {"total_curriculum_step": 100, "difficulty_step": 8}}}).encode()
    out["batches"] = json.dumps({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2,
                                 "data_efficiency": {"seed": 7, "data_sampling": {"dynamic_batching": {
                                     "enabled": True, "max_tokens": 4096, "min_batch_size": 1,
                                     "max_batch_size": 16, "sequence_picking_order": "random",
                                     "lr_scaling_method": "sqrt", "metrics_path": "analysis"}}}}).encode()
    out["typo"] = config({"seqlen": metric(schedule_typ="fixed_root")})
    out["huge"] = config({"m": metric(min_difficulty=-9223372036854775808, max_difficulty=9223372036854775807,
                                      schedule_config={"total_curriculum_step": 1, "difficulty_step": 3,
                                                       "root_degree": 0.001})}, train_iters=9223372036854775807)
    out["not_object"] = b'[]'
    out["syntax_error"] = b'{"train_batch_size": 8,,}'
    return out


def maps_seeds():
    # Options byte (seq_length), the uint16 sizes of doc_idx and sample_idx, then the three .npy files.
    def maps(seq, doc, sample, shuffle, doc_descr="<i4", shuffle_descr="<u4"):
        d = npy_bytes(doc_descr, [len(doc)], struct.pack("<%d%s" % (len(doc), doc_descr[-2] == "i" and "i" or "I"), *doc))
        flat = [x for row in sample for x in row]
        s = npy_bytes("<i4", [len(sample), 2], struct.pack("<%di" % len(flat), *flat))
        h = npy_bytes(shuffle_descr, [len(shuffle)], struct.pack("<%dI" % len(shuffle), *shuffle))
        return bytes([seq]) + struct.pack("<HH", len(d), len(s)) + d + s + h
    # Rows have 3 1 4 1 5 9 2 6 tokens (maps_fuzz.cc).
    out = {}
    out["seq4"] = maps(4, [0, 1, 2, 3, 4, 5, 6, 7], [[0, 0], [2, 0], [3, 0], [4, 3], [5, 2], [5, 6]],
                       [4, 0, 3, 1, 2])
    out["no_seq"] = maps(0, [7, 6, 5], [[0, 0], [0, 5], [2, 0], [2, 8]], [2, 1, 0])
    out["epochs"] = maps(3, [1, 0, 1, 0, 2], [[0, 0], [1, 2], [3, 1], [4, 1]], [0, 2, 1])
    out["offset_past_row"] = maps(0, [0, 1], [[0, 0], [1, 1]], [0])
    out["backwards"] = maps(0, [0, 1, 2], [[0, 0], [2, 1], [1, 0]], [0, 1])
    out["shuffle_out_of_range"] = maps(0, [0, 1, 2], [[0, 0], [2, 1]], [1])
    out["doc_idx_not_a_row"] = maps(0, [0, 8], [[0, 0], [1, 0]], [0])
    out["int64_doc_idx"] = maps(0, [2, 3], [[0, 0], [1, 0]], [0], doc_descr="<i8")
    out["empty"] = b"\x00\x00\x00\x00\x00"
    return out


def main():
    root = sys.argv[1]
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    for target, seeds in [("idx", idx_seeds()), ("npy", npy_seeds()), ("config", config_seeds(repo)),
                         ("jsonl", jsonl_seeds()), ("dsconfig", dsconfig_seeds()),
                         ("maps", maps_seeds())]:
        os.makedirs(os.path.join(root, target), exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(root, target, "seed_" + name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
