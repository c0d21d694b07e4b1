"""promptlint/python/flow/params.py: a parameter of a method that a helper's callers reach
(`_update_prompt(self, variable: Variable)` -> `feedback_text(variable)`, the method asking its
own `self._update_prompt(item)` callers in turn, callers.py) keeps what its annotation says when
those callers pass a value we cannot read (`item` of `for item in self.items`: of unknown kind,
only how often it changes known): the class of the tree it names says what its attributes hold
(`variable.gradients`, a set iterated into the prompt: PRM202). A caller that passes an instance
it built still gives that instance."""
from __future__ import annotations

from pathlib import Path

from analysis_support import write

from promptlint.api import check

PROMPTS = """
    FEEDBACK_PROMPT = (
        "Here is a conversation:\\n\\n<CONVERSATION>{context}</CONVERSATION>\\n\\n"
        "This conversation is potentially part of a larger system. The output is used as the answer to the user.\\n\\n"
        "Here is the feedback we got for the variable in the conversation:\\n\\n<FEEDBACK>{feedback}</FEEDBACK>\\n\\n"
        "Improve the variable so that the feedback is addressed, keeping what already works.\\n\\n"
    )
"""

VARIABLE = """
    class Variable:
        def __init__(self, value):
            self.value = value
            self.gradients = set()
"""

OPTIMIZER = '''
    from pkg.optimizer_prompts import FEEDBACK_PROMPT
    from pkg.variable import Variable


    def feedback_text(variable):
        return FEEDBACK_PROMPT.format(context=variable.value, feedback="\\n".join(g.value for g in variable.gradients))


    class Optimizer:
        def __init__(self, engine, items):
            self.engine = engine
            self.items = items

        def _update_prompt(self, variable: Variable):
            return feedback_text(variable)

        def step(self):
            for item in self.items:
                item.value = self.engine(self._update_prompt(item))
'''


def _codes(tmp_path: Path, optimizer: str) -> list[tuple]:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/variable.py": VARIABLE, "pkg/optimizer_prompts.py": PROMPTS, "pkg/optimizer.py": optimizer})
    report = check([tmp_path / "pkg"], jobs=1)
    return [(d.code, Path(d.span.filename).name, d.span.start.row) for d in report.diagnostics]


def test_an_annotated_class_says_more_than_an_element_the_callers_pass(tmp_path):
    # `item`, an element of `self.items`, says only how often it changes; `Variable` says its
    # `gradients` are a set, joined in the process's own order
    assert [c for c in _codes(tmp_path, OPTIMIZER) if c[0] == "PRM202"] == [("PRM202", "optimizer.py", 6)]


def test_a_sorted_set_gives_no_iteration_finding(tmp_path):
    # (a guard: the same code with the set sorted)
    fixed = OPTIMIZER.replace("for g in variable.gradients", "for g in sorted(variable.gradients, key=str)")
    assert [c for c in _codes(tmp_path, fixed) if c[0] == "PRM202"] == []
