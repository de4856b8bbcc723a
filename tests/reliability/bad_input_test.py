#!/usr/bin/env python3
"""The bad-input suite: one malformed input per case, each run under mpiexec.

Every case builds a small input that is valid except for one defect, runs
`mpiexec -n 2 $DSANALYZE --config CONFIG` in its own folder, and asserts:

  (a) the exit code is the documented one: 2 for bad input (3 only where a
      case says why it is a genuine I/O failure);
  (b) stderr holds exactly one error line, "dsanalyze: error: <message>", and
      the message contains the case's substrings: the offending file or config
      key and a word for the problem. An "error line" is any stderr or stdout
      line that starts with "dsanalyze: error:" or mentions error, fatal,
      abort, exception, terminate, assert, segmentation, signal or core dump
      in any case (MPICH's abort banner, a second rank's error, a crash report
      all match); besides it, stderr may hold only the logger's info, debug
      or warning lines ("[hh:mm:ss.mmm] [info] ...");
  (c) mpiexec returns within 10 s (run under `timeout 10`), and within those
      10 s no process whose command line holds the case's config path is
      left;
  (d) nothing in the case folder changed: the save path, pre-populated with
      a previous good run's results plus unrelated user files (one hidden),
      and the inputs are compared by a snapshot (every entry including hidden
      ones, its type and mode, sha256 of every file, symlink targets) taken
      before and after the run.

Usage:
  bad_input_test.py list                 the case names, one per line
  bad_input_test.py setup WORKDIR        shared inputs + the good run (once)
  bad_input_test.py case NAME WORKDIR    one case (needs setup first)
Environment: MPIEXEC, DSANALYZE; the test plugins PLUGIN_FAULTY, PLUGIN_BAD_ABI,
PLUGIN_NO_REGISTER, PLUGIN_BAD_TABLE, PLUGIN_EXAMPLE.
"""
import hashlib
import json
import os
import random
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time

NP = 2
DEADLINE_S = 10.0
VOCAB = 1000  # vocab_size of the base config; generated tokens stay below it
SEQ_LENGTH = 16  # megatron_gpt / packed sequence length

# ---------------------------------------------------------------------------
# Writers for the input formats (docs/format.md §1 and §3).

MEGATRON_CODES = {"u8": 1, "i8": 2, "i16": 3, "i32": 4, "i64": 5, "f64": 6, "f32": 7, "u16": 8}
FMT = {"u8": "B", "i8": "b", "i16": "h", "i32": "i", "i64": "q", "u16": "H"}


def idx_bytes(sizes, itemsize, code, pointers=None, doc_idx=None, magic=b"MMIDIDX\x00\x00",
              version=1, row_count=None, doc_count=None):
    """An MMapIndexedDataset .idx; every field may be overridden to corrupt it."""
    if pointers is None:
        pointers, at = [], 0
        for s in sizes:
            pointers.append(at)
            at += s * itemsize
    if doc_idx is None:
        doc_idx = [0, len(sizes)]
    out = magic + struct.pack("<Q", version) + bytes([code])
    out += struct.pack("<QQ", len(sizes) if row_count is None else row_count,
                       len(doc_idx) if doc_count is None else doc_count)
    out += struct.pack("<%di" % len(sizes), *sizes)
    out += struct.pack("<%dq" % len(pointers), *pointers)
    out += struct.pack("<%dq" % len(doc_idx), *doc_idx)
    return out


def write_tokens(prefix, rows, dtype="u16", **idx_overrides):
    """Writes PREFIX.idx/.bin holding `rows` (lists of ints) with Megatron's codes."""
    with open(prefix + ".bin", "wb") as f:
        for r in rows:
            f.write(struct.pack("<%d%s" % (len(r), FMT[dtype]), *r))
    itemsize = struct.calcsize(FMT[dtype])
    sizes = idx_overrides.pop("sizes", [len(r) for r in rows])
    code = idx_overrides.pop("code", MEGATRON_CODES[dtype])
    with open(prefix + ".idx", "wb") as f:
        f.write(idx_bytes(sizes, itemsize, code, **idx_overrides))


def npy_bytes(values, descr="<i8", shape=None, fortran=False, header=None):
    """A NumPy 1.0 .npy of little-endian integers (or the given raw header)."""
    if shape is None:
        shape = (len(values),)
    fmt = {"<i8": "<%dq", "<i4": "<%di", "<u8": "<%dQ", "<f8": "<%dd", ">i8": ">%dq",
           "<f4": "<%df", "<f2": "<%de"}[descr]
    data = struct.pack(fmt % len(values), *values)
    if header is None:
        shape_text = "(%s)" % ("%d," % shape[0] if len(shape) == 1 else
                               ", ".join(str(d) for d in shape))
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
            descr, "True" if fortran else "False", shape_text)
    header = header.encode("latin1")
    pad = 64 - (10 + len(header) + 1) % 64
    header += b" " * (pad % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def write_file(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def base_rows(seed=7, count=60):
    rng = random.Random(seed)
    return [[rng.randrange(VOCAB) for _ in range(rng.randrange(4, 24))] for _ in range(count)]


def gpt_maps(sizes, seq_length, seed=1234):
    """doc_idx, sample_idx (flat pairs) and shuffle_idx as Megatron's builder makes them."""
    doc_idx = list(range(len(sizes)))
    random.Random(seed).shuffle(doc_idx)
    total = sum(sizes)
    num_samples = (total - 1) // seq_length
    sample_idx = [0, 0]
    pos, offset = 0, 0
    for _ in range(num_samples):
        remaining = seq_length + 1
        while remaining != 0:
            length = sizes[doc_idx[pos]] - offset
            remaining -= length
            if remaining <= 0:
                offset += remaining + length - 1
                remaining = 0
            else:
                pos += 1
                offset = 0
        sample_idx += [pos, offset]
    shuffle = list(range(num_samples))
    random.Random(seed + 1).shuffle(shuffle)
    return doc_idx, sample_idx, shuffle


# ---------------------------------------------------------------------------
# The cases. Each builds its inputs in `d` (its own folder) from the shared
# ones in `shared`, and returns (config, expected exit code, substrings of the
# error message). config is a dict (written as JSON) or a str (written as is).


class Ctx:
    def __init__(self, case_dir, shared):
        self.d = case_dir
        self.shared = shared

    def p(self, name):
        return os.path.join(self.d, name)

    @property
    def tok(self):
        return os.path.join(self.shared, "tok")

    @property
    def save(self):
        return self.p("save")

    def documents(self, prefix=None, **extra):
        ds = {"type": "documents", "prefixes": [prefix or self.tok]}
        ds.update(extra)
        return ds

    def config(self, dataset=None, metrics=None, output=None, **top):
        c = {"dataset": dataset or self.documents(),
             "metrics": metrics if metrics is not None else BASE_METRICS,
             "output": output or {"path": self.save},
             "map": {"threads": 2, "batch_size": 16}}
        c.update(top)
        return c

    def gpt(self, **paths):
        """A megatron_gpt dataset over the shared maps; override any map path."""
        ds = {"type": "megatron_gpt", "prefix": self.tok, "seq_length": SEQ_LENGTH,
              "doc_idx": os.path.join(self.shared, "gpt_doc_idx.npy"),
              "sample_idx": os.path.join(self.shared, "gpt_sample_idx.npy"),
              "shuffle_idx": os.path.join(self.shared, "gpt_shuffle_idx.npy")}
        ds.update(paths)
        return ds

    def shared_maps(self):
        with open(os.path.join(self.shared, "gpt_maps.json")) as f:
            return json.load(f)

    def copy_tok(self, name="tok"):
        for ext in (".idx", ".bin"):
            shutil.copyfile(self.tok + ext, self.p(name + ext))
        return self.p(name)


BASE_METRICS = [{"name": "seqlen", "metric": "seqlen"},
                {"name": "vocab", "metric": "total_vocab_freq", "params": {"vocab_size": VOCAB}}]

CASES = {}


class ExistingConfig:
    """A case's --config path used as is (nothing is written there)."""

    def __init__(self, path):
        self.path = path


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# --- config -----------------------------------------------------------------

@case
def config_file_is_a_fifo(c):
    os.mkfifo(c.p("run.json"))
    return ExistingConfig(c.p("run.json")), 2, [
        "the config file", "run.json", "not a regular file (a FIFO"]


@case
def config_syntax_error(c):
    text = json.dumps(c.config(), indent=1).replace('"metrics":', '"metrics"', 1)
    return text, 2, ["config.json:", "invalid JSON"]


@case
def config_empty_file(c):
    return "", 2, ["config.json:", "invalid JSON"]


@case
def config_not_an_object(c):
    return "[1, 2, 3]", 2, ["config", "object"]


@case
def config_duplicate_key(c):
    text = '{"output": {"path": "%s", "path": "%s"}, "dataset": %s, "metrics": %s}' % (
        c.save, c.save, json.dumps(c.documents()), json.dumps(BASE_METRICS))
    return text, 2, ["config.json", 'key "path"', "twice"]


@case
def config_unknown_top_key(c):
    return c.config(metric=[]), 2, ['unknown key "metric"']


@case
def config_misspelt_key(c):
    cfg = c.config()
    cfg["map"] = {"thread": 2}
    return cfg, 2, ["config: map", 'unknown key "thread"', '"threads"']


@case
def config_missing_output(c):
    cfg = c.config()
    del cfg["output"]
    return cfg, 2, ["output", "required key is missing"]


@case
def config_missing_dataset_type(c):
    ds = c.documents()
    del ds["type"]
    return c.config(dataset=ds), 2, ["dataset.type", "required key is missing"]


@case
def config_unknown_dataset_type(c):
    return c.config(dataset=c.documents(type="document")), 2, [
        "dataset.type", 'unknown dataset type "document"']


@case
def config_key_of_other_type(c):
    return c.config(dataset=c.documents(seq_length=8)), 2, [
        "dataset", '"seq_length" does not apply to type "documents"']


@case
def config_threads_string(c):
    cfg = c.config()
    cfg["map"]["threads"] = "2"
    return cfg, 2, ["map.threads", "expected", '"2"']


@case
def config_threads_out_of_range(c):
    cfg = c.config()
    cfg["map"]["threads"] = 1000
    return cfg, 2, ["map.threads", "1000"]


@case
def config_batch_size_fraction(c):
    cfg = c.config()
    cfg["map"]["batch_size"] = 1.5
    return cfg, 2, ["map.batch_size", "1.5"]


@case
def config_chunk_bytes_too_small(c):
    return c.config(output={"path": c.save, "chunk_bytes": 8}), 2, ["output.chunk_bytes", "8"]


@case
def config_total_curriculum_step_zero(c):
    return (c.config(output={"path": c.save, "total_curriculum_step": 0}), 2,
            ["output.total_curriculum_step", "positive integer", "0"])


def output_files(c, files):
    return c.config(output={"path": c.save, "files": files})


@case
def config_output_files_unknown(c):
    return output_files(c, ["index_to_sampel", "reports"]), 2, [
        "output.files", 'unknown output "index_to_sampel"', 'did you mean "index_to_sample"']


@case
def config_output_files_duplicate(c):
    return output_files(c, ["reports", "metric_value", "reports"]), 2, [
        "output.files", '"reports" is listed twice']


@case
def config_output_files_empty(c):
    return output_files(c, []), 2, ["output.files", "non-empty array"]


@case
def config_output_files_percentile_alone(c):
    return output_files(c, ["percentile_merged", "reports"]), 2, [
        "output.files", '"percentile_merged" needs "index_to_sample"']


@case
def config_output_files_no_reports(c):
    return output_files(c, ["index_to_sample"]), 2, ["output.files", '"reports" is required']


def memory(c, **section):
    return c.config(memory=section)


@case
def memory_limit_not_a_size(c):
    return memory(c, limit_per_rank="2 gigs"), 2, [
        "memory.limit_per_rank", '"2 gigs" is not a size', '"2GiB"']


@case
def memory_limit_too_small(c):
    return memory(c, limit_per_rank="10MiB"), 2, [
        "memory.limit_per_rank", '"10MiB" is below the minimum of 64MiB']


@case
def memory_limit_negative(c):
    return memory(c, limit_per_rank=-5), 2, ["memory.limit_per_rank", "-5 is not a size"]


@case
def memory_unknown_key(c):
    return memory(c, limit="2GiB"), 2, [
        "config: memory:", 'unknown key "limit"', 'did you mean "limit_per_rank"']


@case
def memory_scratch_without_limit(c):
    return memory(c, scratch="/tmp"), 2, [
        "memory.scratch", "is set but memory.limit_per_rank is not"]


@case
def memory_scratch_missing_dir(c):
    # Checked at run start, on every rank, before the save path is touched.
    # A missing directory whose parent exists is created (as mkdir would).
    missing = c.p("no_such_dir/scratch")
    return memory(c, limit_per_rank="1GiB", scratch=missing), 2, [
        "config: memory.scratch: scratch " + missing, "No such file or directory"]


@case
def memory_scratch_is_file(c):
    write_file(c.p("a_file"), "not a directory\n")
    return memory(c, limit_per_rank="1GiB", scratch=c.p("a_file")), 2, [
        "config: memory.scratch: scratch " + c.p("a_file"), "not a directory"]


@case
def memory_scratch_inside_save_path(c):
    # An existing, writable folder of the save path: refused as such, not probed.
    inside = os.path.join(c.save, "seqlen")
    return memory(c, limit_per_rank="1GiB", scratch=inside), 2, [
        "config: memory.scratch: " + inside + " is inside the save path " + c.save,
        "never the save path"]


@case
def config_dataset_key_of_other_type(c):
    docs = dict(c.documents())
    docs["prefix"] = docs.pop("prefixes")[0]
    return c.config(dataset=docs), 2, ['"prefix" does not apply', 'did you mean "prefixes"']


@case
def config_output_megatron_codes(c):
    return c.config(output={"path": c.save, "dtype_codes": "megatron"}), 2, [
        "output.dtype_codes", "cannot be written"]


@case
def config_unknown_code_table(c):
    return c.config(dataset=c.documents(dtype_codes="megatorn")), 2, [
        "dataset.dtype_codes", 'unknown table "megatorn"']


@case
def config_packed_missing_seq_length(c):
    return c.config(dataset={"type": "packed", "prefixes": [c.tok]}), 2, [
        "dataset.seq_length", "required key is missing"]


@case
def config_gpt_prefix_and_paths(c):
    ds = c.gpt()
    ds["index_prefix"] = c.p("maps")
    return c.config(dataset=ds), 2, ["dataset", '"index_prefix"', "not both"]


@case
def config_empty_prefixes(c):
    return c.config(dataset={"type": "documents", "prefixes": []}), 2, [
        "dataset.prefixes", "non-empty"]


@case
def config_output_path_is_a_file(c):
    # The save path is a user's regular file: refused before anything is written.
    path = os.path.join(c.save, "notes.txt")
    return c.config(output={"path": path}), 2, ["notes.txt", "not a directory"]


@case
def config_output_path_under_a_file(c):
    # A parent of the save path is a user's regular file.
    path = os.path.join(c.save, "notes.txt", "results")
    return c.config(output={"path": path}), 2, ["notes.txt", "not a directory"]


@case
def config_output_path_dangling_link(c):
    # The save path is a symbolic link to nothing: refused before anything is
    # written, in its own words (not "cannot list" at the commit).
    os.symlink(c.p("nowhere"), c.p("link"))
    return c.config(output={"path": c.p("link")}), 2, [
        "output.path", "link is a symbolic link to " + c.p("nowhere"), "does not exist"]


# A NUL cuts a path where it reaches the system: "o\u0000/../save" would name
# "o" to the system and "save" to std::filesystem. Any config string holding
# one is refused, naming its key.

@case
def config_output_path_with_nul(c):
    return c.config(output={"path": c.p("o") + "\0/../save"}), 2, [
        "output.path", "holds a NUL character", "at byte %d" % len(c.p("o"))]


@case
def config_prefix_with_nul(c):
    return c.config(dataset=c.documents(c.tok + "\0.other")), 2, [
        "dataset.prefixes[0]", "holds a NUL character"]


@case
def memory_scratch_with_nul(c):
    return memory(c, limit_per_rank="1GiB", scratch=c.d + "\0/elsewhere"), 2, [
        "memory.scratch", "holds a NUL character"]


@case
def plugin_path_with_nul(c):
    so = plugin("PLUGIN_EXAMPLE")
    return c.config(metrics=[{"name": "m", "plugin": so + "\0.txt", "metric": "x"}]), 2, [
        "metrics[0].plugin", "holds a NUL character"]


@case
def score_file_with_nul(c):
    return score_metric(c, c.p("q.npy") + "\0"), 2, ["params.file", "holds a NUL character"]


@case
def config_file_missing(c):
    return ExistingConfig(c.p("absent.json")), 2, ["config file", "absent.json", "not found"]


@case
def config_file_is_a_directory(c):
    os.mkdir(c.p("run.json"))
    return ExistingConfig(c.p("run.json")), 2, ["run.json", "directory"]


@case
def config_metric_entry_not_an_object(c):
    return c.config(metrics=["seqlen"]), 2, ["metrics[0]", "expected a JSON object"]


@case
def config_ignore_token_ids_not_integers(c):
    return c.config(dataset=c.documents(ignore_token_ids=["0"])), 2, [
        "dataset.ignore_token_ids[0]", "expected an integer"]


# --- metrics ----------------------------------------------------------------

@case
def metric_name_with_slash(c):
    return c.config(metrics=[{"name": "a/b", "metric": "seqlen"}]), 2, [
        "metrics[0].name", '"a/b"', "not a safe file name"]


@case
def metric_name_dotdot(c):
    return c.config(metrics=[{"name": "..", "metric": "seqlen"}]), 2, [
        "metrics[0].name", '".."', "not a safe file name"]


@case
def metric_name_is_a_user_folder(c):
    # save/user_dir is a user's folder without metric files: a rerun replaces the
    # previous analysis, never a user's entry, so a metric of that name is refused.
    return c.config(metrics=[{"name": "user_dir", "metric": "seqlen"}]), 2, [
        "output.path", "user_dir exists and is not a metric folder", "metric user_dir"]


@case
def metric_name_is_a_user_file(c):
    return c.config(metrics=[{"name": "notes.txt", "metric": "seqlen"}]), 2, [
        "output.path", "notes.txt exists and is not a metric folder"]


@case
def metric_name_duplicate(c):
    return c.config(metrics=[{"name": "seqlen", "metric": "seqlen"},
                             {"name": "seqlen", "metric": "seqlen"}]), 2, [
        "metrics[1].name", '"seqlen"', "already the name of metrics[0]"]


@case
def metric_unknown(c):
    return c.config(metrics=[{"name": "seqlen", "metric": "seqlenn"}]), 2, [
        "metrics[0].metric", '"seqlenn"', "unknown"]


@case
def metric_unknown_param(c):
    return c.config(metrics=[{"name": "vocab", "metric": "total_vocab_freq",
                              "params": {"vocab_size": VOCAB, "vocab_sise": 1}}]), 2, [
        "metrics[0].params", 'unknown key "vocab_sise"']


@case
def metric_missing_param(c):
    return c.config(metrics=[{"name": "vocab", "metric": "total_vocab_freq"}]), 2, [
        "metrics[0].params.vocab_size", "required"]


@case
def metric_vocab_size_over_limit(c):
    return c.config(metrics=[{"name": "vocab", "metric": "total_vocab_freq",
                              "params": {"vocab_size": 2**28 + 1}}]), 2, [
        "metrics[0].params.vocab_size", "must be between 1 and 268435456, got 268435457"]


@case
def metric_rarity_freq_file_missing(c):
    missing = c.p("old/vocab/vocab_metric_value")
    return c.config(metrics=[{"name": "rarity", "metric": "vocab_rarity",
                              "params": {"vocab_size": VOCAB, "total_vocab_freq": missing}}]), 2, [
        "vocab_metric_value.idx", "not found"]


@case
def metric_token_out_of_vocab(c):
    # Found while mapping, after the staging directory exists: it must vanish.
    rows = base_rows()
    rows[41][2] = VOCAB + 500
    write_tokens(c.p("tok"), rows)
    return c.config(dataset=c.documents(c.p("tok"))), 2, [
        'metric "vocab"', "sample 41", "token 1500", "outside the vocabulary"]


@case
def metric_seq_length_too_small(c):
    return c.config(metrics=[{"name": "slr", "metric": "seqlen_vocab_rarity",
                              "params": {"vocab_size": VOCAB, "seq_length": 5}}]), 2, [
        'metric "slr"', "more than params.seq_length 5"]


@case
def metric_value_of_multi_token_sample(c):
    return c.config(metrics=[{"name": "v", "metric": "value"}]), 2, [
        'metric "v"', "sample 0"]


@case
def metric_ngram_n_zero(c):
    return c.config(metrics=[{"name": "rep", "metric": "repeated_ngram_ratio",
                              "params": {"n": 0}}]), 2, [
        "metrics[0].params.n", "expected a positive integer, got 0"]


@case
def metric_token_quality_scale_zero(c):
    return c.config(metrics=[{"name": "seqlen", "metric": "seqlen"},
                             {"name": "uniq", "metric": "unique_token_ratio",
                              "params": {"scale": 0}}]), 2, [
        "metrics[1].params.scale", "expected a positive integer, got 0"]


@case
def metric_token_quality_scale_string(c):
    return c.config(metrics=[{"name": "ent", "metric": "token_entropy",
                              "params": {"scale": "1000"}}]), 2, [
        "metrics[0].params.scale", 'expected a positive integer, got "1000"']


@case
def metric_token_quality_unknown_param(c):
    return c.config(metrics=[{"name": "rep", "metric": "repeated_ngram_ratio",
                              "params": {"n": 2, "ngram": 3}}]), 2, [
        "metrics[0].params", 'unknown key "ngram"']


# --- token datasets -----------------------------------------------------------

@case
def tokens_missing_prefix(c):
    return c.config(dataset=c.documents(c.p("nothing"))), 2, [
        "dataset.prefixes[0]", "nothing.idx", "not found"]


@case
def tokens_missing_bin(c):
    prefix = c.copy_tok()
    os.remove(prefix + ".bin")
    return c.config(dataset=c.documents(prefix)), 2, ["tok.bin", "not found"]


@case
def tokens_prefix_with_suffix(c):
    return c.config(dataset=c.documents(c.tok + ".idx")), 2, [
        "tok.idx", "without .idx or .bin"]


@case
def tokens_idx_is_a_directory(c):
    prefix = c.copy_tok()
    os.remove(prefix + ".idx")
    os.mkdir(prefix + ".idx")
    return c.config(dataset=c.documents(prefix)), 2, ["tok.idx", "not a regular file"]


@case
def tokens_idx_is_a_fifo(c):
    # Opened for reading, a FIFO waits for a writer: in the kernel, past
    # SIGTERM. It must be refused before it is opened that way.
    prefix = c.copy_tok()
    os.remove(prefix + ".idx")
    os.mkfifo(prefix + ".idx")
    return c.config(dataset=c.documents(prefix)), 2, [
        "dataset.prefixes[0]", "tok.idx", "not a regular file (a FIFO"]


@case
def tokens_truncated_bin(c):
    prefix = c.copy_tok()
    size = os.path.getsize(prefix + ".bin")
    os.truncate(prefix + ".bin", size - 7)
    return c.config(dataset=c.documents(prefix)), 2, ["tok.bin", "too short"]


@case
def tokens_bin_too_long(c):
    prefix = c.copy_tok()
    with open(prefix + ".bin", "ab") as f:
        f.write(b"\0\0")
    return c.config(dataset=c.documents(prefix)), 2, ["tok.bin", "too long"]


@case
def tokens_sizes_past_bin(c):
    # The last row's size grows (its pointer stays right): the sizes now sum
    # past the end of the unchanged .bin.
    rows = base_rows()
    sizes = [len(r) for r in rows]
    sizes[-1] += 5
    write_tokens(c.p("tok"), rows, sizes=sizes)
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.bin", "too short"]


@case
def tokens_idx_counts_overflow(c):
    # The row count claims 2^61 rows: 12 * rows overflows uint64.
    write_tokens(c.p("tok"), base_rows(), row_count=1 << 61)
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "size mismatch"]


@case
def tokens_doc_count_overflow(c):
    write_tokens(c.p("tok"), base_rows(), doc_count=(1 << 64) - 1)
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "size mismatch"]


@case
def tokens_truncated_idx(c):
    prefix = c.copy_tok()
    os.truncate(prefix + ".idx", os.path.getsize(prefix + ".idx") - 100)
    return c.config(dataset=c.documents(prefix)), 2, ["tok.idx", "size mismatch"]


@case
def tokens_idx_shorter_than_header(c):
    write_file(c.p("tok.idx"), b"MMIDIDX\x00\x00\x01\x00")
    shutil.copyfile(c.tok + ".bin", c.p("tok.bin"))
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "shorter than the"]


@case
def tokens_negative_size(c):
    rows = base_rows()
    sizes = [len(r) for r in rows]
    sizes[3] = -2
    write_tokens(c.p("tok"), rows, sizes=sizes)
    return c.config(dataset=c.documents(c.p("tok"))), 2, [
        "tok.idx", "row 3 has negative size -2"]


@case
def tokens_bad_pointer(c):
    rows = base_rows()
    pointers, at = [], 0
    for r in rows:
        pointers.append(at)
        at += 2 * len(r)
    pointers[10] += 2
    write_tokens(c.p("tok"), rows, pointers=pointers)
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "pointer of row 10"]


@case
def tokens_unknown_dtype_code(c):
    write_tokens(c.p("tok"), base_rows(), code=42)
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "unknown dtype code 42"]


@case
def tokens_float_dtype(c):
    # Code 7 is float32 in Megatron's table: 4-byte elements, not tokens.
    write_tokens(c.p("tok"), base_rows(), dtype="i32", code=7)
    return c.config(dataset=c.documents(c.p("tok"))), 2, [
        "tok.idx", "float32", "integer dtype is required"]


@case
def tokens_wrong_code_table(c):
    # Megatron's uint16 code 8 read with DeepSpeed's table (uint64).
    return c.config(dataset=c.documents(dtype_codes="deepspeed")), 2, [
        "tok.idx", "dtype code table is probably wrong",
        "dataset.dtype_codes megatron reads it as uint16"]


@case
def tokens_wrong_magic(c):
    write_tokens(c.p("tok"), base_rows(), magic=b"TNTIDX\x00\x00\x00")
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "bad magic"]


@case
def tokens_wrong_version(c):
    write_tokens(c.p("tok"), base_rows(), version=2)
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "unsupported version 2"]


@case
def tokens_doc_idx_out_of_range(c):
    write_tokens(c.p("tok"), base_rows(), doc_idx=[0, 30, 99])
    return c.config(dataset=c.documents(c.p("tok"))), 2, ["tok.idx", "doc_idx[2] = 99"]


@case
def tokens_empty_dataset(c):
    write_tokens(c.p("empty"), [], doc_idx=[0])
    return c.config(dataset=c.documents(c.p("empty"))), 2, ["dataset.prefixes", "no rows"]


@case
def tokens_mixed_dtypes(c):
    write_tokens(c.p("wide"), base_rows(seed=8, count=5), dtype="i32")
    ds = c.documents()
    ds["prefixes"].append(c.p("wide"))
    return c.config(dataset=ds), 2, ["dataset.prefixes", "wide.idx", "one dtype"]


@case
def packed_too_few_tokens(c):
    return c.config(dataset={"type": "packed", "prefixes": [c.tok], "seq_length": 100000}), 2, [
        "dataset.prefixes", "tokens"]


# --- .npy index maps (megatron_gpt) -------------------------------------------

def write_map(c, name, values, **kw):
    path = c.p(name + ".npy")
    write_file(path, npy_bytes(values, **kw))
    return path


@case
def gpt_map_missing(c):
    return c.config(dataset=c.gpt(doc_idx=c.p("absent_doc_idx.npy"))), 2, [
        "dataset.doc_idx", "absent_doc_idx.npy", "not found"]


@case
def gpt_map_float_descr(c):
    m = c.shared_maps()
    path = write_map(c, "shuffle", [float(v) for v in m["shuffle_idx"]], descr="<f8")
    return c.config(dataset=c.gpt(shuffle_idx=path)), 2, [
        "dataset.shuffle_idx", "shuffle.npy", "not an integer dtype"]


@case
def gpt_map_big_endian(c):
    m = c.shared_maps()
    path = write_map(c, "doc", m["doc_idx"], descr=">i8")
    return c.config(dataset=c.gpt(doc_idx=path)), 2, [
        "dataset.doc_idx", "doc.npy", "little-endian"]


@case
def gpt_map_fortran_order(c):
    m = c.shared_maps()
    rows = len(m["sample_idx"]) // 2
    path = write_map(c, "sample", m["sample_idx"], shape=(rows, 2), fortran=True)
    return c.config(dataset=c.gpt(sample_idx=path)), 2, [
        "dataset.sample_idx", "sample.npy", "fortran"]


@case
def gpt_map_truncated(c):
    m = c.shared_maps()
    path = write_map(c, "doc", m["doc_idx"])
    os.truncate(path, os.path.getsize(path) - 12)
    return c.config(dataset=c.gpt(doc_idx=path)), 2, ["dataset.doc_idx", "doc.npy", "bytes"]


@case
def gpt_map_wrong_shape(c):
    m = c.shared_maps()
    path = write_map(c, "sample", m["sample_idx"])  # 1-D instead of (n + 1, 2)
    return c.config(dataset=c.gpt(sample_idx=path)), 2, [
        "dataset.sample_idx", "sample.npy", "shape"]


@case
def gpt_map_row_out_of_range(c):
    m = c.shared_maps()
    doc = list(m["doc_idx"])
    doc[4] = 60 + 9  # the dataset has 60 rows
    path = write_map(c, "doc", doc)
    return c.config(dataset=c.gpt(doc_idx=path)), 2, [
        "dataset.doc_idx", "doc.npy", "doc_idx[4] = 69"]


@case
def gpt_map_shuffle_out_of_range(c):
    m = c.shared_maps()
    shuffle = list(m["shuffle_idx"])
    shuffle[2] = len(shuffle) + 3
    path = write_map(c, "shuffle", shuffle)
    return c.config(dataset=c.gpt(shuffle_idx=path)), 2, [
        "dataset.shuffle_idx", "shuffle.npy", "shuffle_idx[2]"]


@case
def gpt_map_offset_outside_row(c):
    m = c.shared_maps()
    sample = list(m["sample_idx"])
    sample[2 * 3 + 1] = 5000  # sample_idx[3] = (pos, 5000)
    rows = len(sample) // 2
    path = write_map(c, "sample", sample, shape=(rows, 2))
    return c.config(dataset=c.gpt(sample_idx=path)), 2, [
        "dataset.sample_idx", "sample.npy", "sample_idx[3]", "offset 5000 is outside row"]


@case
def gpt_map_not_npy(c):
    path = c.p("doc.npy")
    write_file(path, "0 1 2 3\n")
    return c.config(dataset=c.gpt(doc_idx=path)), 2, [
        "dataset.doc_idx", "doc.npy", "not a .npy file"]


@case
def gpt_map_header_garbage(c):
    m = c.shared_maps()
    path = write_map(c, "doc", m["doc_idx"], header="descr = '<i8'")
    return c.config(dataset=c.gpt(doc_idx=path)), 2, [
        "dataset.doc_idx", "doc.npy", "header"]


@case
def gpt_wrong_seq_length(c):
    ds = c.gpt()
    ds["seq_length"] = SEQ_LENGTH + 1
    return c.config(dataset=ds), 2, [
        "dataset.sample_idx", "gpt_sample_idx.npy", "has 17 tokens", "seq_length + 1 = 18"]


# --- sample_indices -----------------------------------------------------------

def sample_count(c):
    with open(os.path.join(c.shared, "tok.idx"), "rb") as f:
        return struct.unpack("<Q", f.read(26)[18:26])[0]


@case
def sample_indices_wrong_length(c):
    n = sample_count(c)
    path = write_map(c, "ids", list(range(n - 1)))
    return c.config(dataset=c.documents(sample_indices=path)), 2, [
        "dataset.sample_indices", "ids.npy", "%d ids for %d samples" % (n - 1, n)]


@case
def sample_indices_duplicates(c):
    ids = list(range(sample_count(c)))
    ids[9] = ids[4]
    path = write_map(c, "ids", ids)
    return c.config(dataset=c.documents(sample_indices=path)), 2, [
        "dataset.sample_indices", "ids.npy", "id 4 appears twice, at positions 4 and 9"]


@case
def sample_indices_2d(c):
    n = sample_count(c)
    path = write_map(c, "ids", list(range(n)), shape=(n // 2, 2))
    return c.config(dataset=c.documents(sample_indices=path)), 2, [
        "dataset.sample_indices", "ids.npy", "1-D"]


@case
def sample_indices_not_npy(c):
    path = c.p("ids.txt")
    write_file(path, "\n".join(str(i) for i in range(sample_count(c))))
    return c.config(dataset=c.documents(sample_indices=path)), 2, [
        "dataset.sample_indices", "ids.txt", "not a .npy file"]


@case
def sample_indices_float(c):
    path = write_map(c, "ids", [float(i) for i in range(sample_count(c))], descr="<f8")
    return c.config(dataset=c.documents(sample_indices=path)), 2, [
        "dataset.sample_indices", "ids.npy", "not an integer dtype"]


@case
def sample_indices_uint64_overflow(c):
    ids = list(range(sample_count(c)))
    ids[7] = 1 << 63
    path = write_map(c, "ids", ids, descr="<u8")
    return c.config(dataset=c.documents(sample_indices=path)), 2, [
        "dataset.sample_indices", "ids.npy", "does not fit int64"]


@case
def sample_indices_missing(c):
    return c.config(dataset=c.documents(sample_indices=c.p("ids.npy"))), 2, [
        "dataset.sample_indices", "ids.npy", "not found"]


# --- sample_range -------------------------------------------------------------

@case
def sample_range_past_end(c):
    n = sample_count(c)
    return c.config(dataset=c.documents(sample_range=[1, n + 1])), 2, [
        "dataset.sample_range", "end %d is past the dataset" % (n + 1), "%d samples" % n]


@case
def sample_range_empty(c):
    return c.config(dataset=c.documents(sample_range=[5, 5])), 2, [
        "dataset.sample_range", "begin 5 must be less than end 5"]


@case
def sample_range_not_a_pair(c):
    return c.config(dataset=c.documents(sample_range=[0, 1.5])), 2, [
        "dataset.sample_range", "two non-negative integers"]


@case
def sample_range_negative(c):
    return c.config(dataset=c.documents(sample_range=[-1, 4])), 2, [
        "dataset.sample_range", "two non-negative integers"]


# --- score files (the score metric) ---------------------------------------------

def score_metric(c, file, **params):
    """A config whose one metric is a score from `file` (per document, scale 1000)."""
    p = {"file": file, "per": "document", "scale": 1000}
    p.update(params)
    p = {k: v for k, v in p.items() if v is not None}
    return c.config(metrics=[{"name": "quality", "metric": "score", "params": p}])


def score_npy(c, values, descr="<f8", name="q"):
    return write_map(c, name, values, descr=descr)


def doc_count(c):
    return len(base_rows())


@case
def score_nan_row(c):
    values = [0.5] * doc_count(c)
    values[17] = float("nan")
    return score_metric(c, score_npy(c, values)), 2, [
        "metric quality", "q.npy", "row 17 is NaN", "params.nan"]


@case
def score_inf_row(c):
    values = [0.5] * doc_count(c)
    values[3] = float("-inf")
    return score_metric(c, score_npy(c, values)), 2, ["q.npy", "row 3 is -inf"]


@case
def score_wrong_length(c):
    path = score_npy(c, [0.5] * (doc_count(c) - 1))
    return score_metric(c, path), 2, [
        "metrics[0].params.file", "q.npy", "has %d rows" % (doc_count(c) - 1),
        "%d documents" % doc_count(c)]


@case
def score_2d(c):
    n = doc_count(c)
    path = write_map(c, "q", [0.5] * (2 * n), descr="<f8", shape=(n, 2))
    return score_metric(c, path), 2, ["params.file", "q.npy", "is not 1-D"]


@case
def score_float16(c):
    path = score_npy(c, [0.5] * doc_count(c), descr="<f2")
    return score_metric(c, path), 2, ["params.file", "q.npy", "float32 or float64"]


@case
def score_scale_overflow(c):
    values = [0.5] * doc_count(c)
    values[9] = 1e300
    return score_metric(c, score_npy(c, values)), 2, ["metric quality", "is outside int64"]


@case
def score_file_missing(c):
    return score_metric(c, c.p("absent.npy")), 2, ["params.file", "absent.npy", "not found"]


@case
def score_file_unknown_type(c):
    write_file(c.p("q.csv"), "0.5\n")
    return score_metric(c, c.p("q.csv")), 2, ["params.file", "q.csv", ".npy or .jsonl"]


@case
def score_scale_and_bins(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), bins=4), 2, [
        "metrics[0].params", "exactly one of \"scale\"", "\"bins\""]


@case
def score_neither_scale_nor_bins(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), scale=None), 2, [
        "metrics[0].params", "exactly one of"]


@case
def score_scale_not_positive(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), scale=0), 2, [
        "params.scale", "greater than 0"]


@case
def score_bins_zero(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), scale=None, bins=0), 2, [
        "params.bins", "0"]


@case
def score_per_unknown(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), per="token"), 2, [
        "params.per", "\"document\" or \"sample\""]


@case
def score_per_document_without_documents(c):
    path = score_npy(c, [0.5] * 100)
    dataset = {"type": "synthetic_mod", "num_samples": 100}
    return c.config(dataset=dataset, metrics=[{"name": "q", "metric": "score", "params": {
        "file": path, "per": "document", "scale": 10}}]), 2, [
        "params.per", "needs a dataset of documents"]


@case
def score_reduce_per_sample(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), per="sample",
                        reduce="min"), 2, ["params.reduce", "only with \"per\": \"document\""]


@case
def score_reduce_unknown(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), reduce="median"), 2, [
        "params.reduce", "median"]


@case
def score_field_with_npy(c):
    return score_metric(c, score_npy(c, [0.5] * doc_count(c)), field="q"), 2, [
        "params.field", "only to a .jsonl"]


def score_jsonl(c, lines):
    path = c.p("q.jsonl")
    write_file(path, "".join(line + "\n" for line in lines))
    return path


@case
def score_jsonl_not_a_number(c):
    lines = ['{"score": 0.5}'] * doc_count(c)
    lines[4] = '{"score": "high"}'
    return score_metric(c, score_jsonl(c, lines)), 2, ["q.jsonl", "line 5"]


@case
def score_jsonl_bad_json(c):
    lines = ['{"score": 0.5}'] * doc_count(c)
    lines[8] = '{"score": 0.5'
    return score_metric(c, score_jsonl(c, lines)), 2, ["q.jsonl", "line 9"]


@case
def score_jsonl_missing_field(c):
    lines = ['{"score": 0.5}'] * doc_count(c)
    lines[2] = '{"quality": 0.5}'
    return score_metric(c, score_jsonl(c, lines)), 2, ["q.jsonl", "line 3", "score"]


@case
def score_jsonl_too_few_lines(c):
    lines = ['{"score": 0.5}'] * (doc_count(c) - 2)
    return score_metric(c, score_jsonl(c, lines)), 2, ["q.jsonl"]


@case
def score_jsonl_repeated_id(c):
    n = doc_count(c)
    lines = ['{"id": %d, "score": 0.5}' % i for i in range(n)]
    lines[10] = '{"id": 3, "score": 0.5}'
    return score_metric(c, score_jsonl(c, lines), id_field="id"), 2, [
        "q.jsonl", "line 11", "3"]


@case
def score_jsonl_id_past_end(c):
    n = doc_count(c)
    lines = ['{"id": %d, "score": 0.5}' % i for i in range(n)]
    lines[6] = '{"id": %d, "score": 0.5}' % n
    return score_metric(c, score_jsonl(c, lines), id_field="id"), 2, ["q.jsonl", "line 7"]


@case
def score_jsonl_missing_id(c):
    n = doc_count(c)
    lines = ['{"id": %d, "score": 0.5}' % i for i in range(n)]
    lines[6] = '{"score": 0.5}'
    return score_metric(c, score_jsonl(c, lines), id_field="id"), 2, ["q.jsonl", "line 7", "id"]


# --- sizes past memory (docs/reliability.md, "Memory and internal errors") -------
# Each was an uncaught std::bad_alloc or std::length_error: exit 6, MPICH's
# "BAD TERMINATION" banner, the staging folder and the lock left behind.

def synthetic(c, num_samples):
    return c.config(dataset={"type": "synthetic_mod", "num_samples": num_samples},
                    metrics=[{"name": "v", "metric": "value"}])


@case
def memory_synthetic_int64_max_samples(c):
    return synthetic(c, 2**63 - 1), 2, [
        "config: dataset.num_samples", "9223372036854775807 samples", "would take",
        "of memory, more than", "memory.limit_per_rank"]


@case
def memory_synthetic_1e18_samples(c):
    return synthetic(c, 1e18), 2, [
        "config: dataset.num_samples", "1000000000000000000 samples", "EiB of memory, more than"]


@case
def memory_blend_size_2_40(c):
    # Inside the documented range of size (1 ... 2^40); its index would take 10 TiB.
    component = {"prefix": c.tok, "doc_idx": os.path.join(c.shared, "gpt_doc_idx.npy"),
                 "sample_idx": os.path.join(c.shared, "gpt_sample_idx.npy"),
                 "shuffle_idx": os.path.join(c.shared, "gpt_shuffle_idx.npy")}
    dataset = {"type": "megatron_blend", "datasets": [component], "weights": [1],
               "size": 2**40, "seq_length": SEQ_LENGTH}
    return c.config(dataset=dataset), 2, [
        "config: dataset.size", "a blend index of 1099511627776 samples", "10TiB of memory"]


@case
def memory_ngram_table_of_a_long_document(c):
    # One document of 2^31 - 1 tokens (the most an .idx row holds): a sparse
    # .bin of 4 GiB outside the case folder (whose snapshot reads every byte).
    # Its n-gram table would take 96 GiB; the limit makes the budget 1 GiB
    # whatever the machine.
    prefix = os.path.join(c.shared, "long_document_" + os.path.basename(c.d))
    tokens = 2**31 - 1
    with open(prefix + ".bin", "wb") as f:
        f.truncate(tokens * 2)
    write_file(prefix + ".idx", idx_bytes([tokens], 2, MEGATRON_CODES["u16"]))
    return c.config(dataset=c.documents(prefix),
                    metrics=[{"name": "rep", "metric": "repeated_ngram_ratio"}],
                    memory={"limit_per_rank": "1GiB"}), 2, [
        'metric "rep"', "n-gram table for a sample of 2147483647 tokens", "32GiB of memory",
        "1GiB of memory.limit_per_rank"]


# --- plugins --------------------------------------------------------------------

def plugin(var):
    path = os.environ.get(var)
    if not path:
        sys.exit("%s is not set" % var)
    return path


@case
def plugin_missing_file(c):
    so = c.p("nope.so")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "x"}]), 2, [
        "metrics[0].plugin", "nope.so", "no such file"]


@case
def plugin_is_a_fifo(c):
    so = c.p("fifo.so")
    os.mkfifo(so)
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "x"}]), 2, [
        "metrics[0].plugin", "fifo.so", "not a regular file (a FIFO"]


@case
def plugin_is_dev_zero(c):
    return c.config(metrics=[{"name": "m", "plugin": "/dev/zero", "metric": "x"}]), 2, [
        "metrics[0].plugin", "/dev/zero", "not a regular file (a character device)"]


@case
def plugin_not_a_library(c):
    so = c.p("text.so")
    write_file(so, "not an ELF file\n")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "x"}]), 2, [
        "metrics[0].plugin", "text.so", "cannot be loaded as a shared library"]


@case
def plugin_missing_symbol(c):
    so = plugin("PLUGIN_NO_REGISTER")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "x"}]), 2, [
        "metrics[0].plugin", os.path.basename(so), "dsa_plugin_register"]


@case
def plugin_abi_mismatch(c):
    so = plugin("PLUGIN_BAD_ABI")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "x"}]), 2, [
        "metrics[0].plugin", os.path.basename(so), "ABI"]


@case
def plugin_bad_table(c):
    so = plugin("PLUGIN_BAD_TABLE")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "no_compute"}]), 2, [
        os.path.basename(so), "no compute function"]


@case
def plugin_metric_not_exported(c):
    so = plugin("PLUGIN_EXAMPLE")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "x"}]), 2, [
        "metrics[0].metric", os.path.basename(so), 'does not export a metric "x"']


@case
def plugin_compute_error(c):
    so = plugin("PLUGIN_FAULTY")
    return c.config(metrics=[{"name": "seqlen", "plugin": so, "metric": "fails"}]), 2, [
        'plugin metric "fails"', os.path.basename(so), "deliberate failure at sample 5"]


@case
def plugin_init_rejects_params(c):
    so = plugin("PLUGIN_FAULTY")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "bad_params",
                              "params": {"k": 1}}]), 2, [
        os.path.basename(so), "no params are good enough"]


@case
def plugin_wrong_value_count(c):
    so = plugin("PLUGIN_FAULTY")
    return c.config(metrics=[{"name": "m", "plugin": so, "metric": "short"}]), 2, [
        os.path.basename(so), "values where"]


# ---------------------------------------------------------------------------
# Running and checking.

ERROR_WORDS = re.compile(
    r"error|fatal|abort|exception|terminat|assert|segmentation|signal|core dump", re.I)
LOG_LINE = re.compile(r"^\[\d\d:\d\d:\d\d\.\d{3}\] \[(info|debug|trace|warning)\] ")
ERROR_PREFIX = "dsanalyze: error: "


def run_dsanalyze(config_path, cwd, log_prefix):
    """Runs the job under `timeout 10`; returns (exit code, stdout, stderr, seconds)."""
    cmd = ["timeout", "--kill-after=2", str(int(DEADLINE_S)), os.environ["MPIEXEC"], "-n",
           str(NP), os.environ["DSANALYZE"], "--config", config_path]
    start = time.monotonic()
    with open(log_prefix + ".stdout", "wb") as out, open(log_prefix + ".stderr", "wb") as err:
        code = subprocess.call(cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    with open(log_prefix + ".stdout", errors="replace") as f:
        stdout = f.read()
    with open(log_prefix + ".stderr", errors="replace") as f:
        stderr = f.read()
    return code, stdout, stderr, seconds


def processes_with(needle):
    """Pids of live processes whose command line contains `needle`."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != "Z":
            found.append(int(pid))
    return found


def snapshot(root):
    """{relative path: (kind, mode, sha256 or link target)} of everything under root."""
    snap = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                snap[rel] = ("link", mode, os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                snap[rel] = ("dir", mode, "")
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    snap[rel] = ("file", mode, hashlib.sha256(f.read()).hexdigest())
            else:
                snap[rel] = ("other", mode, str(stat.S_IFMT(st.st_mode)))
    return snap


def describe_diff(before, after):
    lines = []
    for rel in sorted(set(before) | set(after)):
        if rel not in after:
            lines.append("  removed: " + rel)
        elif rel not in before:
            lines.append("  added:   " + rel)
        elif before[rel] != after[rel]:
            lines.append("  changed: %s %s -> %s" % (rel, before[rel], after[rel]))
    return "\n".join(lines)


def good_config(shared, dataset, save):
    return {"dataset": dataset, "metrics": BASE_METRICS, "output": {"path": save},
            "map": {"threads": 2, "batch_size": 16}}


def setup(workdir):
    """Shared inputs, the good run's save path, and checks that every base config works."""
    shared = os.path.join(workdir, "shared")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(shared)
    rows = base_rows()
    write_tokens(os.path.join(shared, "tok"), rows)
    doc_idx, sample_idx, shuffle = gpt_maps([len(r) for r in rows], SEQ_LENGTH)
    write_file(os.path.join(shared, "gpt_doc_idx.npy"), npy_bytes(doc_idx))
    write_file(os.path.join(shared, "gpt_sample_idx.npy"),
               npy_bytes(sample_idx, shape=(len(sample_idx) // 2, 2)))
    write_file(os.path.join(shared, "gpt_shuffle_idx.npy"), npy_bytes(shuffle))
    with open(os.path.join(shared, "gpt_maps.json"), "w") as f:
        json.dump({"doc_idx": doc_idx, "sample_idx": sample_idx, "shuffle_idx": shuffle}, f)
    ids = list(range(len(rows)))
    random.Random(5).shuffle(ids)
    write_file(os.path.join(shared, "ids.npy"), npy_bytes(ids))

    # The good run whose results every case's save path starts from, and the
    # baselines the cases corrupt: each must succeed as given.
    c = Ctx(shared, shared)
    baselines = {
        "save_good": c.documents(),
        "check_gpt": c.gpt(),
        "check_ids": c.documents(sample_indices=os.path.join(shared, "ids.npy")),
        "check_packed": {"type": "packed", "prefixes": [c.tok], "seq_length": SEQ_LENGTH},
    }
    for name, dataset in baselines.items():
        config_path = os.path.join(workdir, name + ".json")
        with open(config_path, "w") as f:
            json.dump(good_config(shared, dataset, os.path.join(workdir, name)), f)
        code, _, stderr, _ = run_dsanalyze(config_path, workdir, os.path.join(workdir, name))
        if code != 0:
            sys.exit("setup: the good run %s failed with exit code %d:\n%s" % (name, code, stderr))
    save = os.path.join(workdir, "save_good")
    for metric in ("seqlen", "vocab"):
        if not os.path.isdir(os.path.join(save, metric)):
            sys.exit("setup: the good run wrote no %s/" % metric)
    # Unrelated user files that a failed run must leave alone.
    write_file(os.path.join(save, "notes.txt"), "the user's notes\n")
    write_file(os.path.join(save, ".hidden_user_file"), b"\x00\x01hidden")
    os.mkdir(os.path.join(save, "user_dir"))
    write_file(os.path.join(save, "user_dir", "data.bin"), os.urandom(100))
    print("setup: shared inputs and the good run in %s" % workdir)


def run_case(name, workdir):
    if name not in CASES:
        sys.exit("unknown case %s; known: %s" % (name, " ".join(CASES)))
    shared = os.path.join(workdir, "shared")
    if not os.path.isfile(os.path.join(workdir, "save_good", "summary.json")):
        sys.exit("run `bad_input_test.py setup %s` first" % workdir)
    case_dir = os.path.join(workdir, "cases", name)
    log_prefix = case_dir + ".log"
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    shutil.copytree(os.path.join(workdir, "save_good"), os.path.join(case_dir, "save"),
                    symlinks=True)

    config, want_code, want_parts = CASES[name](Ctx(case_dir, shared))
    if isinstance(config, ExistingConfig):
        config_path = config.path
    else:
        config_path = os.path.join(case_dir, "config.json")
        write_file(config_path, config if isinstance(config, str) else json.dumps(config, indent=1))

    before = snapshot(case_dir)
    code, stdout, stderr, seconds = run_dsanalyze(config_path, case_dir, log_prefix)
    left = processes_with(config_path)
    deadline = time.monotonic() + max(0.0, DEADLINE_S - seconds)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = processes_with(config_path)
    after = snapshot(case_dir)

    failures = []
    if code in (124, 137) or code < 0:  # timeout's TERM, its KILL, or KILL of timeout itself
        failures.append("(c) the job did not end within %g s (timeout killed it)" % DEADLINE_S)
    elif seconds > DEADLINE_S:
        failures.append("(c) the job took %.1f s, more than %g s" % (seconds, DEADLINE_S))
    if left:
        failures.append("(c) processes still running after the job: %s" % left)
        for pid in left:  # ours: their command line holds this case's config path
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if code != want_code:
        failures.append("(a) exit code %d, expected %d" % (code, want_code))

    error_lines = [l for l in (stderr + stdout).splitlines()
                   if l.startswith(ERROR_PREFIX) or ERROR_WORDS.search(l)]
    stray = [l for l in stderr.splitlines()
             if l and not l.startswith(ERROR_PREFIX) and not LOG_LINE.match(l)]
    if len(error_lines) != 1:
        failures.append("(b) %d error lines, expected exactly 1" % len(error_lines))
    elif not error_lines[0].startswith(ERROR_PREFIX):
        failures.append("(b) the error line does not start with %r" % ERROR_PREFIX)
    else:
        missing = [p for p in want_parts if p not in error_lines[0]]
        if missing:
            failures.append("(b) the error line lacks %s" % ", ".join(repr(p) for p in missing))
    if stray:
        failures.append("(b) stderr has lines that are neither the error nor a log line: %r"
                        % stray[:5])
    if before != after:
        failures.append("(d) the case folder (save path and inputs) changed:\n"
                        + describe_diff(before, after))

    print("case %s: exit %d in %.2f s" % (name, code, seconds))
    print("stderr:\n" + stderr.rstrip())
    if stdout.strip():
        print("stdout:\n" + stdout.rstrip())
    if failures:
        print("FAIL %s:\n%s" % (name, "\n".join(failures)))
        return 1
    shutil.rmtree(case_dir)
    for ext in (".stdout", ".stderr"):
        os.remove(log_prefix + ext)
    print("PASS %s" % name)
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "list":
        print("\n".join(CASES))
        return 0
    if len(argv) == 3 and argv[1] == "setup":
        setup(argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "case":
        return run_case(argv[2], argv[3])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
