// A damaged archive must give a clear fhmoe::Error naming the file, never a crash: a
// nightly job's archive can be cut short by a full disk or a killed copy.

#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "evidence/archive_seal.hpp"
#include "evidence/evidence_generator.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"

namespace fhmoe::evidence {
namespace {

using testing::generate_evidence;
using testing::GeneratorOptions;
using testing::ScratchDir;

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The error read_archive gives for `path`; fails the test if it gives none.
std::string read_error(const std::string& path) {
    try {
        read_archive(path);
    } catch (const Error& error) {
        return error.what();
    }
    ADD_FAILURE() << "read_archive accepted " << path;
    return {};
}

class DamagedArchive : public ::testing::Test {
protected:
    void SetUp() override {
        write_archive(original_, generate_evidence(GeneratorOptions{.seed = 21, .shapes = 30}));
        bytes_ = read_bytes(original_);
        ASSERT_GT(bytes_.size(), 4 * kSealBytes);
    }
    ScratchDir scratch_;
    const std::string original_ = scratch_.file("run.h5");
    const std::string damaged_ = scratch_.file("damaged.h5");
    std::string bytes_;
};

TEST_F(DamagedArchive, TruncatedAtAnyOffsetIsAClearError) {
    const std::size_t size = bytes_.size();
    for (std::size_t length : {std::size_t{0}, std::size_t{10}, kSealBytes - 1, kSealBytes,
                               kSealBytes + 100, size / 3, size / 2, size - 100, size - 1}) {
        write_bytes(damaged_, bytes_.substr(0, length));
        const std::string message = read_error(damaged_);
        EXPECT_NE(message.find(damaged_), std::string::npos) << message;
        EXPECT_TRUE(message.find("truncated") != std::string::npos ||
                    message.find("not an fhmoe evidence archive") != std::string::npos)
            << "length " << length << ": " << message;
    }
}

TEST_F(DamagedArchive, AFlippedByteAnywhereIsAClearError) {
    const std::size_t size = bytes_.size();
    // The seal header, its zero padding, HDF5's superblock, metadata, table data, the end.
    for (std::size_t offset :
         {std::size_t{0}, std::size_t{30}, std::size_t{60}, std::size_t{400}, kSealBytes,
          kSealBytes + 8, kSealBytes + 200, size / 4, size / 2, size * 3 / 4, size - 1}) {
        std::string flipped = bytes_;
        flipped[offset] = static_cast<char>(flipped[offset] ^ 0x5a);
        write_bytes(damaged_, flipped);
        const std::string message = read_error(damaged_);
        EXPECT_NE(message.find(damaged_), std::string::npos) << message;
        EXPECT_TRUE(message.find("corrupted") != std::string::npos ||
                    message.find("not an fhmoe evidence archive") != std::string::npos)
            << "offset " << offset << ": " << message;
    }
}

TEST_F(DamagedArchive, ExtraBytesAtTheEndAreAClearError) {
    write_bytes(damaged_, bytes_ + "trailing");
    EXPECT_NE(read_error(damaged_).find("extra bytes"), std::string::npos);
}

TEST(ArchiveInput, AMissingFileNamesIt) {
    const ScratchDir scratch;
    const std::string message = read_error(scratch.file("absent.h5"));
    EXPECT_NE(message.find("absent.h5"), std::string::npos) << message;
    EXPECT_NE(message.find("No such file"), std::string::npos) << message;
}

TEST(ArchiveInput, AnHdf5FileThatIsNotAnArchiveIsRefused) {
    const ScratchDir scratch;
    const std::string path = scratch.file("foreign.h5");
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    H5Fclose(file);
    EXPECT_NE(read_error(path).find("not an fhmoe evidence archive"), std::string::npos);
}

// Edits a sealed archive with HDF5 itself and seals it again, as a writer with another
// schema would have produced it.
template <typename Edit>
void edit_and_reseal(const std::string& path, Edit edit) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    edit(file);
    ASSERT_GE(H5Fclose(file), 0);
    seal_archive_file(path);
}

TEST_F(DamagedArchive, AMissingDatasetIsNamed) {
    edit_and_reseal(original_,
                    [](hid_t file) { ASSERT_GE(H5Ldelete(file, "race", H5P_DEFAULT), 0); });
    const std::string message = read_error(original_);
    EXPECT_NE(message.find(original_), std::string::npos) << message;
    EXPECT_NE(message.find("missing dataset /race"), std::string::npos) << message;
}

TEST_F(DamagedArchive, AnotherSchemaVersionIsNamed) {
    edit_and_reseal(original_, [](hid_t file) {
        const hid_t attribute = H5Aopen(file, "schema_version", H5P_DEFAULT);
        ASSERT_GE(attribute, 0);
        const std::int64_t future = kSchemaVersion + 1;
        ASSERT_GE(H5Awrite(attribute, H5T_NATIVE_INT64, &future), 0);
        H5Aclose(attribute);
    });
    const std::string message = read_error(original_);
    EXPECT_NE(
        message.find("schema_version " + std::to_string(kSchemaVersion + 1) + " is not supported"),
        std::string::npos)
        << message;
}

TEST_F(DamagedArchive, AMissingProvenanceAttributeIsNamed) {
    edit_and_reseal(original_, [](hid_t file) { ASSERT_GE(H5Adelete(file, "git_revision"), 0); });
    EXPECT_NE(read_error(original_).find("missing attribute 'git_revision'"), std::string::npos);
}

TEST_F(DamagedArchive, ADatasetThatIsNotATableIsNamed) {
    // A table replaced by a plain integer dataset of the same name.
    edit_and_reseal(original_, [](hid_t file) {
        ASSERT_GE(H5Ldelete(file, "decisions", H5P_DEFAULT), 0);
        const hsize_t dims[1] = {3};
        const hid_t space = H5Screate_simple(1, dims, nullptr);
        const hid_t dataset = H5Dcreate2(file, "decisions", H5T_NATIVE_INT32, space, H5P_DEFAULT,
                                         H5P_DEFAULT, H5P_DEFAULT);
        ASSERT_GE(dataset, 0);
        H5Dclose(dataset);
        H5Sclose(space);
    });
    EXPECT_NE(read_error(original_).find("/decisions is not a table of compound rows"),
              std::string::npos);
}

}  // namespace
}  // namespace fhmoe::evidence
