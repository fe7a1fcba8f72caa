// A Problem's inputs uploaded once, with rotation sets (gpu/gpu_problem_impl.hpp says why and
// how).

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/gpu_problem_impl.hpp"
#include "gpu/portability.hpp"
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
#include "gpu/matrix_weights.hpp"
#endif

namespace fhmoe::kernels {
namespace {

// Input sets whose reads together span this many L2 caches; at most this many sets.
constexpr std::uint64_t kRotationCacheMultiple = 2;
constexpr std::size_t kMaxInputSets = 64;

template <typename T>
gpu::DeviceBuffer<T> uploaded(const std::vector<T>& host) {
    gpu::DeviceBuffer<T> buffer(host.size());
    buffer.upload(host);
    return buffer;
}

// The bytes of weights and activations one run of the op reads: the routed experts its tokens
// use, the shared expert, x.
std::uint64_t bytes_one_run_reads(const Problem& p) {
    const auto& s = p.shape;
    const std::uint64_t per_expert =
        (p.w1_fp4.size() + p.w1_scale.size() + p.w2_fp4.size() + p.w2_scale.size()) /
        static_cast<std::uint64_t>(s.expert);
    std::set<std::int32_t> used;
    for (std::int32_t id : p.topk_ids) {
        if (id != s.shared_expert_id) used.insert(id);
    }
    return used.size() * per_expert + p.shared_w1_fp8.size() + p.shared_w1_scale.size() +
           p.shared_w2_fp8.size() + p.shared_w2_scale.size() + p.x_bf16.size() * 2;
}

// Set `set`'s routing: the routed ids relabelled by a permutation seeded by (seed, set); set 0
// keeps the problem's own routing.
std::vector<std::int32_t> relabelled_routing(const Problem& p, std::size_t set) {
    if (set == 0) return p.topk_ids;
    const auto routed = static_cast<std::int32_t>(p.shape.expert - 1);
    std::vector<std::int32_t> label(static_cast<std::size_t>(routed));
    std::iota(label.begin(), label.end(), 0);
    std::uint64_t state = p.seed * 0x9E3779B97F4A7C15ULL + set * 0xBF58476D1CE4E5B9ULL + 1;
    for (std::int32_t i = routed - 1; i > 0; --i) {
        state ^= state >> 31;
        state *= 0x94D049BB133111EBULL;
        state ^= state >> 29;
        const auto j = static_cast<std::int32_t>(state % static_cast<std::uint64_t>(i + 1));
        std::swap(label[static_cast<std::size_t>(i)], label[static_cast<std::size_t>(j)]);
    }
    std::vector<std::int32_t> ids = p.topk_ids;
    for (std::int32_t& id : ids) {
        if (id < routed) id = label[static_cast<std::size_t>(id)];
    }
    return ids;
}

// The most slots `ids` give one expert (validate_problem has checked every id's range).
std::int64_t most_slots_per_expert(const std::vector<std::int32_t>& ids, std::int64_t experts) {
    std::vector<std::int64_t> slots(static_cast<std::size_t>(experts), 0);
    std::int64_t most = 0;
    for (const std::int32_t id : ids) {
        most = std::max(most, ++slots[static_cast<std::size_t>(id)]);
    }
    return most;
}

// The eight weight tensors of `source` (the problem's own layouts, or their mma-ready
// arrangement: the same field names) in device memory.
template <typename WeightSource>
GpuWeights::Impl::Copy uploaded_weights(const WeightSource& source) {
    GpuWeights::Impl::Copy w;
    w.w1_fp4 = uploaded(source.w1_fp4);
    w.w1_scale = uploaded(source.w1_scale);
    w.w2_fp4 = uploaded(source.w2_fp4);
    w.w2_scale = uploaded(source.w2_scale);
    w.shared_w1_fp8 = uploaded(source.shared_w1_fp8);
    w.shared_w1_scale = uploaded(source.shared_w1_scale);
    w.shared_w2_fp8 = uploaded(source.shared_w2_fp8);
    w.shared_w2_scale = uploaded(source.shared_w2_scale);
    return w;
}

GpuWeights::Impl::Copy upload_weights(const Problem& problem) {
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
    return uploaded_weights(gpu::arrange_matrix_weights(problem));
#else
    return uploaded_weights(problem);
#endif
}

}  // namespace

GpuWeights::GpuWeights(const Problem& problem, std::size_t copies)
    : impl_(std::make_unique<Impl>()) {
    validate_problem(problem);
    if (copies == 0) throw InternalError("gpu weights need at least one copy");
    impl_->shape = problem.shape;
    impl_->seed = problem.seed;
    impl_->copies.reserve(copies);
    // Whole weight copies: more than one only for shapes whose weights fit in the cache.
    for (std::size_t i = 0; i < copies; ++i) impl_->copies.push_back(upload_weights(problem));
}

GpuWeights::~GpuWeights() = default;

bool GpuWeights::serves(const Problem& problem) const {
    return problem.seed == impl_->seed && shares_weights(problem.shape, impl_->shape);
}

std::size_t GpuWeights::copies() const { return impl_->copies.size(); }

std::size_t GpuWeights::device_bytes() const {
    std::size_t bytes = 0;
    for (const Impl::Copy& w : impl_->copies) {
        bytes += w.w1_fp4.bytes() + w.w1_scale.bytes() + w.w2_fp4.bytes() + w.w2_scale.bytes() +
                 w.shared_w1_fp8.bytes() + w.shared_w1_scale.bytes() + w.shared_w2_fp8.bytes() +
                 w.shared_w2_scale.bytes();
    }
    return bytes;
}

GpuProblem::GpuProblem(const Problem& problem, std::size_t copies)
    : GpuProblem(problem, std::make_shared<const GpuWeights>(problem, copies)) {}

GpuProblem::GpuProblem(const Problem& problem, std::shared_ptr<const GpuWeights> weights)
    : impl_(std::make_unique<Impl>()) {
    validate_problem(problem);
    if (weights == nullptr || !weights->serves(problem)) {
        throw Error("gpu weights do not serve the problem of shape " +
                    family::shape_key_string(problem.shape) + " (another model or seed)");
    }
    impl_->shape = problem.shape;
    impl_->weights = std::move(weights);
    const std::size_t copies = impl_->weights->copies();

    const std::uint64_t span = kRotationCacheMultiple * gpu::bound_gpu_device().l2_bytes;
    const std::uint64_t per_run = std::max<std::uint64_t>(bytes_one_run_reads(problem), 1);
    const std::size_t sets = std::clamp<std::size_t>(
        static_cast<std::size_t>((span + per_run - 1) / per_run), copies, kMaxInputSets);
    impl_->inputs.reserve(sets);
    for (std::size_t set = 0; set < sets; ++set) {
        Impl::Inputs in;
        in.x_bf16 = uploaded(problem.x_bf16);
        const std::vector<std::int32_t> ids = relabelled_routing(problem, set);
        in.topk_ids = uploaded(ids);
        in.most_slots_per_expert = most_slots_per_expert(ids, problem.shape.expert);
        in.topk_weights = uploaded(problem.topk_weights);
        in.weights = set % copies;
        // The first set on each weight copy reads that copy's shared expert; the others a
        // copy of their own.
        if (set >= copies) {
            const GpuWeights::Impl::Copy& w = impl_->weights->impl().copies[in.weights];
            in.shared = Impl::SharedExpert{w.shared_w1_fp8.copied(), w.shared_w1_scale.copied(),
                                           w.shared_w2_fp8.copied(), w.shared_w2_scale.copied()};
        }
        impl_->inputs.push_back(std::move(in));
    }
}

GpuProblem::~GpuProblem() = default;

const family::ShapeKey& GpuProblem::shape() const { return impl_->shape; }

std::size_t GpuProblem::copies() const { return impl_->inputs.size(); }

const std::shared_ptr<const GpuWeights>& GpuProblem::weights() const { return impl_->weights; }

std::size_t GpuProblem::device_bytes() const {
    std::size_t bytes = impl_->weights->device_bytes();
    for (const Impl::Inputs& in : impl_->inputs) {
        bytes += in.x_bf16.bytes() + in.topk_ids.bytes() + in.topk_weights.bytes();
        if (in.shared) {
            bytes += in.shared->w1_fp8.bytes() + in.shared->w1_scale.bytes() +
                     in.shared->w2_fp8.bytes() + in.shared->w2_scale.bytes();
        }
    }
    return bytes;
}

}  // namespace fhmoe::kernels
