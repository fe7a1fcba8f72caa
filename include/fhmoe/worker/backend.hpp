#pragma once

// One interface for every way to run a candidate (DESIGN.md section 5). The measurement loop
// (measurement.hpp) owns the order of steps (preflight, checked run, warmup, timed runs) and
// the fault injection; a backend only knows how to load a shape and run one candidate on it.
//
// Backends: "cpu" (kernels/cpu: real compute, steady-clock timing), "sim" (a latency model,
// no compute). The "gpu" backend plugs in here: its timed_run_us() times with device events
// and it throws DeviceFault when the context is poisoned (an illegal address surfaces at the
// next synchronize as error 700, and the process stays alive with a dead context).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/wire/measurement_settings.hpp"
#include "fhmoe/worker/backend_kind.hpp"
#include "fhmoe/worker/fault_spec.hpp"

namespace fhmoe::worker {

// The device context is unusable from now on: the candidate is a crash and the worker must
// be replaced (no timing is ever taken in a context that faulted).
class DeviceFault : public Error {
public:
    using Error::Error;
};

// The requested backend is not in this build (exit code not_available).
class BackendNotAvailable : public Error {
public:
    using Error::Error;
};

struct LoadedShape {
    std::uint64_t reference_digest = 0;  // identical on every machine for (shape, seed)
    std::uint64_t bytes_in_use = 0;      // inputs, rotation copies and reference held
};

// A candidate constructed for the loaded shape, ready to run.
class PreparedCandidate {
public:
    virtual ~PreparedCandidate() = default;
    // One run on the shape's first input, compared with the reference. perturb_output is
    // the injected `wrong` fault: the output is corrupted before the comparison, as a
    // buggy kernel would leave it.
    virtual tuning::ErrorMetrics checked_run(const wire::MeasurementSettings& settings,
                                             bool perturb_output) = 0;
    // One iteration of the whole op as serving runs it (settings.graph_replay: a replayed
    // device graph, where the backend has graphs), on the next input of the rotation (the
    // first input only without settings.rotate_inputs); returns its duration in
    // microseconds and, when asked, a per-stage split.
    virtual double timed_run_us(const wire::MeasurementSettings& settings,
                                tuning::StageSplit* stages) = 0;
    // An injected crash, hang or oom as this backend's device suffers it (the gpu backend: a
    // kernel storing through an illegal address, a kernel that never ends, a device
    // allocation that fails). Returns false when the backend has no device form of `kind`:
    // the measurement then uses the host's (fault_actions.hpp).
    virtual bool inject_device_fault(FaultKind kind) {
        static_cast<void>(kind);
        return false;
    }
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string_view name() const = 0;
    // host, device name/uuid/index and the worker's pid; rank is the supervisor's to fill.
    virtual tuning::MeasuredOn device() const = 0;
    // The device columns (gfx, cu_num) of the tuned rows measured here: the GPU's
    // architecture and compute-unit count; "cpu" and the hardware threads; "sim" and 1.
    virtual family::DeviceKey tuning_key() const = 0;
    // Generates the shape's inputs and reference from the seed; throws on failure (a
    // std::bad_alloc when memory runs out). Replaces any previously loaded shape.
    virtual LoadedShape load(const family::ShapeKey& shape, std::uint64_t seed) = 0;
    // Bytes the device has free for a candidate's workspace now.
    virtual std::uint64_t free_bytes() const = 0;
    // Estimated bytes the candidate allocates on the loaded shape, beyond the inputs.
    virtual std::uint64_t candidate_bytes(const family::Candidate& candidate) const = 0;
    // Throws kernels::UnsupportedCandidate when the candidate cannot run the loaded shape.
    virtual std::unique_ptr<PreparedCandidate> prepare(const family::Candidate& candidate) = 0;
    // What the next preparations measure for: 0 a chunk, round + 1 a race round. Real
    // devices ignore it; the sim backend draws its noise from it (and the candidate), so a
    // sim run's numbers do not depend on which worker measured what before.
    virtual void set_measurement_context(std::uint64_t /*context*/) {}
};

struct BackendOptions {
    std::optional<std::uint64_t> memory_limit_bytes;  // caps free memory (tests force preflight)
    int device_index = 0;    // which device (sim: which simulated device, it sets the noise)
    double sim_speed = 1.0;  // sim: the device's speed factor (2.0 = twice as fast)
    int cpu_threads = 0;     // cpu: threads per op (0: the op's default, all cores)
};

// The gpu backend exists only in a build with FHMOE_GPU_BACKEND=CUDA|HIP; elsewhere it
// throws BackendNotAvailable.
std::unique_ptr<Backend> make_backend(BackendKind kind, const BackendOptions& options);

// Devices the backend can see from this process without binding one (gpu: the runtime's
// count, after CUDA_/ROCR_/HIP_VISIBLE_DEVICES; cpu and sim: 0). Throws as make_backend does.
int visible_device_count(BackendKind kind);

}  // namespace fhmoe::worker
