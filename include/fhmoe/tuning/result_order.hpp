#pragma once

// Which of two results for the same candidate the merge keeps. A candidate can be reported
// more than once: a chunk re-dispatched after its rank went quiet, a resume that re-reads
// the journal, a fresh worker life that re-runs what its predecessor never finished. The
// merge keeps the greatest result under this total order, so the same set of results gives
// the same answer whatever order they arrive in.
//
// Greater, in this order of precedence:
//  1. by what it tells: mismatch > ok > any fault (unsupported, crash, timeout,
//     oom_runtime, oom_preflight) > not_run. A measurement is never lost to a fault, a
//     terminal status is never lost to not_run, and a candidate that failed the accuracy
//     check once never wins on a run where it happened to pass (fast-wrong never wins);
//  2. the later worker life (attempt), then the later finished_unix_ns, then the later
//     started_unix_ns: newer evidence;
//  3. every remaining field (rank, chunk, device, pid, host, names, status, detail, timing,
//     stages, error, ...), so that two different results are never equivalent. Doubles
//     compare by bit pattern, which is total even for NaN.

#include <compare>

#include "fhmoe/tuning/result.hpp"

namespace fhmoe::tuning {

std::strong_ordering compare_for_merge(const CandidateResult& a, const CandidateResult& b);

}  // namespace fhmoe::tuning
