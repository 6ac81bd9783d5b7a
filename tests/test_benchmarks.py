"""Speed benchmarks (``benchmarks/``): the reference SAS gradient agrees with fsbench's, and the bench runs.

Fast smoke tests only; the measurements themselves are ``make bench``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # `benchmarks` is a top-level package of the checkout, not installed
    sys.path.insert(0, str(REPO))

from benchmarks import reference  # noqa: E402
from benchmarks import run as bench  # noqa: E402
from benchmarks.timing import blas_summary, environment, measure  # noqa: E402
from fsbench.algorithms.alignment import SAS  # noqa: E402


@pytest.mark.parametrize("n_classes", [2, 3])
def test_reference_iteration_matches_fsbench_gradient(n_classes):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 7))
    y = rng.integers(0, n_classes, 40)
    w = rng.uniform(0.3, 1.7, 7)
    sel = SAS(kernel="rbf", gamma="median")
    f, g = sel.criterion(X, y, w)
    gamma = sel._kernel(X).gamma
    a_ref, g_ref = reference.sas_iteration(X, reference.vert_target(y), w, gamma)
    assert a_ref == pytest.approx(f, rel=1e-12)
    np.testing.assert_allclose(g_ref, g, rtol=1e-10, atol=1e-14)


def test_reference_target_is_fsbench_target():
    y = np.array([0, 1, 2, 1, 0])
    from fsbench.algorithms.targets import class_target

    np.testing.assert_array_equal(reference.vert_target(y), class_target(y, "vert"))


def test_floor_ops_shapes():
    ops = reference.floor_ops(12, 3, np.random.default_rng(0))
    assert ops["exp_NxN"]().shape == (12, 12)
    assert ops["gemm_NxNxD"]().shape == (12, 12)


def test_measure_round_robin_and_budget():
    calls = []
    t = measure({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, repeats={"a": 3, "b": 1})
    assert [len(t["a"].cpu), len(t["b"].cpu)] == [3, 1]
    assert calls[:4] == ["a", "b", "a", "b"]  # warm-ups, then round-robin
    slow = measure({"s": lambda: sum(range(200_000))}, repeats=5, budget_s=0.0)
    assert len(slow["s"].cpu) == 1 and slow["s"].cold  # warm-up over budget: one cold run


def test_environment_records_cpu_and_blas():
    env = environment()
    assert env["cpu_model"] and env["cpu_count"] >= 1
    assert "thread" in blas_summary(env)


def test_bench_runs_on_tiny_sizes(tmp_path, capsys):
    assert bench.main(["--tiny", "--repeats", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for part in ("(a)", "(b)", "(c)", "(e)"):
        assert part in out
    assert "PASS" in out or "MISS" in out
    a = json.loads((tmp_path / bench.FILES["a"]).read_text())
    assert a["tiny"] and a["cpu_model"] and a["blas"] and "median CPU time" in a["method"]
    assert all(r["gradient_max_rel_diff"] < 1e-8 and r["speedup"] > 0 for r in a["cases"])
    b = json.loads((tmp_path / bench.FILES["b"]).read_text())
    assert all(r["floor_s"] > 0 for r in b["cases"])
    c = json.loads((tmp_path / bench.FILES["c"]).read_text())
    assert c["case"]["same_ranking"]
    e = json.loads((tmp_path / bench.FILES["e"]).read_text())
    assert e["case"]["same_ranking"] and e["case"]["reference_s"] > 0 and e["case"]["fsbench_s"] > 0
    md = (tmp_path / "RESULTS.md").read_text()
    assert "## (a)" in md and "## (b)" in md and "## (c)" in md and "## (e)" in md


@pytest.mark.slow  # > 10 s on 2 cores
def test_scale_bench_runs_on_tiny_sizes(tmp_path, capsys):
    from benchmarks import scale

    assert scale.main(["--tiny", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / scale.FILES["tiny"]).read_text())
    paths = {(r["path"], r["N"]): r for r in doc["cases"]}
    assert set(paths) == {(p, n) for p in ("dense", "blocked") for n in scale.TINY_GRID}
    for (path, _), r in paths.items():
        assert r["gram_path"] == path  # the tiny budget forces the blocked path at every tiny N
        assert r["peak_rss_bytes"] >= r["rss_data_bytes"] > 0
        assert r["iteration_s"] > 0 and r["floor_iteration_s"] > 0 and r["fit_n_iter"] == r["fit_iters"]
    assert set(doc["exponents"]) == {"dense", "blocked"} and doc["verdict"] == "NOT MEASURED"
    md = (tmp_path / "RESULTS.md").read_text()
    assert "## (d)" in md and "| blocked | 700 |" in md


def test_threads_bench_runs_on_tiny_sizes(tmp_path, capsys):
    from benchmarks import threads

    assert threads.main(["--tiny", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "f_threads_tiny.json").read_text())
    cases = {(r["N"], r["n_jobs"]): r for r in doc["cases"]}
    assert set(cases) == {(n, j) for n in threads.TINY_GRID for j in threads.JOBS}
    assert all(r["wall_s"] > 0 and r["cpu_s"] > 0 for r in cases.values())
    assert all(cases[(n, 1)]["speedup"] == 1.0 for n in threads.TINY_GRID)


def test_rff_agreement_rule_and_measures():
    from benchmarks import rff_agreement as ra

    rho, top = ra.agreement(np.arange(1, 13), np.arange(1, 13))
    assert rho == pytest.approx(1.0) and top == 10
    rho, top = ra.agreement(np.arange(1, 13), np.arange(12, 0, -1))
    assert rho == pytest.approx(-1.0) and top == 8  # top-10 of 12 overlap in 8 whatever the order

    def doc(per_m):
        recs = [
            {"m": m, "spearman": s, "top10": t, "criterion": 0.5, "exact_alignment_at_w": 0.5, "wall_s": 1.0}
            for m, pairs in per_m.items()
            for s, t in pairs
        ]
        return {"m_grid": sorted(per_m), "records": recs}

    # m = 100 has median Spearman 0.95 but median top-10 7: the rule needs both, so 200.
    d = doc({50: [(0.5, 5)] * 3, 100: [(0.95, 7)] * 3, 200: [(0.91, 8), (0.92, 9), (0.2, 1)]})
    assert ra.choose_m(d) == 200
    assert ra.choose_m(doc({50: [(0.1, 1)], 2000: [(0.5, 5)]})) == 2000  # none qualifies: the largest


def test_rff_iteration_runs():
    from benchmarks import rff_agreement as ra

    assert ra.rff_iteration(300, 8, n_components=64, repeats=1) > 0


def test_rff_floor_kernels_floor_and_fit(tmp_path, monkeypatch):
    from benchmarks import rff_floor as rfl

    k = rfl.kernel_times(64, threads=1, repeats=1, min_rows=2000)
    assert set(k["kernels"]) == set(rfl.VALUE_KERNELS) | set(rfl.GRADIENT_KERNELS)
    assert all(v["cpu_us_per_row"] >= 0 and v["wall_us_per_row"] > 0 for v in k["kernels"].values())
    # the floor is linear in N and in the number of passes, and a gradient pass holds the value pass's
    # projection and cosine plus three more kernels
    one = rfl.floor_seconds(k, 1000, 1, 1, "wall")
    assert rfl.floor_seconds(k, 10_000, 2, 2, "wall") == pytest.approx(20 * one)
    assert rfl.pass_floor(k, "gradient", "wall") > k["kernels"]["project"]["wall_us_per_row"]
    # a real (tiny) fit in a subprocess, its passes counted, then the report
    doc = rfl.run_fit(tmp_path, N=3000, m=32, iters=2, n_jobs=1, tag="t")
    assert doc["gradient_passes"] == doc["n_iter"] and doc["value_passes"] >= doc["n_iter"] + 1
    assert doc["summary"]["floor_s"] > 0 and doc["summary"]["ratio_to_floor"] > 0
    assert (tmp_path / "rff_floor_n3000_m32_j1_t.json").exists()
    assert "| t | 3000 | 32 | 1 |" in rfl.render(tmp_path)


def test_rff_precision_pairs_and_table(tmp_path, monkeypatch):
    from benchmarks import rff_precision as rp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    monkeypatch.setattr(rp, "case_data", lambda case, seed: (X, y, True))
    doc = rp.run(tmp_path, cases=("spambase",), seeds=(0, 1), m_values=(16,))
    assert len(doc["records"]) == 2 and not (tmp_path / "rff_precision.json.partial").exists()
    for r in doc["records"]:
        assert r["same_ranking"] == (r["n_rank_differences"] == 0)
        assert r["w_max_rel_diff"] < 1e-2  # float32 rounding, not another optimum, on this easy problem
    md = rp.render(tmp_path)
    assert "| spambase | 200×6 | 16 |" in md
    # a fit compared with itself: identical
    a, _ = rp.fit(X, y, 16, 0, np.float32)
    same = rp.compare(a, a)
    assert same["same_ranking"] and same["w_max_rel_diff"] == 0.0 and same["spearman"] == pytest.approx(1.0)


def test_rff_default_m_rule_measure_and_run(tmp_path, monkeypatch):
    from benchmarks import rff_default_m as rd

    ident = np.arange(1, 13)
    assert rd.average_overlap(ident, ident) == pytest.approx(1.0)
    swapped = ident.copy()
    swapped[[0, 1]] = swapped[[1, 0]]  # best two swapped: k = 1 disagrees, every k >= 2 agrees
    assert rd.average_overlap(ident, swapped) == pytest.approx(0.9)

    def doc(per_m, ref):
        recs = [{"case": "c", "seed": s, "fit": "exact_A", "ranking": ident.tolist()} for s in range(3)]
        recs += [{"case": "c", "seed": s, "fit": "exact_B", "ranking": ref.tolist()} for s in range(3)]
        recs += [
            {"case": "c", "seed": s, "fit": f"rff_{m}", "ranking": r.tolist()}
            for m, ranks in per_m.items()
            for s, r in enumerate(ranks)
        ]
        return {"m_grid": sorted(per_m), "cases": ["c"], "seeds": [0, 1, 2], "records": recs}

    far = ident[::-1].copy()
    # exact B swaps the best two; m = 50 is worse than that in 2 of 3 seeds, m = 100 never
    d = doc({50: [ident, far, far], 100: [ident, swapped, ident]}, swapped)
    assert rd.choose_m(d) == 100
    assert rd.choose_m(doc({50: [far] * 3}, ident)) is None  # none as close as exact to itself

    rng = np.random.default_rng(0)

    def fake_samples(case, seed):
        X = rng.normal(size=(300, 5))
        y = (X[:, 0] > 0).astype(int)
        return (X[:150], y[:150]), (X[150:], y[150:])

    monkeypatch.setattr(rd, "samples", fake_samples)
    out = rd.run(tmp_path, cases=("toy",), seeds=(0,), m_grid=(16, 32))
    assert {r["fit"] for r in out["records"]} == {"exact_A", "exact_B", "rff_16", "rff_32"}
    assert "| toy | 150×5 |" in rd.render(tmp_path)


def test_rff_floor_target_lines():
    from benchmarks import rff_floor as rfl

    names = set(rfl.VALUE_KERNELS) | set(rfl.GRADIENT_KERNELS)

    def row(m, quad_us):  # 1 µs per row for every kernel but the two N·m² ones
        ks = {n: {"cpu_us_per_row": quad_us if n in ("syrk", "zg") else 1.0} for n in names}
        return {"m": m, "threads": 1, "kernels": ks}

    kd = {"rows": [row(500, 1.0), row(2000, 100.0), {"m": 2000, "threads": 2, "kernels": {}}]}
    lines = rfl.target_floor_lines(kd, {2000: [1.0]})
    assert len(lines) == 2  # one per one-thread row
    # m = 500: 2 value passes (default) × 4 kernels + 5 gradient kernels = 13 µs per row → 130 s of CPU
    floor = 10 * rfl.floor_seconds(kd["rows"][0], 1_000_000, rfl.DEFAULT_VALUE_PASSES, 1.0)
    assert f"is {floor / 60:.1f} min" in lines[0] and "within the 10-minute target" in lines[0]
    assert "above the 10-minute target" in lines[1]  # (4 + 1 + 100 + 100 + 3)·10 s = 34.7 min CPU


def test_rff_floor_with_normaliser_rows_counts_the_quadratic_kernels_on_the_subsample():
    from benchmarks import rff_floor as rfl

    names = set(rfl.VALUE_KERNELS) | set(rfl.GRADIENT_KERNELS)
    k = {"kernels": {n: {"cpu_us_per_row": 100.0 if n in ("syrk", "zg") else 1.0} for n in names}}
    full = rfl.floor_seconds(k, 10_000, 1.0, 1.0)
    assert rfl.floor_seconds(k, 10_000, 1.0, 1.0, normaliser_rows=10_000) == full  # all rows
    # value: N·3 + n·(2 + 100); gradient: N·4 + n·(4 + 100), in µs
    sub = rfl.floor_seconds(k, 10_000, 1.0, 1.0, normaliser_rows=100)
    assert sub == pytest.approx(1e-6 * (10_000 * 7 + 100 * 206))


def test_rff_normaliser_pairs_and_table(tmp_path, monkeypatch):
    from benchmarks import rff_normaliser as rn

    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 8))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    monkeypatch.setattr(rn, "data", lambda case, N, seed: (X, y))
    doc = rn.run(tmp_path, plan=(("weston_linear", 400, 8, 5, (0,)),))  # n = 80 of 400 rows
    (r,) = doc["records"]
    assert r["normaliser_rows"] == 80 and len(r["compare"]["relevant_top6"]) == 2
    assert r["full"]["criterion"] != r["sub"]["criterion"]  # the subsample is used
    assert "| weston_linear | 400×8 | 8 | 80 | 0 | 5 |" in rn.render(tmp_path)


def test_fspp_case_alternates_rounds_and_takes_medians():
    from benchmarks import run

    X, y, params, _ = run.tiny_fspp_input()
    r = run.fspp_case(X, y, params, rounds=2)
    assert r["rounds"] == 2 and len(r["reference_runs_s"]) == len(r["fsbench_runs_s"]) == 2
    assert r["speedup"] == pytest.approx(np.median(r["round_speedups"]))
    assert r["round_speedups"][0] == pytest.approx(r["reference_runs_s"][0] / r["fsbench_runs_s"][0])
    assert r["same_ranking"] and len(r["timings"]["fsbench"]) == 2
