"""Decode-step explorer (J07). To be written."""


def decode_step_explorer(*args, **kwargs):  # pragma: no cover - placeholder
    raise NotImplementedError
