"""Experiment configuration: YAML → validated, immutable :class:`Experiment`.

Every problem is reported as a :class:`ConfigError` whose message is one line naming the file,
the key path (``protocol.n_train[2]``) and what was expected, so the CLI can print it and exit 2
before any work starts. docs/config.md documents every key with an annotated example.

The file must be UTF-8 YAML with no repeated key in a mapping (PyYAML would silently keep the last
one, e.g. of two ``protocol:`` blocks); numbers (C, gamma, degree, offset, scale) must be finite.
Each :class:`DatasetEntry` remembers where every protocol key came from (``protocol.n_test`` or
``dataset[1].protocol.n_test``), so checks made later against the dataset name the right key.

A file may name a ``base:`` config (a path relative to it) and state only what it changes: its keys are
deep-merged over the base's (:func:`read_config`), and the merged mapping is what is validated, hashed
and written to ``run.json`` (docs/config.md, "Readings as overrides").
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from pathlib import Path
from typing import Any

from fsbench.algorithms.kernel_names import GAMMA_RULES, KERNEL_PARAMS, KERNELS, parse_gamma
from fsbench.config.classifier_names import CLASSIFIER_OPTIONS, PER_PAIR_CLASSIFIERS, evaluator_label
from fsbench.config.files import ConfigError, fraction_size, read_config
from fsbench.config.files import type_name as _tname

CLASS_WEIGHTS = ("balanced",)
TEST_MODES = ("rest", "official")
#: Where the selector runs (``protocol.selection``): ``global`` — once on the training set, one top-S subset
#: for the final classifier; ``per_pair`` — once per pair of classes on that pair's training points, each
#: pairwise machine on its own pair's top-S (:mod:`fsbench.evaluation.pairwise`; Ramona 2012 Table II's
#: "pairwise scheme" read per pair). Per-pair selection needs a pairwise classifier.
SELECTION_MODES = ("global", "per_pair")
#: What rankings.csv keeps of a ranking: the whole order and its scores, or the order's first max(S)
#: features only (for D in the thousands, where whole orders would make the committed tables large).
RANKING_STORES = ("full", "top")

#: Keys of an experiment config. ``jobs`` is an execution setting (e.g. 1 for CPU-time tables): it caps
#: ``--jobs`` and is left out of the config hash, since it cannot change a result.
TOP_KEYS = {
    "name",
    "track",
    "description",
    "paper",
    "notes",
    "seed",
    "dataset",
    "selectors",
    "kernel",
    "protocol",
    "jobs",
    "plugins",
}
#: A diagnostic config (``fsbench diagnose``) has the same keys, ``diagnostic`` and its ``settings``;
#: ``selectors`` is optional there.
DIAGNOSTIC_KEYS = TOP_KEYS | {"diagnostic", "settings"}
#: Keys that do not enter the config hash (they cannot change a result; ``track`` only groups result
#: directories in a cross-dataset report, :mod:`fsbench.results.tracks`). ``plugins`` (directories put on
#: ``sys.path`` for the user's selector classes) is hashed: another directory may hold other code.
UNHASHED_KEYS = {"jobs", "track"}
PROTOCOL_KEYS = {
    "n_train",
    "n_test",
    "test",
    "folds",
    "repeats",
    "stratify",
    "standardize",
    "n_features",
    "C",
    "n_select",
    "classifier",
    "k",
    "selection",
    "evaluators",
    "rankings",
}
KERNEL_KEYS = {"name", *KERNEL_PARAMS}
SELECTOR_KEYS = {"name", "params", "label"}
DATASET_KEYS = {"name", "generator", "params", "label", "protocol", "kernel", "positive"}

DEFAULT_PROTOCOL: dict[str, Any] = {
    "test": None,
    "n_test": None,
    "repeats": 30,
    "stratify": True,
    "standardize": True,
    "n_features": "all",
    "C": "joachims",
    "n_select": None,
    "classifier": "svm",
    "k": 1,
    "folds": None,
    "selection": "global",
    "evaluators": None,
    "rankings": "full",
}


# --------------------------------------------------------------------------- dataclasses
@dataclass(frozen=True)
class KernelConfig:
    """The final classifier's kernel, also the default kernel of kernel-based selectors."""

    name: str = "linear"
    gamma: float | str = "median"
    degree: float = 3
    offset: float = 1.0
    scale: float = 1.0

    @property
    def label(self) -> str:
        return self.name

    def selector_params(self) -> dict[str, Any]:
        """Parameters a selector inherits when the config does not set its own kernel."""
        return {
            "kernel": self.name,
            "gamma": self.gamma,
            "degree": self.degree,
            "offset": self.offset,
            "scale": self.scale,
        }


#: Key of ``n_features: {fraction_of_D: [...]}``: S as fractions of each dataset's D.
FRACTION_KEY = "fraction_of_D"


@dataclass(frozen=True)
class FeatureFractions:
    r"""S values as fractions of each dataset's D, so that results pool across datasets of any D.

    A fraction f gives :math:`S = \max(1, \lfloor fD + \tfrac12\rfloor)` (rounded half-up, at most D);
    fractions that round to the same S on a small D give one S value (:meth:`resolve`).
    """

    fractions: tuple[float, ...]

    def resolve(self, n_features: int) -> list[int]:
        """The S values on a dataset with ``n_features`` features, ascending and distinct."""
        return sorted({self.size(f, n_features) for f in self.fractions})

    @staticmethod
    def size(fraction: float, n_features: int) -> int:
        """S of one fraction on D = ``n_features`` (:func:`fsbench.config.files.fraction_size`)."""
        return fraction_size(fraction, n_features)


@dataclass(frozen=True)
class ProtocolConfig:
    #: training-set sizes: integers (samples) or fractions in (0, 1) of the dataset's samples;
    #: ``(None,)`` under k-fold resampling (the folds decide)
    n_train: tuple[int | float | None, ...]
    n_test: int | None
    test: (
        str | None
    )  # None (use n_test) | "rest" | "official" (with n_test: a subset of it); "rest" under k-fold
    repeats: int
    stratify: bool | str  # True (proportional), False, or "balanced" (equal count per class)
    standardize: bool
    n_features: tuple[int, ...] | FeatureFractions | str  # S values, fractions of D, or "all"
    C: str | float
    n_select: int | None
    classifier: str
    k: int = 1  # neighbours of the knn classifier
    folds: int | None = None  # k-fold: each repeat is a stratified partition into `folds` parts
    class_weight: str | None = None  # "balanced": the final SVM weights classes by inverse frequency
    selection: str = "global"  # SELECTION_MODES: one subset for all classes, or one per pair of classes
    #: More classifiers that evaluate the same top-S subsets (no reselection), each (name, C, k,
    #: class_weight); every S gets one row for ``classifier`` and one per evaluator.
    evaluators: tuple[tuple[str, str | float, int, str | None], ...] = ()
    rankings: str = "full"  # RANKING_STORES


@dataclass(frozen=True)
class SelectorConfig:
    label: str
    name: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class DatasetEntry:
    label: str  # the dataset name used in results and seeds
    key: str  # where it stands in the config file (for error messages)
    spec: Any  # card name (str) or inline synthetic mapping
    protocol: ProtocolConfig
    kernels: tuple[KernelConfig, ...]
    #: protocol key -> the key path it was set at (default: under the top-level ``protocol``).
    protocol_keys: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    #: binarise a multiclass card: this label is class 1, every other label class 0 (Paul 2015's
    #: arrhythmia, "normal" vs the rest)
    positive: str | int | None = None

    def protocol_key(self, key: str) -> str:
        """Key path of the protocol setting ``key`` for error messages, e.g. ``dataset[1].protocol.test``."""
        return self.protocol_keys.get(key, f"protocol.{key}")


@dataclass(frozen=True)
class Experiment:
    name: str
    seed: int
    datasets: tuple[DatasetEntry, ...]
    selectors: tuple[SelectorConfig, ...]
    source: str
    effective: dict[str, Any] = field(hash=False, compare=False)

    #: maximum number of parallel tasks the config allows (None: no limit), e.g. 1 for CPU-time tables
    jobs: int | None = None
    #: the diagnostic's name for a ``fsbench diagnose`` config, None for an experiment
    diagnostic: str | None = None
    settings: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    #: absolute paths of the config's ``plugins`` directories (prepended to ``sys.path`` in the parent
    #: and in every worker, so ``package.module:Class`` selectors import from them)
    plugins: tuple[str, ...] = ()
    #: labels of the selectors left out by ``--exclude-selector``: not run, not tabulated; the config
    #: hash is that of the whole config, so an excluded run is a subset of the same experiment
    excluded: tuple[str, ...] = ()

    @property
    def config_hash(self) -> str:
        return config_hash(self.effective)

    def accepts_hash(self, recorded: str | None) -> bool:
        """Whether a ``run.json``'s config hash is this experiment's."""
        return recorded is not None and recorded == self.config_hash


def config_hash(effective: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of the effective config (after command-line overrides).

    Execution-only keys (:data:`UNHASHED_KEYS`, e.g. ``jobs``) are left out: they cannot change a result.
    """
    hashed = {k: v for k, v in effective.items() if k not in UNHASHED_KEYS}
    blob = json.dumps(hashed, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def config_kind(raw: Any) -> str:
    """What a YAML mapping under ``configs/`` is: ``experiment``, ``diagnostic``, ``paper_values`` or
    ``unknown`` (so the CLI can say which command takes it)."""
    if not isinstance(raw, dict):
        return "unknown"
    if "diagnostic" in raw:
        return "diagnostic"
    if "tables" in raw and "paper" in raw and "selectors" not in raw:
        return "paper_values"
    if "selectors" in raw or "protocol" in raw:
        return "experiment"
    return "unknown"


# --------------------------------------------------------------------------- loading
_KIND_COMMAND = {
    "experiment": "fsbench run",
    "diagnostic": "fsbench diagnose",
    "paper_values": "fsbench report (it reads it from configs/<paper>/)",
}


def _a(noun: str) -> str:
    """``noun`` with its indefinite article ("an experiment", "a diagnostic")."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def load_experiment(
    path: str | Path, overrides: dict[str, Any] | None = None, *, kind: str = "experiment"
) -> Experiment:
    """Read (merged over its ``base:`` chain, :func:`read_config`), override and validate one YAML config.

    ``kind`` is ``"experiment"`` (``fsbench run``) or ``"diagnostic"`` (``fsbench diagnose``); a file of
    another kind is refused with the command that takes it.

    ``overrides`` keys: ``repeats``, ``seed``, ``exclude_selectors`` (names or labels) and ``coarse``
    (keep at most that many evenly spaced values, first and last included, of every ``n_train`` and
    ``n_features`` list) from the command line. ``repeats``, ``seed`` and ``coarse`` are applied to the
    raw mapping before validation so that ``run.json`` and the config hash see the effective config.
    ``exclude_selectors`` is not: the excluded selectors stay in the effective config and its hash
    (a run without some selectors is a subset of the same experiment, so its output directory can be
    resumed with or without them) and are listed in :attr:`Experiment.excluded`; names absent from
    the config are ignored, so one list serves several configs.
    """
    path = Path(path)
    raw = read_config(path)
    found = config_kind(raw)
    if found in _KIND_COMMAND and found != kind:
        raise ConfigError(
            path,
            "",
            f"this is {_a(found.replace('_', ' '))} file, not {_a(kind)} config; use {_KIND_COMMAND[found]}",
        )
    raw = copy.deepcopy(raw)
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key == "repeats":
            raw.setdefault("protocol", {})
            if not isinstance(raw["protocol"], dict):
                raise ConfigError(path, "protocol", f"expected a mapping, got {_tname(raw['protocol'])}")
            raw["protocol"]["repeats"] = value
            for entry in raw.get("dataset", []) if isinstance(raw.get("dataset"), list) else []:
                if isinstance(entry, dict) and isinstance(entry.get("protocol"), dict):
                    entry["protocol"].pop("repeats", None)
        elif key == "seed":
            raw["seed"] = value
        elif key == "coarse":
            protocols = [raw.get("protocol")]
            datasets = raw.get("dataset")
            for entry in datasets if isinstance(datasets, list) else []:
                if isinstance(entry, dict):
                    protocols.append(entry.get("protocol"))
            for proto in protocols:
                if not isinstance(proto, dict):
                    continue  # validation reports it
                for grid in ("n_train", "n_features"):
                    g = proto.get(grid)
                    if isinstance(g, list):
                        proto[grid] = thin_grid(g, value)
                    elif isinstance(g, dict) and isinstance(g.get(FRACTION_KEY), list):
                        g[FRACTION_KEY] = thin_grid(g[FRACTION_KEY], value)
        elif key == "exclude_selectors":
            continue  # applied after validation, below
        else:  # pragma: no cover - programming error
            raise KeyError(key)
    exp = parse_experiment(raw, path, kind=kind)
    exclude = set((overrides or {}).get("exclude_selectors") or ())
    if not exclude or not exp.selectors:
        return exp
    kept = tuple(s for s in exp.selectors if not {s.label, s.name} & exclude)
    if not kept:
        left_out = " ".join(sorted(exclude))
        raise ConfigError(path, "selectors", f"--exclude-selector {left_out} leaves no selector")
    if len(kept) == len(exp.selectors):
        return exp
    return replace(exp, selectors=kept, excluded=tuple(s.label for s in exp.selectors if s not in kept))


def thin_grid(values: list, k: int) -> list:
    """At most ``k`` evenly spaced entries of ``values`` (by position), first and last kept.

    >>> thin_grid([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 3)
    [10, 60, 100]
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if len(values) <= k:
        return list(values)
    if k == 1:
        return [values[-1]]
    n = len(values) - 1
    # integer rounding half up keeps the result independent of floating point
    idx = sorted({(i * n * 2 + (k - 1)) // (2 * (k - 1)) for i in range(k)})
    return [values[i] for i in idx]


def parse_experiment(
    raw: dict[str, Any], source: str | Path = "<config>", *, kind: str = "experiment"
) -> Experiment:
    v = _Validator(source)
    v.keys(raw, DIAGNOSTIC_KEYS if kind == "diagnostic" else TOP_KEYS, "")
    diagnostic = None
    settings: dict[str, Any] = {}
    if kind == "diagnostic":
        diagnostic = v.req(raw, "diagnostic", "", str)
        settings = v.typ(raw.get("settings", {}) or {}, "settings", dict)
    jobs = raw.get("jobs")
    if jobs is not None:
        jobs = v.integer(jobs, "jobs", minimum=1)
    plugins = v.plugins(raw.get("plugins", []), Path(str(source)).parent)
    name = v.req(raw, "name", "", str)
    if not name or any(c in name for c in "/\\") or name.startswith("."):
        raise ConfigError(source, "name", f"expected a non-empty name without '/', got {name!r}")
    for k in ("description", "paper", "notes", "track"):
        if k in raw:
            v.typ(raw[k], k, str)
    seed = raw.get("seed", 0)
    v.integer(seed, "seed", minimum=0)

    base_kernels = v.kernels(raw.get("kernel", "linear"), "kernel")
    base_protocol = raw.get("protocol")
    if base_protocol is None:
        raise ConfigError(source, "protocol", "missing key; expected a mapping with at least n_train")
    v.typ(base_protocol, "protocol", dict)

    ds_raw = v.req(raw, "dataset", "", (str, dict, list))
    entries_raw = ds_raw if isinstance(ds_raw, list) else [ds_raw]
    if not entries_raw:
        raise ConfigError(source, "dataset", "expected at least one dataset")
    datasets = []
    seen = set()
    for i, e in enumerate(entries_raw):
        kp = f"dataset[{i}]" if isinstance(ds_raw, list) else "dataset"
        datasets.append(v.dataset(e, kp, base_protocol, base_kernels))
        key = (datasets[-1].label, tuple(k for k in datasets[-1].kernels))
        if key in seen:
            raise ConfigError(
                source, kp, f"duplicate dataset entry {datasets[-1].label!r} with the same kernels"
            )
        seen.add(key)

    if kind == "diagnostic" and "selectors" not in raw:
        sel_raw = []
    else:
        sel_raw = v.req(raw, "selectors", "", list)
        if not sel_raw:
            raise ConfigError(source, "selectors", "expected a non-empty list of selectors")
    selectors = []
    labels = set()
    for i, s in enumerate(sel_raw):
        sc = v.selector(s, f"selectors[{i}]")
        if sc.label in labels:
            raise ConfigError(
                source,
                f"selectors[{i}]",
                f"duplicate selector label {sc.label!r}; give each entry a distinct 'label'",
            )
        labels.add(sc.label)
        selectors.append(sc)

    effective = copy.deepcopy(raw)
    effective["seed"] = seed
    return Experiment(
        name=name,
        seed=int(seed),
        datasets=tuple(datasets),
        selectors=tuple(selectors),
        source=str(source),
        effective=effective,
        jobs=jobs,
        diagnostic=diagnostic,
        settings=copy.deepcopy(settings),
        plugins=plugins,
    )


class _Validator:
    def __init__(self, source):
        self.source = source

    def err(self, key: str, msg: str) -> ConfigError:
        return ConfigError(self.source, key, msg)

    def keys(self, m: dict, allowed: set[str], kp: str) -> None:
        for k in m:
            if k not in allowed:
                where = f"{kp}.{k}" if kp else str(k)
                raise self.err(where, f"unknown key; expected one of {', '.join(sorted(allowed))}")

    def req(self, m: dict, key: str, kp: str, types):
        where = f"{kp}.{key}" if kp else key
        if key not in m:
            raise self.err(where, "missing key")
        return self.typ(m[key], where, types)

    def typ(self, x, kp: str, types):
        types_t = types if isinstance(types, tuple) else (types,)
        ok = isinstance(x, types_t) and not (isinstance(x, bool) and bool not in types_t)
        if not ok:
            names = " or ".join(
                _tname(t()) if t in (dict, list, str, bool, int, float) else t.__name__ for t in types_t
            )
            raise self.err(kp, f"expected {names}, got {_tname(x)} ({x!r})")
        return x

    def integer(self, x, kp: str, minimum: int = 1) -> int:
        if isinstance(x, bool) or not isinstance(x, Integral):
            raise self.err(kp, f"expected an integer >= {minimum}, got {_tname(x)} ({x!r})")
        if x < minimum:
            raise self.err(kp, f"expected an integer >= {minimum}, got {x}")
        return int(x)

    def plugins(self, x, base: Path) -> tuple[str, ...]:
        """``plugins: [dir, ...]``: existing directories, relative to the config file's directory."""
        self.typ(x, "plugins", list)
        out = []
        for j, d in enumerate(x):
            self.typ(d, f"plugins[{j}]", str)
            path = (base / Path(d).expanduser()).resolve()  # an absolute entry stays as it is
            if not path.is_dir():
                raise self.err(
                    f"plugins[{j}]", f"expected a directory (relative to the config file); {path} is not one"
                )
            out.append(str(path))
        return tuple(out)

    def int_list(self, x, kp: str, minimum: int = 1) -> tuple[int, ...]:
        items = x if isinstance(x, list) else [x]
        if not items:
            raise self.err(kp, "expected a non-empty list of integers")
        out = tuple(
            self.integer(it, f"{kp}[{i}]" if isinstance(x, list) else kp, minimum)
            for i, it in enumerate(items)
        )
        if len(set(out)) != len(out):
            raise self.err(kp, f"duplicate values in {list(out)}")
        return out

    def fractions(self, x: dict, kp: str) -> FeatureFractions:
        """``{fraction_of_D: [f, ...]}`` with every f in (0, 1], distinct."""
        if set(x) != {FRACTION_KEY}:
            raise self.err(
                kp, f"expected a list of S values, 'all' or {{{FRACTION_KEY}: [fractions in (0, 1]]}}"
            )
        items = x[FRACTION_KEY]
        items = items if isinstance(items, list) else [items]
        if not items:
            raise self.err(f"{kp}.{FRACTION_KEY}", "expected a non-empty list of fractions in (0, 1]")
        for i, f in enumerate(items):
            if isinstance(f, bool) or not isinstance(f, Real) or not 0 < f <= 1:
                raise self.err(f"{kp}.{FRACTION_KEY}[{i}]", f"expected a fraction in (0, 1], got {f!r}")
        if len(set(items)) != len(items):
            raise self.err(f"{kp}.{FRACTION_KEY}", f"duplicate values in {items}")
        return FeatureFractions(tuple(float(f) for f in items))

    def kernels(self, x, kp: str) -> tuple[KernelConfig, ...]:
        items = x if isinstance(x, list) else [x]
        if not items:
            raise self.err(kp, "expected a kernel or a non-empty list of kernels")
        out = tuple(
            self.kernel(it, f"{kp}[{i}]" if isinstance(x, list) else kp) for i, it in enumerate(items)
        )
        if len({k.name for k in out}) != len(out):
            raise self.err(kp, "each kernel type may appear once per dataset")
        return out

    def kernel(self, x, kp: str) -> KernelConfig:
        if isinstance(x, str):
            x = {"name": x}
        self.typ(x, kp, dict)
        self.keys(x, KERNEL_KEYS, kp)
        name = self.req(x, "name", kp, str)
        if name not in KERNELS:
            raise self.err(f"{kp}.name", f"unknown kernel {name!r}; expected one of {', '.join(KERNELS)}")
        gamma = x.get("gamma", "median")
        try:
            if isinstance(gamma, bool):
                raise ValueError
            parse_gamma(gamma)
        except ValueError:
            raise self.err(
                f"{kp}.gamma",
                f"expected a positive number, one of {', '.join(GAMMA_RULES)} or a multiple of one "
                f"(e.g. median/4), got {gamma!r}",
            ) from None
        degree = x.get("degree", 3)
        if isinstance(degree, bool) or not isinstance(degree, Real) or not 0 < degree < math.inf:
            raise self.err(f"{kp}.degree", f"expected a positive number, got {degree!r}")
        for k in ("offset", "scale"):
            if k in x and (isinstance(x[k], bool) or not isinstance(x[k], Real) or not math.isfinite(x[k])):
                raise self.err(f"{kp}.{k}", f"expected a finite number, got {_tname(x[k])} ({x[k]!r})")
        if name != "rbf" and "gamma" in x:
            raise self.err(f"{kp}.gamma", f"gamma applies to the rbf kernel only, not {name!r}")
        if name != "poly" and any(k in x for k in ("degree", "offset", "scale")):
            raise self.err(kp, f"degree/offset/scale apply to the poly kernel only, not {name!r}")
        return KernelConfig(
            name=name,
            gamma=gamma,
            degree=degree,
            offset=float(x.get("offset", 1.0)),
            scale=float(x.get("scale", 1.0)),
        )

    def protocol(
        self, base: dict, override: dict | None, kp_base: str, kp_over: str
    ) -> tuple[ProtocolConfig, dict[str, str]]:
        self.keys(base, PROTOCOL_KEYS, kp_base)
        merged = dict(DEFAULT_PROTOCOL)
        merged.update(base)
        origin = {k: kp_base for k in base}
        if override is not None:
            self.typ(override, kp_over, dict)
            self.keys(override, PROTOCOL_KEYS, kp_over)
            merged.update(override)
            origin.update({k: kp_over for k in override})
        where = lambda k: f"{origin.get(k, kp_base)}.{k}"  # noqa: E731
        folds = merged["folds"]
        test = merged["test"]
        n_test = merged["n_test"]
        if folds is not None:
            # k-fold: each repeat is a stratified partition; fold f is the test set of task f
            folds = self.integer(folds, where("folds"), minimum=2)
            for k in ("n_train", "n_test", "test", "n_select"):
                if merged.get(k) is not None:
                    raise self.err(where(k), f"{k} does not apply to k-fold resampling (folds: {folds})")
            n_train: tuple = (None,)
            test = "rest"
        elif "n_train" not in merged:
            raise self.err(
                f"{kp_base}.n_train",
                "missing key; expected an integer, a fraction in (0, 1), a list of them, or folds: K",
            )
        else:
            n_train = self.train_sizes(merged["n_train"], where("n_train"))
        if folds is None and test is not None:
            if not isinstance(test, str) or test not in TEST_MODES:
                raise self.err(where("test"), f"expected one of {', '.join(TEST_MODES)}, got {test!r}")
            if n_test is not None and test != "official":
                raise self.err(where("n_test"), f"give either n_test or test: {test}, not both")
            if n_test is not None:  # a subset of the official test split
                n_test = self.integer(n_test, where("n_test"), minimum=1)
        elif folds is None:
            if n_test is None:
                raise self.err(
                    f"{kp_base}.n_test", "missing key; expected n_test (an integer) or test: rest|official"
                )
            n_test = self.integer(n_test, where("n_test"), minimum=1)
        repeats = self.integer(merged["repeats"], where("repeats"), minimum=1)
        if not isinstance(merged["standardize"], bool):
            raise self.err(where("standardize"), f"expected true or false, got {merged['standardize']!r}")
        if not (isinstance(merged["stratify"], bool) or merged["stratify"] == "balanced"):
            raise self.err(where("stratify"), f"expected true, false or balanced, got {merged['stratify']!r}")
        nf = merged["n_features"]
        if nf == "all":
            n_features = "all"
        elif isinstance(nf, dict):
            n_features = self.fractions(nf, where("n_features"))
        else:
            n_features = self.int_list(nf, where("n_features"), minimum=1)
        C = merged["C"]
        if isinstance(C, str):
            if C != "joachims":
                raise self.err(where("C"), f"expected 'joachims' or a positive number, got {C!r}")
        elif isinstance(C, bool) or not isinstance(C, Real) or not 0 < C < math.inf:
            raise self.err(where("C"), f"expected 'joachims' or a positive number, got {C!r}")
        n_select = merged["n_select"]
        if n_select is not None:
            n_select = self.integer(n_select, where("n_select"), minimum=2)
            if any(isinstance(n, float) for n in n_train):
                raise self.err(where("n_select"), "n_select needs integer training sizes, not fractions")
            if any(n_select > n for n in n_train):
                raise self.err(
                    where("n_select"), f"n_select ({n_select}) must not exceed n_train {list(n_train)}"
                )
        clf, C, k_nn, class_weight = self.classifier(merged, where)
        selection = merged["selection"]
        if selection not in SELECTION_MODES:
            raise self.err(
                where("selection"), f"expected one of {', '.join(SELECTION_MODES)}, got {selection!r}"
            )
        if selection == "per_pair" and clf not in PER_PAIR_CLASSIFIERS:
            raise self.err(
                where("selection"),
                f"per_pair selection needs a pairwise classifier "
                f"({', '.join(PER_PAIR_CLASSIFIERS)}), got {clf!r}",
            )
        evaluators = self.evaluators(merged, where, (clf, C, k_nn, class_weight), selection)
        rankings = merged["rankings"]
        if rankings not in RANKING_STORES:
            raise self.err(
                where("rankings"), f"expected one of {', '.join(RANKING_STORES)}, got {rankings!r}"
            )
        keys = {k: where(k) for k in PROTOCOL_KEYS}
        if isinstance(merged["classifier"], dict):  # options given inside the classifier mapping
            keys.update({k: f"{where('classifier')}.{k}" for k in ("C", "k") if k in merged["classifier"]})
        return ProtocolConfig(
            n_train=n_train,
            n_test=n_test,
            test=test,
            repeats=repeats,
            stratify=merged["stratify"],
            standardize=merged["standardize"],
            n_features=n_features,
            C=C if isinstance(C, str) else float(C),
            n_select=n_select,
            classifier=clf,
            k=k_nn,
            folds=folds,
            class_weight=class_weight,
            selection=selection,
            evaluators=evaluators,
            rankings=rankings,
        ), keys

    def train_sizes(self, x, kp: str) -> tuple[int | float, ...]:
        """Training sizes: integers >= 2 (samples) or fractions in (0, 1) of the dataset's samples."""
        items = x if isinstance(x, list) else [x]
        if not items:
            raise self.err(kp, "expected a non-empty list of training sizes")
        out: list[int | float] = []
        for i, it in enumerate(items):
            where = f"{kp}[{i}]" if isinstance(x, list) else kp
            if isinstance(it, float) and not isinstance(it, bool):
                if not 0.0 < it < 1.0:
                    raise self.err(
                        where, f"expected an integer >= 2 or a fraction in (0, 1) of the samples, got {it!r}"
                    )
                out.append(float(it))
            else:
                if isinstance(it, bool) or not isinstance(it, Integral):
                    raise self.err(
                        where,
                        f"expected an integer >= 2 or a fraction in (0, 1), got {_tname(it)} ({it!r})",
                    )
                out.append(self.integer(it, where, minimum=2))
        if len(set(out)) != len(out):
            raise self.err(kp, f"duplicate values in {out}")
        return tuple(out)

    def evaluators(
        self, merged: dict, where, primary: tuple, selection: str
    ) -> tuple[tuple[str, str | float, int, str | None], ...]:
        """``evaluators: [NAME or {name, C, k, class_weight}, ...]``: more classifiers on the same top-S
        subsets; each entry is read as ``classifier`` is (its own C and k only), and two entries that would
        write the same ``classifier`` column (or repeat the primary classifier) are refused."""
        spec = merged.get("evaluators")
        if spec is None:
            return ()
        kp = where("evaluators")
        if not isinstance(spec, list) or not spec:
            raise self.err(kp, f"expected a non-empty list of classifiers, got {_tname(spec)}")
        if selection == "per_pair":
            raise self.err(kp, "evaluators apply to selection: global only")
        out = []
        labels = {evaluator_label(primary[0], primary[2])}
        for i, entry in enumerate(spec):
            own = entry if isinstance(entry, dict) else {}
            sub = {
                **merged,
                "classifier": entry,
                "C": DEFAULT_PROTOCOL["C"] if "C" in own else merged["C"],
                "k": DEFAULT_PROTOCOL["k"],
            }
            at = f"{kp}[{i}]"
            ev = self.classifier(sub, lambda key, at=at: at if key == "classifier" else f"{at}.{key}")
            label = evaluator_label(ev[0], ev[2])
            if label in labels:
                raise self.err(at, f"{label} is evaluated already (the classifier or an earlier entry)")
            labels.add(label)
            out.append(ev)
        return tuple(out)

    def classifier(self, merged: dict, where) -> tuple[str, str | float, int, str | None]:
        """``classifier: NAME`` or ``{name: NAME, C: ..., class_weight: ..., k: ...}``; the protocol-level
        ``C`` and ``k`` keys are kept as shorthands (a value set in both places is refused)."""
        spec = merged["classifier"]
        opts: dict[str, Any] = {}
        if isinstance(spec, dict):
            self.keys(spec, {"name"} | set().union(*CLASSIFIER_OPTIONS.values()), where("classifier"))
            name = self.req(spec, "name", where("classifier"), str)
            opts = {k: v for k, v in spec.items() if k != "name"}
        else:
            name = spec
        if name not in CLASSIFIER_OPTIONS:
            kp = f"{where('classifier')}.name" if isinstance(spec, dict) else where("classifier")
            raise self.err(kp, f"expected one of {', '.join(CLASSIFIER_OPTIONS)}, got {name!r}")
        allowed = CLASSIFIER_OPTIONS[name]
        for key in opts:
            if key not in allowed:
                raise self.err(
                    f"{where('classifier')}.{key}",
                    f"{key} does not apply to classifier {name!r} (options: {', '.join(sorted(allowed))})",
                )
        for key in ("C", "k"):
            if key in opts and merged.get(key) != DEFAULT_PROTOCOL[key]:
                raise self.err(where(key), f"{key} is set both here and in classifier; keep one")
        C = opts.get("C", merged["C"])
        ckp = f"{where('classifier')}.C" if "C" in opts else where("C")
        if isinstance(C, str):
            if C != "joachims":
                raise self.err(ckp, f"expected 'joachims' or a positive number, got {C!r}")
        elif isinstance(C, bool) or not isinstance(C, Real) or not 0 < C < math.inf:
            raise self.err(ckp, f"expected 'joachims' or a positive number, got {C!r}")
        if name == "clinical_svm" and C == "joachims":
            raise self.err(ckp, "the clinical-kernel SVM needs a fixed C (Joachims' rule is for vector data)")
        kkp = f"{where('classifier')}.k" if "k" in opts else where("k")
        k_nn = self.integer(opts.get("k", merged["k"]), kkp, minimum=1)
        if k_nn != 1 and name != "knn":
            raise self.err(kkp, f"k applies to classifier: knn only, not {name!r}")
        class_weight = opts.get("class_weight")
        if class_weight is not None and class_weight not in CLASS_WEIGHTS:
            raise self.err(
                f"{where('classifier')}.class_weight",
                f"expected {' or '.join(CLASS_WEIGHTS)} or null, got {class_weight!r}",
            )
        return name, (C if isinstance(C, str) else float(C)), k_nn, class_weight

    def dataset(self, e, kp: str, base_protocol: dict, base_kernels) -> DatasetEntry:
        if isinstance(e, str):
            if not e:
                raise self.err(kp, "expected a dataset name")
            proto, keys = self.protocol(base_protocol, None, "protocol", "")
            return DatasetEntry(
                label=e, key=kp, spec=e, protocol=proto, kernels=base_kernels, protocol_keys=keys
            )
        self.typ(e, kp, dict)
        self.keys(e, DATASET_KEYS, kp)
        if ("name" in e) == ("generator" in e):
            raise self.err(
                kp, "expected exactly one of 'name' (a dataset card) or 'generator' (inline synthetic)"
            )
        if "name" in e:
            name = self.typ(e["name"], f"{kp}.name", str)
            if "params" in e:
                raise self.err(f"{kp}.params", "params belong to an inline 'generator' dataset")
            spec: Any = name
            label = e.get("label", name)
        else:
            gen = self.typ(e["generator"], f"{kp}.generator", str)
            params = e.get("params", {})
            self.typ(params, f"{kp}.params", dict)
            spec = {"generator": gen, "params": params}
            label = e.get("label", gen)
        self.typ(label, f"{kp}.label", str)
        positive = e.get("positive")
        if positive is not None:
            self.typ(positive, f"{kp}.positive", (str, int))
        kernels = self.kernels(e["kernel"], f"{kp}.kernel") if "kernel" in e else base_kernels
        proto, keys = self.protocol(base_protocol, e.get("protocol"), "protocol", f"{kp}.protocol")
        return DatasetEntry(
            label=label,
            key=kp,
            spec=spec,
            protocol=proto,
            kernels=kernels,
            protocol_keys=keys,
            positive=positive,
        )

    def selector(self, s, kp: str) -> SelectorConfig:
        if isinstance(s, str):
            s = {"name": s}
        self.typ(s, kp, dict)
        self.keys(s, SELECTOR_KEYS, kp)
        name = self.req(s, "name", kp, str)
        params = s.get("params", {}) or {}
        self.typ(params, f"{kp}.params", dict)
        label = s.get("label", name)
        self.typ(label, f"{kp}.label", str)
        if not label or any(c in label for c in "/\\,\n"):
            raise self.err(
                f"{kp}.label", f"expected a short label without '/', ',' or newlines, got {label!r}"
            )
        return SelectorConfig(label=label, name=name, params=dict(params))
