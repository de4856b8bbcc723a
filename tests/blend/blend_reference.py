"""A reference for Megatron blends, written from Megatron-DeepSpeed's code
(Python 3 standard library only, no numpy):

  normalise(weights)          get_datasets_weights_and_num_samples' weights
                              (w / sum, summed left to right), then
                              BlendableDataset's (those / np.sum of them)
  numpy_sum(values)           np.sum of a float64 array (pairwise summation)
  component_samples(T, w)     ceil(T * w_k * 1.005) per component (w normalised once)
  blending_indices(w, n)      helpers.cpp build_blending_indices: (dataset_index,
                              dataset_sample_index) lists
  gpt_maps(sizes, L, n, rng)  GPTDataset's doc_idx, sample_idx, shuffle_idx for n
                              samples (_num_epochs, _build_doc_idx with
                              separate_last_epoch, _build_sample_idx,
                              _build_shuffle_idx), shuffled by `rng` (Python's
                              random, not numpy's: the maps are Megatron's in
                              shape and meaning, not in their permutation)
"""
import math


def numpy_sum(values):
    """numpy's pairwise float64 sum: left to right below 8 values, 8 partial
    sums up to 128, halves (a multiple of 8 first) above."""
    n = len(values)
    if n < 8:
        total = -0.0
        for v in values:
            total += v
        return total
    if n <= 128:
        r = list(values[:8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += values[i + j]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for v in values[i:]:
            total += v
        return total
    half = n // 2
    half -= half % 8
    return numpy_sum(values[:half]) + numpy_sum(values[half:])


def normalise(weights):
    """(normalised once, normalised twice): dataset_utils.py, then blendable_dataset.py."""
    weight_sum = 0.0
    for w in weights:
        weight_sum += float(w)
    once = [float(w) / weight_sum for w in weights]
    again = numpy_sum(once)
    return once, [w / again for w in once]


def component_samples(train_samples, once):
    return [int(math.ceil(train_samples * w * 1.005)) for w in once]


def blending_indices(weights, size):
    current = [0] * len(weights)
    dataset_index, dataset_sample_index = [], []
    for i in range(size):
        x = max(float(i), 1.0)
        best, best_error = 0, weights[0] * x - float(current[0])
        for k in range(1, len(weights)):
            error = weights[k] * x - float(current[k])
            if error > best_error:
                best, best_error = k, error
        dataset_index.append(best)
        dataset_sample_index.append(current[best])
        current[best] += 1
    return dataset_index, dataset_sample_index


def _num_epochs(tokens_per_epoch, seq_length, num_samples):
    epochs, total = 0, 0
    while True:
        epochs += 1
        total += tokens_per_epoch
        if (total - 1) // seq_length >= num_samples:
            return epochs


def _sample_idx(sizes, doc_idx, seq_length, num_epochs, tokens_per_epoch):
    num_samples = (num_epochs * tokens_per_epoch - 1) // seq_length
    out = [(0, 0)]
    doc_idx_index, doc_offset = 0, 0
    while len(out) <= num_samples:
        remaining = seq_length + 1
        while remaining != 0:
            doc_length = sizes[doc_idx[doc_idx_index]] - doc_offset
            remaining -= doc_length
            if remaining <= 0:
                doc_offset += remaining + doc_length - 1
                remaining = 0
            else:
                doc_idx_index += 1
                doc_offset = 0
        out.append((doc_idx_index, doc_offset))
    return out


def gpt_maps(sizes, seq_length, num_samples, rng):
    """(doc_idx, sample_idx as (position, offset) pairs, shuffle_idx, epochs,
    separate_last_epoch) as GPTDataset builds them for `num_samples`."""
    tokens = sum(sizes)
    epochs = _num_epochs(tokens, seq_length, num_samples)
    separate = False
    if epochs > 1:
        before_last = ((epochs - 1) * tokens - 1) // seq_length
        per_epoch = (tokens - 1) // seq_length
        separate = num_samples - before_last < int(0.80 * per_epoch)
    documents = list(range(len(sizes)))
    if separate:
        first = documents * (epochs - 1)
        rng.shuffle(first)
        last = list(documents)
        rng.shuffle(last)
        doc_idx = first + last
    else:
        doc_idx = documents * epochs
        rng.shuffle(doc_idx)
    sample_idx = _sample_idx(sizes, doc_idx, seq_length, epochs, tokens)
    total = len(sample_idx) - 1
    shuffled = ((epochs - 1) * tokens - 1) // seq_length if separate else total
    head = list(range(shuffled))
    rng.shuffle(head)
    tail = list(range(shuffled, total))
    rng.shuffle(tail)
    return doc_idx, sample_idx, head + tail, epochs, separate
