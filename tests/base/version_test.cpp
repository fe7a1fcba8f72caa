#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "fhmoe/version.hpp"

namespace fhmoe {
namespace {

TEST(Version, StartsWithTheProjectVersionAndCarriesTheRevisionAsBuildMetadata) {
    const std::string text(version());
    EXPECT_EQ(text.rfind(FHMOE_PROJECT_VERSION, 0), 0u) << text;
    const std::string revision(git_revision_of(text));
    if (text.find('+') != std::string::npos) {
        EXPECT_FALSE(revision.empty());
        EXPECT_EQ(text, std::string(FHMOE_PROJECT_VERSION) + "+g" + revision);
    } else {
        EXPECT_TRUE(revision.empty());
    }
}

// The revision is read when the binaries are built, so after a commit and a build (what
// tools/test.sh does) it names the commit the sources are at, not the one cmake first saw.
TEST(Version, RevisionIsTheCommitTheSourcesWereBuiltFrom) {
    const std::string command =
        std::string("git -C '") + FHMOE_SOURCE_DIR + "' rev-parse --short=12 HEAD 2>/dev/null";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
    ASSERT_TRUE(pipe);
    std::array<char, 64> line{};
    const bool have_git = std::fgets(line.data(), line.size(), pipe.get()) != nullptr;
    if (!have_git) GTEST_SKIP() << "the sources are not a git checkout";
    std::string head(line.data());
    while (!head.empty() && (head.back() == '\n' || head.back() == '\r')) head.pop_back();
    EXPECT_EQ(std::string(git_revision_of(version())), head)
        << "the binaries were built before the last commit: rebuild, then test";
}

TEST(Version, RevisionIsParsedFromAnyVersionText) {
    EXPECT_EQ(git_revision_of("0.1.0+g1a2b3c4d5e6f"), "1a2b3c4d5e6f");
    EXPECT_EQ(git_revision_of("0.1.0"), "");
}

}  // namespace
}  // namespace fhmoe
