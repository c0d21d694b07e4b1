"""A conversation kept on an object and filled through its methods from other classes
(python/kept_conversations.py): the system text a holder writes through the keeper's head writer
(PRM101) and the keeper's list cut by a holder (PRM105: python/stored_cuts.py,
python/kind_windows.py). The package is
fixtures/kept_conversations/desk (its README says what each module shows)."""
from __future__ import annotations

from pathlib import Path

from promptlint import api
from promptlint.python.flow.callers import called_anywhere
from promptlint.python.kept_conversations import keeper
from promptlint.python.kind_windows import newest_kinds
from promptlint.python.module import load
from promptlint.python.prefilter import might_hold_prompt
from promptlint.python.stored_cuts import stored_cuts
from promptlint.turn_names import turn_content

from analysis_support import code, evaluator, layouts, parts, write

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "kept_conversations"
DESK = FIXTURES / "desk"


def _report(*paths):
    report = api.check(list(paths), api.Settings(), jobs=1)
    return report, [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row,
                     d.prompt and d.prompt.rsplit("/", 1)[-1], [(Path(r.span.filename).name, r.span.start.row)
                                                                for r in d.related]) for d in report.diagnostics]


def test_the_desk_package_reports_what_its_holders_do_to_the_kept_conversations():
    _, found = _report(FIXTURES)
    assert found == [
        # the engine sends whatever list its callers give with their `**kwargs`, and no file of the
        # package names `cache_control`: the adapter's PRM302 (the callers' keywords hold none)
        ("engines.py", "PRM302", "info", 12, "engines.py:12", []),
        # `self.keeper.remove_at(1)` twice at a limit: the oldest turn after the system prompt
        ("planner.py", "PRM105", "info", 16, None, [("planner.py", 17)]),
        # images kept for the newest three only, walking newest first: the test, the removal related
        ("planner.py", "PRM105", "info", 25, None, [("planner.py", 26)]),
        # `self.keeper.messages.pop(1)` twice at a limit
        ("planner.py", "PRM105", "info", 47, None, [("planner.py", 48)]),
        # the task in the first sentence of the planner's text, written by the head writer on the
        # first turn: reported at the placeholder, the call that writes it is the prompt
        ("texts.py", "PRM101", "info", 3, "planner.py:30", [("planner.py", 28), ("planner.py", 30)]),
    ]


def test_a_task_written_once_into_the_system_text_costs_the_static_text_after_it_not_the_history():
    report, _ = _report(FIXTURES)
    (finding,) = [d for d in report.diagnostics if d.code == "PRM101"]
    assert "written into the system message when the conversation starts (`self.turn == 0`)" in finding.message
    assert finding.message.endswith(": whenever it changes, the 2,164 static tokens after it, and any "
                                    "static text the request adds after this prompt, are processed uncached")


def test_the_negative_holders_report_nothing():
    # a static system text (reviewer), a conversation only grown with the newest message (reviewer),
    # a cut in steps (reviewer), the game appended at the end of the text on the first turn (notes),
    # a window no code of the package calls (pruning)
    _, found = _report(DESK / "reviewer.py", DESK / "notes.py", DESK / "pruning.py")
    assert found == []


def test_the_keeper_facts_of_the_fixture_class():
    module = load(DESK / "chat.py", (DESK / "chat.py").read_text())
    k = keeper(module.classes["ChatKeeper"])
    assert (k.attr, k.heads, k.stored, k.removers) == (
        "messages", {"set_system_text": "text"}, {"set_system_text": "system_text"}, {"remove_at": "index"})


KEEPERS = """
    class Dialog:
        def __init__(self, text):
            self.turns = []
            self.reset(text)

        def reset(self, text):
            self.turns = [{"role": "system", "content": text}]

        def add(self, text):
            self.turns.append({"role": "user", "content": text})


    class Inserting:
        def __init__(self):
            self.msgs = []

        def put_system(self, note):
            self.msgs.insert(0, {"role": "system", "content": note})

        def add(self, text, role):
            self.msgs.append({"role": role, "content": text})


    class OnlyKept:
        def __init__(self):
            self.messages = []

        def set_system(self, text):
            self.system = text

        def add(self, text):
            self.messages.append({"role": "user", "content": text})


    class NumbersOnly:
        def __init__(self):
            self.values = []

        def set_first(self, value):
            self.values[0] = value

        def add(self, value):
            self.values.append(value)
"""


def test_head_writers_are_a_reset_to_one_system_message_or_an_insert_at_the_head():
    module = load(Path("app.py"), code(KEEPERS))
    assert keeper(module.classes["Dialog"])[:2] == ("turns", {"reset": "text"})
    assert keeper(module.classes["Inserting"])[:2] == ("msgs", {"put_system": "note"})
    # the text kept apart from the list, and a list of no messages: no keeper
    assert keeper(module.classes["OnlyKept"]) is None
    assert keeper(module.classes["NumbersOnly"]) is None


KEEPER = """
    class Keeper:
        def __init__(self, text="You help."):
            self.messages = []
            self.set_system_prompt(text)

        def set_system_prompt(self, text):
            self.system_prompt = text
            if self.messages:
                self.messages[0] = {"role": "system", "content": text}
            else:
                self.messages.append({"role": "system", "content": text})

        def add(self, text, role="user"):
            self.messages.append({"role": role, "content": text})

        def reset(self):
            self.messages = [{"role": "system", "content": self.system_prompt}]
"""

RULES = "Answer in two sentences, cite the page, never guess a number you did not read. " * 40


def test_a_constructor_argument_is_the_text_a_holder_reads_back_and_rewrites(tmp_path):
    source = f"""
        from keeper import Keeper

        TEXT = "You answer questions about {{TOPIC}}. {RULES}"


        class Desk:
            def __init__(self):
                self.turn = 0
                self.helper = Keeper(TEXT)

            def ask(self, topic, question):
                if self.turn == 0:
                    self.helper.set_system_prompt(self.helper.system_prompt.replace("{{TOPIC}}", topic))
                self.helper.add(question)
                self.turn += 1
        """
    found = [lt for lt in layouts(tmp_path, source, {"keeper.py": KEEPER}) if lt.source == "python-constant"]
    assert [parts(lt) for lt in found] == [[
        ("system", [("text", "You answer questions about "), ("unknown", "unknown", "topic"),
                    ("text", ". " + RULES)]),
        ("history", [("history", "unknown", "self.helper.messages")]),
    ]]
    assert found[0].parts[0].segments[1].written_once


def test_a_system_text_rewritten_every_turn_with_the_question_loses_the_history(tmp_path):
    write(tmp_path, {"keeper.py": KEEPER, "desk.py": f"""
        from keeper import Keeper


        class Desk:
            def __init__(self):
                self.helper = Keeper()

            def ask(self, question):
                self.helper.set_system_prompt(f"The question: {{question}}\\n{RULES}")
                self.helper.add(question)
        """})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM101", "warning", 9)]
    assert "the conversation history after it" in report.diagnostics[0].message


def test_a_system_text_written_when_the_conversation_starts_anew_keeps_its_history(tmp_path):
    # after the keeper's reset, or on a keeper just made: the question is re-sent with the new
    # conversation (per conversation, not per request)
    write(tmp_path, {"keeper.py": KEEPER, "desk.py": f"""
        from keeper import Keeper


        class Desk:
            def __init__(self):
                self.helper = Keeper()

            def start(self, question):
                self.helper.reset()
                self.helper.set_system_prompt(f"The question: {{question}}\\n{RULES}")

            def fresh(self, question):
                self.other = Keeper()
                self.other.set_system_prompt(f"The question: {{question}}\\n{RULES}")
                self.other.add("Begin.")
        """})
    found = [lt for lt in api.check([tmp_path], api.Settings(), jobs=1).prompts
             if lt.source == "python-constant" and lt.site.filename.endswith("desk.py")]
    assert [(lt.site.start.row, [s.volatility.value for s in lt.parts[0].segments if not s.is_static],
             all(s.written_once for s in lt.parts[0].segments if not s.is_static)) for lt in found] == [
        (10, ["per-conversation"], True), (14, ["per-conversation"], True)]
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    # (the static text after the question only: below the minimum, a note; the history is not lost)
    assert [(d.code, d.severity.value, d.span.start.row) for d in found] == [("PRM101", "info", 10),
                                                                           ("PRM101", "info", 14)]
    assert not any("history" in d.message for d in found)


def test_a_fully_static_system_text_written_by_a_holder_is_no_finding(tmp_path):
    write(tmp_path, {"keeper.py": KEEPER, "desk.py": f"""
        from keeper import Keeper

        RULES = "{RULES}"


        class Desk:
            def __init__(self):
                self.helper = Keeper()
                self.helper.set_system_prompt(RULES)

            def restart(self):
                self.helper.set_system_prompt(RULES)

            def ask(self, question):
                self.helper.add(question)
        """})
    assert api.check([tmp_path], api.Settings(), jobs=1).diagnostics == []


def test_newest_first_walks_that_remove_items_of_a_kind_past_a_limit():
    module = load(Path("app.py"), code("""
        def keep_images(messages, limit):
            seen = 0
            for i in range(len(messages) - 1, -1, -1):
                if messages[i].get("image"):
                    seen += 1
                    if seen > limit:
                        messages.pop(i)


        def keep_shots(self):
            count = 0
            for m in reversed(self.history):
                for part in m["content"]:
                    count += 1
                    if limit < count:
                        del m["content"][0]


        def collect_newest(messages, limit):
            seen = 0
            kept = []
            for m in reversed(messages):
                seen += 1
                if seen > limit:
                    break
                kept.append(m)
            return kept


        def from_the_head(messages, limit):
            seen = 0
            for i in range(len(messages)):
                seen += 1
                if seen > limit:
                    messages.pop(i)
        """))
    # (the second walks the list's messages by name `m`, not the list: not a removal from it)
    assert [(test.lineno, drop.lineno) for test, drop in newest_kinds(module)] == [(6, 7)]


def test_pop_of_the_item_after_a_kept_first_message_is_a_cut_and_other_indices_are_not():
    module = load(Path("app.py"), code("""
        class Agent:
            def trim(self):
                if len(self.chat.messages) > 2 * self.window + 1:
                    self.chat.messages.pop(1)

            def other(self):
                if len(self.chat.messages) > self.window:
                    self.chat.messages.pop(2)

            def step(self):
                self.trim()
                self.other()
        """))
    cuts, _ = stored_cuts(module, None, [])
    assert [(c.at.lineno, c.held, c.cadence) for c in cuts] == [(4, "self.chat.messages", "slides")]


def test_a_method_counts_as_called_only_by_calls_that_may_be_its_own(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": """
        class A:
            def flush(self):
                pass
        """, "pkg/b.py": """
        class B:
            def flush(self):
                pass

            def run(self):
                self.flush()
        """, "pkg/c.py": """
        class C:
            def go(self, other):
                other.flush()
        """})
    ev = evaluator(tmp_path)
    a = ev.project.load(tmp_path / "pkg" / "a.py")
    func = a.classes["A"].body[0]
    assert called_anywhere(ev, a, func)  # `other.flush()` in c.py may be A's
    (tmp_path / "pkg" / "c.py").write_text("x = 1\n")
    ev = evaluator(tmp_path)
    a = ev.project.load(tmp_path / "pkg" / "a.py")
    assert not called_anywhere(ev, a, a.classes["A"].body[0])  # B's `self.flush()` is B's own


def test_the_prefilter_lets_holders_of_a_kept_conversation_be_analysed():
    for name in ("planner.py", "notes.py", "pruning.py", "reviewer.py"):
        assert might_hold_prompt((DESK / name).read_text()), name


def test_a_docstring_attribute_is_no_content_retrieved_for_the_turn():
    assert turn_content("__doc__") is None
    assert turn_content("retrieved_docs") == "retrieved"
