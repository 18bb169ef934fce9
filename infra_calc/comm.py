"""Communication between cards: a *model* of the all-reduce, never a floor.

A tensor-parallel step ends each attention block and each MLP block with an
all-reduce of the activations.  How long that takes depends on the algorithm
and on links the datasheets describe only in part, so the book keeps it as a
separate term, labelled with the model it comes from:

- ``"ring"`` (default): reduce-scatter then all-gather around a ring of
  ``n`` cards, ``2(n-1)`` steps, each card sending ``2(n-1)/n`` of the
  message.  A ring runs at its slowest link: within one fast-link domain
  (``Accelerator.link_domain``, 8 cards on an HGX board) that is the per-direction
  ``link_bandwidth``, summed over the card's links (on a switch, one ring
  gets it all; on a fully connected platform such as the MI300X's, it stands
  for one ring per link, run at once); past it, the ring crosses the network
  between nodes, ``internode_bandwidth`` per card.
- ``"in-switch"``: the switch of the domain adds the partial sums as they pass
  (NVLink SHARP, "NVLS"): each card sends its message once and receives the
  sum once, in two steps.  Offered only within one domain of a card whose
  switch can do it (``Accelerator.in_switch_reduction``).

Each step costs a fixed ``α`` (``Accelerator.link_latency``): **an assumption**
of 1 µs, since no datasheet prints it.
"""
from __future__ import annotations

import numpy as np

from ._validate import check_int, check_number, unwrap
from .accelerators import accelerator

__all__ = ["COMM_MODELS", "ACTIVATION_BYTES", "ring_allreduce_time", "in_switch_allreduce_time",
           "allreduce_time", "link_bandwidth_for", "layer_comm"]

#: the all-reduce models :func:`allreduce_time` knows
COMM_MODELS = ("ring", "in-switch")

#: bytes per activation element sent in the all-reduces (BF16)
ACTIVATION_BYTES = 2


def link_bandwidth_for(hw, *, cards):
    """The per-direction bandwidth a ring over ``cards`` cards runs at, bytes/s.

    ``link_bandwidth`` within one domain (``cards <= link_domain``); past it, the
    slower of ``link_bandwidth`` and ``internode_bandwidth`` (a ring runs at its
    slowest link).  ``inf`` for one card (nothing is sent).

    Raises
    ------
    ValueError
        More than one card and ``link_bandwidth`` unknown (0); or more cards
        than one domain holds and ``internode_bandwidth`` unknown (0).
    """
    acc = accelerator(hw)
    n = np.asarray(check_int(cards, "cards", "cards", minimum=1))
    if np.any(n > 1) and acc.link_bandwidth <= 0:
        raise ValueError(
            f"link_bandwidth (bytes/s) of {acc.name} is unknown (0): tensor parallelism over "
            f"more than one card needs it; pass hw.with_(link_bandwidth=..., link_latency=...)")
    domain = acc.link_domain if acc.link_domain > 0 else np.inf
    beyond = n > domain
    if np.any(beyond) and acc.internode_bandwidth <= 0:
        raise ValueError(
            f"cards={int(np.max(n))} is more than one {acc.name} link domain holds "
            f"({acc.link_domain}), and the network between domains, internode_bandwidth "
            f"(bytes/s), is unknown (0); pass hw.with_(internode_bandwidth=...)")
    slow = min(acc.link_bandwidth, acc.internode_bandwidth) if acc.internode_bandwidth > 0 \
        else acc.link_bandwidth
    bw = np.where(n > 1, np.where(beyond, slow, acc.link_bandwidth), np.inf)
    return unwrap(bw)


def ring_allreduce_time(nbytes, hw, *, cards):
    """Time of one ring all-reduce of ``nbytes`` per card over ``cards`` cards, seconds (a model).

    .. math:: T_{AR} = \\frac{2(n-1)}{n}\\,\\frac{M}{\\beta_{link}} + 2(n-1)\\,\\alpha

    A reduce-scatter and an all-gather: each card sends (and receives)
    :math:`2(n-1)/n` of the message ``M`` over a link of ``β_link`` bytes/s
    *per direction* (:func:`link_bandwidth_for`: the NVLink of one domain, the
    network past it), in :math:`2(n-1)` steps of latency ``α`` (an assumed
    1 µs).  Zero for one card.

    Parameters
    ----------
    nbytes : float or array_like
        Message size ``M`` on each card, bytes (>= 0).
    hw : Accelerator or str
        Supplies ``link_bandwidth``, ``link_domain``, ``internode_bandwidth``
        and ``link_latency``.
    cards : int or array_like, keyword-only
        ``n`` (>= 1).
    """
    acc = accelerator(hw)
    m = check_number(nbytes, "nbytes", "bytes", allow_zero=True)
    n = check_int(cards, "cards", "cards", minimum=1)
    bw = np.asarray(link_bandwidth_for(acc, cards=n))
    nf = np.asarray(n, dtype=float)
    t = 2.0 * (nf - 1.0) / nf * m / bw + 2.0 * (nf - 1.0) * acc.link_latency
    return unwrap(t)


def in_switch_allreduce_time(nbytes, hw, *, cards):
    """Time of one all-reduce reduced inside the switch (NVLink SHARP), seconds (a model).

    .. math:: T_{AR} = \\frac{M}{\\beta_{link}} + 2\\alpha

    Each card sends its ``M`` bytes once, the switch adds them as they pass
    and multicasts the sum, which each card receives once; sending and
    receiving overlap on a full-duplex link.  Two steps of ``α``.  Zero for
    one card.

    Raises
    ------
    ValueError
        The accelerator's switch has no in-switch reduction, or ``cards``
        exceeds one link domain (the model covers one switch).
    """
    acc = accelerator(hw)
    m = check_number(nbytes, "nbytes", "bytes", allow_zero=True)
    n = check_int(cards, "cards", "cards", minimum=1)
    nf = np.asarray(n, dtype=float)
    if np.any(nf > 1):
        if not acc.in_switch_reduction:
            raise ValueError(f"comm='in-switch' needs a switch that reduces in the network; "
                             f"{acc.name} has none (in_switch_reduction=False): use comm='ring'")
        if acc.link_domain and np.any(nf > acc.link_domain):
            raise ValueError(f"cards={int(np.max(nf))} exceeds one {acc.name} link domain "
                             f"({acc.link_domain}): comm='in-switch' models one switch; "
                             f"use comm='ring'")
    bw = np.asarray(link_bandwidth_for(acc, cards=n))
    t = np.where(nf > 1, m / bw + 2.0 * acc.link_latency, 0.0)
    return unwrap(t)


def allreduce_time(nbytes, hw, *, cards, comm="ring"):
    """One all-reduce under the model ``comm`` (one of :data:`COMM_MODELS`), seconds."""
    if comm == "ring":
        return ring_allreduce_time(nbytes, hw, cards=cards)
    if comm == "in-switch":
        return in_switch_allreduce_time(nbytes, hw, cards=cards)
    raise ValueError(f"comm must be one of {COMM_MODELS}, got {comm!r}")


def layer_comm(spec, hw, *, tokens, cards, comm="ring"):
    """Message per all-reduce ``M = 2 T d`` bytes and the step's ``2 L T_AR(M)``, seconds.

    ``T`` tokens' activations (``B`` at decode, ``B P`` at prefill) are summed
    across the cards twice per layer (after attention and after the MLP).
    The vocabulary-parallel embedding's and LM head's collectives are left
    out (one each per step, against ``2L``).
    """
    msg = ACTIVATION_BYTES * np.asarray(tokens, dtype=float) * spec.hidden
    t = 2.0 * spec.layers * np.asarray(allreduce_time(msg, hw, cards=cards, comm=comm))
    return msg, t
