"""Shared fixtures: the backend parametrisation and the hypothesis budget."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# Haystack reports usage to its telemetry service unless told not to; tests reach no network.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

# FERROCHUNK_MAX_EXAMPLES raises the budget for a long fuzz run (`make fuzz`, see README.md).
settings.register_profile(
    "default",
    max_examples=int(os.environ.get("FERROCHUNK_MAX_EXAMPLES", "100")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")


@pytest.fixture(params=["native", "reference"])
def backend(request: pytest.FixtureRequest) -> str:
    """Runs a behaviour test once on each backend."""
    return str(request.param)
