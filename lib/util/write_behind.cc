#include "util/write_behind.h"

#include "util/worker_thread.h"

namespace dsanalyze {

WriteBehind::~WriteBehind() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  thread_.JoinDiscardingException();
}

Status WriteBehind::Write(OutputFile* file, uint64_t offset, WriteBuffer data) {
  std::unique_lock lock(mu_);
  if (!thread_.joinable()) thread_ = StartWorkerThread([this] { Run(); });
  changed_.wait(lock, [&] { return queue_.size() < max_pending_ || !error_.ok(); });
  if (!error_.ok()) return error_;
  queue_.push_back({file, offset, std::move(data)});
  lock.unlock();
  changed_.notify_all();
  return Status::OK();
}

WriteBuffer WriteBehind::TakeBuffer(size_t capacity) {
  {
    std::lock_guard lock(mu_);
    size_t best = spares_.size();  // the smallest spare that is big enough
    for (size_t i = 0; i < spares_.size(); ++i)
      if (spares_[i].capacity >= capacity &&
          (best == spares_.size() || spares_[i].capacity < spares_[best].capacity))
        best = i;
    if (best < spares_.size()) {
      WriteBuffer b = std::move(spares_[best]);
      spares_.erase(spares_.begin() + static_cast<std::ptrdiff_t>(best));
      b.size = 0;
      return b;
    }
  }
  WriteBuffer b;
  b.data = std::make_unique_for_overwrite<std::byte[]>(capacity);
  b.capacity = capacity;
  return b;
}

Status WriteBehind::Drain() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || !error_.ok(); });
  return error_;
}

void WriteBehind::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Status st = job.file->WriteAt(job.offset, job.data.data.get(), job.data.size);
    lock.lock();
    busy_ = false;
    if (!st.ok() && error_.ok()) {
      error_ = st;
      queue_.clear();
    }
    if (spares_.size() < kMaxSpares) spares_.push_back(std::move(job.data));
    changed_.notify_all();
  }
}

}  // namespace dsanalyze
