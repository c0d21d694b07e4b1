"""A request dict threaded through a chain of step functions (python/step_chains.py,
python/step_requests.py): what a later step puts in front of the dict's messages decides what a
message or system text written by an earlier step sits before (docs/policies.md, Policies 2 and 7)."""
from __future__ import annotations

from analysis_support import layouts, parts, write

from promptlint import api

SEARCH = """
    import httpx


    def search_memory(query: str) -> list:
        return httpx.post("https://memory.example/search", json={"query": query}).json()["facts"]


    def recall_text(kwargs: dict) -> str:
        user_query = kwargs["messages"][-1]["content"]
        facts = search_memory(user_query)
        return "<memory>\\nUse the notes below only when they answer the question.\\n" + "\\n".join(facts) + "\\n</memory>"
"""

INSERTED = """
    from search import recall_text


    def add_recall(invoke, kwargs: dict) -> dict:
        recall = recall_text(kwargs)
        messages = kwargs.get("messages", [])
        messages.insert(0, {"role": "system", "content": recall})
        return kwargs
"""

SYSTEM = """
    from search import recall_text


    def add_recall(invoke, kwargs: dict) -> dict:
        recall = recall_text(kwargs)
        kwargs["system"] = kwargs.get("system", "") + recall
        return kwargs
"""

HISTORY = """
    def _put_history(kwargs: dict, history: list) -> dict:
        kwargs["messages"] = history + kwargs["messages"]
        return kwargs


    def add_history(invoke, kwargs: dict) -> dict:
        history = invoke.store.read_conversation(invoke.conversation_id)
        if not history:
            return kwargs
        return _put_history(kwargs, history)
"""

NESTED = """
    from history import add_history
    from recall import add_recall


    class Invoke:
        def __init__(self, method, store):
            self._method = method
            self.store = store

        def invoke(self, **kwargs):
            kwargs = add_history(self, add_recall(self, kwargs))
            return self._method(**kwargs)
"""

IN_TURN = """
    from history import add_history
    from recall import add_recall


    class Invoke:
        def __init__(self, method, store):
            self._method = method
            self.store = store

        def invoke(self, **kwargs):
            kwargs = add_recall(self, kwargs)
            kwargs = add_history(self, kwargs)
            return self._method(**kwargs)
"""


def _package(root, recall: str, history: str = HISTORY, invoke: str = NESTED) -> None:
    write(root, {"pyproject.toml": "", "search.py": SEARCH, "recall.py": recall, "history.py": history, "invoke.py": invoke})


def _findings(root) -> list[tuple]:
    report = api.check([root], api.Settings(), jobs=1)
    return sorted((d.code, d.severity.value, d.span.filename.rsplit("/", 1)[-1], d.span.start.row)
                  for d in report.diagnostics)


def _candidates(root, name: str = "recall.py") -> dict:
    """The candidates of `name` by row, the first of a row (a message's own, drawn alone, may follow)."""
    found: dict = {}
    for lt in layouts(root, (root / name).read_text(), name=name):
        if lt.source == "python-constant":
            found.setdefault(lt.site.start.row, lt)
    return found


def test_a_message_put_first_by_a_step_has_the_conversation_a_later_step_prepends_before_it(tmp_path):
    _package(tmp_path, INSERTED)
    (first, history), (role, _) = parts(_candidates(tmp_path)[7])
    assert (first, role) == ("history", "system")
    assert history == [("history", "unknown", "history")]
    assert _findings(tmp_path) == []  # the recalled notes sit after the conversation: nothing lost


def test_without_a_later_step_the_message_put_first_is_before_the_conversation(tmp_path):
    _package(tmp_path, INSERTED, invoke=NESTED.replace("add_history(self, add_recall(self, kwargs))", "add_recall(self, kwargs)"))
    (role, _), (after, history) = parts(_candidates(tmp_path)[7])
    assert (role, after) == ("system", "history")
    assert history == [("history", "unknown", "messages")]  # the caller's list, named so
    assert _findings(tmp_path) == [("PRM101", "warning", "search.py", 11)]


def test_system_text_a_step_writes_has_the_conversation_a_later_step_prepends_after_it(tmp_path):
    _package(tmp_path, SYSTEM)
    (role, described), (after, history) = parts(_candidates(tmp_path)[6])
    assert (role, after) == ("system", "history")
    assert described[0] == ("unknown", "unknown", 'kwargs.get("system", "")')  # the caller's own system text
    assert ("user-input", "per-request", '"\\n".join(facts)') in described
    assert history == [("history", "unknown", "history")]
    assert _findings(tmp_path) == [("PRM101", "warning", "search.py", 11)]
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(r.span.filename.rsplit("/", 1)[-1], r.span.start.row, r.message) for r in report.diagnostics[0].related
            if "later step" in r.message] == [("history.py", 2, "a later step puts the conversation after it here")]


def test_the_steps_may_be_run_one_statement_after_the_other(tmp_path):
    _package(tmp_path, SYSTEM, invoke=IN_TURN)
    (role, _), (after, _) = parts(_candidates(tmp_path)[6])
    assert (role, after) == ("system", "history")


def test_a_later_step_that_prepends_instructions_is_no_conversation(tmp_path):
    _package(tmp_path, SYSTEM, history=HISTORY.replace("history + kwargs", "system_messages + kwargs")
             .replace("def _put_history(kwargs: dict, history: list)", "def _put_history(kwargs: dict, system_messages: list)"))
    assert _candidates(tmp_path) == {}
    assert _findings(tmp_path) == []


def test_system_text_of_a_function_that_returns_no_dict_is_no_step(tmp_path):
    _package(tmp_path, SYSTEM.replace("        return kwargs\n", "        return None\n"))
    assert _candidates(tmp_path) == {}
