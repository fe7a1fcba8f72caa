#pragma once

// A file HDF5 writes straight to disk without ever seeing a disk error (issue #12, items 4
// and 9). HDF5 left with a write it could not do (a full disk) holds a file it can neither
// flush nor close, and its shutdown at exit crashed (SIGSEGV in H5F__close_cb); building the
// whole archive in memory instead (the core driver) made rank 0's peak grow with the night.
// This driver writes each block HDF5 hands it to an open file descriptor as it comes, so
// memory holds only HDF5's caches. When a write fails, the driver remembers the error, reads
// back what the file holds, and from then on keeps the file in memory: HDF5 goes on with a
// consistent file and closes cleanly, and the caller, which asks failed() after the close,
// throws away the file and reports the error. So memory grows with the archive only on a disk
// that already refused a write.
//
// HDF5 sees a file that starts kSealBytes into the descriptor's file: the seal is written
// there afterwards (archive_seal.hpp), as HDF5 and h5py find the superblock after a
// userblock. Private to src/evidence.

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <vector>

#include "evidence/hdf5_handle.hpp"

namespace fhmoe::evidence::h5 {

class DiskFile {
public:
    // Writes through `fd` (open for reading and writing, empty), which the caller owns;
    // `path` names it in errors. The seal's bytes are reserved at once.
    DiskFile(int fd, std::string path);
    DiskFile(const DiskFile&) = delete;
    DiskFile& operator=(const DiskFile&) = delete;

    // A file access property list for H5Fcreate that makes HDF5 use this file. HDF5 must
    // close the file before this object goes.
    PropertyList file_access();

    // The first error (errno), 0 when every write and the final truncate reached the file.
    int failed() const { return error_; }
    // "<path>: <what failed>: <the system's reason>".
    std::string failure() const;

    // For the driver's callbacks.
    bool read(haddr_t address, std::size_t size, void* buffer);
    void write(haddr_t address, std::size_t size, const void* buffer);
    void truncate(haddr_t end);
    haddr_t end_of_file() const { return end_of_file_; }

private:
    void fail(int error, const std::string& what);

    int fd_;
    std::string path_;
    haddr_t end_of_file_ = 0;  // in HDF5's addresses: the bytes after the seal
    int error_ = 0;
    std::string failed_what_;
    bool in_memory_ = false;  // after a failure: the file's bytes, and every later write
    std::vector<char> memory_;
};

}  // namespace fhmoe::evidence::h5
