"""Shared settings: Hypothesis runs without deadlines (CI machines are shared and slow)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=int(os.environ.get("STRIDEWEAVE_HYPOTHESIS_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")
