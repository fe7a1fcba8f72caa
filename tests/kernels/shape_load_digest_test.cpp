#include <gtest/gtest.h>

#include "common/host_parallel.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "reference/reference_vectors.hpp"

namespace fhmoe::kernels {
namespace {

// Every rank cross-checks the reference digest of a shape, whatever its core count, so the
// generator and the reference must give the same bits with one thread and with many (here an
// odd count that divides none of the work item counts). The thread count only changes the
// split of the work items, never an item's arithmetic; these tests pin that.
constexpr int kManyThreads = 7;

TEST(HostThreads, AScopedCountHoldsWhileItLivesThenTheOuterOneReturns) {
    const int outer = host_threads();
    EXPECT_GE(outer, 1);
    EXPECT_LE(outer, kMostHostThreads);
    {
        const ScopedHostThreads one(1);
        EXPECT_EQ(host_threads(), 1);
        {
            const ScopedHostThreads many(kManyThreads);
            EXPECT_EQ(host_threads(), kManyThreads);
        }
        EXPECT_EQ(host_threads(), 1);
    }
    EXPECT_EQ(host_threads(), outer);
    const ScopedHostThreads too_many(1000);
    EXPECT_EQ(host_threads(), kMostHostThreads);
}

// DSV4 I384 at 16 tokens (1.6 GB of weights): the contract's own size, where the generator
// splits W1 into ~1000 work items and the reference runs ~90 experts. The digests are 1dc934a's
// (before the fused reference and the huge-page buffers; bench/shape_load's "before" table in
// docs/performance.md, "Shape loads"), the same as 439daa6's there: the faster load changed
// no bit.
// One pass on one thread and SSE vectors, the other on many threads and the host's widest.
TEST(ShapeLoadDigests, Dsv4Token16IsPinnedWithOneThreadAndWithMany) {
    for (const int threads : {1, kManyThreads}) {
        SCOPED_TRACE(::testing::Message() << threads << " threads");
        const ScopedHostThreads scoped(threads);
        const ScopedReferenceVectorLimit vectors(threads == 1 ? 4 : 0);
        const Problem problem = generate_problem(family::dsv4_i384_shape(16), 7);
        EXPECT_EQ(problem_digest(problem), 0x67b1cc1cba67bd93ull);
        EXPECT_EQ(compute_reference(problem).digest, 0xa195c4acfee343bdull);
    }
}

}  // namespace
}  // namespace fhmoe::kernels
