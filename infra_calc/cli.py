"""Command line: ``python -m infra_calc {reproduce,estimate,forecast,fit,list,figures,measure}``."""
from __future__ import annotations

import argparse
import json
import re
import sys

from ._parser import Parser
from ._validate import check_int, check_number
from .accelerators import CATALOG, UnknownAcceleratorError
from .crossval import evaluate, knobs_csv, summary
from .display import round_sig, shown, shown_up
from .estimate import DEFAULT_CONTEXT, DEFAULT_OUTPUT_TOKENS, estimate
from .forecasting import forecast
from .models import MODELS, UnknownModelError
from .reproduce import reproduce
from .units import GiB
from .workload import Workload

__all__ = ["main"]

_ESTIMATE_HELP = """\
Bounds for one model on one or more cards: a decode step, the turning points
B* and S_max, the memory each card must hold, and (with --prompt) a whole
request.  Every time is a lower bound (no implementation can be faster) and
every throughput an upper bound, except the lines marked "a model": the
all-reduces between cards, and for a mixture of experts the step under
uniform routing.  An MoE step's bound reads k experts per layer, the fewest
any routing can read; under uniform routing a batch hits more of them.  The
memory lines are a sum of what each card must hold.

Two latencies describe a request.  TTFT, the time to first token, is the
prefill pass over the whole prompt.  TPOT, the time per output token, is one
decode step; its KV cache grows by one token per step.

--context is the tokens of KV cache each request holds in the decode step
that the "decode step" block shows.  Without it: with --prompt P and
--output-tokens O, the request's last decode step, P + O - 1; otherwise {context},
or the model's max_position_embeddings if that is smaller.  The request block
always reports TPOT as the mean over its own contexts P+1 ... P+O-1.

--cards applies to everything printed: each card's share of the reads, the
math and the memory, plus the all-reduces between cards (a ring model, 1 us
per step assumed).  A configuration that does not fit is still estimated, and
says so; --json carries at its top "fits" (the decode step's) and
"everything_fits" (the request's longest context too), and the memory record
under "memory".
"""


#: The number flags of ``estimate``: flag -> (the parameter of :func:`infra_calc.estimate` it
#: sets, the unit the user types, a whole number?, check keywords).  The one table behind every
#: message about a number: a value is checked as typed, in its unit, by the library's checks,
#: and a later error of the library names the flag instead of its parameter.
_WIDEST = 8  # bytes: FP64, the widest number a card stores a weight or a cached element in
_FLAGS = {
    "--bytes-per-param": ("bytes_per_param", "bytes/parameter", False, dict(maximum=_WIDEST)),
    "--kv-bytes-per-element": ("kv_bytes_per_element", "bytes/element", False,
                               dict(maximum=_WIDEST)),
    "--batch": ("batch", "requests", True, {}),
    "--context": ("context", "tokens", True, {}),
    "--prompt": ("prompt_tokens", "tokens", True, {}),
    "--output-tokens": ("output_tokens", "tokens", True, {}),
    "--cards": ("cards", "", True, {}),
    # at most what a float holds in bytes
    "--workspace-gib": ("workspace", "GiB", False, dict(allow_zero=True,
                                                        maximum=sys.float_info.max / GiB)),
}


def _typed(flag):
    """argparse ``type`` for ``flag``: the number as typed, or one line naming flag, unit, text."""
    _, unit, whole, limits = _FLAGS[flag]

    def convert(text):
        try:
            value = int(text) if whole and re.fullmatch(r"\s*[+-]?\d+\s*", text) else float(text)
        except ValueError:
            kind = "a whole number" if whole else "a number"
            raise argparse.ArgumentError(None, f"{flag} ({unit}) must be {kind}, got {text!r}") from None
        try:
            return check_int(value, flag, unit) if whole else check_number(value, flag, unit, **limits)
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentError(None, re.sub(r"got .*$", f"got {text}", str(exc))) from None
    return convert


#: The flag that names an entry of each catalog: an unknown name's error says which it was.
_NAME_FLAGS = {UnknownModelError: "--model", UnknownAcceleratorError: "--hw"}


def _flag_names(message: str) -> str:
    """A library message with each parameter of :data:`_FLAGS` replaced by its flag."""
    flags = {param: flag for flag, (param, *_) in _FLAGS.items()}
    return re.sub(rf"(?<![\w-])({'|'.join(flags)})\b", lambda m: flags[m[1]], message)


_FORECAST_HELP = """\
A forecast of one request: the floor of `estimate` made realistic by knobs fitted
on published measurements (infra_calc/data/measurements.csv): the read at a
fitted fraction of the bandwidth, the math at a fitted fraction of the math
precision's dense peak, plus a fixed cost per layer and per all-reduce.  It is a
MODEL, not a bound: every interval is the 10th-90th percentile of the engine
family's cross-validated errors, so about 8 in 10 unseen measurements fall inside.
The floor it rests on is printed beside it.  --continuous models a server batching
continuously under load: each token also waits for (B - 1)/O prefills of arriving
prompts (a model of the steady state; TTFT, total and tokens/s are unchanged).
"""



def _workload_arguments(p, dflt, *, request: bool) -> None:
    """The arguments ``estimate`` and ``forecast`` share, on subparser ``p``.

    ``request``: the forecast needs a request (--prompt and --output-tokens are required); the
    estimate takes one optionally, with the defaults of :func:`infra_calc.estimate`.
    """
    p.add_argument("--model", required=True,
                   help="catalog model name or path to a config.json "
                        "(`python -m infra_calc list` shows the catalog)")
    p.add_argument("--hw", required=True,
                   help="catalog accelerator name (`python -m infra_calc list` shows them)")
    p.add_argument("--bytes-per-param", type=_typed("--bytes-per-param"),
                   help=f"stored bytes per weight: 2 = BF16, 1 = 8-bit, 0.5 = 4-bit "
                        f"(default {dflt('bytes_per_param'):g})")
    p.add_argument("--kv-bytes-per-element", type=_typed("--kv-bytes-per-element"),
                   help=f"bytes per cached K/V element: 2 = BF16, 1 = FP8 "
                        f"(default {dflt('kv_bytes_per_element'):g})")
    p.add_argument("--batch", type=_typed("--batch"),
                   help=f"concurrent requests, decoded together (default {dflt('batch')})")
    p.add_argument("--cards", type=_typed("--cards"),
                   help=f"tensor-parallel cards (default {dflt('cards')}); applies to every "
                        "number printed")
    p.add_argument("--prompt", type=_typed("--prompt"), required=request, default=None,
                   help="prompt tokens P per request" + ("" if request else
                        ": adds the prefill (TTFT) and the whole request"))
    p.add_argument("--output-tokens", type=_typed("--output-tokens"), required=request,
                   default=None, help="output tokens O per request" + ("" if request else
                        f" (needs --prompt; default {DEFAULT_OUTPUT_TOKENS}, capped by the model)"))
    p.add_argument("--math", help="math precision whose dense peak bounds the math: bf16, fp8, "
                                  f"fp4 (default {dflt('math')})")
    p.add_argument("--engine", default=None,
                   help="engine family whose fitted knobs the forecast uses (default: the pooled "
                        "fit; a wrong name lists them)" + ("" if request else
                        "; the forecast is printed with --prompt"))
    p.add_argument("--json", action="store_true",
                   help="print strict JSON instead of text" + ("" if request else
                        " (null, with a reason, for an infinite number)"))


def _build_parser() -> argparse.ArgumentParser:
    dflt = Workload.default    # a size's default: the default of its Workload field
    p = Parser(prog="python -m infra_calc",
               description="LLM inference performance estimates (the book's calculator).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    r = sub.add_parser("reproduce", help="print a source chapter's calculator printout (§7)")
    r.add_argument("chapter", choices=["j07", "j13", "all"])

    e = sub.add_parser("estimate", help="decode step, TTFT/TPOT, turning points and memory",
                       description=_ESTIMATE_HELP.format(context=f"{DEFAULT_CONTEXT:,}"),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _workload_arguments(e, dflt, request=False)
    e.add_argument("--context", type=_typed("--context"), default=None,
                   help="tokens of KV cache per request in the decode step "
                        f"(default: P + O - 1 with --prompt, else {DEFAULT_CONTEXT:,} capped by "
                        "the model)")
    e.add_argument("--workspace-gib", type=_typed("--workspace-gib"),
                   help=f"workspace per card in GiB (default {round_sig(dflt('workspace'), 'GiB')})")

    f = sub.add_parser("forecast", help="forecast TTFT, TPOT and tokens/s with intervals (a model)",
                       description=_FORECAST_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _workload_arguments(f, dflt, request=True)
    f.add_argument("--continuous", action="store_true",
                   help="continuous batching under load: the TPOT adds (B - 1)/O prefills of one "
                        "prompt per token (a model; default: a static batch)")

    ft = sub.add_parser("fit", help="refit the forecast's knobs from the measurements and "
                                    "write them to --out (`make fit` names the packaged "
                                    "infra_calc/data/forecast_knobs.csv)")
    ft.add_argument("--out", required=True, metavar="PATH",
                    help="the CSV file to write the knobs to (required: no default path, so a "
                         "run never overwrites the package's data unasked)")

    sub.add_parser("list", help="list catalog accelerators and models")
    sub.add_parser("figures", help="regenerate every published figure (see figures --help)",
                   add_help=False)
    sub.add_parser("measure", help="measure this machine's roofline (see measure --help)",
                   add_help=False)
    return p


def _sizes(args) -> dict:
    """The sizes the command was given but the context (None: the Workload's default)."""
    gib = getattr(args, "workspace_gib", None)     # only estimate takes a workspace
    return dict(batch=args.batch, cards=args.cards, bytes_per_param=args.bytes_per_param,
                kv_bytes_per_element=args.kv_bytes_per_element, math=args.math,
                workspace=None if gib is None else gib * GiB)


def _workload(args):
    """The command's one :class:`~infra_calc.workload.Workload`: model, card and sizes, resolved once."""
    return Workload.of(args.model, args.hw, **_sizes(args))


def _estimate(args) -> str:
    w = _workload(args)
    est = estimate(w, context=args.context, prompt_tokens=args.prompt,   # None: the estimate's pick
                   output_tokens=args.output_tokens)
    fc = None
    if args.prompt is not None:
        fc = forecast(w, prompt_tokens=args.prompt, output_tokens=est.request.output_tokens,
                      engine=args.engine)
    if args.json:
        d = est.to_dict()
        if fc is not None:
            d["forecast"] = _forecast_dict(fc)
        return json.dumps(d, indent=2, allow_nan=False)
    return est.table() + ("" if fc is None else "\n\n" + _forecast_text(fc))


def _forecast_dict(fc) -> dict:
    kn = fc.knobs
    out = {"kind": "a model (floor made realistic by fitted knobs), not a bound",
           "engine": fc.engine, "math": fc.math, "continuous": fc.continuous}
    for name in ("ttft", "tpot", "total", "output_tokens_per_s"):
        b = getattr(fc, name)
        out[name] = {"value": b.value, "low": b.low, "high": b.high}
    g = fc.floor
    out["floor"] = {"ttft": g.prefill.t_floor, "tpot": g.floor_tpot, "total": g.floor_total,
                    "output_tokens_per_s": g.floor_tokens_per_s_total}
    out["knobs"] = {"eta_mem": kn.eta_mem, "eta_flop": kn.eta_flop, "c_layer_s": kn.c_layer,
                    "c_allreduce_s": kn.c_allreduce, "overlap": kn.overlap, "rows": kn.rows,
                    "groups": kn.groups,
                    "holdout_rows": kn.holdout_rows, "holdout_inside": kn.holdout_inside}
    return out


def _forecast_text(fc) -> str:
    d = _forecast_dict(fc)    # SI in; shown_up puts long times in a larger unit
    kn = fc.knobs
    cb = "; continuous batching (TPOT holds arriving prefills)" if fc.continuous else ""
    lines = [f"forecast (a MODEL, not a bound): engine {fc.engine}, math {fc.math}{cb}; knobs fitted on "
             f"{kn.rows} rows in {kn.groups} groups: eta_mem {kn.eta_mem:.2f}, eta_flop "
             f"{kn.eta_flop:.2f}, {shown(kn.c_layer, 'us', 1)} per layer, "
             f"{shown(kn.c_allreduce, 'us', 1)} per all-reduce, overlap {kn.overlap:.2f}",
             f"{'':38}{'forecast':>12}  {'80% interval':^25}  {'floor':>12}"]
    for name, label, unit in (("ttft", "TTFT", "ms"), ("tpot", "TPOT (mean)", "ms"),
                              ("total", "total", "s"), ("output_tokens_per_s",
                                                        "tokens/s (whole batch)", None)):
        b = d[name]
        cells = [str(shown_up(x, unit, 3)) for x in (b["value"], b["low"], b["high"], d["floor"][name])]
        lines.append(f"  {label:<36}{cells[0]:>12}  [{cells[1]:>9} - {cells[2]:>9}]  {cells[3]:>12}")
    lines.append(f"  held-out rows inside their interval: {kn.holdout_inside} of {kn.holdout_rows}")
    return "\n".join(lines)


def _forecast(args) -> str:
    fc = forecast(_workload(args), prompt_tokens=args.prompt, output_tokens=args.output_tokens,
                  engine=args.engine, continuous=args.continuous)
    if args.json:
        return json.dumps(_forecast_dict(fc), indent=2, allow_nan=False)
    return _forecast_text(fc)


def _fit(args) -> str:
    rep = evaluate()
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        fh.write(knobs_csv(rep))
    return summary(rep) + f"\nknobs written to {args.out}"


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # figures and measure own their options
    if argv and argv[0] in ("figures", "measure"):
        try:    # loaded on use: figures imports matplotlib, measure its backends
            if argv[0] == "figures":
                from .figures import main as sub_main
            else:
                from .measure import main as sub_main
            return sub_main(argv[1:])
        except (ValueError, TypeError, OSError) as exc:
            print(f"python -m infra_calc {argv[0]}: error: {exc}", file=sys.stderr)
            return 2
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.command == "reproduce":
            print("\n".join(reproduce(args.chapter)))
        elif args.command == "list":
            print("accelerators:")
            for line in CATALOG.listing(label=str):
                print(f"  {line}")
            print("models:")
            for line in MODELS.listing():
                print(f"  {line}")
        elif args.command == "estimate":
            print(_estimate(args))
        elif args.command == "forecast":
            print(_forecast(args))
        elif args.command == "fit":
            print(_fit(args))
    except (ValueError, TypeError, KeyError, OSError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        if args.command in ("estimate", "forecast"):
            flag = next((f for kind, f in _NAME_FLAGS.items() if isinstance(exc, kind)), None)
            msg = f"argument {flag}: {msg}" if flag else _flag_names(str(msg))
        print(f"python -m infra_calc {args.command}: error: {msg}", file=sys.stderr)
        return 2
    return 0
