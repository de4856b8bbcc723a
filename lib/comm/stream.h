// Ordered streaming to rank 0 in bounded chunks.
//
// SendChunks sends a span in pieces of at most `chunk` elements; rank 0 calls
// ReceiveChunks with the same count and chunk size and consumes the pieces in
// order while the next one is already arriving (two buffers, so receiving
// overlaps consuming and rank 0 holds at most 2 chunks per stream), or
// ReceiveChunksInto to receive the whole stream into memory of its own. Counts and
// chunk size must agree on both sides; tags keep concurrent streams apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "comm/comm.h"

namespace dsanalyze {

template <class T>
void SendChunks(const Comm& comm, std::span<const T> data, int dest, int tag, uint64_t chunk) {
  for (uint64_t off = 0; off < data.size(); off += chunk)
    comm.Send(data.subspan(off, std::min<uint64_t>(chunk, data.size() - off)), dest, tag);
}

// consume(std::span<const T>) is called once per chunk, in order.
template <class T, class F>
void ReceiveChunks(const Comm& comm, uint64_t count, int source, int tag, uint64_t chunk,
                   F&& consume) {
  if (count == 0) return;
  std::vector<T> buf[2];
  buf[0].resize(std::min(chunk, count));
  if (count > chunk) buf[1].resize(std::min(chunk, count - chunk));
  auto chunk_len = [&](uint64_t off) { return std::min<uint64_t>(chunk, count - off); };
  MPI_Request req = comm.Irecv(std::span<T>(buf[0].data(), chunk_len(0)), source, tag);
  int cur = 0;
  for (uint64_t off = 0; off < count; off += chunk) {
    Comm::Wait(&req);
    const uint64_t next = off + chunk;
    if (next < count)
      req = comm.Irecv(std::span<T>(buf[1 - cur].data(), chunk_len(next)), source, tag);
    consume(std::span<const T>(buf[cur].data(), chunk_len(off)));
    cur = 1 - cur;
  }
}

// Receives a SendChunks stream of out.size() elements straight into `out`,
// every chunk's receive posted at once (no staging buffer, no copy).
template <class T>
void ReceiveChunksInto(const Comm& comm, std::span<T> out, int source, int tag, uint64_t chunk) {
  std::vector<MPI_Request> requests;
  for (uint64_t off = 0; off < out.size(); off += chunk)
    requests.push_back(
        comm.Irecv(out.subspan(off, std::min<uint64_t>(chunk, out.size() - off)), source, tag));
  for (MPI_Request& req : requests) Comm::Wait(&req);
}

}  // namespace dsanalyze
