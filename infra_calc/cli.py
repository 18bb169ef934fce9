"""Command line: ``python -m infra_calc {reproduce,estimate,figures,measure}``."""
from __future__ import annotations

import argparse
import json
import sys

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m infra_calc",
                description="LLM inference performance estimates (the book's calculator).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    r = sub.add_parser("reproduce", help="print a source chapter's calculator printout (§7)")
    r.add_argument("chapter", choices=["j07", "j13", "all"])

    e = sub.add_parser("estimate", help="decode-step bounds, capacity and max batch")
    e.add_argument("--model", required=True, help="catalog model name or path to a config.json")
    e.add_argument("--hw", required=True, help="catalog accelerator name (see --list)")
    e.add_argument("--bytes-per-param", type=float, default=2.0, help="2 = BF16, 1 = 8-bit, 0.5 = 4-bit")
    e.add_argument("--batch", type=int, default=1, help="concurrent requests")
    e.add_argument("--context", type=int, default=8192, help="tokens of KV cache per request")
    e.add_argument("--prompt", type=int, default=None,
                   help="prompt tokens: add prefill (time to first token) and the whole request")
    e.add_argument("--output-tokens", type=int, default=None,
                   help="output tokens of the whole request (default 256 with --prompt)")
    e.add_argument("--cards", type=int, default=1, help="tensor-parallel cards (default 1)")
    e.add_argument("--workspace-gib", type=float, default=2.0, help="workspace in GiB (default 2)")
    e.add_argument("--json", action="store_true", help="print JSON instead of a table")

    sub.add_parser("list", help="list catalog accelerators and models")
    sub.add_parser("figures", help="regenerate every published figure (see figures --help)",
                   add_help=False)
    sub.add_parser("measure", help="measure this machine's roofline (see measure --help)",
                   add_help=False)
    return p


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
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "reproduce":
            from .reproduce import reproduce
            print("\n".join(reproduce(args.chapter)))
        elif args.command == "list":
            from .hardware import CATALOG
            from .models import model_names
            print("accelerators:")
            for acc in CATALOG.values():
                print(f"  {acc}")
            print("models:")
            for name in model_names():
                print(f"  {name}")
        elif args.command == "estimate":
            from .estimate import estimate
            from .units import GiB
            est = estimate(args.model, args.hw, bytes_per_param=args.bytes_per_param,
                           batch=args.batch, context=args.context,
                           workspace=args.workspace_gib * GiB)
            from .request import request_estimate
            extra = request_estimate(args.model, args.hw, bytes_per_param=args.bytes_per_param,
                                     batch=args.batch, context=args.context, cards=args.cards,
                                     prompt=args.prompt, output_tokens=args.output_tokens)
            if args.json:
                data = est.to_dict()
                if args.prompt is not None or args.cards != 1:   # chapter-3 figures on request
                    data["request"] = extra.to_dict()
                print(json.dumps(data, indent=2))
            else:
                print(est.table())
                print(extra.table())
    except (ValueError, TypeError, KeyError, OSError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"python -m infra_calc {args.command}: error: {msg}", file=sys.stderr)
        return 2
    return 0
