#include "gpu_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/family/memory_estimate.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "gpu/gpu_device.hpp"
#include "worker/host_info.hpp"

namespace fhmoe::worker {
namespace {

// Timed runs rotate over device copies of the inputs spanning twice the device's L2 cache,
// so that a small shape is not served from L2 by the previous iteration (serving runs other
// layers in between); a shape whose inputs alone exceed that gets one copy. Capped so that a
// tiny shape does not become thousands of uploads.
constexpr std::uint64_t rotation_cache_multiple = 2;
constexpr std::size_t max_rotation_copies = 64;

std::size_t rotation_copies(std::uint64_t problem_bytes, std::uint64_t l2_bytes) {
    const std::uint64_t span = rotation_cache_multiple * l2_bytes;
    const std::uint64_t copies =
        (span + problem_bytes - 1) / std::max<std::uint64_t>(problem_bytes, 1);
    return static_cast<std::size_t>(std::clamp<std::uint64_t>(copies, 1, max_rotation_copies));
}

// A device error inside a candidate leaves the context unusable (an illegal address is
// sticky): the worker must be replaced, never trusted with another timing.
template <typename Action>
auto on_device(Action&& action) -> decltype(action()) {
    try {
        return action();
    } catch (const kernels::GpuRuntimeError& error) {
        throw DeviceFault(error.what());
    }
}

struct LoadedProblem {
    kernels::ReferenceOutput reference;
    std::unique_ptr<kernels::GpuProblem> device;
};

class GpuPrepared final : public PreparedCandidate {
public:
    GpuPrepared(const LoadedProblem& loaded, const family::ShapeKey& shape,
                const family::Candidate& candidate)
        : loaded_(loaded),
          op_(on_device([&] { return std::make_unique<kernels::GpuFhmoeOp>(shape, candidate); })),
          out_(static_cast<std::size_t>(shape.token * shape.model_dim)) {}

    tuning::ErrorMetrics checked_run(const wire::MeasurementSettings& settings,
                                     bool perturb_output) override {
        on_device([&] {
            op_->poison_output();  // an element the op forgets to write stays NaN: a failure
            op_->run(*loaded_.device, 0);
            op_->download_output(out_);
        });
        if (perturb_output) {
            for (std::uint16_t& value : out_) value ^= 0x8000U;  // flip every sign bit
        }
        return kernels::measure_accuracy(loaded_.reference.out, out_,
                                         kernels::AccuracyTolerance{settings.rtol, settings.atol});
    }

    double timed_run_us(const wire::MeasurementSettings& settings,
                        tuning::StageSplit* stages) override {
        const std::size_t copy = settings.rotate_inputs ? next_ % loaded_.device->copies() : 0;
        ++next_;
        return on_device([&] {
            if (!settings.graph_replay) return op_->run(*loaded_.device, copy, stages);
            // A replay has one event pair around the whole graph: the stage split comes from
            // one eager run with events between the stages, taken on the first timed run
            // (an extra run per candidate, not a timed one).
            if (stages != nullptr) {
                if (!eager_split_) {
                    eager_split_.emplace();
                    op_->run(*loaded_.device, copy, &*eager_split_);
                }
                *stages = *eager_split_;
            }
            return op_->run_graph(*loaded_.device, copy);
        });
    }

    bool inject_device_fault(FaultKind kind) override {
        switch (kind) {
            case FaultKind::crash:
                on_device([] { kernels::gpu::fault_with_illegal_device_address(); });
                return true;
            case FaultKind::hang: kernels::gpu::hang_on_device();
            case FaultKind::oom: kernels::gpu::fail_device_allocation(); return true;
            default: return false;
        }
    }

private:
    const LoadedProblem& loaded_;
    std::unique_ptr<kernels::GpuFhmoeOp> op_;
    std::vector<std::uint16_t> out_;
    std::size_t next_ = 0;
    std::optional<tuning::StageSplit> eager_split_;
};

class GpuBackend final : public Backend {
public:
    explicit GpuBackend(const BackendOptions& options)
        : options_(options), facts_(kernels::gpu::bind_gpu_device(options.device_index)) {
        device_.host = host_name();
        device_.device_index = facts_.ordinal;
        // MeasuredOn has no driver field: the name carries the instruction set, the
        // multiprocessor count and the driver, which a timing depends on.
        device_.device_name = facts_.name + " (" + facts_.arch + ", " +
                              std::to_string(facts_.multiprocessors) + " CUs, driver " +
                              facts_.driver_version + ")";
        device_.device_uuid = facts_.identity;
        device_.worker_pid = static_cast<int>(::getpid());
    }

    std::string_view name() const override { return backend_name(BackendKind::gpu); }
    tuning::MeasuredOn device() const override { return device_; }
    family::DeviceKey tuning_key() const override {
        return family::DeviceKey{facts_.arch, facts_.multiprocessors};
    }

    LoadedShape load(const family::ShapeKey& shape, std::uint64_t seed) override {
        loaded_.reset();  // free the previous shape's device inputs before the next upload
        in_use_ = 0;
        try {
            auto loaded = std::make_unique<LoadedProblem>();
            const kernels::Problem& problem = host_problem(shape, seed);
            const std::size_t copies = rotation_copies(problem.bytes(), facts_.l2_bytes);
            std::future<std::shared_ptr<const kernels::GpuWeights>> upload;
            if (!weights_ || !weights_->serves(problem) || weights_->copies() != copies) {
                weights_.reset();  // free the previous model's weights before the upload
                // Arranged and uploaded beside the reference, which needs only the host
                // problem: a new model's load takes the longer of the two, not their sum.
                upload = std::async(std::launch::async, [&problem, copies] {
                    return on_device([&] {
                        kernels::gpu::use_bound_gpu_device();
                        return std::make_shared<const kernels::GpuWeights>(problem, copies);
                    });
                });
            }
            loaded->reference = kernels::compute_reference(problem);
            if (upload.valid()) weights_ = upload.get();
            loaded->device =
                on_device([&] { return std::make_unique<kernels::GpuProblem>(problem, weights_); });
            shape_ = shape;
            loaded_ = std::move(loaded);
        } catch (...) {
            // Whatever failed (memory, the device), the next load starts from nothing.
            host_.reset();
            weights_.reset();
            throw;
        }
        in_use_ = loaded_->device->device_bytes();
        return LoadedShape{loaded_->reference.digest, in_use_};
    }

    std::uint64_t free_bytes() const override {
        const std::uint64_t device_free = on_device([] { return kernels::gpu::gpu_free_bytes(); });
        if (!options_.memory_limit_bytes) return device_free;
        const std::uint64_t capped =
            *options_.memory_limit_bytes > in_use_ ? *options_.memory_limit_bytes - in_use_ : 0;
        return std::min(capped, device_free);
    }

    std::uint64_t candidate_bytes(const family::Candidate& candidate) const override {
        return family::estimate_device_memory(shape_, candidate).workspace();
    }

    std::unique_ptr<PreparedCandidate> prepare(const family::Candidate& candidate) override {
        FHMOE_CHECK(loaded_ != nullptr, "prepare before load");
        return std::make_unique<GpuPrepared>(*loaded_, shape_, candidate);
    }

private:
    // The problem of (shape, seed), drawing only the token-dependent inputs when the previous
    // load was another token count of the same model: a nightly retune loads a model's token
    // counts one after another, and its weights (1.6 GB for DSV4) are most of a load's work.
    const kernels::Problem& host_problem(const family::ShapeKey& shape, std::uint64_t seed) {
        if (host_ && host_->seed == seed && kernels::shares_weights(host_->shape, shape)) {
            kernels::generate_token_inputs(*host_, shape);
        } else {
            host_.reset();
            host_ = std::make_unique<kernels::Problem>(kernels::generate_problem(shape, seed));
        }
        return *host_;
    }

    BackendOptions options_;
    kernels::gpu::GpuDeviceFacts facts_;
    tuning::MeasuredOn device_;
    family::ShapeKey shape_;
    std::unique_ptr<LoadedProblem> loaded_;
    // Kept across loads for the next token count of the same model (host_problem): the
    // host problem (its weights feed the reference) and the device weights.
    std::unique_ptr<kernels::Problem> host_;
    std::shared_ptr<const kernels::GpuWeights> weights_;
    std::uint64_t in_use_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const BackendOptions& options) {
    try {
        return std::make_unique<GpuBackend>(options);
    } catch (const kernels::GpuRuntimeError& error) {
        throw BackendNotAvailable(std::string("backend 'gpu' has no usable device ") +
                                  std::to_string(options.device_index) + ": " + error.what());
    }
}

int gpu_backend_device_count() { return kernels::gpu::gpu_device_count(); }

}  // namespace fhmoe::worker
