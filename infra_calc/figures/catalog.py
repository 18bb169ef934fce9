"""Figures for catalog (to be written)."""
from ._registry import figure, style, PALETTE  # noqa: F401
