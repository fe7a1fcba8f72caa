#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/portable_silu.hpp"

namespace fhmoe::kernels {
namespace {

TEST(PortableExp, AgreesWithLibmToAFewUlps) {
    for (int i = -2000; i <= 2000; ++i) {
        const float x = static_cast<float>(i) * 0.043f;
        const double exact = std::exp(static_cast<double>(x));
        const double relative = std::abs(portable_exp(x) - exact) / exact;
        EXPECT_LT(relative, 4.0e-7) << x;
    }
    EXPECT_EQ(portable_exp(0.0f), 1.0f);
}

TEST(PortableExp, HandlesTheEdgesOfTheRange) {
    EXPECT_EQ(portable_exp(100.0f), std::numeric_limits<float>::infinity());
    EXPECT_EQ(portable_exp(-200.0f), 0.0f);
    EXPECT_GT(portable_exp(-100.0f), 0.0f);  // a subnormal result, not flushed
    EXPECT_TRUE(std::isnan(portable_exp(std::numeric_limits<float>::quiet_NaN())));
}

TEST(PortableSilu, IsXTimesTheLogisticOfX) {
    for (int i = -400; i <= 400; ++i) {
        const float x = static_cast<float>(i) * 0.05f;
        const double exact = x / (1.0 + std::exp(-static_cast<double>(x)));
        EXPECT_NEAR(portable_silu(x), exact, 1e-6 * std::max(1.0, std::abs(exact))) << x;
    }
    EXPECT_EQ(portable_silu(0.0f), 0.0f);
    EXPECT_EQ(portable_silu(200.0f), 200.0f);
    EXPECT_EQ(portable_silu(-200.0f), 0.0f);
}

}  // namespace
}  // namespace fhmoe::kernels
