"""95 % bootstrap intervals over the questions, paired across chunkers.

Every call with the same seed draws the same resamples, so two chunkers' intervals, and the
interval of their difference, come from the same resampled question sets.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

RESAMPLES = 2000
SEED = 0
_BLOCK = 250  # resamples drawn at a time: memory stays at a block times the questions


@dataclass(frozen=True, slots=True)
class Score:
    """A mean over the questions and its 95 % bootstrap interval."""

    mean: float
    low: float
    high: float

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def _counts(n: int, resamples: int, seed: int) -> Iterator[np.ndarray[Any, Any]]:
    """Blocks of resamples as counts: row r says how often each question was drawn."""
    rng = np.random.default_rng(seed)
    for at in range(0, resamples, _BLOCK):
        rows = min(_BLOCK, resamples - at)
        drawn = rng.integers(0, n, size=(rows, n)) + (np.arange(rows) * n)[:, None]
        yield np.bincount(drawn.ravel(), minlength=rows * n).reshape(rows, n)


def interval(
    values: np.ndarray[Any, Any], resamples: int = RESAMPLES, seed: int = SEED
) -> list[Score]:
    """Each row of ``values`` (metrics × questions): its mean and percentile interval."""
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    n = values.shape[1]
    if n == 0:
        return [Score(0.0, 0.0, 0.0) for _ in values]
    # A resample's mean is the values weighted by how often each question was drawn.
    means = np.concatenate([values @ c.T / n for c in _counts(n, resamples, seed)], axis=1)
    low, high = np.percentile(means, [2.5, 97.5], axis=1)
    return [
        Score(float(m), float(lo), float(hi))
        for m, lo, hi in zip(values.mean(axis=1), low, high, strict=True)
    ]
