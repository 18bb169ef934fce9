"""Command line: ``python -m infra_calc {reproduce,estimate,list,figures,measure}``."""
from __future__ import annotations

import argparse
import json
import re
import sys

from ._parser import Parser
from ._validate import check_int, check_number
from .units import GiB

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
--output-tokens O, the request's last decode step, P + O - 1; otherwise 8192,
or the model's max_position_embeddings if that is smaller.  The request block
always reports TPOT as the mean over its own contexts P+1 ... P+O-1.

--cards applies to everything printed: each card's share of the reads, the
math and the memory, plus the all-reduces between cards (a ring model, 1 us
per step assumed).  A configuration that does not fit is still estimated, and
says so; --json carries a top-level "fits".
"""


#: The number flags of ``estimate``: flag -> (the parameter of :func:`infra_calc.estimate` it
#: sets, the unit the user types, a whole number?, check keywords).  The one table behind every
#: message about a number: a value is checked as typed, in its unit, by the library's checks,
#: and a later error of the library names the flag instead of its parameter.
_WIDEST = 8  # bytes: FP64, the widest number a card stores a weight or a cached element in
_FLAGS = {
    "--bytes-per-param": ("bytes_per_param", "bytes/parameter", False, dict(maximum=_WIDEST)),
    "--kv-bytes": ("kv_bytes_per_element", "bytes/element", False, dict(maximum=_WIDEST)),
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


def _flag_names(message: str) -> str:
    """A library message with each parameter of :data:`_FLAGS` replaced by its flag."""
    flags = {param: flag for flag, (param, *_) in _FLAGS.items()}
    return re.sub(rf"(?<![\w-])({'|'.join(flags)})\b", lambda m: flags[m[1]], message)


def _build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="python -m infra_calc",
               description="LLM inference performance estimates (the book's calculator).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    r = sub.add_parser("reproduce", help="print a source chapter's calculator printout (§7)")
    r.add_argument("chapter", choices=["j07", "j13", "all"])

    e = sub.add_parser("estimate", help="decode step, TTFT/TPOT, turning points and memory",
                       description=_ESTIMATE_HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    e.add_argument("--model", required=True,
                   help="catalog model name or path to a config.json "
                        "(`python -m infra_calc list` shows the catalog)")
    e.add_argument("--hw", required=True,
                   help="catalog accelerator name (`python -m infra_calc list` shows them)")
    e.add_argument("--bytes-per-param", type=_typed("--bytes-per-param"), default=2.0,
                   help="stored bytes per weight: 2 = BF16 (default), 1 = 8-bit, 0.5 = 4-bit")
    e.add_argument("--kv-bytes", type=_typed("--kv-bytes"), default=2.0,
                   help="bytes per cached K/V element: 2 = BF16 (default), 1 = FP8")
    e.add_argument("--batch", type=_typed("--batch"), default=1, help="concurrent requests (default 1)")
    e.add_argument("--context", type=_typed("--context"), default=None,
                   help="tokens of KV cache per request in the decode step "
                        "(default: P + O - 1 with --prompt, else 8192 capped by the model)")
    e.add_argument("--prompt", type=_typed("--prompt"), default=None,
                   help="prompt tokens P: adds the prefill (TTFT) and the whole request")
    e.add_argument("--output-tokens", type=_typed("--output-tokens"), default=None,
                   help="output tokens O of the request (needs --prompt; default 256, "
                        "capped by the model)")
    e.add_argument("--cards", type=_typed("--cards"), default=1,
                   help="tensor-parallel cards (default 1); applies to every number printed")
    e.add_argument("--workspace-gib", type=_typed("--workspace-gib"), default=2.0,
                   help="workspace per card in GiB (default 2)")
    e.add_argument("--json", action="store_true",
                   help="print strict JSON instead of a table (null, with a reason, "
                        "for an infinite number)")

    sub.add_parser("list", help="list catalog accelerators and models")
    sub.add_parser("figures", help="regenerate every published figure (see figures --help)",
                   add_help=False)
    sub.add_parser("measure", help="measure this machine's roofline (see measure --help)",
                   add_help=False)
    return p


def _estimate(args) -> str:
    from .estimate import estimate

    est = estimate(args.model, args.hw, bytes_per_param=args.bytes_per_param, batch=args.batch,
                   context=args.context, workspace=args.workspace_gib * GiB,
                   kv_bytes_per_element=args.kv_bytes, cards=args.cards, prompt_tokens=args.prompt,
                   output_tokens=args.output_tokens)
    if args.json:
        return json.dumps(est.to_dict(), indent=2, allow_nan=False)
    return est.table()


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # figures and measure own their options
    if argv and argv[0] in ("figures", "measure"):
        try:
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
            from .reproduce import reproduce
            print("\n".join(reproduce(args.chapter)))
        elif args.command == "list":
            from ._names import listed
            from .hardware import CATALOG
            from .models import _SHIPPED
            print("accelerators:")
            for acc in CATALOG.values():
                print(f"  {acc}" + listed(acc).removeprefix(acc.name))
            print("models:")
            for entry in _SHIPPED:
                print(f"  {listed(entry)}")
        elif args.command == "estimate":
            print(_estimate(args))
    except (ValueError, TypeError, KeyError, OSError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        msg = _flag_names(str(msg)) if args.command == "estimate" else msg
        print(f"python -m infra_calc {args.command}: error: {msg}", file=sys.stderr)
        return 2
    return 0
