"""`python -m alice_app <command>`: each command group lives in its own module with `register`."""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

# Modules that add subcommands; each exposes `register(subparsers)` and sets `func` on its parsers.
COMMAND_MODULES = ("alice_app.cli.engine", "alice_app.cli.hunt", "alice_app.cli.train", "alice_app.cli.challenger",
                   "alice_app.cli.hub")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit code 2
        self.exit(2, f"error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m alice_app", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a command group not installed in this checkout
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:  # bad input a user can fix
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
