#include <gtest/gtest.h>

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

TEST(Version, RevisionIsParsedFromAnyVersionText) {
    EXPECT_EQ(git_revision_of("0.1.0+g1a2b3c4d5e6f"), "1a2b3c4d5e6f");
    EXPECT_EQ(git_revision_of("0.1.0"), "");
}

}  // namespace
}  // namespace fhmoe
