"""Planning: an experiment's tasks in canonical order (:func:`expand`), every check of the config that can
be made before any work starts (:func:`validate`: datasets, selector parameters, user selector classes,
training/test sizes) and the source files of user selector classes (:func:`plugin_sources`)."""

from __future__ import annotations

import numpy as np

from fsbench.algorithms.kernels import parse_gamma
from fsbench.algorithms.registry import UnknownSelectorError, get_selector, resolve
from fsbench.config.experiment import ConfigError, Experiment
from fsbench.data import DatasetError, SyntheticDataset, get_card, open_dataset
from fsbench.evaluation.plugins import ContractError, check_class, source_of
from fsbench.evaluation.plugins import activate as activate_plugins
from fsbench.evaluation.protocol import Task, is_user_class
from fsbench.evaluation.resampling import train_size
from fsbench.run.kinds import kind_of
from fsbench.run.workers import check_contracts


def expand(
    exp: Experiment, commit: str = "unknown", code_hashes: dict[str, str | None] | None = None
) -> list[Task]:
    """All tasks of an experiment, in canonical order (datasets, kernels, n_train, repeats, folds,
    selectors); excluded selectors have none. ``code_hashes`` maps a user class's name to the sha256
    of its source (:func:`plugin_sources`), recorded in its tasks' files."""
    code_hashes = code_hashes or {}
    tasks = []
    selectors = kind_of(exp.diagnostic, exp.plugins, exp.source).selectors(exp)
    for entry in exp.datasets:
        folds = range(entry.protocol.folds) if entry.protocol.folds else [None]
        for kernel in entry.kernels:
            for n_train in entry.protocol.n_train:
                for repeat in range(entry.protocol.repeats):
                    for fold in folds:
                        for sel in selectors:
                            tasks.append(
                                Task(
                                    experiment=exp.name,
                                    dataset=entry.label,
                                    spec=entry.spec,
                                    kernel=kernel,
                                    selector=sel,
                                    n_train=n_train,
                                    repeat=repeat,
                                    protocol=entry.protocol,
                                    seed=exp.seed,
                                    git_commit=commit,
                                    fold=fold,
                                    positive=entry.positive,
                                    diagnostic=exp.diagnostic,
                                    settings=exp.settings,
                                    plugins=exp.plugins,
                                    code_hash=code_hashes.get(sel.name),
                                )
                            )
    return tasks


def validate(exp: Experiment) -> None:
    """Everything that can be checked before any work starts; raises ConfigError / DatasetError."""
    src = exp.source
    kind_of(exp.diagnostic, exp.plugins, src).check(exp)
    rankers, user = [], []
    activate_plugins(exp.plugins)
    keys = _selector_keys(exp)
    kernels = [k for entry in exp.datasets for k in entry.kernels]
    for i, sel in enumerate(exp.selectors):
        kp = keys.get(sel.label, f"selectors[{i}]")
        try:
            cls = resolve(sel.name)
            if is_user_class(cls):
                check_class(sel.name, cls)  # before its params are tried: it must be constructible
        except (UnknownSelectorError, ContractError) as exc:
            raise ConfigError(src, f"{kp}.name", str(exc)) from None
        gamma = sel.params.get("gamma")
        if isinstance(gamma, str):
            try:
                parse_gamma(gamma)
            except ValueError as exc:
                raise ConfigError(src, f"{kp}.params.gamma", str(exc)) from None
        try:
            est = get_selector(sel.name, **sel.params)
            # the selector's one declaration of its parameters (scikit-learn's, also checked by its fit)
            if hasattr(est, "_parameter_constraints"):
                est._validate_params()
        except (TypeError, ValueError) as exc:
            raise ConfigError(src, f"{kp}.params", str(exc).replace("\n", " ")) from None
        supported = getattr(type(est), "supported_kernels", None)
        if "kernel" in sel.params and supported and sel.params["kernel"] not in supported:
            raise ConfigError(
                src,
                f"{kp}.params.kernel",
                f"{sel.name} supports kernels {', '.join(supported)}, not {sel.params['kernel']!r}",
            )
        if is_user_class(cls):
            user.append(sel)
        if getattr(type(est), "kind", "rank") != "transform" and not getattr(est, "baseline_all", False):
            rankers.append(sel.label)
    # fit each user class on a tiny problem now, in a worker process, so that a class that cannot work
    # (or kills its process) stops the run before it starts
    try:
        check_contracts(user, kernels)
    except ContractError as exc:
        kp = keys.get(exc.selector.label, f"selectors[{exp.selectors.index(exc.selector)}]")
        raise ConfigError(src, f"{kp}.name", str(exc)) from None
    for entry in exp.datasets:
        kp = entry.key
        p = entry.protocol
        try:
            card = get_card(entry.spec) if isinstance(entry.spec, str) else None
            # Opening a card dataset hashes and parses its files: a missing or altered file, or NaN/inf
            # values the card does not allow, stop the run here (exit 2), not in every task.
            ds = open_dataset(entry.spec)
            synthetic, n_samples, D = (
                isinstance(ds, SyntheticDataset),
                getattr(ds, "n_samples", None),
                ds.n_features,
            )
        except DatasetError as exc:
            raise ConfigError(src, kp, str(exc)) from None
        if entry.positive is not None:
            # a generator's labels from a small seeded sample (they are fixed by the generator)
            y_any = ds.sample(200, np.random.default_rng(0))[1] if synthetic else ds.y
            labels = {str(v) for v in y_any}
            if str(entry.positive) not in labels:
                raise ConfigError(
                    src,
                    f"{kp}.positive",
                    f"label {entry.positive!r} is not a class of {entry.label!r} "
                    f"(classes: {', '.join(sorted(labels)[:20])})",
                )
        if synthetic:
            if p.folds is not None or any(isinstance(n, float) for n in p.n_train):
                raise ConfigError(
                    src,
                    entry.protocol_key("folds" if p.folds is not None else "n_train"),
                    f"synthetic dataset {entry.label!r} draws fresh samples: give n_train as a count",
                )
            if p.test is not None:
                raise ConfigError(
                    src,
                    entry.protocol_key("test"),
                    f"synthetic dataset {entry.label!r} draws a fresh test set: give n_test, "
                    f"not test: {p.test}",
                )
        elif p.folds is not None:
            if n_samples is not None and p.folds > n_samples:
                raise ConfigError(
                    src,
                    entry.protocol_key("folds"),
                    f"{p.folds} folds exceed the {n_samples} samples of {entry.label!r}",
                )
        else:
            sizes = [train_size(n, n_samples) if n_samples is not None else n for n in p.n_train]
            if any(isinstance(n, float) for n in p.n_train) and n_samples is not None and min(sizes) < 2:
                raise ConfigError(
                    src,
                    entry.protocol_key("n_train"),
                    f"the fraction leaves fewer than 2 of the {n_samples} samples of {entry.label!r} "
                    "for training",
                )
            if p.test == "official":
                if card is None or not card.has_official_test:
                    raise ConfigError(
                        src,
                        entry.protocol_key("test"),
                        f"dataset {entry.label!r} has no official test split; use n_test or test: rest",
                    )
                need = max(sizes)
                if (
                    p.n_test is not None
                    and card.n_test_official is not None
                    and p.n_test > card.n_test_official
                ):
                    raise ConfigError(
                        src,
                        entry.protocol_key("n_test"),
                        f"n_test ({p.n_test}) exceeds the {card.n_test_official} samples of the official "
                        f"test split of {entry.label!r}",
                    )
            elif p.test == "rest":
                need = max(sizes) + 1
            else:
                need = max(sizes) + p.n_test
            if n_samples is not None and need > n_samples:
                # Blame n_train if it alone leaves no room for a test set, else the test size.
                alone = max(sizes) + (0 if p.test == "official" else 1)
                blamed = "n_train" if alone > n_samples or p.test is not None else "n_test"
                test = "" if p.test == "official" else f" + test ({'1+' if p.test == 'rest' else p.n_test})"
                raise ConfigError(
                    src,
                    entry.protocol_key(blamed),
                    f"n_train ({max(sizes)}){test} exceeds the {n_samples} samples of {entry.label!r}",
                )
        if p.classifier == "knn":
            smallest = _smallest_train(p, n_samples)
            if smallest is not None and p.k > smallest:
                raise ConfigError(
                    src,
                    entry.protocol_key("k"),
                    f"knn with k = {p.k} needs at least k training samples; the smallest training set of "
                    f"{entry.label!r} has {smallest}",
                )
        # Rankers select among the D input features; transformers (kernel-space methods) may output
        # more dimensions than D, and S values beyond their output are skipped (protocol.transform_grid).
        if isinstance(p.n_features, tuple) and max(p.n_features) > D and rankers:
            raise ConfigError(
                src,
                entry.protocol_key("n_features"),
                f"S = {max(p.n_features)} exceeds the {D} features of {entry.label!r}",
            )


def _selector_keys(exp: Experiment) -> dict[str, str]:
    """Selector label -> key path of its entry in the config file (``selectors[3]``), counting the
    entries that ``--exclude-selector`` left out, so that messages point at the right line."""
    keys = {}
    for i, entry in enumerate(exp.effective.get("selectors") or []):
        label = entry.get("label", entry.get("name")) if isinstance(entry, dict) else entry
        keys[str(label)] = f"selectors[{i}]"
    return keys


def plugin_sources(exp: Experiment) -> dict[str, dict[str, str | None]]:
    """``{selector name: {"path", "sha256"}}`` of every user class the experiment runs (``run.json``)."""
    activate_plugins(exp.plugins)
    out = {}
    for sel in exp.selectors:
        try:
            cls = resolve(sel.name)
        except UnknownSelectorError:
            continue  # validate() reports it
        if is_user_class(cls):
            out[sel.name] = source_of(cls)
    return out


def _smallest_train(p, n_samples: int | None) -> int | None:
    """The smallest training-set size a protocol draws (None when it cannot be known in advance)."""
    if p.folds is not None:
        return None if n_samples is None else n_samples - -(-n_samples // p.folds)
    sizes = [n for n in p.n_train if isinstance(n, int) or n_samples is not None]
    if not sizes:
        return None
    return min(train_size(n, n_samples) if isinstance(n, float) else int(n) for n in sizes)
