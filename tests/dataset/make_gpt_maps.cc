// make_gpt_maps PREFIX SEQ_LENGTH EPOCHS SEED INDEX_PREFIX
//
// Writes Megatron-style GPT index maps (gpt_maps.h) for the token dataset
// PREFIX (read with the megatron dtype-code table) to INDEX_PREFIX_doc_idx.npy,
// _sample_idx.npy and _shuffle_idx.npy, in the dtypes Megatron-LM's legacy
// GPTDataset saves (int32, int32, uint32). Used by configs_test.sh to make
// inputs for configs/megatron_gpt.json, since the repository holds no data.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dataset/gpt_maps.h"
#include "dataset/npy_writer.h"
#include "format/indexed_dataset.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s PREFIX SEQ_LENGTH EPOCHS SEED INDEX_PREFIX\n", argv[0]);
    return 2;
  }
  dsanalyze::IndexedDataset::Options options;
  options.table = dsanalyze::CodeTable::kMegatron;
  dsanalyze::Result<dsanalyze::IndexedDataset> ds =
      dsanalyze::IndexedDataset::Open(argv[1], options);
  if (!ds.ok()) {
    std::fprintf(stderr, "make_gpt_maps: %s\n", ds.status().message().c_str());
    return 2;
  }
  std::vector<int32_t> sizes(ds->num_rows());
  for (uint64_t r = 0; r < ds->num_rows(); ++r) sizes[r] = ds->row_size(r);
  const int32_t seq_length = std::atoi(argv[2]);
  const int epochs = std::atoi(argv[3]);
  const uint64_t tokens = ds->num_elements() * static_cast<uint64_t>(epochs > 0 ? epochs : 0);
  if (seq_length < 1 || epochs < 1 || tokens <= static_cast<uint64_t>(seq_length)) {
    std::fprintf(stderr,
                 "make_gpt_maps: need SEQ_LENGTH >= 1, EPOCHS >= 1 and more than "
                 "SEQ_LENGTH tokens over all epochs\n");
    return 2;
  }
  const dsanalyze::test::GptMaps maps =
      dsanalyze::test::BuildGptMaps(sizes, seq_length, epochs, std::strtoull(argv[4], nullptr, 10));
  const std::string out = argv[5];
  namespace t = dsanalyze::test;
  t::WriteNpy(out + "_doc_idx.npy", maps.doc_idx);
  t::WriteNpy(out + "_sample_idx.npy", maps.sample_idx, {maps.num_samples() + 1, 2});
  t::WriteNpy(out + "_shuffle_idx.npy", maps.shuffle_idx);
  std::printf("wrote %zu doc_idx entries and %llu samples of %d+1 tokens to %s_*.npy\n",
              maps.doc_idx.size(), static_cast<unsigned long long>(maps.num_samples()), seq_length,
              out.c_str());
  return 0;
}
