"""Published measurements of LLM serving speed: one table, one loader, one row type.

``infra_calc/data/measurements.csv`` holds one published figure per row, with its
provenance (repository, commit and path, or URL and table), every field as the source
prints it, and the fields the project derived, each named in the ``derived`` column with
its derivation.  :func:`load` reads and checks it; a malformed row is refused with an
error naming the row id and the field.  Numbers are converted to SI units only by the
row type (:attr:`Measurement.value_si`: seconds, tokens/s, bytes/s).

Traps the table and this loader handle (each has a test in ``tests/test_measurements.py``):

* **A weight label that is not the precision run.**  MLPerf v4.1's ``summary_results.json``
  labels NVIDIA's weights ``fp16`` while its configs set ``use_fp8 = True``.  ``precision``
  keeps the label as printed; ``weight_precision`` and ``math_precision`` hold what ran, and a
  row whose ``weight_precision`` differs from its printed ``precision`` must say so in
  ``derived`` (the loader refuses it otherwise).
* **A throughput unit that changes meaning.**  A rate's ``unit`` says what it is per:
  per GPU (``out tok/s/GPU``), per tensor-parallel group (``out tok/s/TP group``) or for the
  whole system (``Tokens/s``, ``tok/s``); :attr:`Measurement.output_rate_per_card` divides
  accordingly, so TensorRT-LLM's per-GPU and per-TP-group tables land on one scale.
* **Input tokens counted in a throughput.**  ``tokens_counted`` is ``output`` or
  ``input+output``; :attr:`Measurement.output_rate_per_card` keeps the output share
  ``O / (P + O)`` of an ``input+output`` rate and refuses one whose lengths are not stated.
* **Near-duplicate reruns.**  MLPerf results of one recipe (same software, card, card count,
  model and scenario) by several submitters share one ``group``; ``dup_of`` names the row
  they repeat.  :func:`independent` keeps one row per group and metric.
* **A prompt length that is not printed.**  An MLPerf log states no prompt length, and
  MLCommons publishes no mean input length of its data sets (``infra_calc/data/README.md``
  says where it was looked for); a ``prompt_tokens`` on an MLPerf row, or any derived one,
  must name its derivation and its source (``owner/name@<commit>:path`` or an https:// URL)
  in ``derived``, or the loader refuses the row.
* **Mixed and preview systems.**  ``exclude`` gives the reason a row is not evidence (two
  accelerator types in one result, a preview system); :attr:`Measurement.excluded`.
"""
from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from importlib import resources

from ._measurement_rows import (
    COLUMNS,
    METRICS,
    PRECISION_BYTES,
    PRINTED_UNITS,
    MeasurementError,
    checked_fields,
    derivations,
    row_error,
    unit_of,
)
from .hardware import MATH_PRECISIONS
from .units import BF16_BYTES

__all__ = ["Measurement", "MeasurementError", "load", "parse", "independent", "METRICS",
           "PRINTED_UNITS", "COLUMNS", "PRECISION_BYTES", "KINDS", "LOADS"]

#: metric -> the figure a bound or forecast gives (:attr:`Measurement.kind`): the prefill
#: "ttft", the mean decode step "tpot", the whole request "total", the rate per card "rate"
KINDS = {"ttft": "ttft", "tpot": "tpot", "itl": "tpot", "e2e_latency": "total",
         "output_throughput": "rate", "output_throughput_per_gpu": "rate"}
#: serving-load scenarios (requests arrive while others decode) -> what sets the load: requests
#: in flight, or an arrival rate the benchmark offers (MLPerf's Server and Interactive)
LOADS = {"concurrency": "in flight", "Server": "offered", "Interactive": "offered"}


@dataclass(frozen=True)
class Measurement:
    """One published measurement: fields as printed, numbers parsed, SI on request.

    A field the source does not state is ``""`` (text) or ``None`` (number).
    """

    #: Row id, unique in the file.
    id: str
    #: Provenance group: publisher x engine and version x hardware x recipe; MLPerf reruns of
    #: one recipe by several submitters share one group.
    group: str
    #: Who published the figure (an MLPerf submitter, a vendor, a project).
    publisher: str
    #: The publication, by name.
    source: str
    #: Where it is published (for a repository: the file at its commit).
    url: str
    #: Repository ``owner/name`` the figure was read from ("" for a web page).
    repo: str
    #: Full commit of ``repo`` that was read.
    commit: str
    #: File in ``repo`` the figure is in.
    path: str
    #: Table or further files the row's other fields were read from.
    table: str
    #: Date as ``YYYY-MM-DD`` (publication, or the commit read); "" when not stated.
    date: str
    #: Serving engine, e.g. "TensorRT-LLM", "vLLM".
    engine: str
    #: Engine version as printed.
    engine_version: str
    #: Model name as printed.
    model_as_printed: str
    #: Catalog model name it maps onto.
    model: str
    #: Hardware as printed.
    hardware_as_printed: str
    #: Catalog accelerator name ("" when the card is not in the catalog).
    accelerator: str
    #: Accelerator vendor.
    vendor: str
    #: Accelerators in the measured system.
    system_cards: int
    #: Accelerators one copy of the model is split across (tensor x pipeline parallel).
    cards: int | None
    #: Precision as printed (a label, possibly not what ran).
    precision: str
    #: Precision the weights are stored in (lower case).
    weight_precision: str
    #: Precision the matrix multiplies run in (lower case); sets the peak.
    math_precision: str
    #: Precision of the KV cache (lower case).
    kv_precision: str
    #: Concurrent sequences per model copy.
    batch: int | None
    #: Prompt tokens per request.
    prompt_tokens: int | None
    #: Output tokens per request.
    output_tokens: int | None
    #: Load as the source names it (MLPerf scenario, "static batch", "concurrency", ...).
    scenario: str
    #: What was measured, one of :data:`METRICS`.
    metric: str
    #: The figure as printed, in ``unit``.
    value: float
    #: Unit as printed, one of :data:`PRINTED_UNITS`.
    unit: str
    #: For a rate: "output" or "input+output" tokens counted.
    tokens_counted: str
    #: Derived fields, ``"field: derivation; field: derivation"``.
    derived: str
    #: Why the row is not evidence ("" when it is).
    exclude: str
    #: Id of the row this one near-duplicates ("" for a primary row).
    dup_of: str
    #: Space-separated sets the row belongs to ("reality": the chapter 3 reality check;
    #: "holdout": kept aside from the forecast's fit, :mod:`infra_calc.crossval`).
    sets: str
    #: How the row was read, and what the source leaves unsaid.
    note: str

    @property
    def value_si(self) -> float:
        """The figure in SI units: seconds, tokens/s, or bytes/s."""
        return self.value * unit_of(self.unit).scale

    @property
    def bytes_per_param(self) -> float:
        """Bytes per weight (2 when the weight precision is not stated)."""
        return PRECISION_BYTES.get(self.weight_precision, float(BF16_BYTES))

    @property
    def excluded(self) -> bool:
        """True when the row carries an exclusion reason."""
        return bool(self.exclude)

    @property
    def derived_fields(self) -> dict[str, str]:
        """``{field: derivation}`` of the fields the project derived."""
        return derivations(self.derived)

    @property
    def kind(self) -> str:
        """The figure of the metric, of :data:`KINDS` (``""``: the achieved bandwidth)."""
        return KINDS.get(self.metric, "")

    @property
    def math(self) -> str:
        """The math precision whose peak bounds the row: ``math_precision`` if it is one of
        :data:`~infra_calc.hardware.MATH_PRECISIONS`, else ``"fp8"`` if FP8 is printed, else
        ``"bf16"`` (weight-only int8/int4 run BF16 math; so does a printed FP4 stating none)."""
        if self.math_precision in MATH_PRECISIONS:
            return self.math_precision
        return "fp8" if self.precision.strip().lower() == "fp8" else "bf16"

    @property
    def continuous(self) -> bool:
        """Measured under a serving load (:data:`LOADS`): requests arrive while others decode."""
        return self.scenario in LOADS

    @property
    def offered_load(self) -> bool:
        """Under an arrival rate the benchmark sets (:data:`LOADS`): the completed rate follows
        it, and a TTFT is mostly queueing."""
        return LOADS.get(self.scenario) == "offered"

    @property
    def lengths_stated(self) -> bool:
        """The source states the lengths the figure needs: ``P`` (a TTFT), else ``P`` and ``O``."""
        return bool(self.prompt_tokens) and (self.kind == "ttft" or bool(self.output_tokens))

    def lengths(self, *, policy: str) -> tuple[int, int]:
        """``(P, O)``, a length the source does not state filled in by ``policy``.

        ``"zero"`` (the reality check, :mod:`infra_calc.reality`): 0 tokens.  Where a length is
        missing the check bounds one pass or step alone (a TTFT's prefill, a TPOT's step at the
        mean context ``P + O//2``), and no step holds less cache than none.  ``"shortest"`` (the
        fit, :mod:`infra_calc.fit`): ``P = 1``, ``O = 2`` (a TTFT ``O = 1``; a stated ``O`` below
        2 read as 2), the shortest request with a prefill and a decode step, as the fit runs every
        row as a whole request.  Both are floors, a token or two of cache apart.
        """
        p, o = self.prompt_tokens, self.output_tokens
        if policy not in ("zero", "shortest"):
            raise ValueError(f"policy must be 'zero' or 'shortest', got {policy!r}")
        if policy == "zero":
            return p or 0, o or 0
        return p or 1, 1 if self.kind == "ttft" else max(o or 2, 2)

    @property
    def output_rate_per_card(self) -> float:
        """Output tokens/s per accelerator, for a rate metric.

        A per-TP-group rate is divided by ``cards``, a system rate by ``system_cards``; an
        ``input+output`` rate keeps its output share ``O / (P + O)``.

        Raises
        ------
        MeasurementError
            For a metric that is not a rate, or when a needed field is not stated.
        """
        if METRICS[self.metric] != "rate":
            raise MeasurementError(f"measurements.csv row {self.id!r}: field 'metric' is "
                                   f"{self.metric!r}, not a throughput")
        per = PRINTED_UNITS[self.unit][1]
        rate = self.value_si
        if per == "tp_group":
            if not self.cards:
                raise MeasurementError(f"measurements.csv row {self.id!r}: field 'cards' is "
                                       "needed for a per-TP-group rate")
            rate /= self.cards
        elif per == "system":
            rate /= self.system_cards
        if self.tokens_counted == "input+output":
            if not self.prompt_tokens or not self.output_tokens:
                raise MeasurementError(
                    f"measurements.csv row {self.id!r}: field 'prompt_tokens' and "
                    "'output_tokens' are needed to take the output share of an input+output rate")
            rate *= self.output_tokens / (self.prompt_tokens + self.output_tokens)
        return rate


def _row(r: dict) -> Measurement:
    """One checked row (:func:`~infra_calc._measurement_rows.checked_fields`) as a :class:`Measurement`."""
    return Measurement(**checked_fields(r))


def parse(text: str) -> tuple[Measurement, ...]:
    """Rows of a ``measurements.csv`` text, checked, in file order.

    Parameters
    ----------
    text : str
        The CSV text, header first (the columns of :data:`COLUMNS`).

    Returns
    -------
    tuple of Measurement

    Raises
    ------
    MeasurementError
        For a malformed row, naming the row id and the field; for a missing column; for a
        repeated id; for a ``dup_of`` that names no row of the same group and metric.
    """
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise MeasurementError(f"measurements.csv: columns missing: {', '.join(missing)}")
    rows = [_row(r) for r in reader]
    by_id: dict[str, Measurement] = {}
    for m in rows:
        if m.id in by_id:
            raise row_error(m.id, "id", "is repeated")
        by_id[m.id] = m
    for m in rows:
        if m.dup_of:
            d = by_id.get(m.dup_of)
            if d is None or d.group != m.group or d.metric != m.metric or d.dup_of:
                raise row_error(m.id, "dup_of", f"is {m.dup_of!r}; it needs a primary row of the "
                                           "same group and metric")
    return tuple(rows)


@functools.lru_cache(maxsize=1)
def load() -> tuple[Measurement, ...]:
    """All rows of the packaged ``infra_calc/data/measurements.csv``, checked, in file order.

    Returns
    -------
    tuple of Measurement
        Every row, excluded ones and near-duplicates included (see :func:`independent`).

    Raises
    ------
    MeasurementError
        As :func:`parse`, for a malformed packaged row.
    """
    pkg = __name__.rpartition(".")[0] or "infra_calc"
    return parse(resources.files(pkg).joinpath("data", "measurements.csv").read_text("utf-8"))


def independent(rows=None) -> tuple[Measurement, ...]:
    """The rows that are evidence: not excluded and not a near-duplicate of another row.

    Parameters
    ----------
    rows : sequence of Measurement, optional
        Rows to filter (default: :func:`load`).

    Returns
    -------
    tuple of Measurement
        The rows with an empty ``exclude`` and an empty ``dup_of``, in their order.
    """
    return tuple(m for m in (load() if rows is None else rows) if not m.excluded and not m.dup_of)
