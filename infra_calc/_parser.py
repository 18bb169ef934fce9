"""The argument parser of every ``python -m infra_calc`` command: an error is one line."""
from __future__ import annotations

import argparse
import re
import sys

__all__ = ["Parser"]

# a value that starts with "-" and is a number for its flag's type to check: -1, -1e-5, -.5, -inf, -nan
_NUMBER = re.compile(r"-(\d|\.\d|inf|nan)", re.IGNORECASE)


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        # a flag is spelled whole: "--kv-bytes" is not "--kv-bytes-per-element"
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, with a long flag and a number starting with "-" joined first
        ("--batch -1" reads as "--batch=-1", the "--flag=value" form argparse documents for a
        long option), so the flag's type refuses it with its own message; argparse
        takes "-1e-5" or "-inf" after a flag for an unknown option."""
        args = list(sys.argv[1:] if args is None else args)
        end = args.index("--") if "--" in args else len(args)     # after "--": positionals
        joined: list[str] = []
        for a in args[:end]:
            if joined and joined[-1].startswith("--") and "=" not in joined[-1] and _NUMBER.match(a):
                joined[-1] += f"={a}"
            else:
                joined.append(a)
        return super().parse_known_args(joined + args[end:], namespace)

    def error(self, message):  # one clear line, exit status 2
        self.exit(2, f"{self.prog}: error: {message}\n")
