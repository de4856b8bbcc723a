#include "curriculum/order_file.h"

#include <unistd.h>

#include "format/npy_writer.h"
#include "util/fault_point.h"

namespace dsanalyze {
namespace {

constexpr std::string_view kTempKind = "tmp";

}  // namespace

Result<std::unique_ptr<OrderFile>> OrderFile::Create(const std::string& path, uint64_t length,
                                                     DType dtype) {
  RemoveDeadTemps(path, kTempKind);
  DSA_ASSIGN_OR_RETURN(LeasedTemp temp, CreateLeasedFile(path, kTempKind));
  Result<OutputFile> file = OutputFile::OpenExisting(temp.path);
  if (!file.ok()) {
    ::unlink(temp.path.c_str());
    return file.status();
  }
  const std::string header = NpyHeader(dtype, {length});
  std::unique_ptr<OrderFile> out(new OrderFile(path, std::move(temp), std::move(file).value(),
                                               length, ItemSize(dtype), header.size()));
  DSA_RETURN_IF_ERROR(out->file_.WriteAt(0, header.data(), header.size()));
  FaultPoint("order_create");
  return out;
}

OrderFile::~OrderFile() {
  if (committed_) return;
  (void)writer_.Drain();
  (void)file_.Close(false);
  ::unlink(temp_.path.c_str());
}

Status OrderFile::Append(WriteBuffer buffer) {
  const uint64_t at = offset_;
  offset_ += buffer.size;
  DSA_RETURN_IF_ERROR(writer_.Write(&file_, at, std::move(buffer)));
  FaultPoint("order_write");
  return Status::OK();
}

Status OrderFile::Commit() {
  DSA_RETURN_IF_ERROR(writer_.Drain());
  const uint64_t written = (offset_ - header_bytes_) / item_;
  if (written != length_)
    return Status::Internal(path_ + ": wrote " + std::to_string(written) + " of " +
                            std::to_string(length_) + " elements");
  DSA_RETURN_IF_ERROR(file_.Close(false));
  FaultPoint("order_commit");
  DSA_RETURN_IF_ERROR(RenameFile(temp_.path, path_));
  committed_ = true;
  return Status::OK();
}

}  // namespace dsanalyze
