#pragma once

// A one-token problem small enough to work out on paper (H=64, I=32, E=3, topk=2), used to
// check the reference and the cpu op against values derived by hand, not by the code under
// test. Every input is exact in its format; the derivation is in the comments.

#include <cmath>
#include <cstdint>
#include <vector>

#include "fhmoe/kernels/problem.hpp"

namespace fhmoe::kernels::testing {

inline constexpr std::int64_t kHandHidden = 64;
inline constexpr std::int64_t kHandInter = 32;
inline constexpr float kHandRoutedWeight = 0.75f;

// The expected output, derived by hand.
//   x = 1.0 for k < 32, 0.5 for k >= 32: MXFP8 represents both exactly (scales 2^-8, 2^-9).
//   Routed expert 1: gate = 32*1*0.5*2^-5 + 32*0.5*0.5*2^-4 = 1, up = 32*1*1*2^-4 +
//   32*0.5*2*2^-3 = 6, h = silu(1)*6 = 4.3864; MXFP8 with scale 2^(2-8): 280.7 -> 288, so
//   h = 4.5 in every column. Down row n: codes of value v(n) = e2m1[n % 8] with scale
//   2^(n%3 - 2): y = 32 * 4.5 * v(n) * 2^(n%3 - 2).
//   Shared expert: gate = 32*1*0.125*2^-2 + 32*0.5*0.125*2^-1 = 2, up = 32*1*(-0.25)*2^-1 +
//   32*0.5*(-0.25)*2^-2 = -5, h = silu(2)*(-5) = -8.808; scale 2^(3-8): 281.9 -> 288, so
//   h = -9. Down row n: value 0.25*(n%4 + 1) with scale 2^(n%2): y_s =
//   32*(-9)*0.25*(n%4+1)*2^(n%2). out = 0.75 * y + 1.0 * y_s.
inline float hand_routed_value(std::int64_t n) {
    constexpr float kE2m1[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
    return 32.0f * 4.5f * kE2m1[n % 8] * std::ldexp(1.0f, static_cast<int>(n % 3) - 2);
}
inline float hand_shared_value(std::int64_t n) {
    return 32.0f * -9.0f * 0.25f * static_cast<float>(n % 4 + 1) *
           std::ldexp(1.0f, static_cast<int>(n % 2));
}
inline float hand_expected_output(std::int64_t n) {
    return kHandRoutedWeight * hand_routed_value(n) + hand_shared_value(n);
}

inline Problem hand_built_problem(family::GateMode gate_mode) {
    Problem problem;
    family::ShapeKey& shape = problem.shape;
    shape.token = 1;
    shape.model_dim = kHandHidden;
    shape.inter_dim = kHandInter;
    shape.expert = 3;
    shape.topk = 2;
    shape.shared_expert_id = 2;
    shape.gate_mode = gate_mode;
    const std::int64_t H = kHandHidden;
    const std::int64_t I = kHandInter;
    const std::int64_t E = 3;

    problem.x_bf16.assign(H, 0x3F80);                                      // 1.0
    std::fill(problem.x_bf16.begin() + 32, problem.x_bf16.end(), 0x3F00);  // 0.5
    problem.topk_ids = {1, 2};
    problem.topk_weights = {kHandRoutedWeight, 1.0f};

    // Routed w1: expert 0 is never routed and holds large values that would show if it were
    // read; expert 2 is the zero dummy row.
    problem.w1_fp4.assign(E * 2 * I * H / 2, 0x00);
    problem.w1_scale.assign(E * 2 * I * H / 32, 0x7F);
    std::fill(problem.w1_fp4.begin(), problem.w1_fp4.begin() + 2 * I * H / 2, 0x77);
    const auto gate_row = [&](std::int64_t i) {
        return gate_mode == family::GateMode::interleave ? 2 * i : i;
    };
    const auto up_row = [&](std::int64_t i) {
        return gate_mode == family::GateMode::interleave ? 2 * i + 1 : I + i;
    };
    const std::int64_t expert1 = 1 * 2 * I;
    for (std::int64_t i = 0; i < I; ++i) {
        const std::int64_t g = expert1 + gate_row(i);
        const std::int64_t u = expert1 + up_row(i);
        std::fill_n(problem.w1_fp4.begin() + g * H / 2, H / 2, 0x11);  // 0.5 everywhere
        problem.w1_scale[g * 2] = 127 - 5;
        problem.w1_scale[g * 2 + 1] = 127 - 4;
        std::fill_n(problem.w1_fp4.begin() + u * H / 2, 16, 0x22);       // 1.0 in block 0
        std::fill_n(problem.w1_fp4.begin() + u * H / 2 + 16, 16, 0x44);  // 2.0 in block 1
        problem.w1_scale[u * 2] = 127 - 4;
        problem.w1_scale[u * 2 + 1] = 127 - 3;
    }

    problem.w2_fp4.assign(E * H * I / 2, 0x00);
    problem.w2_scale.assign(E * H * I / 32, 0x7F);
    std::fill(problem.w2_fp4.begin(), problem.w2_fp4.begin() + H * I / 2, 0x77);
    for (std::int64_t n = 0; n < H; ++n) {
        const auto code = static_cast<std::uint8_t>(n % 8);
        std::fill_n(problem.w2_fp4.begin() + (H + n) * I / 2, I / 2,
                    static_cast<std::uint8_t>(code | (code << 4)));
        problem.w2_scale[H + n] = static_cast<std::uint8_t>(127 - 2 + n % 3);
    }

    problem.shared_w1_fp8.assign(2 * I * H, 0x00);
    problem.shared_w1_scale.assign(2 * I * H / 32, 0x7F);
    for (std::int64_t i = 0; i < I; ++i) {
        const std::int64_t g = gate_row(i);
        const std::int64_t u = up_row(i);
        std::fill_n(problem.shared_w1_fp8.begin() + g * H, H, 0x20);  // 0.125
        problem.shared_w1_scale[g * 2] = 127 - 2;
        problem.shared_w1_scale[g * 2 + 1] = 127 - 1;
        std::fill_n(problem.shared_w1_fp8.begin() + u * H, H, 0xA8);  // -0.25
        problem.shared_w1_scale[u * 2] = 127 - 1;
        problem.shared_w1_scale[u * 2 + 1] = 127 - 2;
    }
    problem.shared_w2_fp8.assign(H * I, 0x00);
    problem.shared_w2_scale.assign(H * I / 32, 0x7F);
    constexpr std::uint8_t kQuarterSteps[4] = {0x28, 0x30, 0x34, 0x38};  // 0.25 0.5 0.75 1.0
    for (std::int64_t n = 0; n < H; ++n) {
        std::fill_n(problem.shared_w2_fp8.begin() + n * I, I, kQuarterSteps[n % 4]);
        problem.shared_w2_scale[n] = static_cast<std::uint8_t>(127 + n % 2);
    }
    return problem;
}

}  // namespace fhmoe::kernels::testing
