"""MoE padding explorer (J13). To be written."""


def moe_padding_explorer(*args, **kwargs):  # pragma: no cover - placeholder
    raise NotImplementedError
