"""Figures for j13 (to be written)."""
from ._registry import figure, style, PALETTE  # noqa: F401
