// Hidden temporary entries beside an output (`dsanalyze order`'s array,
// `dsanalyze batches`' staging folder), and the cleanup of those a killed
// command left.
//
// A command writes its output under a hidden name in the output's folder,
// ".NAME.<kind>-XXXXXX", and renames it to NAME when complete. While it
// writes, it holds an exclusive flock on a lease file: the temporary file
// itself, or the file ".lease" inside a temporary folder. A SIGKILL runs no
// destructor, so the entry stays; the kernel drops the flock, though, so the
// next command for the same NAME finds the lease unlocked and removes the
// entry, while the entries of commands still writing (their lease locked)
// stay. NFS: flock becomes a server-side lock, as for the save path's lock
// (output/save_lock.h).
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"
#include "util/unique_fd.h"

namespace dsanalyze {

// The name of the lease file inside a temporary folder.
inline constexpr std::string_view kLeaseFile = ".lease";

// A temporary entry and the locked descriptor of its lease. Closing the
// descriptor (or dying) ends the lease.
struct LeasedTemp {
  std::string path;
  UniqueFd lease;
};

// Creates TempPrefix(final_path, kind) + "XXXXXX" as a file (mkostemp) and
// locks it, mode 0666 less the umask, as a plain new file gets.
Result<LeasedTemp> CreateLeasedFile(const std::string& final_path, std::string_view kind);
// The same as a folder (mkdtemp, mode 0777 less the umask) with its
// ".lease" file inside, locked.
Result<LeasedTemp> CreateLeasedFolder(const std::string& final_path, std::string_view kind);

// "FOLDER/.NAME.<kind>-": the prefix of `final_path`'s temporary entries.
std::string TempPrefix(const std::string& final_path, std::string_view kind);

// Removes every entry of `final_path`'s folder named TempPrefix(final_path,
// kind) + anything whose lease (the entry itself, or ENTRY/.lease for a
// folder) is not locked, or missing; returns how many it removed.
int RemoveDeadTemps(const std::string& final_path, std::string_view kind);

}  // namespace dsanalyze
