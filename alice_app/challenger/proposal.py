"""A challenger's proposal: a task wording as data, parsed from raw text and validated with reasons.

A proposal is a ``template`` (text with typed slots in braces) and an ``op`` (the expression the
engine computes). Slots are plain names only: operands ``{a}``, ``{b}``, ``{c}`` (as the op's
expression needs) and distractors ``{claim}``, ``{claim2}``, ``{claim3}`` (tempting wrong values the
engine picks). The template is never evaluated or passed to ``str.format``: ``fill`` replaces each
plain-name slot by a number with a regular expression, so ``{a.__class__}`` or ``{0}`` is simply
rejected as slot syntax.

The model writes either a JSON object ``{"template": ..., "op": ...}`` or two lines
``TEMPLATE: ...`` / ``OP: ...``; ``parse_proposal`` finds either in a longer reply.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from alice_app.challenger.novelty import tokens
from alice_app.tasks._arith import SHAPES

# op -> (level, digits per operand); the ops are shapes of tasks/_arith.py, so the answer, the
# confusions (tempting distractors) and the failure-mode labels come from the same code.
OPS: dict[str, tuple[str, int]] = {
    "add": ("easy", 1), "sub": ("easy", 1), "mul": ("easy", 1),
    "add3": ("medium", 1), "add_sub": ("medium", 2), "mul_add": ("medium", 1),
    "mixed": ("hard", 2), "paren_mul": ("hard", 2),
}
DISTRACTOR_SLOTS = ("claim", "claim2", "claim3")
# Single-operation ops must name their operation; compound ops must write their expression out.
OP_CUES = {
    "add": ("add", "sum", "plus", "total", "+", "together", "combined"),
    "sub": ("subtract", "minus", "difference", "take away", "-", "less"),
    "mul": ("multiply", "times", "product", "×", "*"),
}
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "twenty", "hundred", "thousand", "dozen", "half", "double", "twice")
ANSWER_SLOTS = ("answer", "result", "solution", "total", "sum", "product")

MAX_RAW_CHARS = 4000  # a reply longer than this is rejected before any parsing
MIN_TEMPLATE_CHARS, MAX_TEMPLATE_CHARS = 20, 300

REASONS: tuple[str, ...] = (
    "empty", "too_long", "malformed", "unknown_op", "bad_characters", "template_length", "slot_syntax",
    "states_answer", "unknown_slot", "missing_operand", "no_distractor", "literal_number", "no_op_cue",
    "wrong_expression", "wrong_order", "mixed_ops", "claim_operand", "two_questions", "repetitive",
    "near_duplicate",
)
# Degenerate text: a run of REPEATED_SPAN words (a slot counts as one) said REPEATED_TIMES times or more
# ("Ben says (Ben says it is) Ben says (Ben says it is) …", which the 135M challenger wrote). Three
# NOT-values ("not equal to {claim} and not equal to {claim2} and not equal to {claim3}") repeat 5-word
# runs only twice.
REPEATED_SPAN, REPEATED_TIMES = 5, 3

_BRACED = re.compile(r"\{([^{}]*)\}")
_PLAIN = re.compile(r"[a-z][a-z0-9_]{0,15}")
# A written-out expression: slots joined by operators, with parentheses ("({a} + {b}) × {c}").
_EXPRESSION = re.compile(r"\(*\{[a-z0-9_]+\}\)*(?:\s*[-+×*]\s*\(*\{[a-z0-9_]+\}\)*)+")
# Wordings that ask for {b} − {a}, while op sub computes {a} − {b}: "subtract {a} from {b}",
# "take {a} away from {b}", "{a} less than {b}".
_REVERSED_SUB = re.compile(r"\b(?:subtract|take|deduct|remove)\s+\{a\}\s+(?:away\s+)?from\s+\{b\}"
                           r"|\{a\}\s+(?:less|fewer)\s+than\s+\{b\}", re.IGNORECASE)
# An order to carry out one operation (the verb opening a sentence or clause, or after "then"/"and"): a
# single-operation wording that also orders another asks two things ("Add {a} to {b}, then subtract it
# from itself"), whatever op it declares. A distractor that only names another operation ("{claim} would be
# {a} plus {b}") orders nothing.
OP_ORDERS = {op: re.compile(rf"(?:^|[.;:,!?]\s*|\bthen\s+|\band\s+)(?:please\s+)?(?:{verbs})\b", re.IGNORECASE)
             for op, verbs in {"add": "add", "sub": r"subtract|take\s+away|deduct", "mul": "multiply"}.items()}
# A distractor computed with: the object of an operation ("add {claim}", "{a} plus {claim}", "added to
# {claim2}", "Add {a} and {claim}"). The engine's answer ignores the distractors, so such a wording would
# ask for something else than the answer it gets. Naming a distractor ("not equal to {claim}", "{claim}
# would be {a} plus {b}") computes nothing with it.
_CLAIM, _OPERAND = r"\{claim\d?\}", r"\{[abc]\}"
_OPERATOR = r"(?:plus|minus|times|multiplied\s+by|[-+×*])"
_CLAIM_OPERAND = re.compile(
    rf"{_OPERATOR}\s*\(?\s*{_CLAIM}|{_CLAIM}\s*\)?\s*{_OPERATOR}"
    rf"|\b(?:add|subtract|multiply|deduct)\s+{_CLAIM}"
    rf"|\b(?:add(?:ed)?|subtract(?:ed)?|deduct(?:ed)?)\s+(?:it\s+)?(?:to|from)\s+{_CLAIM}"
    rf"|\b(?:add|multiply)\s+{_OPERAND}(?:\s*,\s*{_OPERAND})*\s*(?:,\s*)?(?:and|by|with)\s+{_CLAIM}",
    re.IGNORECASE)
# A request for a result: a question word, or a verb ordering a computation at the start of a clause or
# after ","/":"/"then" ("If you add {a} and {b} you get {claim}?" requests nothing). Two clauses (split at
# . ? ! ; and at "but") that each request something of the operands ask two questions ("What is {a} + {b} -
# {c}, given that the result is NOT {claim}, but what is the sum of {a} and {b}?", which the 135M wrote).
_CLAUSES = re.compile(r"[.?!;]+|\bbut\b", re.IGNORECASE)
_REQUEST = re.compile(r"\b(?:what|how\s+much|how\s+many)\b|(?:^\s*|[,:]\s*|\bthen\s+)(?:please\s+)?(?:compute"
                      r"|calculate|find|work\s+out|evaluate|solve|add|subtract|multiply)\b", re.IGNORECASE)
_LINE = re.compile(r"^\s*(template|op)\s*[:=]\s*(.*?)\s*$", re.IGNORECASE | re.MULTILINE)
_JSON_OBJECT = re.compile(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", re.DOTALL)


class Rejected(ValueError):
    """A proposal that cannot become a template; ``reason`` is one of REASONS."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class Proposal:
    template: str
    op: str

    @property
    def template_id(self) -> str:
        text = " ".join(self.template.split())
        return hashlib.sha1(f"{self.op}\n{text}".encode()).hexdigest()[:12]

    @property
    def level(self) -> str:
        return OPS[self.op][0]

    @property
    def operand_slots(self) -> tuple[str, ...]:
        return SHAPES[self.op].fields

    def slots(self) -> list[str]:
        return [m.group(1) for m in _BRACED.finditer(self.template)]

    def distractor_slots(self) -> list[str]:
        return [s for s in DISTRACTOR_SLOTS if s in self.slots()]

    def to_dict(self) -> dict[str, str]:
        return {"template": self.template, "op": self.op}


def parse_proposal(raw: Any, default_op: str | None = None) -> Proposal:
    """The proposal in a model's reply (JSON object or TEMPLATE/OP lines), validated; else Rejected.

    ``default_op`` is the op the challenger was asked for: with it, a reply without an OP line (or
    one that is only the template, as when the prompt already ends in "TEMPLATE:") takes its first
    non-empty line as the template and, as its op, the one its own wording fixes (``infer_op``:
    "what is {a} + {b} + {c}?" is add3 whatever was asked) or else the op asked for."""
    if not isinstance(raw, str) or not raw.strip():
        raise Rejected("empty", "the reply is empty")
    if len(raw) > MAX_RAW_CHARS:
        raise Rejected("too_long", f"the reply has {len(raw)} characters (at most {MAX_RAW_CHARS})")
    fields = _json_fields(raw) or _line_fields(raw) or _bare_fields(raw, default_op)
    if fields is None:
        raise Rejected("malformed", "no JSON object with template and op, and no TEMPLATE:/OP: lines")
    return validate(Proposal(template=fields[0], op=fields[1].strip().lower()))


def _bare_fields(raw: str, default_op: str | None) -> tuple[str, str] | None:
    if default_op is None:
        return None
    found = {key.lower(): value.strip() for key, value in reversed(_LINE.findall(raw))}
    if "template" in found:
        template = found["template"]
    else:
        template = next(line for line in raw.splitlines() if line.strip()).strip().strip('"').strip("`")
    return template, infer_op(template) or default_op


def infer_op(template: str) -> str | None:
    """The op a template's wording fixes unambiguously: the one expression it writes out, or, with
    two operand slots and no expression, the one operation its cue words name; else None."""
    written = {_squash(w) for w in _EXPRESSION.findall(template)}
    if written:
        matches = [op for op in OPS if written == {_squash(SHAPES[op].expr)}]
        return matches[0] if len(matches) == 1 else None
    operands = {m.group(1) for m in _BRACED.finditer(template)} - set(DISTRACTOR_SLOTS)
    if operands != {"a", "b"}:
        return None
    lowered = template.lower()
    named = [op for op, cues in OP_CUES.items() if any(cue in lowered for cue in cues)]
    return named[0] if len(named) == 1 else None


def _json_fields(raw: str) -> tuple[str, str] | None:
    for match in _JSON_OBJECT.finditer(raw):
        try:
            data = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("template"), str) and isinstance(data.get("op"), str):
            return data["template"], data["op"]
    return None


def _line_fields(raw: str) -> tuple[str, str] | None:
    found: dict[str, str] = {}
    for key, value in _LINE.findall(raw):
        found.setdefault(key.lower(), value.strip().strip('"').strip("`"))
    if "template" in found and "op" in found:
        return found["template"], found["op"]
    return None


def validate(proposal: Proposal) -> Proposal:
    """The proposal unchanged when it can safely become a template; else Rejected with the reason."""
    template, op = proposal.template, proposal.op
    if op not in OPS:
        raise Rejected("unknown_op", f"op {op[:40]!r} is not one of {', '.join(OPS)}")
    if not template.isprintable() or "<|" in template or "|>" in template or "```" in template:
        raise Rejected("bad_characters", "the template has control characters or chat markup")
    if not MIN_TEMPLATE_CHARS <= len(template) <= MAX_TEMPLATE_CHARS:
        raise Rejected("template_length", f"the template has {len(template)} characters "
                                          f"({MIN_TEMPLATE_CHARS}-{MAX_TEMPLATE_CHARS} allowed)")
    _check_slot_syntax(template)
    _check_slots(proposal)
    _check_wording(proposal)
    _check_repetition(template)
    return proposal


def _check_repetition(template: str) -> None:
    words = tokens(template)
    runs = Counter(tuple(words[i:i + REPEATED_SPAN]) for i in range(len(words) - REPEATED_SPAN + 1))
    run, times = runs.most_common(1)[0] if runs else ((), 0)
    if times >= REPEATED_TIMES:
        raise Rejected("repetitive", f"the words {' '.join(run)!r} come {times} times: degenerate text")


def _check_slot_syntax(template: str) -> None:
    for name in _BRACED.findall(template):
        if not _PLAIN.fullmatch(name):
            raise Rejected("slot_syntax", f"slot {{{name[:30]}}} is not a plain lower-case name")
    if "{" in _BRACED.sub("", template) or "}" in _BRACED.sub("", template):
        raise Rejected("slot_syntax", "the template has an unmatched or nested brace")


def _check_slots(proposal: Proposal) -> None:
    slots = set(proposal.slots())
    stated = slots & set(ANSWER_SLOTS)
    if stated:
        raise Rejected("states_answer", f"slot {{{sorted(stated)[0]}}} would state the answer")
    unknown = slots - set(proposal.operand_slots) - set(DISTRACTOR_SLOTS)
    if unknown:
        allowed = ", ".join(f"{{{s}}}" for s in (*proposal.operand_slots, *DISTRACTOR_SLOTS))
        raise Rejected("unknown_slot", f"slot {{{sorted(unknown)[0]}}} is not one of {allowed}")
    missing = [s for s in proposal.operand_slots if s not in slots]
    if missing:
        raise Rejected("missing_operand", f"op {proposal.op} needs every operand slot; {{{missing[0]}}} is unused")
    if not slots & set(DISTRACTOR_SLOTS):
        raise Rejected("no_distractor", "the template names no distractor ({claim}): nothing to resist")


def _check_wording(proposal: Proposal) -> None:
    text = _BRACED.sub(" ", proposal.template)
    if re.search(r"\d", text) or any(re.search(rf"\b{word}\b", text, re.IGNORECASE) for word in NUMBER_WORDS):
        raise Rejected("literal_number", "numbers may only come from slots (the answer is computed from them)")
    for written in _EXPRESSION.findall(proposal.template):
        if _squash(written) != _squash(SHAPES[proposal.op].expr):
            raise Rejected("wrong_expression", f"the wording writes out {written!r}, but op {proposal.op} computes "
                                               f"{SHAPES[proposal.op].expr}")
    if proposal.op == "sub" and _REVERSED_SUB.search(proposal.template):
        raise Rejected("wrong_order", "the wording asks for {b} − {a}, but op sub computes {a} − {b} "
                                      "(write 'subtract {b} from {a}')")
    if proposal.op in OP_CUES:
        lowered = proposal.template.lower()
        if not any(cue in lowered for cue in OP_CUES[proposal.op]):
            raise Rejected("no_op_cue", f"the wording never says to {proposal.op} "
                                        f"(use one of: {', '.join(OP_CUES[proposal.op])})")
        others = [op for op, order in OP_ORDERS.items() if op != proposal.op and order.search(proposal.template)]
        if others and not _EXPRESSION.search(proposal.template):
            raise Rejected("mixed_ops", f"op {proposal.op}, but the wording also says to {' and '.join(others)}: "
                                        "ask for one operation")
    elif _squash(SHAPES[proposal.op].expr) not in _squash(proposal.template):
        raise Rejected("no_op_cue", f"op {proposal.op} must write its expression out: {SHAPES[proposal.op].expr}")
    computed = _CLAIM_OPERAND.search(proposal.template)
    if computed:
        raise Rejected("claim_operand", f"{computed.group(0)!r} computes with a distractor; the answer is computed "
                                        "from the operands only")
    requests = [c.strip() for c in _CLAUSES.split(proposal.template) if _REQUEST.search(c) and re.search(_OPERAND, c)]
    if len(requests) > 1:
        raise Rejected("two_questions", f"the wording asks {len(requests)} things ({requests[0][:40]!r} and "
                                        f"{requests[1][:40]!r}): ask once")


def _squash(text: str) -> str:
    return "".join(text.split()).replace("*", "×")


def fill_slots(template: str, values: dict[str, int]) -> str:
    """Each plain-name slot replaced by its value: a regex substitution, never format or eval."""
    return _BRACED.sub(lambda m: str(values[m.group(1)]), template)
