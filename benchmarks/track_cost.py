"""Cost of one fit per selector on a benchmark track's largest dataset: ``python -m benchmarks.track_cost``.

For a track config (default ``configs/benchmark/highdim.yaml``) and one of its datasets (default: the one
with the largest N·D), the first task (repeat 0) of every selector is run as the runner runs it
(:func:`fsbench.run.backends.run_one`: one BLAS thread, the task's own split and seed), each in its own
process with a time limit, and its selection CPU seconds (``fit_cpu_s``) recorded. A selector over the limit
is reported as such: its cost per fit is then at least the limit. What a track may include is decided from
these numbers, stated with them in the track's notes.

Writes ``benchmarks/results/track_cost_<config stem>_<dataset>.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time
from pathlib import Path

from fsbench.config.experiment import load_experiment
from fsbench.data import get_card
from fsbench.run.backends import run_one
from fsbench.run.plan import expand

OUT = Path(__file__).parent / "results"


def _child(task, queue) -> None:
    res = run_one(task)
    rows = res.rows or [{}]
    queue.put(
        {"status": res.status, "fit_cpu_s": rows[0].get("fit_cpu_s"), "message": rows[0].get("message")}
    )


def _largest(exp) -> str:
    def size(entry) -> int:
        if not isinstance(entry.spec, str):  # a generator: no card
            return 0
        card = get_card(entry.spec)
        return (card.n_samples or 0) * (card.n_features or 0)

    return max(exp.datasets, key=size).label


def measure(
    config: Path, dataset: str | None, limit: float, only: list[str] | None, save=lambda res: None
) -> dict:
    exp = load_experiment(config)
    dataset = dataset or _largest(exp)
    tasks = [t for t in expand(exp) if t.dataset == dataset and t.repeat == 0]
    if only:
        tasks = [t for t in tasks if t.selector.label in only]
    out = {"config": str(config), "dataset": dataset, "limit_s": limit, "fits": {}}
    path = OUT / f"track_cost_{Path(config).stem}_{dataset}.json"
    if path.is_file():  # a later measurement of some selectors keeps the others' earlier ones
        out["fits"] = json.loads(path.read_text()).get("fits", {})
    ctx = mp.get_context("spawn")
    for t in tasks:
        queue = ctx.Queue()
        proc = ctx.Process(target=_child, args=(t, queue))
        t0 = time.perf_counter()
        proc.start()
        proc.join(limit)
        wall = time.perf_counter() - t0
        if proc.is_alive():
            proc.terminate()
            proc.join()
            rec = {"status": "over the limit", "fit_cpu_s": None, "wall_s": wall}
        else:
            rec = queue.get() if not queue.empty() else {"status": "died", "fit_cpu_s": None}
            rec["wall_s"] = wall
        rec["params"] = t.selector.params  # the config's parameters (e.g. a step) this fit ran with
        out["fits"][t.selector.label] = rec
        save(out)  # after every fit: a long measurement keeps what it has measured
        print(f"| {t.selector.label} | {rec['status']} | {rec.get('fit_cpu_s')} | {wall:.1f} |", flush=True)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, default=Path("configs/benchmark/highdim.yaml"))
    ap.add_argument("--dataset", default=None)
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per fit before it is stopped")
    ap.add_argument("--only", default=None, help="comma-separated selector labels")
    args = ap.parse_args(argv)
    print("| selector | status | fit CPU s | wall s |\n|---|---|---|---|", flush=True)
    OUT.mkdir(exist_ok=True)

    def save(res: dict) -> None:
        path = OUT / f"track_cost_{args.config.stem}_{res['dataset']}.json"
        path.write_text(json.dumps(res, indent=2) + "\n")

    measure(args.config, args.dataset, args.limit, args.only.split(",") if args.only else None, save)


if __name__ == "__main__":
    main()
