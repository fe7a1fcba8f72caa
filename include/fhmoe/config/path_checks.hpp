#pragma once

// Checks of the files a run reads and writes, made before anything is measured: a typo in a
// path must cost a second, not a night of measurements thrown away at the first write.
// Every failure is an fhmoe::InputError naming the flag and the path (exit code 2).
//
// The checks try instead of asking: access(W_OK) says yes to root on a read-only mount, so a
// directory is writable when a probe file can really be created (and removed) in it.

#include <string>
#include <vector>

namespace fhmoe::config {

// A path of a run and the flag that named it ("--evidence"), for the messages.
struct FlagPath {
    std::string flag;
    std::string path;
};

// An existing regular file that can be opened for reading.
void check_input_file(const FlagPath& input);

// As check_input_file when the file exists; nothing when it does not.
void check_input_file_if_exists(const FlagPath& input);

// A file the run will create or replace (by renaming a temporary file of the same directory
// over it): its directory exists and a file can be created there, and the path itself is not
// a directory or anything else than a regular file.
void check_output_file(const FlagPath& output);

// An existing regular file the run appends to in place (a resumed journal): an input that can
// also be opened for writing.
void check_appendable_file(const FlagPath& output);

// An existing regular file that can be executed.
void check_executable_file(const FlagPath& program);

// No output names the same file as another output or as an input, however spelled: "./x"
// and "x", a symlink and its target, two hard links. Existing files are compared by device
// and inode, the others by their absolute path with symlinks and "." and ".." resolved.
void check_distinct_files(const std::vector<FlagPath>& outputs,
                          const std::vector<FlagPath>& inputs);

}  // namespace fhmoe::config
