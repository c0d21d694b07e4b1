"""The work budget of one prompt: a bound on the evaluations it may cost, not a tuning knob.

Each expression evaluated spends one unit; when a prompt has spent `EVAL_BUDGET`, what is left is
not analysed (`OUT_OF_STEPS`: a dynamic segment of unknown volatility), so a run over
any code ends in bounded time. A function called with more than `MAX_BOUND_CALLS` argument sets in
one prompt is then read once with its parameters unknown.

The evaluations made inside functions followed from a prompt (a call's body with its arguments
bound, the arguments callers pass for a parameter, the constructor calls that fill a field) also
spend from one budget per analysed file, `FILE_CALL_BUDGET`: each prompt's own budget bounds it,
but a module of thousands of functions (each `return` a candidate) would otherwise follow calls
without end (litellm's `main.py`: 540,000 evaluations, 23 s). Once the file's budget is spent,
a call is not followed and a parameter's callers are not read: the value is unknown, and says
why (`SPENT`).
"""
from __future__ import annotations

EVAL_BUDGET = 60_000  # expression evaluations per prompt
#: Why a value is unknown once its prompt has spent its budget (`.format(limit)`; explain shows it).
OUT_OF_STEPS = "not analysed: this prompt's analysis reached its limit of {:,} steps (the code it reads is too large)"
#: Expression evaluations of a candidate read only in case it turns out to be a prompt (a tools list
#: kept in a local name or returned, a conversation cut where any function returns, the message list
#: of a function not named for prompts): past it the candidate is dropped, not judged on a value read
#: in part. On the benchmark corpus (benchmarks/README.md) such a candidate that became a layout spent at
#: most 1,468 evaluations; those that did not spent 1.1 million in all, a fifth of them past 2,000.
SPECULATIVE_BUDGET = 2_000
MAX_BOUND_CALLS = 4  # argument sets per function per prompt before it is read unbound
MAX_DEPTH = 7  # calls followed from the prompt's own frame
FILE_CALL_BUDGET = 250_000  # evaluations inside followed calls and callers' arguments, per analysed file (the corpus: 62,175 at most; at 100,000 litellm files cut short drew layouts that warned where a whole reading does not)
SPENT = "not followed: the file's budget of evaluations in called functions and callers is spent"


class Budget:
    """Units left for the current prompt; `calls` counts bound calls per function node;
    `file_left` the units left to the analysed file for evaluations inside followed functions
    (`inner` > 0 while one runs)."""

    def __init__(self, limit: int = EVAL_BUDGET, file_limit: int = FILE_CALL_BUDGET):
        self.limit = limit
        self.left = limit
        self.calls: dict = {}
        self.file_limit = file_limit
        self.file_left = file_limit
        self.inner = 0

    def start_file(self) -> None:
        """Start the budget of a new file (and of its first prompt)."""
        self.file_left = self.file_limit
        self.inner = 0
        self.reset()

    @property
    def following(self) -> bool:
        """True while the file may still follow calls and read callers."""
        return self.file_left > 0

    def reset(self, limit: int | None = None) -> None:
        """Start the budget of a new prompt (of `limit` units, default the budget's own)."""
        self.left = self.limit if limit is None else limit
        self.calls.clear()

    @property
    def exhausted(self) -> bool:
        """True once the current prompt has spent its budget."""
        return self.left < 0

    def spend(self, units: int = 1) -> bool:
        """Spend `units`; False once the budget is exhausted. (`Evaluator.eval` writes this out for
        its one unit per expression: a change here is a change there.)"""
        self.left -= units
        if self.inner:
            self.file_left -= units
        return self.left >= 0

    def bound_call(self, key) -> bool:
        """Count one more bound call of function `key` (its node's id, and the class of the
        instance a method is called on); False when it has had its share."""
        count = self.calls.get(key, 0) + 1
        self.calls[key] = count
        return count <= MAX_BOUND_CALLS
