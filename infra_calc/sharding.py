"""How ``n`` cards share one model under tensor parallelism, per card.

Tensor parallelism splits every weight matrix over the ``n`` cards: the query
heads and their output projection head by head, the MLP (and each expert) by
its inner width, the vocabulary tables by rows.  Two things cannot be split
below one per card:

- **KV heads.** With ``n`` up to the model's ``n_kv`` KV heads each card holds
  ``n_kv / n`` of them (and their K/V projection weights and cache).  With more
  cards than KV heads every card still needs the KV head its query heads read,
  so KV heads are **replicated**: one per card, ``n / n_kv`` copies of each.
- **Vector weights** (norm scales, biases) are small and every card keeps them.

So ``n`` must divide the query heads, and either divide the KV heads
(``n <= n_kv``) or be a multiple of them (``n > n_kv``); anything else is
refused with an error naming ``cards``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._validate import check_int, unwrap

if TYPE_CHECKING:                      # for the annotations only: sharding imports no model module
    from .modelspec import ModelSpec

__all__ = ["CardShare", "card_share", "check_cards"]


def check_cards(model: ModelSpec, cards):
    """Validate ``cards`` for ``model`` and return it (an int or an int array).

    Raises
    ------
    ValueError
        ``cards`` is below 1, does not divide the query heads, does not
        divide the KV heads when ``cards <= kv_heads``, or is not a multiple of
        them when ``cards > kv_heads``.  The message names ``cards``.
    """
    n = check_int(cards, "cards", "cards", minimum=1)
    arr = np.atleast_1d(n)
    h, kv = model.heads, model.kv_heads
    for c in np.unique(arr):
        c = int(c)
        if h % c:
            raise ValueError(f"cards must divide the {h} query heads of {model.name}, got {c}")
        if c <= kv and kv % c:
            raise ValueError(f"cards must divide the {kv} KV heads of {model.name} "
                             f"(cards <= kv_heads), got {c}")
        if c > kv and c % kv:
            raise ValueError(f"cards must be a multiple of the {kv} KV heads of {model.name} when "
                             f"cards > kv_heads (each card then holds one replicated KV head), "
                             f"got {c}")
    return n


@dataclass(frozen=True)
class CardShare:
    """One card's share of a model split over ``cards`` cards (counts per card).

    Each field is an int for one card count and an array for an array of them.
    """

    #: Tensor-parallel cards ``n``.
    cards: int | np.ndarray
    #: Query heads per card, ``H / n``.
    heads: float | np.ndarray
    #: KV heads per card: ``n_kv / n`` when ``n <= n_kv``, else 1 (replicated).
    kv_heads: float | np.ndarray
    #: Copies of each KV head across the cards: 1 when split, ``n / n_kv`` when replicated.
    kv_copies: float | np.ndarray

    def of(self, spec: ModelSpec, count):
        """Per-card share of a parameter ``count`` that includes every K/V projection and vector weight.

        .. math:: \\frac{c - N_{kv} - N_{vec}}{n} + N_{kv}\\,\\frac{h_{kv}}{n_{kv}} + N_{vec}

        (``N_kv`` the K/V projection weights, ``h_kv`` the KV heads per card,
        ``N_vec`` the vector weights, kept whole on every card): :meth:`of_matmul` of the
        count without the vector weights, plus those.  Used for resident weights and the
        weights a step reads.
        """
        vec = spec.vector_params
        return unwrap(np.asarray(self.of_matmul(spec, np.asarray(count, dtype=float) - vec)) + vec)

    def of_matmul(self, spec: ModelSpec, count):
        """Per-card share of a matrix-weight ``count`` that includes every K/V projection (no vectors).

        .. math:: \\frac{c - N_{kv}}{n} + N_{kv}\\,\\frac{h_{kv}}{n_{kv}}

        A replicated KV head's projection is computed on every card that holds it.
        """
        n = np.asarray(self.cards, dtype=float)
        kvp = spec.kv_projection_params
        per = ((np.asarray(count, dtype=float) - kvp) / n
               + kvp * np.asarray(self.kv_heads) / spec.kv_heads)
        return unwrap(per)

    def kv_bytes_per_token(self, spec: ModelSpec, kv_bytes_per_element):
        """KV-cache bytes per token on one card: ``m_kv h_kv / n_kv``."""
        return unwrap(np.asarray(spec.kv_bytes_per_token(kv_bytes_per_element), dtype=float)
                      * np.asarray(self.kv_heads) / spec.kv_heads)


def card_share(model: ModelSpec, *, cards) -> CardShare:
    """The per-card :class:`CardShare` of ``model`` over ``cards`` cards (checked by :func:`check_cards`).

    >>> from infra_calc.models import model
    >>> s = card_share(model("llama-70b"), cards=16)       # 8 KV heads: each replicated twice
    >>> s.heads, s.kv_heads, s.kv_copies
    (4.0, 1.0, 2.0)
    """
    n = check_cards(model, cards)
    nf = np.asarray(n, dtype=float)
    kv = np.where(nf <= model.kv_heads, model.kv_heads / nf, 1.0)
    return CardShare(cards=n, heads=unwrap(model.heads / nf), kv_heads=unwrap(kv),
                     kv_copies=unwrap(nf * kv / model.kv_heads))
