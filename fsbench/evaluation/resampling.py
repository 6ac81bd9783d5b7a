"""Resampling: seeds derived from names, training/test splits, k-fold partitions, standardisation.

Every random draw of a task comes from a seed derived with :class:`numpy.random.SeedSequence` from the
config seed and *names only* (:func:`derive_seed`) — dataset, training size (or ``"K-fold"``) and repeat,
never the selector — so every selector sees the same splits and comparisons between selectors are
paired. Schemes (``protocol`` keys, :class:`fsbench.config.ProtocolConfig`):

* ``n_train: N`` — a random subset of N rows, stratified (class proportions kept, largest remainders),
  ``balanced`` (equal count per class) or plain random; ``n_train: 0.7`` — the same with a fraction of
  the dataset's rows (rounded half up);
* the test set: ``n_test`` further rows, ``test: rest`` (all remaining rows) or ``test: official`` (the
  card's test split; with ``n_test``, a random subset of that many of its rows, drawn after the
  training set and stratified as the training draw is);
* ``folds: K`` — every repeat is a stratified random partition into K parts; task ``fold = f`` trains on
  the other K-1 parts and tests on part f (one split seed per repeat, shared by its K folds);
* synthetic datasets draw ``n_train`` and ``n_test`` fresh samples.

A training draw with a single class (possible for tiny n) is redrawn; the number of redraws is recorded.
"""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction
from typing import Any

import numpy as np

from fsbench.config.experiment import ProtocolConfig
from fsbench.data import SyntheticDataset

MAX_REDRAWS = 100


def _name_key(name: Any) -> int:
    return int.from_bytes(hashlib.sha256(str(name).encode()).digest()[:4], "little")


def derive_seed(seed: int, *names: Any) -> int:
    """A 32-bit seed from the config seed and a tuple of names (SeedSequence spawn key)."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(_name_key(n) for n in names))
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def _stratified_take(y: np.ndarray, idx: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` indices from ``idx`` with class proportions kept (largest remainders), random within class."""
    classes, inv = np.unique(y[idx], return_inverse=True)
    counts = np.bincount(inv)
    quota = counts * (n / idx.size)
    take = np.floor(quota).astype(int)
    rest = n - take.sum()
    if rest > 0:
        # Largest fractional parts first; ties broken at random (from the split stream).
        frac = quota - take
        order = np.lexsort((rng.random(classes.size), -frac))
        take[order[:rest]] += 1
    # Every class present when possible (n >= number of classes).
    if n >= classes.size:
        for c in np.flatnonzero(take == 0):
            donor = int(np.argmax(take))
            if take[donor] > 1 and counts[c] > 0:
                take[donor] -= 1
                take[c] += 1
    chosen = [rng.permutation(idx[inv == c])[: take[c]] for c in range(classes.size)]
    return rng.permutation(np.concatenate(chosen))


def _balanced_take(y: np.ndarray, idx: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` indices with the same count from every class (``n // C`` each; a remainder goes to
    classes drawn at random): Ramona 2012's "100 per class" (Table II) and "7 per class" (Table V)."""
    classes, inv = np.unique(y[idx], return_inverse=True)
    C = classes.size
    take = np.full(C, n // C)
    take[rng.permutation(C)[: n % C]] += 1
    counts = np.bincount(inv, minlength=C)
    short = np.flatnonzero(counts < take)
    if short.size:
        c = short[0]
        raise ValueError(
            f"balanced sampling needs {take[c]} samples of class {classes[c]!r}, only {counts[c]} left"
        )
    chosen = [rng.permutation(idx[inv == c])[: take[c]] for c in range(C)]
    return rng.permutation(np.concatenate(chosen))


def _take(y, idx, n, rng, stratify):
    if n > idx.size:
        raise ValueError(f"asked for {n} samples but only {idx.size} are available")
    if stratify == "balanced":
        return _balanced_take(y, idx, n, rng)
    if stratify:
        return _stratified_take(y, idx, n, rng)
    return rng.permutation(idx)[:n]


def train_size(n_train: int | float, n_samples: int) -> int:
    """Samples of a training set: ``n_train`` itself, or a fraction of ``n_samples`` rounded half up.

    The fraction is taken as the decimal the config wrote (``0.7`` is 7/10, not the binary double just
    below it), so 0.7 × 345 = 241.5 rounds to 242 as on paper.
    """
    if isinstance(n_train, float):
        exact = Fraction(repr(n_train)) * n_samples
        return int(math.floor(exact + Fraction(1, 2)))
    return int(n_train)


def kfold_parts(y: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold index (0..folds-1) of every sample: a stratified random partition.

    The samples are shuffled within each class and the classes laid end to end; dealing that sequence
    round-robin into the folds (from a random first fold) keeps every class's count per fold within one
    of the others and the fold sizes within one of each other.
    """
    order = np.concatenate([rng.permutation(np.flatnonzero(y == c)) for c in np.unique(y)])
    part = np.empty(y.size, dtype=int)
    part[order] = (np.arange(order.size) + int(rng.integers(folds))) % folds
    return part


def draw_split(ds, protocol: ProtocolConfig, n_train, rng: np.random.Generator, fold: int | None = None):
    """Return ``X_train, y_train, X_test, y_test, redraws`` for one repeat (and fold).

    ``ds`` has ``X``/``y`` (``y`` as class indices) or is a synthetic generator with ``sample``.
    ``n_train`` is a count or a fraction of the dataset's samples; under k-fold resampling
    (``protocol.folds``) the repeat's partition comes from ``rng`` and ``fold`` is the test part.
    """
    redraws = 0
    if isinstance(ds, SyntheticDataset):
        while True:
            X_tr, y_tr = ds.sample(n_train, rng)
            if np.unique(y_tr).size >= 2:
                break
            redraws += 1
            if redraws > MAX_REDRAWS:
                raise RuntimeError(f"{MAX_REDRAWS} training draws of size {n_train} had a single class")
        X_te, y_te = ds.sample(protocol.n_test, rng)
        return X_tr, y_tr, X_te, y_te, redraws
    X, y = ds.X, ds.y
    all_idx = np.arange(y.size)
    if protocol.folds is not None:
        part = kfold_parts(y, protocol.folds, rng)
        tr, te = np.flatnonzero(part != fold), np.flatnonzero(part == fold)
        return X[tr], y[tr], X[te], y[te], 0
    n = train_size(n_train, y.size)
    while True:
        tr = _take(y, all_idx, n, rng, protocol.stratify)
        if np.unique(y[tr]).size >= 2:
            break
        redraws += 1
        if redraws > MAX_REDRAWS:
            raise RuntimeError(f"{MAX_REDRAWS} training draws of size {n} had a single class")
    if protocol.test == "official":
        if protocol.n_test is None:
            return X[tr], y[tr], ds.X_test, ds.y_test, redraws
        te = _take(ds.y_test, np.arange(ds.y_test.size), protocol.n_test, rng, protocol.stratify)
        return X[tr], y[tr], ds.X_test[te], ds.y_test[te], redraws
    rest = np.setdiff1d(all_idx, tr, assume_unique=False)
    te = rest if protocol.test == "rest" else _take(y, rest, protocol.n_test, rng, protocol.stratify)
    return X[tr], y[tr], X[te], y[te], redraws


def standardize(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """z-score both sets with the training mean and std (std 0 → 1: a constant column stays constant)."""
    mu = X_train.mean(axis=0)
    sd = X_train.std(axis=0)
    sd[~(sd > 0)] = 1.0
    return (X_train - mu) / sd, (X_test - mu) / sd
