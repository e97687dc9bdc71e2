"""The command line: `python -m alice_app <command>`. Each command group lives in its own module,
which exposes `register(subparsers)`."""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

# Modules that add subcommands; each exposes `register(subparsers)` and sets `func` on its parsers.
COMMAND_MODULES = ("alice_app.cli.engine", "alice_app.cli.hunt", "alice_app.cli.train", "alice_app.cli.challenger",
                   "alice_app.cli.hub")


DESCRIPTION = """ALICE finds, banks and repairs the reasoning failures of a language model (the embedded
SmolLM2-135M-Instruct unless MODEL_NAME or API_BASE_URL names another).

A first session:
  python -m alice_app hunt --episodes 20       play 5-turn episodes, bank every failure
  python -m alice_app bank list                list the banked failures, newest first
  python -m alice_app train --steps 20         GRPO on a feed built from the bank and the curriculum
  python -m alice_app eval                     accuracy and distraction penalty per family and level
Each command has its own --help. The workbench UI: python app.py"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit code 2
        self.exit(2, f"error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m alice_app", description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
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
