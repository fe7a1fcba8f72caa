#include "evidence/hdf5_disk_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "evidence/archive_seal.hpp"

namespace fhmoe::evidence::h5 {
namespace {

// What H5Pset_driver stores in a file access property list, and the driver's open finds.
struct DriverInfo {
    DiskFile* file = nullptr;
};

// HDF5's view of one open of the file: its H5FD_t first (HDF5 casts between the two).
struct OpenFile {
    H5FD_t pub;
    DiskFile* file = nullptr;
    haddr_t end_of_allocation = 0;
};

OpenFile& open_of(H5FD_t* handle) { return *reinterpret_cast<OpenFile*>(handle); }
const OpenFile& open_of(const H5FD_t* handle) { return *reinterpret_cast<const OpenFile*>(handle); }

// The largest address an off_t reaches (the sec2 driver's limit).
constexpr haddr_t kMaxAddress = (haddr_t{1} << (8 * sizeof(off_t) - 1)) - 1;

void* copy_info(const void* info) {
    return new (std::nothrow) DriverInfo(*static_cast<const DriverInfo*>(info));
}
herr_t free_info(void* info) {
    delete static_cast<DriverInfo*>(info);
    return 0;
}
void* info_of_open_file(H5FD_t* handle) {
    return new (std::nothrow) DriverInfo{open_of(handle).file};
}

H5FD_t* open_file(const char*, unsigned flags, hid_t access, haddr_t) {
    const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(access));
    if (info == nullptr || info->file == nullptr) return nullptr;
    auto* handle = new (std::nothrow) OpenFile{};
    if (handle == nullptr) return nullptr;
    handle->file = info->file;
    if ((flags & H5F_ACC_TRUNC) != 0) handle->file->truncate(0);
    return &handle->pub;
}
herr_t close_file(H5FD_t* handle) {
    delete &open_of(handle);
    return 0;
}
int compare_files(const H5FD_t* a, const H5FD_t* b) {
    const DiskFile* x = open_of(a).file;
    const DiskFile* y = open_of(b).file;
    return x < y ? -1 : (x > y ? 1 : 0);
}
herr_t query_features(const H5FD_t*, unsigned long* flags) {
    // What the sec2 and core drivers allow: HDF5 gathers small metadata and raw data into
    // larger blocks, so the file holds the same tables the same way.
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA;
    return 0;
}
haddr_t get_end_of_allocation(const H5FD_t* handle, H5FD_mem_t) {
    return open_of(handle).end_of_allocation;
}
herr_t set_end_of_allocation(H5FD_t* handle, H5FD_mem_t, haddr_t address) {
    open_of(handle).end_of_allocation = address;
    return 0;
}
haddr_t get_end_of_file(const H5FD_t* handle, H5FD_mem_t) {
    return open_of(handle).file->end_of_file();
}
herr_t read_block(H5FD_t* handle, H5FD_mem_t, hid_t, haddr_t address, size_t size, void* buffer) {
    return open_of(handle).file->read(address, size, buffer) ? 0 : -1;
}
herr_t write_block(H5FD_t* handle, H5FD_mem_t, hid_t, haddr_t address, size_t size,
                   const void* buffer) {
    open_of(handle).file->write(address, size, buffer);
    return 0;
}
herr_t flush_file(H5FD_t*, hid_t, hbool_t) { return 0; }  // the caller syncs the file
herr_t truncate_file(H5FD_t* handle, hid_t, hbool_t) {
    OpenFile& open = open_of(handle);
    open.file->truncate(open.end_of_allocation);
    return 0;
}

const H5FD_class_t kDriver = {
    "fhmoe_archive",        // name
    kMaxAddress,            // maxaddr
    H5F_CLOSE_WEAK,         // fc_degree
    nullptr,                // terminate
    nullptr,                // sb_size: no driver information in the superblock
    nullptr,                // sb_encode
    nullptr,                // sb_decode
    sizeof(DriverInfo),     // fapl_size
    info_of_open_file,      // fapl_get
    copy_info,              // fapl_copy
    free_info,              // fapl_free
    0,                      // dxpl_size
    nullptr,                // dxpl_copy
    nullptr,                // dxpl_free
    open_file,              // open
    close_file,             // close
    compare_files,          // cmp
    query_features,         // query
    nullptr,                // get_type_map
    nullptr,                // alloc
    nullptr,                // free
    get_end_of_allocation,  // get_eoa
    set_end_of_allocation,  // set_eoa
    get_end_of_file,        // get_eof
    nullptr,                // get_handle
    read_block,             // read
    write_block,            // write
    flush_file,             // flush
    truncate_file,          // truncate
    nullptr,                // lock
    nullptr,                // unlock
    H5FD_FLMAP_DICHOTOMY,   // fl_map
};

hid_t driver_id() {
    static const hid_t id = H5FDregister(&kDriver);  // once per process, never unregistered
    return check_id(id, "register the archive's file driver");
}

}  // namespace

DiskFile::DiskFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {
    const char zeros[kSealBytes] = {};
    std::size_t done = 0;
    while (done < kSealBytes) {
        const ssize_t n = ::pwrite(fd_, zeros + done, kSealBytes - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fail(n < 0 ? errno : EIO, "reserving the seal");
            return;
        }
        done += static_cast<std::size_t>(n);
    }
}

PropertyList DiskFile::file_access() {
    PropertyList access(H5Pcreate(H5P_FILE_ACCESS), "create a file access property list");
    const DriverInfo info{this};
    check(H5Pset_driver(access.get(), driver_id(), &info), "write the file through its driver");
    // Closing the file fails while an object in it is open, rather than leaving the file
    // open with its last blocks unwritten: the caller seals what the close wrote.
    check(H5Pset_fclose_degree(access.get(), H5F_CLOSE_SEMI), "set the file's close degree");
    return access;
}

std::string DiskFile::failure() const {
    return path_ + ": " + failed_what_ + ": " + std::strerror(error_);
}

void DiskFile::fail(int error, const std::string& what) {
    if (error_ == 0) {
        error_ = error;
        failed_what_ = what;
    }
    if (in_memory_) return;
    // What the file holds so far, as HDF5 wrote it; what cannot be read back stays zero
    // (the file is thrown away: it only has to keep HDF5 consistent until it closes).
    in_memory_ = true;
    memory_.assign(static_cast<std::size_t>(end_of_file_), '\0');
    std::size_t done = 0;
    while (done < memory_.size()) {
        const ssize_t n = ::pread(fd_, memory_.data() + done, memory_.size() - done,
                                  static_cast<off_t>(kSealBytes + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
}

bool DiskFile::read(haddr_t address, std::size_t size, void* buffer) {
    auto* bytes = static_cast<char*>(buffer);
    std::size_t done = 0;
    while (!in_memory_ && done < size) {
        const ssize_t n = ::pread(fd_, bytes + done, size - done,
                                  static_cast<off_t>(kSealBytes + address + done));
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) {  // past the end of the file: zeros, as the sec2 driver reads
            std::memset(bytes + done, 0, size - done);
            return true;
        }
        if (n < 0) {
            fail(errno, "reading back");
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    if (!in_memory_) return true;
    for (std::size_t i = done; i < size; ++i) {
        const haddr_t at = address + i;
        bytes[i] = at < memory_.size() ? memory_[static_cast<std::size_t>(at)] : '\0';
    }
    return true;
}

void DiskFile::write(haddr_t address, std::size_t size, const void* buffer) {
    const auto* bytes = static_cast<const char*>(buffer);
    std::size_t done = 0;
    while (!in_memory_ && done < size) {
        const ssize_t n = ::pwrite(fd_, bytes + done, size - done,
                                   static_cast<off_t>(kSealBytes + address + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fail(n < 0 ? errno : ENOSPC, "writing");
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    if (in_memory_) {
        const auto end = static_cast<std::size_t>(address + size);
        if (memory_.size() < end) memory_.resize(end, '\0');
        std::memcpy(memory_.data() + address, bytes, size);
    }
    end_of_file_ = std::max<haddr_t>(end_of_file_, address + size);
}

void DiskFile::truncate(haddr_t end) {
    if (!in_memory_ && ::ftruncate(fd_, static_cast<off_t>(kSealBytes + end)) != 0) {
        fail(errno, "truncating");
    }
    if (in_memory_) memory_.resize(static_cast<std::size_t>(end), '\0');
    end_of_file_ = end;
}

}  // namespace fhmoe::evidence::h5
