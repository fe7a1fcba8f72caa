#include "cpu_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "fhmoe/family/memory_estimate.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/cpu_op.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "worker/host_info.hpp"

namespace fhmoe::worker {
namespace {

// Timed runs rotate over copies of the shape's inputs so that a small shape's inputs are not
// all sitting in the last-level cache from the previous iteration, which would flatter
// small shapes against what serving sees (other layers ran in between). The copies together
// span rotation_cache_multiple times the LLC, as aiter's run_perftest sizes its rotation
// from the cache; a shape whose inputs alone exceed that gets a single copy (its weights
// stream from memory anyway). The copy count is capped so that a tiny shape does not turn
// into thousands of copies (and a long load).
constexpr std::uint64_t rotation_cache_multiple = 2;
constexpr std::size_t max_rotation_copies = 256;

std::size_t rotation_copies(std::uint64_t problem_bytes) {
    const std::uint64_t span = rotation_cache_multiple * last_level_cache_bytes();
    const std::uint64_t copies =
        (span + problem_bytes - 1) / std::max<std::uint64_t>(problem_bytes, 1);
    return static_cast<std::size_t>(std::clamp<std::uint64_t>(copies, 1, max_rotation_copies));
}

struct LoadedProblem {
    std::vector<kernels::Problem> rotation;  // rotation[0] is the one the reference is of
    kernels::ReferenceOutput reference;
};

class CpuPrepared final : public PreparedCandidate {
public:
    CpuPrepared(const LoadedProblem& loaded, const family::ShapeKey& shape,
                const family::Candidate& candidate, int threads)
        : loaded_(loaded),
          op_(shape, candidate, kernels::CpuOpOptions{threads, kernels::CpuOpFault::none}),
          out_(static_cast<std::size_t>(shape.token * shape.model_dim)) {}

    tuning::ErrorMetrics checked_run(const wire::MeasurementSettings& settings,
                                     bool perturb_output) override {
        op_.run(loaded_.rotation.front(), out_);
        if (perturb_output) {
            for (std::uint16_t& value : out_) value ^= 0x8000U;  // flip every sign bit
        }
        return kernels::measure_accuracy(loaded_.reference.out, out_,
                                         kernels::AccuracyTolerance{settings.rtol, settings.atol});
    }

    // No graphs on the host: the op runs eagerly whatever settings.graph_replay says.
    double timed_run_us(const wire::MeasurementSettings& settings,
                        tuning::StageSplit* stages) override {
        const std::size_t copy = settings.rotate_inputs ? next_ % loaded_.rotation.size() : 0;
        ++next_;
        const kernels::Problem& problem = loaded_.rotation[copy];
        const auto start = std::chrono::steady_clock::now();
        op_.run(problem, out_, stages);
        const auto stop = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::micro>(stop - start).count();
    }

private:
    const LoadedProblem& loaded_;
    kernels::CpuFhmoeOp op_;
    std::vector<std::uint16_t> out_;
    std::size_t next_ = 0;
};

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(const BackendOptions& options) : options_(options) {
        device_.host = host_name();
        device_.device_index = -1;
        device_.device_name = cpu_model_name();
        device_.worker_pid = static_cast<int>(::getpid());
    }

    std::string_view name() const override { return backend_name(BackendKind::cpu); }
    tuning::MeasuredOn device() const override { return device_; }
    family::DeviceKey tuning_key() const override {
        return family::DeviceKey{
            "cpu", static_cast<int>(std::max(1U, std::thread::hardware_concurrency()))};
    }

    LoadedShape load(const family::ShapeKey& shape, std::uint64_t seed) override {
        loaded_.reset();  // free the previous shape before building the next
        in_use_ = 0;
        auto loaded = std::make_unique<LoadedProblem>();
        loaded->rotation.push_back(kernels::generate_problem(shape, seed));
        loaded->reference = kernels::compute_reference(loaded->rotation.front());
        const std::uint64_t problem_bytes = loaded->rotation.front().bytes();
        const std::size_t copies = rotation_copies(problem_bytes);
        loaded->rotation.reserve(copies);
        for (std::size_t i = 1; i < copies; ++i) loaded->rotation.push_back(loaded->rotation[0]);
        shape_ = shape;
        loaded_ = std::move(loaded);
        in_use_ = problem_bytes * copies + loaded_->reference.out.size() * sizeof(float);
        return LoadedShape{loaded_->reference.digest, in_use_};
    }

    std::uint64_t free_bytes() const override {
        if (options_.memory_limit_bytes) {
            return *options_.memory_limit_bytes > in_use_ ? *options_.memory_limit_bytes - in_use_
                                                          : 0;
        }
        return memory_available_bytes();
    }

    std::uint64_t candidate_bytes(const family::Candidate& candidate) const override {
        return family::estimate_device_memory(shape_, candidate).workspace();
    }

    std::unique_ptr<PreparedCandidate> prepare(const family::Candidate& candidate) override {
        FHMOE_CHECK(loaded_ != nullptr, "prepare before load");
        return std::make_unique<CpuPrepared>(*loaded_, shape_, candidate, options_.cpu_threads);
    }

private:
    BackendOptions options_;
    tuning::MeasuredOn device_;
    family::ShapeKey shape_;
    std::unique_ptr<LoadedProblem> loaded_;
    std::uint64_t in_use_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options) {
    return std::make_unique<CpuBackend>(options);
}

}  // namespace fhmoe::worker
