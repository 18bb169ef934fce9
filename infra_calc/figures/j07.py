"""Figures for j07 (to be written)."""
from ._registry import figure, style, PALETTE  # noqa: F401
