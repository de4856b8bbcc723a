// Helpers for the token dataset tests: write rows as an MMapIndexedDataset,
// read samples back as int64 rows, check a dataset's document pieces.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dataset/dataset.h"
#include "dataset/gpt_maps.h"
#include "format/indexed_writer.h"

namespace dsanalyze::test {

using Rows = std::vector<std::vector<int64_t>>;

// One row per document (doc_idx [0, 1, ..., rows]), as Megatron's builder writes.
inline void WriteRows(const std::string& prefix, DType dtype, CodeTable table, const Rows& rows) {
  IndexedWriter::Options options;
  options.table = table;
  options.doc_idx_per_row = true;
  Result<std::unique_ptr<IndexedWriter>> w = IndexedWriter::Create(prefix, dtype, options);
  REQUIRE(w.ok());
  for (const auto& row : rows) REQUIRE((*w)->AddRow(row).ok());
  REQUIRE((*w)->Finish().ok());
}

// The samples of a batch, widened to int64.
inline Rows SamplesOf(const SampleBatch& b) {
  Rows out;
  for (size_t i = 0; i < b.size(); ++i) {
    const ElementView v = b.sample(i);
    VisitIntDType(v.dtype, [&](auto zero) {
      const auto s = v.as<decltype(zero)>();
      out.emplace_back(s.begin(), s.end());
    });
  }
  return out;
}

// All samples of `ds`, read through one reader in batches of `batch` samples.
inline Rows ReadAll(const Dataset& ds, uint64_t batch) {
  std::unique_ptr<SampleReader> r = ds.NewReader();
  Rows out;
  SampleBatch b;
  for (uint64_t begin = 0; begin < ds.size(); begin += batch) {
    const uint64_t end = std::min(ds.size(), begin + batch);
    REQUIRE(r->Read(begin, end, true, &b).ok());
    REQUIRE(b.first == begin);
    REQUIRE(b.size() == end - begin);
    const Rows part = SamplesOf(b);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// The lengths of all samples from a lengths-only read of the whole dataset.
inline std::vector<uint64_t> Lengths(const Dataset& ds) {
  std::unique_ptr<SampleReader> r = ds.NewReader();
  SampleBatch b;
  REQUIRE(r->Read(0, ds.size(), false, &b).ok());
  CHECK(b.elements == nullptr);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < b.size(); ++i) out.push_back(b.length(i));
  return out;
}

// A document piece as a pair (document, tokens), which Catch can compare and print.
using Piece = std::pair<uint64_t, uint64_t>;
using Pieces = std::vector<std::vector<Piece>>;

// Token values that name their place: token t of document d is
// d * kPieceStride + t, so a sample's tokens spell the pieces it is cut from.
constexpr int64_t kPieceStride = 1000;

// `count` documents of random sizes below 30 (a quarter of them empty), numbered
// from `first_document`, with kPieceStride tokens.
inline Rows PieceRows(SplitMix64* rng, int count, uint64_t first_document = 0) {
  Rows rows;
  for (int r = 0; r < count; ++r) {
    rows.emplace_back(rng->Next() % 4 == 0 ? 0 : rng->Next() % 30);
    for (size_t t = 0; t < rows.back().size(); ++t)
      rows.back()[t] =
          static_cast<int64_t>(first_document + r) * kPieceStride + static_cast<int64_t>(t);
  }
  return rows;
}

// The pieces that kPieceStride tokens spell, by definition: a piece continues
// while the document stays the same and the offset goes up by one; a
// document met again (a repeated doc_idx entry) starts a new piece.
inline std::vector<Piece> PiecesOfTokens(const std::vector<int64_t>& tokens) {
  std::vector<Piece> out;
  int64_t previous = -2;
  for (int64_t t : tokens) {
    const uint64_t document = static_cast<uint64_t>(t / kPieceStride);
    if (out.empty() || t != previous + 1 || out.back().first != document)
      out.emplace_back(document, 0);
    ++out.back().second;
    previous = t;
  }
  return out;
}

// The pieces of every sample, as AppendDocumentPieces gives them (each call
// appends to what is already in `out`: a non-empty vector is passed to show it).
inline Pieces PiecesOf(const Dataset& ds) {
  Pieces out;
  std::vector<DocumentPiece> pieces = {{7, 7}};
  for (uint64_t i = 0; i < ds.size(); ++i) {
    ds.AppendDocumentPieces(i, &pieces);
    REQUIRE(!pieces.empty());
    REQUIRE(pieces.front().document == 7);
    out.emplace_back();
    for (size_t p = 1; p < pieces.size(); ++p)
      out.back().emplace_back(pieces[p].document, pieces[p].tokens);
    pieces.resize(1);
  }
  return out;
}

// Checks the pieces of every sample of `ds` (whose rows hold kPieceStride
// tokens) against the pieces its tokens spell, against its length, and that no
// piece names a document past num_documents() or is empty — but the one piece
// of an empty sample (a `documents` sample is its document). Returns the pieces.
inline Pieces CheckPieces(const Dataset& ds) {
  const Pieces pieces = PiecesOf(ds);
  const Rows samples = ReadAll(ds, 64);
  const std::vector<uint64_t> lengths = Lengths(ds);
  REQUIRE(pieces.size() == samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    INFO("sample " << i);
    Pieces::value_type with_tokens;
    for (const Piece& p : pieces[i])
      if (p.second > 0) with_tokens.push_back(p);
    CHECK(with_tokens == PiecesOfTokens(samples[i]));
    uint64_t tokens = 0;
    for (const Piece& p : pieces[i]) {
      CHECK((p.second > 0 || (pieces[i].size() == 1 && lengths[i] == 0)));
      CHECK(p.first < ds.num_documents());
      tokens += p.second;
    }
    CHECK(tokens == lengths[i]);
  }
  return pieces;
}

// How many samples have exactly 1, exactly 2 and 3 or more pieces.
struct PieceCounts {
  int one = 0, two = 0, many = 0;
};
inline PieceCounts CountPieces(const Pieces& pieces) {
  PieceCounts c;
  for (const auto& p : pieces) {
    if (p.size() == 1) ++c.one;
    if (p.size() == 2) ++c.two;
    if (p.size() >= 3) ++c.many;
  }
  return c;
}

}  // namespace dsanalyze::test
