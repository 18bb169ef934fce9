"""Roofline explorer (J13). To be written."""


def roofline_explorer(*args, **kwargs):  # pragma: no cover - placeholder
    raise NotImplementedError
