#pragma once

// A fresh directory per test, removed afterwards: tests run in parallel under ctest.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace fhmoe::evidence::testing {

class ScratchDir {
public:
    ScratchDir() {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        const std::string name = std::string(test ? test->test_suite_name() : "evidence") + "." +
                                 (test ? test->name() : "run") + "." + std::to_string(::getpid());
        path_ = std::filesystem::temp_directory_path() / "fhmoe-evidence-tests" / name;
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~ScratchDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace fhmoe::evidence::testing
