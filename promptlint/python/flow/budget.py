"""The work budget of one prompt: a bound on the evaluations it may cost, not a tuning knob.

Each expression evaluated spends one unit; when a prompt has spent `EVAL_BUDGET`, what is left is
"too complex to analyse within the budget" (a dynamic segment of unknown volatility), so a run over
any code ends in bounded time. A function called with more than `MAX_BOUND_CALLS` argument sets in
one prompt is then read once with its parameters unknown.
"""
from __future__ import annotations

EVAL_BUDGET = 60_000  # expression evaluations per prompt
MAX_BOUND_CALLS = 4  # argument sets per function per prompt before it is read unbound
MAX_DEPTH = 7  # calls followed from the prompt's own frame


class Budget:
    """Units left for the current prompt; `calls` counts bound calls per function node."""

    def __init__(self, limit: int = EVAL_BUDGET):
        self.limit = limit
        self.left = limit
        self.calls: dict = {}

    def reset(self) -> None:
        """Start the budget of a new prompt."""
        self.left = self.limit
        self.calls.clear()

    def spend(self, units: int = 1) -> bool:
        """Spend `units`; False once the budget is exhausted."""
        self.left -= units
        return self.left >= 0

    def bound_call(self, key) -> bool:
        """Count one more bound call of function `key` (its node's id, and the class of the
        instance a method is called on); False when it has had its share."""
        count = self.calls.get(key, 0) + 1
        self.calls[key] = count
        return count <= MAX_BOUND_CALLS
