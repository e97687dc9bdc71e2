"""Task families. Importing this package registers every built-in family.

Use ``generate_task(family, level, seed, **params)``; see ``registry`` for the rest.
"""
from alice_app.tasks.registry import (Family, core_family_names, family_names, generate_task, get_family,
                                      register)
from alice_app.tasks import (  # noqa: F401  (imported for their register(...) side effect)
    double_negation,
    distractor_order_of_ops,
    exclusion_counting,
    false_claim,
    negated_comparison,
    negation_arithmetic,
    plain_arithmetic,
    reasoning_gym,
)
from alice_app.tasks import controls  # noqa: F401,E402  (registers the control twins)
from alice_app.tasks.controls import default_families  # noqa: E402
from alice_app.tasks.registry import control_of, has_control  # noqa: E402

__all__ = ["Family", "register", "get_family", "family_names", "core_family_names", "generate_task",
           "control_of", "has_control", "default_families"]
