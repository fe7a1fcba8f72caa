#include "sim_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/family/memory_estimate.hpp"
#include "fhmoe/kernels/cpu_op.hpp"
#include "worker/host_info.hpp"

namespace fhmoe::worker {
namespace {

// A simulated device: 141 GiB, as the H200 the design was measured on.
constexpr std::uint64_t sim_device_bytes = 141ULL << 30;
// Multiply-accumulates per microsecond of a perfectly efficient simulated device.
constexpr double sim_macs_per_us = 4.0e8;
constexpr double sim_launch_us = 4.0;     // per kernel launch
constexpr double sim_noise_sigma = 0.02;  // relative spread of one sample
constexpr double sim_personality = 0.15;  // how far a candidate strays from the smooth model

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

std::uint64_t hash_text(std::uint64_t h, const std::string& text) {
    for (unsigned char c : text) h = mix(h ^ c);
    return h;
}

double unit_interval(std::uint64_t bits) {  // [0, 1)
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

// A standard normal from two uniforms (Box-Muller): the same on every compiler, unlike
// std::normal_distribution.
double standard_normal(std::uint64_t state) {
    const double u1 = std::max(unit_interval(mix(state)), 1e-300);
    const double u2 = unit_interval(mix(state ^ 0xA5A5A5A5A5A5A5A5ULL));
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// How well a tile of `tile` elements along a dimension of `dim` uses the device: too small
// wastes issue slots, too large leaves parallelism unused, and a ragged last tile wastes work.
double tile_efficiency(double tile, double dim, double sweet_spot) {
    const double shape_fit = 1.0 / (1.0 + 0.25 * std::pow(std::log2(tile / sweet_spot), 2.0));
    const double tiles = std::ceil(dim / tile);
    return shape_fit * dim / (tiles * tile);
}

class SimPrepared final : public PreparedCandidate {
public:
    // Run k of a preparation draws the noise of (noise_seed, context, k): the same numbers for
    // a candidate in every chunk that measures it (the incumbent is in all of them), fresh
    // ones in each race round, and none of it depends on the worker's history. So one seed
    // gives one set of decisions however the work was sharded, retried or resumed.
    SimPrepared(double model_us, tuning::StageSplit split, std::uint64_t noise_seed,
                std::uint64_t context)
        : model_us_(model_us), split_(split), noise_seed_(noise_seed), context_(context) {}

    tuning::ErrorMetrics checked_run(const wire::MeasurementSettings&,
                                     bool perturb_output) override {
        tuning::ErrorMetrics metrics;
        if (perturb_output) {  // every element's sign flipped, as a wrong kernel would
            metrics.mismatch_fraction = 1.0;
            metrics.cosine_distance = 2.0;
            metrics.max_abs_delta = 2.0;
        } else {
            metrics.cosine_distance = 1e-6 * unit_interval(mix(noise_seed_));
            metrics.max_abs_delta = 1e-3 * unit_interval(mix(noise_seed_ + 1));
        }
        return metrics;
    }

    // The latency model has no launches and no cache: both timing settings are moot here.
    double timed_run_us(const wire::MeasurementSettings&, tuning::StageSplit* stages) override {
        const double noise = std::exp(
            sim_noise_sigma * standard_normal(mix(noise_seed_ ^ mix(context_ + 1)) + ++runs_));
        if (stages != nullptr) {
            *stages = split_;
            for (double* part : {&stages->sort_us, &stages->quant_us, &stages->stage1_us,
                                 &stages->stage2_us, &stages->reduce_us}) {
                *part *= noise;
            }
        }
        return model_us_ * noise;
    }

private:
    double model_us_;
    tuning::StageSplit split_;
    std::uint64_t noise_seed_;
    std::uint64_t context_;
    std::uint64_t runs_ = 0;
};

class SimBackend final : public Backend {
public:
    explicit SimBackend(const BackendOptions& options) : options_(options) {
        device_.host = host_name();
        device_.device_index = options.device_index;
        device_.device_name = "sim";
        device_.device_uuid = "sim-" + std::to_string(options.device_index);
        device_.worker_pid = static_cast<int>(::getpid());
    }

    std::string_view name() const override { return backend_name(BackendKind::sim); }
    tuning::MeasuredOn device() const override { return device_; }
    family::DeviceKey tuning_key() const override { return family::DeviceKey{"sim", 1}; }

    LoadedShape load(const family::ShapeKey& shape, std::uint64_t seed) override {
        if (auto why = family::why_shape_unsupported(shape)) {
            throw family::UnsupportedShape("sim cannot load " + family::shape_key_string(shape) +
                                           ": " + *why);
        }
        shape_ = shape;
        seed_ = seed;
        loaded_ = true;
        const family::Candidate any;
        in_use_ = family::estimate_device_memory(shape, any).inputs;
        return LoadedShape{mix(hash_text(seed, family::shape_key_string(shape))), in_use_};
    }

    std::uint64_t free_bytes() const override {
        const std::uint64_t total = options_.memory_limit_bytes.value_or(sim_device_bytes);
        return total > in_use_ ? total - in_use_ : 0;
    }

    std::uint64_t candidate_bytes(const family::Candidate& candidate) const override {
        return family::estimate_device_memory(shape_, candidate).workspace();
    }

    void set_measurement_context(std::uint64_t context) override { context_ = context; }

    std::unique_ptr<PreparedCandidate> prepare(const family::Candidate& candidate) override {
        FHMOE_CHECK(loaded_, "prepare before load");
        if (auto why = family::why_candidate_illegal(shape_, candidate)) {
            throw kernels::UnsupportedCandidate(*why);
        }
        const std::uint64_t noise_seed = mix(
            hash_text(mix(seed_ ^ static_cast<std::uint64_t>(options_.device_index)),
                      family::shape_key_string(shape_) + "|" + family::candidate_key(candidate)));
        tuning::StageSplit split = model_split(candidate);
        const double total =
            split.sort_us + split.quant_us + split.stage1_us + split.stage2_us + split.reduce_us;
        return std::make_unique<SimPrepared>(total, split, noise_seed, context_);
    }

private:
    // The smooth model plus the candidate's fixed personality, divided by the device speed.
    tuning::StageSplit model_split(const family::Candidate& c) const {
        const double m = static_cast<double>(shape_.token);
        const double h = static_cast<double>(shape_.model_dim);
        const double i = static_cast<double>(shape_.inter_dim);
        const double routed_slots = m * static_cast<double>(shape_.routed_topk());
        const double active =
            std::max(1.0, std::min(static_cast<double>(shape_.routed_experts()), routed_slots));
        const double bm = c.block_m;
        const double padded_rows = active * std::ceil(routed_slots / active / bm) * bm +
                                   std::ceil(m / bm) * bm;  // routed experts + shared expert

        const double eff1 =
            tile_efficiency(c.stage1.tile_n, i, 128.0) *
            tile_efficiency(c.stage1.tile_k, h, 256.0) *
            (1.0 - 0.04 * std::log2(static_cast<double>(c.stage1.waves))) *
            (1.0 - 0.03 * std::log2(static_cast<double>(c.stage1.k_waves))) *
            (1.0 - 0.02 * std::log2(std::max(1.0, static_cast<double>(c.stage1.k_splits))));
        const double eff2 = tile_efficiency(c.stage2.tile_n, h, 128.0) *
                            tile_efficiency(c.stage2.tile_k, i, 128.0) *
                            (c.stage2.persistent ? 1.05 : 1.0);
        const std::uint64_t personality_bits = mix(hash_text(0x51u, family::candidate_key(c)));
        const double personality =
            1.0 + sim_personality * (2.0 * unit_interval(personality_bits) - 1.0);
        const double slow = personality / options_.sim_speed;

        tuning::StageSplit split;
        split.sort_us = (sim_launch_us + routed_slots * 0.002) * slow;
        split.quant_us = c.stage1.fused_fp8_out ? 0.0 : (sim_launch_us + m * h * 1e-5) * slow;
        split.stage1_us =
            (sim_launch_us + padded_rows * 2.0 * i * h / (sim_macs_per_us * eff1)) * slow;
        split.stage2_us = (sim_launch_us + padded_rows * h * i / (sim_macs_per_us * eff2)) * slow;
        split.reduce_us = c.stage2.mode == family::Stage2Mode::reduce
                              ? (sim_launch_us + m * h * 2e-5) * slow
                              : 0.0;
        return split;
    }

    BackendOptions options_;
    tuning::MeasuredOn device_;
    family::ShapeKey shape_;
    std::uint64_t seed_ = 0;
    bool loaded_ = false;
    std::uint64_t in_use_ = 0;
    std::uint64_t context_ = 0;  // set_measurement_context: 0 a chunk, round + 1 a race round
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend(const BackendOptions& options) {
    return std::make_unique<SimBackend>(options);
}

}  // namespace fhmoe::worker
