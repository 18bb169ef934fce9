"""The parameter ledger: which weights a token multiplies, and which bytes a step reads.

Three parameter counts answer three different questions, and each has its
own name so that a figure and the library cannot mix them up:

================================  ==============================================
``params``                        stored: what memory holds (all experts)
``active_params``                 one token's share of the stored weights
                                  (shared weights plus ``k`` experts per layer)
``matmul_params``                 weights one decoded token *multiplies* (2 FLOPs
                                  each): ``active_params`` without the gathered
                                  input table and the elementwise
                                  ``vector_params``; the LM head included
``body_matmul_params``            the same without the LM head: one prompt token
                                  at prefill (the head runs for the last one only)
================================  ==============================================

and :meth:`ParameterLedger.decode_weight_bytes` is the fourth: the bytes one
decode step of ``B`` tokens must *read* (every shared weight once, the ``B``
gathered rows of an untied input table, the experts the batch hits: ``k``
per layer for the floor, more under the uniform-routing model).
:class:`~infra_calc.modelspec.ModelSpec` inherits these from
:class:`ParameterLedger`, which holds no fields of its own.
"""
from __future__ import annotations

import numpy as np

from ._validate import check_int, check_number, unwrap

__all__ = ["ParameterLedger", "ROUTINGS", "check_routing", "gated_mlp_params",
           "layer_kv_projection_params"]

#: How many experts per MoE layer a step is taken to read: ``"floor"``, the
#: ``k`` any routing reads (a lower bound), or ``"uniform"``, the expectation
#: under uniform routing (a model).
ROUTINGS = ("floor", "uniform")


def check_routing(routing):
    """``routing`` if it is one of :data:`ROUTINGS`, else a ``ValueError`` naming it."""
    if not isinstance(routing, str) or routing not in ROUTINGS:
        raise ValueError(f"routing must be one of {ROUTINGS} (the floor of k experts per "
                         f"layer, or the uniform-routing model), got {routing!r}")
    return routing


def gated_mlp_params(hidden, intermediate) -> int:
    """Weights of one gated MLP (gate, up and down projections), ``3 d f``: a dense
    layer's feed-forward block, or one routed expert of width ``f``."""
    return 3 * hidden * intermediate


def layer_kv_projection_params(hidden, kv_heads, head_dim) -> int:
    """Weights of one layer's K and V projections, ``2 d n_kv d_h``: each maps the hidden
    state of width ``d`` to ``n_kv`` heads of ``d_h``."""
    return 2 * hidden * kv_heads * head_dim


class ParameterLedger:
    """Counts derived from a model's shape (mixed into :class:`~infra_calc.modelspec.ModelSpec`)."""

    @property
    def expert_params(self) -> int:
        """Parameters of one routed expert (gate, up and down): ``3 d f``; 0 if dense."""
        return gated_mlp_params(self.hidden, self.intermediate) if self.is_moe else 0

    # ------------------------------------------------------ the parameter ledger
    @property
    def embedding_params(self) -> int:
        """The input-embedding table, ``V d``: gathered row by row, never multiplied."""
        return self.vocab * self.hidden

    @property
    def lm_head_params(self) -> int:
        """Weights of the LM head's matrix product, ``V d`` (its own, or the tied table)."""
        return self.vocab * self.hidden

    @property
    def gathered_table_params(self) -> int:
        """The table a step reads only row by row: ``V d`` when untied, 0 when tied.

        A tied table is the LM head too, so every step reads it in full.
        """
        return 0 if self.tie_word_embeddings else self.embedding_params

    @property
    def gathered_row_params(self) -> int:
        """What one token's gather adds to a step's read: a row of ``d`` when the table is
        untied, 0 when tied (the whole table is read as the LM head anyway)."""
        return 0 if self.tie_word_embeddings else self.hidden

    @property
    def matmul_params(self) -> int:
        """Weights one decoded token multiplies, 2 FLOPs each.

        .. math:: N_{mm} = N_{active} - N_{vec} - [\\text{untied}]\\,V d

        ``active_params`` without the elementwise :attr:`vector_params` and
        without an untied input table (a gather, no multiply-adds); the LM
        head is included (every decoded token needs its logits).
        """
        return self.active_params - self.vector_params - self.gathered_table_params

    @property
    def body_matmul_params(self) -> int:
        """Weights one *prompt* token multiplies at prefill: :attr:`matmul_params` ``- V d``.

        The LM head runs for the last prompt token only (the first output).
        """
        return self.matmul_params - self.lm_head_params

    @property
    def kv_projection_params(self) -> int:
        """Weights of the K and V projections, ``2 L d n_kv d_h`` (replicated in tensor parallelism)."""
        return self.layers * layer_kv_projection_params(self.hidden, self.kv_heads, self.head_dim)

    @property
    def routed_expert_params(self) -> int:
        """Every routed expert's weights, ``L_moe E P_expert``; 0 for a dense model."""
        return self.moe_layers * self.num_experts * self.expert_params

    @property
    def shared_params(self) -> int:
        """Weights every decode step reads in full, whatever the batch.

        ``params`` without the routed experts (read as the batch hits them)
        and without an untied input table (read row by row).
        """
        return self.params - self.routed_expert_params - self.gathered_table_params

    def attention_flops(self, *, tokens=1, context=0):
        """FLOPs of attention for ``tokens`` new tokens over ``context`` cached ones each.

        .. math:: F_{att} = 4\\, T\\, S\\, L\\, H\\, d_h

        ``Q K^T`` and ``P V``: 2 FLOPs per multiply-add, ``d_h`` each, for each
        of the ``H`` query heads in ``L`` layers.  Arrays broadcast.
        """
        return (4.0 * np.asarray(tokens, dtype=float) * np.asarray(context, dtype=float)
                * self.layers * self.heads * self.head_dim)

    def causal_attention_flops(self, new_tokens=1, *, context=0, diagonal=False):
        """Causal attention FLOPs of one request's ``q`` new tokens after ``S`` cached ones:
        :math:`4LHd_h\\,(qS + q(q-1)/2\\,[+\\,q])`, token ``j < q`` attending to the ``S`` cached
        and ``j`` new ones before it (and itself with ``diagonal=True``, as prefill counts)."""
        q = np.asarray(new_tokens, dtype=float)
        pairs = q * np.asarray(context, dtype=float) + q * (q - 1.0) / 2.0 + (q if diagonal else 0.0)
        return self.attention_flops(tokens=1, context=pairs)

    def experts_hit(self, batch, *, routing="floor"):
        """Distinct experts per MoE layer that one step of ``B`` tokens reads.

        Each token is routed to ``k`` distinct experts of ``E``, so any step
        reads at least ``k`` of them per layer, whatever the batch.  Two
        readings (``routing``):

        - ``"floor"`` (default): ``k``, the lower bound under *any* routing
          (a batch whose tokens all pick the same ``k`` experts reads no more);
        - ``"uniform"``: the expectation under a *model*, every token picking
          ``k`` of ``E`` uniformly at random and independently of the others,

          .. math:: E_{hit}(B) = E\\,\\bigl(1 - (1 - k/E)^B\\bigr),

          which is ``k`` at ``B = 1``, never below the floor, and tends to ``E``.

        0 for a dense model.

        Parameters
        ----------
        batch : int or array_like
            Tokens routed in the same step, ``B`` (>= 1).
        routing : {"floor", "uniform"}, keyword-only
            The floor (any routing) or the uniform-routing model (:data:`ROUTINGS`).
        """
        b = check_int(batch, "batch", "tokens", minimum=1)
        return unwrap(self.experts_read(b, routing=check_routing(routing)))

    def experts_read(self, batch, *, routing):
        """:meth:`experts_hit` unchecked, for any real ``batch`` >= 1 (arrays; ``inf``: all ``E``).

        The one place the routing readings are written; the bisections of
        :mod:`infra_calc.kv` call it with real batches.
        """
        b = np.asarray(batch, dtype=float)
        if not self.is_moe:
            return np.zeros(np.shape(b))
        e, k = self.num_experts, self.experts_per_token
        if routing == "floor":
            return np.full(np.shape(b), float(k))
        return e * (1.0 - (1.0 - k / e) ** b)

    def routed_params_read(self, batch, *, routing):
        """Routed-expert parameters one step of ``B`` tokens reads, :math:`L_{moe} E_{hit}(B) P_{expert}`
        (unchecked like :meth:`experts_read`: real ``batch``, ``inf`` for every expert; 0 if dense).

        The one place this count is written: :meth:`decode_weight_bytes` adds it to the
        shared weights, :func:`infra_calc.decode.routed_expert_bytes` takes its share per card.
        """
        return self.moe_layers * self.experts_read(batch, routing=routing) * self.expert_params

    def decode_weight_bytes(self, bytes_per_param, batch, *, routing="floor"):
        """Weight bytes one decode step of ``B`` tokens reads, in bytes.

        .. math:: R_W(B) = b_W\\,\\bigl(N_{shared} + [\\text{untied}]\\min(B, V)\\,d
                  + L_{moe}\\,E_{hit}(B)\\,P_{expert}\\bigr)

        - every shared weight (:attr:`shared_params`) is read once;
        - an *untied* input embedding table contributes only the ``B`` rows
          it gathers (at most ``V``; one row per token, which is what a gather
          of distinct tokens must read); a *tied* table is read in full once,
          as the output head;
        - in each of the ``L_moe`` MoE layers only the experts the batch
          hits are read: :meth:`experts_hit` of ``E``, each of
          ``P_expert = 3 d f`` parameters.

        With ``routing="floor"`` (default) that is ``k`` experts per layer, and
        ``R_W`` is a floor: no step of ``B`` tokens can read less, whatever the
        routing.  With ``routing="uniform"`` it is the expected count under
        uniform routing, a model, not a floor.  A dense model reads the same
        under both.

        J07 and J13 keep the source's ``N b_W``; this is chapter 3's count.

        Parameters
        ----------
        bytes_per_param : float or array_like
            Bytes per weight, in bytes (2 = BF16).
        batch : int or array_like
            Tokens decoded in the step, ``B`` (>= 1).
        routing : {"floor", "uniform"}, keyword-only
            How many experts the batch reads (:meth:`experts_hit`).

        Returns
        -------
        float or numpy.ndarray
            Bytes.

        Examples
        --------
        >>> from infra_calc.models import model
        >>> m = model("Qwen3-8B")
        >>> m.weight_bytes(2) - m.decode_weight_bytes(2, 1)   # the untied table, less one row
        1244651520.0
        """
        bw = check_number(bytes_per_param, "bytes_per_param", "bytes/parameter")
        b = check_int(batch, "batch", "tokens", minimum=1)
        routing = check_routing(routing)
        count = (float(self.shared_params)
                 + np.minimum(b, self.vocab).astype(float) * self.gathered_row_params
                 + self.routed_params_read(b, routing=routing))
        return unwrap(bw * count)
