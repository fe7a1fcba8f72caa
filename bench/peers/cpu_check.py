#!/usr/bin/env python3
"""CPU check of torch_moe_peers.py's torch code, for a machine without a GPU.

Needs any CPU build of torch (1.13 and later).  It shrinks the contract
(H=256, I=64, 16 routed experts), stands in float16 for fp8 (a two-byte dtype,
so the byte-moving paths run), replaces the two grouped GEMMs with loops that
also assert the layouts/alignments the CUDA kernels need, and fakes the
torch.cuda calls (events, streams, graphs) so that the children's code runs
in-process; then builds the report as the parent does.  Timings printed here
mean nothing; the checks are about shapes, indices, formats and results.

    python3 bench/peers/cpu_check.py      # ends with 'N passed, N failed'
"""

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_moe_peers as m  # noqa: E402

m._load_torch()
import torch  # noqa: E402

m.DEVICE = "cpu"
m.FP8 = torch.float16
m.HIDDEN, m.INTER, m.N_ROUTED = 256, 64, 16
m.GEN_CHUNK, m.DEQ_CHUNK, m.FP8_GROUP_ALIGN = 5, 3, 4
CALLS = {"grouped_mm": 0, "scaled_grouped_mm": 0}


def fake_grouped_mm(a, b_t, offs=None):
    CALLS["grouped_mm"] += 1
    assert a.dim() == 2 and b_t.dim() == 3 and offs.dtype == torch.int32
    assert offs.numel() == b_t.shape[0] and a.shape[1] == b_t.shape[1]
    assert a.stride(-1) == 1 and b_t.stride(-2) == 1
    out = torch.full((a.shape[0], b_t.shape[2]), float("nan"), dtype=a.dtype)
    start = 0
    for g, end in enumerate(offs.tolist()):
        assert end >= start
        if end > start:
            out[start:end] = (a[start:end].float() @ b_t[g].float()).to(a.dtype)
        start = end
    assert start <= a.shape[0]
    return out


def fake_scaled_grouped_mm(a, b_t, sa, sb, offs=None, out_dtype=None, use_fast_accum=False):
    CALLS["scaled_grouped_mm"] += 1
    assert a.dtype == m.FP8 and b_t.dtype == m.FP8 and sa.dtype == torch.float32
    assert sa.dim() == 1 and sa.numel() == a.shape[0] and sa.is_contiguous()
    assert tuple(sb.shape) == (b_t.shape[0], b_t.shape[2]) and sb.stride(1) == 1
    assert b_t.stride(-2) == 1 and a.stride(-1) == 1 and out_dtype == torch.bfloat16
    out = torch.full((a.shape[0], b_t.shape[2]), float("nan"), dtype=torch.bfloat16)
    start = 0
    for g, end in enumerate(offs.tolist()):
        assert end >= start
        if end > start:
            assert start % m.FP8_GROUP_ALIGN == 0 and end % m.FP8_GROUP_ALIGN == 0
            acc = a[start:end].float() @ b_t[g].float()
            out[start:end] = (acc * sa[start:end, None] * sb[g][None]).to(torch.bfloat16)
        start = end
    assert start <= a.shape[0]
    return out


torch._grouped_mm = fake_grouped_mm
torch._scaled_grouped_mm = fake_scaled_grouped_mm


class _Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


class _Stream:
    def wait_stream(self, other):
        pass


class _Graph:
    def replay(self):
        pass

    def reset(self):
        pass


@contextlib.contextmanager
def _null_ctx(*args, **kwargs):
    yield


cuda = torch.cuda
cuda.is_available = lambda: True
cuda.get_device_properties = lambda i: types.SimpleNamespace(
    name="FakeGPU", multi_processor_count=132, L2_cache_size=50 * 2**20, major=9, minor=0,
    total_memory=141 * 2**30)
cuda.synchronize = lambda: None
cuda.empty_cache = lambda: None
cuda.Event = _Event
cuda.Stream = _Stream
cuda.current_stream = lambda: _Stream()
cuda.stream = _null_ctx
cuda.graph_pool_handle = lambda: object()
cuda.CUDAGraph = _Graph
cuda.graph = _null_ctx

PASSED, FAILED = 0, 0


def check(name, cond, extra=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
    print(("ok   " if cond else "FAIL ") + name + (f"  ({extra})" if extra else ""), flush=True)


def check_formats():
    w = torch.randn(3, 8, 64) * 0.05
    p, s = m.mxfp4_quantize(w)
    check("mxfp4 shapes", p.shape == (3, 8, 32) and s.shape == (3, 8, 2) and p.dtype == torch.uint8)
    out = m.mxfp4_dequant_into(p, s, m.mxfp4_lut2("cpu"), torch.empty(3, 8, 64, dtype=torch.bfloat16))
    err = ((out.float() - w).norm() / w.norm()).item()
    check("mxfp4 round trip error is quantization-sized", 0.03 < err < 0.2, f"{err:.3f}")
    grid = torch.tensor(m.E2M1_VALUES + tuple(-v for v in m.E2M1_VALUES))
    wg = grid[torch.randint(0, 16, (2, 4, 64))] * 2.0 ** -5
    wg[..., 0] = 6 * 2.0 ** -5
    wg[..., 32] = -6 * 2.0 ** -5
    p, s = m.mxfp4_quantize(wg)
    out = m.mxfp4_dequant_into(p, s, m.mxfp4_lut2("cpu"), torch.empty(2, 4, 64, dtype=torch.bfloat16))
    check("mxfp4 values on the grid are exact", torch.equal(out.float(), wg))
    check("e8m0 code", int(s[0, 0, 0]) == 127 - 5, str(int(s[0, 0, 0])))
    check("element 0 is the low nibble", int(p[0, 0, 0]) & 15 == 7 and int(p[0, 0, 16]) & 15 == 15)


def check_forwards():
    copies = 3
    weights = {k: m.build_weights(m.METHOD_KIND[k], copies, 11) for k in m.METHODS}
    b, d = weights["bf16_grouped_mm"], weights["dequant_then_matmul"]
    e1, e2 = m.expert_fp32(d, 5)
    check("bf16 weights are the MXFP4 values",
          torch.equal(b["W1"][5].float(), e1) and torch.equal(b["W2"][5].float(), e2))
    check("shared expert copies identical",
          torch.equal(b["W1"][m.N_ROUTED], b["W1"][m.N_ROUTED + copies - 1]))
    check("GEMM views column-major", b["W1t"].stride(1) == 1 and b["W2t"].stride(1) == 1)
    for t in (1, 3, 8, 40):
        inputs = [m.make_copy(5, t, c) for c in range(copies)]
        aux = m.make_aux(t, m.N_ROUTED + copies)
        outs = {}
        for meth in m.METHODS:
            stats = {}
            o = m.forward(meth, weights[meth], inputs[1], aux, static=False, stats=stats)
            og = m.forward(meth, weights[meth], inputs[1], aux, static=True)
            ref = m.reference_fp32(weights[meth], inputs[1])
            check(f"T={t} {meth} shape/dtype/finite",
                  o.shape == (t, m.HIDDEN) and o.dtype == torch.bfloat16
                  and bool(torch.isfinite(o.float()).all()))
            se = m.rel_l2(o, ref)
            check(f"T={t} {meth} self_err", se < m.LIMIT_SELF[meth], f"{se:.2e}")
            check(f"T={t} {meth} graph path == eager path", m.rel_l2(og, o) < 1e-6)
            if stats:
                n = inputs[1]["ids"].unique().numel()
                check(f"T={t} dequant slots = distinct experts", stats["slots"] == n,
                      f"{stats['slots']} vs {n}; static {aux['U_static']}")
            outs[meth] = o
        for meth in ("fp8_scaled_grouped_mm", "dequant_then_matmul"):
            e = m.rel_l2(outs[meth], outs["bf16_grouped_mm"])
            check(f"T={t} {meth} vs bf16", e < m.LIMIT_VS_BF16[meth], f"{e:.2e}")
        r = m.prep_routing(inputs[0], aux, 4)
        offs = r["offs"].tolist()
        check(f"T={t} padded groups", all(o % 4 == 0 for o in offs) and offs == sorted(offs)
              and offs[-1] <= r["rows_src"].numel())
        check(f"T={t} unpadded groups", m.prep_routing(inputs[0], aux, 1)["offs"][-1].item() == 7 * t)
    # negative controls: the checks must see a wrong kernel
    t = 8
    inp = m.make_copy(5, t, 1)
    aux = m.make_aux(t, m.N_ROUTED + copies)
    ob = m.forward("bf16_grouped_mm", b, inp, aux, static=False)
    bad = dict(d)
    bad["lut2"] = d["lut2"].flip(1)
    e = m.rel_l2(m.forward("dequant_then_matmul", bad, inp, aux, static=False), ob)
    check("a swapped nibble order is flagged", e > m.LIMIT_VS_BF16["dequant_then_matmul"], f"{e:.2f}")
    orig = m.combine
    m.combine = lambda y, rows, tk: orig(y, rows.flip(0), tk)
    try:
        e = m.rel_l2(m.forward("bf16_grouped_mm", b, inp, aux, static=False),
                     m.reference_fp32(b, inp))
    finally:
        m.combine = orig
    check("a wrong combine is flagged", e > m.LIMIT_SELF["bf16_grouped_mm"], f"{e:.2f}")


def check_chain():
    """time_chain captures one graph calling the layer on copies 1..n-1, then 0, and
    hands back copy 0's output; the fake graph runs its body once, at capture."""
    copies = 4
    inputs = [{"c": c} for c in range(copies)]
    seen = []

    def fn(inp):
        seen.append(inp["c"])
        return torch.full((2,), float(inp["c"]))

    med, samples, n, out0 = m.time_chain(fn, inputs, 1, 10, 4.0)
    check("chain warms up on copies 0, 1", seen[:2] == [0, 1], str(seen))
    check("chain captures copies 1..n-1 then 0", seen[2:] == [1, 2, 3, 0], str(seen))
    check("chain returns copy 0's output", torch.equal(out0, torch.zeros(2)))
    check("chain replays: 10 layers over 4 copies, rounded up", n == 3 and len(samples) == 3,
          f"{n} replays, {len(samples)} samples")
    check("chain median is per layer", med >= 0 and med == sorted(samples)[1])


def check_children_and_report():
    wd = tempfile.mkdtemp(prefix="peers_cpu_check_")
    base = ["--tokens", "1,4,9", "--iters", "4", "--warmup", "1", "--copies", "3", "--workdir", wd]
    m.child_info(m.parse_args(["--child", "info", "--child-out", os.path.join(wd, "info.json")] + base))
    for meth in m.METHODS:
        m.child_method(m.parse_args(["--child", meth, "--child-out",
                                     os.path.join(wd, meth + ".json")] + base), meth)

    def fake_run_child(role, args, workdir, copies, timeout_s, deadline_s=None):
        with open(os.path.join(wd, role + ".json")) as fh:
            return json.load(fh)

    real = m.run_child
    m.run_child = fake_run_child
    out = os.path.join(wd, "out", "peers.json")
    try:
        m.parent_main(m.parse_args(["--tokens", "1,4,9", "--json", out]))
    finally:
        m.run_child = real
    with open(out) as fh:
        rep = json.load(fh)
    check("report rows", [r["tokens"] for r in rep["rows"]] == [1, 4, 9])
    ok = all(isinstance(r.get(f"{meth}_{mode}_us"), float)
             for r in rep["rows"] for meth in m.METHODS for mode in m.MODES)
    check("every cell timed", ok and m.MODES == ("eager", "graph", "chain"))
    check("columns in the report", rep["columns"] == list(m.TABLE_COLUMNS)
          and len(rep["columns"]) == 2 + len(m.METHODS) * len(m.MODES) + 2)
    res = [st["results"][k] for st in rep["methods"].values() for k in ("1", "4", "9")]
    check("chain timed over every copy", all(
        r.get("chain_copies") == 3 and r.get("chain_iters", 0) >= 3
        and len(r.get("chain_samples_us", [])) == r["chain_iters"] for r in res))
    errs = [r.get("chain_vs_eager_err") for r in res] + [r.get("graph_vs_eager_err") for r in res]
    check("chain and graph outputs == eager", all(isinstance(e, float) and e < 1e-6 for e in errs),
          str(errs))
    check("no check flagged", not any(r.get(f"{meth}_check_failed")
                                      for r in rep["rows"] for meth in m.METHODS))
    check("floors present", all(isinstance(r["floor_us"], float) for r in rep["rows"]))
    check("cross-method errors present", all(
        isinstance(r.get("fp8_scaled_grouped_mm_err_vs_bf16"), float)
        and isinstance(r.get("dequant_then_matmul_err_vs_bf16"), float) for r in rep["rows"]))
    shutil.rmtree(wd, ignore_errors=True)


if __name__ == "__main__":
    check_formats()
    check_forwards()
    check_chain()
    check_children_and_report()
    print(f"calls {CALLS}")
    print(f"cpu_check: {PASSED} passed, {FAILED} failed")
    sys.exit(0 if FAILED == 0 else 1)
