"""Capacity planner (J13). To be written."""


def capacity_planner(*args, **kwargs):  # pragma: no cover - placeholder
    raise NotImplementedError
