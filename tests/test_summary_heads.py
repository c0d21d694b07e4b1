"""PRM105 facts: a running summary an instance rewrites as its conversation grows (the turns that
leave its newest few folded in) and sends as the first message before that conversation."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt
from promptlint.python.summary_heads import summary_heads

from analysis_support import code, write


def _found(source: str):
    module = load(Path("app.py"), code(source))
    return [(at.lineno, held, head.lineno) for at, held, head in summary_heads(module)]


FOUND = """
    class SummaryMemory:
        def __init__(self, llm, offset=1):
            self.runs = []
            self.summary = None
            self.start = 0
            self.offset = offset
            self.llm = llm

        def to_messages(self, stack):
            if self.summary:
                stack.add_user_message(f"Summary of the conversation so far: {self.summary}")
            for run in self.pending():
                stack.add_user_message(run.input)
                stack.add_assistant_message(run.output)
            return stack

        def pending(self):
            kept = self.runs[self.start:]
            return kept

        def add(self, run):
            self.runs.append(run)
            pending = self.pending()
            folded = pending[: max(0, len(pending) - self.offset)]
            if folded:
                self.summary = self.fold(self.summary, folded)
                self.start = 1 + self.runs.index(folded[-1])

        def fold(self, previous, runs):
            return self.llm.complete(f"{previous}\\n{runs}")


    class BufferMemory:
        def __init__(self, llm, limit):
            self.messages = []
            self.digest = ""
            self.llm = llm
            self.limit = limit

        def add(self, message):
            self.messages.append(message)
            dropped = []
            while len(self.messages) > self.limit:
                dropped.append(self.messages.pop(0))
            if dropped:
                self.digest = self.llm.summarize(dropped, previous=self.digest)

        def history(self):
            out = []
            out.append({"role": "system", "content": self.digest})
            for m in self.messages:
                out.append(m)
            return out
"""


def test_a_summary_rewritten_as_turns_leave_the_kept_few_and_sent_first_is_found():
    assert _found(FOUND) == [(26, "self.summary", 11), (46, "self.digest", 50)]


CLEAN = """
    class AfterMemory:
        def __init__(self, llm):
            self.runs = []
            self.summary = ""
            self.llm = llm

        def add(self, run):
            self.runs.append(run)
            older = self.runs[:-4]
            self.summary = self.llm.fold(self.summary, older)

        def to_messages(self, stack):
            for run in self.runs[-4:]:
                stack.add_user_message(run.input)
            stack.add_user_message(self.summary)          # after the kept turns: their prefix stays
            return stack


    class StepMemory:
        def __init__(self, llm):
            self.messages = []
            self.summary = ""
            self.llm = llm

        def add(self, message):
            self.messages.append(message)
            if len(self.messages) > 40:                   # compacted whole at a limit: a cut in steps
                self.summary = self.llm.fold(self.summary, self.messages)
                self.messages = []

        def history(self, out):
            out.append({"role": "system", "content": self.summary})
            for m in self.messages:
                out.append(m)
            return out


    class Counter:
        def __init__(self):
            self.items = []
            self.total = 0

        def add(self, item):
            self.items.append(item)
            self.total = sum((self.total, len(self.items[-3:])))  # never written into a message

        def render(self, out):
            for item in self.items:
                out.append(item)
            return out
"""


def test_a_summary_sent_after_the_turns_compacted_in_steps_or_never_sent_is_not_found():
    assert _found(CLEAN) == []


def test_the_prefilter_lets_a_memory_with_a_running_summary_be_analysed():
    assert might_hold_prompt(code(FOUND).replace("llm", "model").replace("message", "item")
                             .replace("Summary of the conversation so far", "So far").replace("history", "h")
                             .replace("ssistant", "nswer"))


def test_the_rule_reports_the_rewrite_at_info_with_the_head_message_related(tmp_path):
    write(tmp_path, {"app.py": FOUND})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
             for d in report.diagnostics if "running summary" in d.message]
    assert found == [("PRM105", "info", 26, [11]), ("PRM105", "info", 46, [50])]
