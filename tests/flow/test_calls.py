"""The evaluator on calls: arguments bound to parameters (by position and keyword), return values
(several returns: alternatives), methods, recursion, the bound-call limit (MAX_BOUND_CALLS) and the
depth limit (MAX_DEPTH), parameters bound from the callers in the module (callers.py), calls we
cannot follow, and the work budget of one prompt."""
from __future__ import annotations

from analysis_support import evaluator, layouts, pos, probe, sent

from promptlint.model import Kind, Volatility
from promptlint.python.flow.budget import MAX_BOUND_CALLS, MAX_DEPTH, Budget
from promptlint.python.flow.callers import MAX_CALLERS
from promptlint.python.flow.values import Alt

CALLS = """
    def greet(name, punct):
        return f"Hello {name}{punct}"


    def pick(flag):
        if flag:
            return "yes"
        return "no"


    def rec(n):
        return rec(n - 1) + "x"


    class Formatter:
        def __init__(self):
            self.prefix = "> "

        def wrap(self, text):
            return self.prefix + text


    def f(topic):
        probe(greet("Ada", "!"))
        probe(greet(punct="?", name=topic))
        probe(pick(topic))
        probe(rec(3))
        probe(Formatter().wrap("quoted"))
"""


def test_arguments_are_bound_by_position_and_keyword(tmp_path):
    p = probe(tmp_path, CALLS, index=0)
    assert p.described == [("text", "Hello "), ("text", "Ada"), ("text", "!")]
    assert p.segs[1].span.start == pos(CALLS, 'Ada"')  # the argument, where the caller wrote it
    kw = probe(tmp_path, CALLS, index=1)
    assert kw.described == [("text", "Hello "), ("unknown", "unknown", "topic"), ("text", "?")]
    # `greet` writes less than a sentence of its own (flow/wrapped.py): the value enters the
    # prompt where the caller places the call, not at `{name}` in the callee
    assert kw.segs[1].span.start == pos(CALLS, 'greet(punct="?"')
    assert kw.segs[1].origin.start == pos(CALLS, "topic):")  # the caller's parameter


SIGNATURES = """
    class Card:
        @staticmethod
        def line(label, value="?", *, sep=": ", end="."):
            return label + sep + value + end


    def f():
        probe(Card.line("name"))
        probe(Card.line("age", "42", sep=" = "))
        probe(Card().line("city", end="!"))
"""


def test_a_function_s_parameters_are_read_once_however_often_it_is_called(tmp_path, monkeypatch):
    """Positional, keyword-only and default parameters, and whether a method is static, are read
    from the function node once (kept on it), for every call that binds its arguments."""
    from promptlint.python.flow import calls
    asked: list[str] = []
    real = calls.is_static_method
    monkeypatch.setattr(calls, "is_static_method", lambda node: asked.append(node.name) or real(node))
    ev = evaluator(tmp_path)
    texts = ["".join(s.text for s in probe(tmp_path, SIGNATURES, index=i, ev=ev).segs) for i in range(3)]
    assert texts == ["name: ?.", "age = 42.", "city: ?!"]  # `Card()`'s static method takes no receiver
    assert asked == ["line"]


def test_several_returns_are_alternatives(tmp_path):
    p = probe(tmp_path, CALLS, index=2)
    assert isinstance(p.value, Alt)
    assert [o.segs[0].text for o in p.value.options] == ["yes", "no"]


def test_recursion_ends(tmp_path):
    p = probe(tmp_path, CALLS, index=3)
    first = p.segs[0]
    assert (first.kind, first.evidence) == (Kind.UNKNOWN, "recursive call")
    # bound calls until the limit, then one unbound read whose own recursive call is detected
    assert [s.text for s in p.segs[1:]] == ["x"] * (MAX_BOUND_CALLS + 1)


def test_a_method_of_an_instance_made_in_the_function(tmp_path):
    p = probe(tmp_path, CALLS, index=4)
    assert p.described == [("text", "> "), ("text", "quoted")]


def test_a_function_called_with_many_argument_sets_is_read_once_unbound(tmp_path):
    src = """
        from datetime import datetime


        def wrap(s):
            return "[" + s + "]"


        def f():
            probe(wrap("a") + wrap("b") + wrap("c") + wrap("d") + wrap(f"{datetime.now()}"))
            probe(wrap("e") + wrap("f") + wrap("g") + wrap("h"))
    """
    p = probe(tmp_path, src)
    inner = [s for s in p.segs if s.text not in ("[", "]")]
    assert [s.text for s in inner[:MAX_BOUND_CALLS]] == ["a", "b", "c", "d"]
    fifth = inner[MAX_BOUND_CALLS]
    assert (fifth.kind, fifth.expr, fifth.evidence) == (Kind.UNKNOWN, "s", "the parameter `s`")
    # each call is read with its own arguments (a result is never taken for another call's)
    again = probe(tmp_path, src, index=1)
    assert [s.text for s in again.segs if s.text not in ("[", "]")] == ["e", "f", "g", "h"]


def test_a_call_chain_deeper_than_the_limit_is_not_followed(tmp_path):
    chain = "\n".join(f"def d{i}(x):\n    return d{i + 1}(x)\n" for i in range(1, MAX_DEPTH + 1))
    src = chain + f'\ndef d{MAX_DEPTH + 1}(x):\n    return f"deep {{x}}"\n\n\ndef f():\n    probe(d1("v"))\n'
    p = probe(tmp_path, src)
    seg, = p.segs
    assert (seg.expr, seg.evidence) == (f"d{MAX_DEPTH + 1}()", "call chain too deep to follow")
    shallow = probe(tmp_path, src.replace("probe(d1(", "probe(d2("))  # one call less: followed to the end
    assert shallow.described == [("text", "deep "), ("text", "v")]


CALLERS = """
    from datetime import datetime


    def helper(system_prompt, note):
        probe(system_prompt)
        probe(note)


    def caller1():
        helper("You are A.", "n1")


    def caller2():
        helper(system_prompt="You are B.", note=f"{datetime.now()}")
"""


def test_a_parameter_takes_the_arguments_of_the_callers_in_the_module(tmp_path):
    p = probe(tmp_path, CALLERS, index=0)
    assert isinstance(p.value, Alt)
    assert sorted(o.segs[0].text for o in p.value.options) == ["You are A.", "You are B."]
    note = probe(tmp_path, CALLERS, index=1)
    # one caller passes a clock reading: the parameter can hold it
    seg, = note.segs
    assert (seg.kind, seg.volatility) == (Kind.TIMESTAMP, Volatility.PER_REQUEST)
    assert seg.span.start == pos(CALLERS, '{datetime.now()}')


def test_a_parameter_with_too_many_callers_stays_a_parameter(tmp_path):
    calls = "\n".join(f"def c{i}():\n    helper(\"v{i}\")\n" for i in range(MAX_CALLERS + 1))
    src = f"def helper(text):\n    probe(text)\n\n\n{calls}"
    seg, = probe(tmp_path, src).segs
    assert (seg.kind, seg.volatility, seg.evidence) == (Kind.UNKNOWN, Volatility.UNKNOWN, "the parameter `text`")
    fewer = "\n".join(f"def c{i}():\n    helper(\"v{i}\")\n" for i in range(MAX_CALLERS))
    within = probe(tmp_path, f"def helper(text):\n    probe(text)\n\n\n{fewer}")
    assert sorted(o.segs[0].text for o in within.value.options) == [f"v{i}" for i in range(MAX_CALLERS)]


def test_a_call_we_cannot_follow(tmp_path):
    src = """
        import requests


        def f(question, doc_id):
            probe(requests.get(doc_id).text)
            probe(search_index(question))
    """
    seg, = probe(tmp_path, src, index=0).segs
    assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN)
    fetched, = probe(tmp_path, src, index=1).segs
    # a call that takes the user's message: data fetched with it, new on every request (Policy 7)
    assert (fetched.kind, fetched.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
    assert fetched.evidence == "data fetched with `question`"
    assert fetched.span.start == pos(src, "search_index(question)")


def test_the_work_budget_bounds_one_prompt(tmp_path):
    src = """
        from openai import OpenAI

        client = OpenAI()
        PARTS = ["a", "b", "c", "d", "e", "f", "g", "h"]


        def ask(question):
            system = "Intro. " + " ".join(PARTS) + " Outro."
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
            )
    """
    assert sent(layouts(tmp_path, src))[0].parts[0].segments[-1].text == " Outro."
    ev = evaluator(tmp_path)
    ev.budget = Budget(limit=12)  # a prompt may cost 12 evaluations: this one costs more
    from promptlint.python.sites import find_layouts
    layout, = sent(find_layouts(ev.project.load(tmp_path / "app.py"), ev))
    exhausted = [s for s in layout.parts[0].segments if s.evidence.startswith("not analysed: this prompt's analysis reached its limit of")]
    assert exhausted and all((s.kind, s.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN) for s in exhausted)
    # each prompt has its own budget: the next one starts afresh
    ev.reset_budget()
    assert ev.budget.left == 12


def test_a_parameter_not_passed_takes_its_default(tmp_path):
    src = """
        STYLE = "concise"


        def build(question, style=STYLE, *, lang="English", extra=None):
            return f"Answer {style}ly in {lang}{extra}: {question}"


        def f(opts, question):
            probe(build("What is new?"))
            probe(build("Why?", "verbose", lang="French", extra="!"))
            probe(build(question, **opts))
    """
    p = probe(tmp_path, src, index=0)
    assert p.described == [("text", "Answer "), ("text", "concise"), ("text", "ly in "), ("text", "English"),
                           ("text", "None"), ("text", ": "), ("text", "What is new?")]
    assert p.segs[1].span.start == pos(src, 'concise"')  # the default, where it is written
    passed = probe(tmp_path, src, index=1)
    assert "".join(s.text for s in passed.segs) == "Answer verbosely in French!: Why?"
    # with `**opts` the call may pass any of them: not known
    splat = probe(tmp_path, src, index=2)
    assert [s.expr for s in splat.segs if not s.is_static][:3] == ["style", "lang", "extra"]


WRAPPER = """
    from openai import OpenAI

    client = OpenAI()


    def complete(messages, model_name):
        return client.chat.completions.create(model=model_name, messages=messages)
"""


def test_a_wrapper_takes_the_arguments_of_its_callers_in_other_modules(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/llm.py": WRAPPER,
        "pkg/chat.py": """
            from datetime import datetime

            from pkg.llm import complete


            def answer(question):
                system = f"Time: {datetime.now()}. Answer briefly."
                return complete([{"role": "system", "content": system},
                                 {"role": "user", "content": question}], "gpt-4o")
        """,
    }
    from analysis_support import write
    from promptlint.python.sites import find_layouts
    write(tmp_path, files)
    ev = evaluator(tmp_path)
    layout, = [lt for lt in find_layouts(ev.project.load(tmp_path / "pkg" / "llm.py"), ev)
               if lt.source == "python-call"]
    assert layout.model == "gpt-4o"
    assert [p.role for p in layout.parts] == ["system", "user"]
    stamp, = [s for s in layout.parts[0].segments if not s.is_static]
    assert (stamp.kind, stamp.volatility) == (Kind.TIMESTAMP, Volatility.PER_REQUEST)
    assert stamp.span.filename.endswith("chat.py")
    # through a module alias (`llm.complete(...)`), from a second wrapper that passes its own
    # parameter on: still the outermost caller's messages
    files["pkg/chat.py"] = """
        from datetime import datetime

        from pkg import llm


        def relay(messages, model):
            return llm.complete(messages, model)


        def answer(question):
            system = f"Time: {datetime.now()}. Answer briefly."
            return relay([{"role": "system", "content": system}, {"role": "user", "content": question}], "gpt-4o")
    """
    write(tmp_path, files)
    ev = evaluator(tmp_path)
    layout, = [lt for lt in find_layouts(ev.project.load(tmp_path / "pkg" / "llm.py"), ev)
               if lt.source == "python-call"]
    assert [p.role for p in layout.parts] == ["system", "user"] and layout.model == "gpt-4o"


def test_a_wrapper_called_from_a_function_of_the_same_name_elsewhere_is_not_bound(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/llm.py": WRAPPER,
        "pkg/chat.py": """
            from datetime import datetime


            def complete(messages, model_name):  # another function of the same name
                return messages


            def answer():
                return complete(f"Time: {datetime.now()}", "gpt-4o")
        """,
    }
    from analysis_support import write
    from promptlint.python.sites import find_layouts
    write(tmp_path, files)
    ev = evaluator(tmp_path)
    layout, = [lt for lt in find_layouts(ev.project.load(tmp_path / "pkg" / "llm.py"), ev)
               if lt.source == "python-call"]
    assert layout.model is None
    assert not any(s.kind is Kind.TIMESTAMP for p in layout.parts for s in p.segments)


ROLE_HELPERS = """
    from abc import abstractmethod


    class Base:
        @abstractmethod
        def system_message(self, message):
            pass

        def user_message(self, message):
            return {"role": "user", "content": message, "name": "known"}

        def prompt(self, question):
            probe(self.system_message("You are a SQL expert."))
            probe(self.user_message(question))
            probe(make_assistant_msg(content="Done."))
            probe(self.systemd_message("x"))
"""


def test_a_helper_named_for_a_role_whose_body_is_unknown_makes_that_message(tmp_path):
    system = probe(tmp_path, ROLE_HELPERS, index=0).value
    assert system.items["role"].segs[0].text == "system"
    assert system.items["content"].segs[0].text == "You are a SQL expert."
    assistant = probe(tmp_path, ROLE_HELPERS, index=2).value
    assert assistant.items["role"].segs[0].text == "assistant" and assistant.items["content"].segs[0].text == "Done."


def test_a_role_helper_we_can_read_or_another_name_is_left_as_it_is(tmp_path):
    user = probe(tmp_path, ROLE_HELPERS, index=1).value
    assert user.items["name"].segs[0].text == "known"  # its own body, not the guess
    other = probe(tmp_path, ROLE_HELPERS, index=3).value
    assert not hasattr(other, "items")


RESHAPED = """
    def f(messages, lookup, format_messages, tool_messages):
        probe(format_messages(messages))
        probe(lookup(messages))
        probe(tool_messages(messages))
"""


def test_a_call_named_for_reshaping_the_conversation_gives_the_conversation(tmp_path):
    seg, = probe(tmp_path, RESHAPED, index=0).segs
    assert seg.kind is Kind.HISTORY and seg.expr == "format_messages(messages)"


def test_another_call_given_the_conversation_fetches_data_with_it(tmp_path):
    for index in (1, 2):  # `tool_messages`: not a verb of reshaping
        seg, = probe(tmp_path, RESHAPED, index=index).segs
        assert (seg.kind, seg.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
        assert seg.evidence == "data fetched with `messages`"


NAMED_INPUT = """
    def ask(user_message):
        return f"Question: {user_message}"


    def f(msg, data):
        probe(ask(msg))
        probe(ask("What is the capital of France?"))
        probe(ask(f"{msg} (asked in {data.city})"))
"""


def test_an_unread_argument_passed_as_the_users_message_is_the_users_message(tmp_path):
    # `msg` is not read (a parameter of unknown volatility); the parameter it is passed to says
    # what it is, as the prompt's own parameters' names do (a hint: Policy 7)
    (kind, volatility, expr), = [d for d in probe(tmp_path, NAMED_INPUT).described if d[0] != "text"]
    assert (kind, volatility, expr) == ("user-input", "per-request", "user_message")
    # a value we read keeps what it is: a literal stays static text
    assert probe(tmp_path, NAMED_INPUT, index=1).text == "Question: What is the capital of France?"
    # text with static parts is not replaced by the name
    assert "(asked in " in probe(tmp_path, NAMED_INPUT, index=2).text


SLICED = """
    def f(messages, summarise, retrieve, cut, k):
        probe(summarise(messages[:cut]))
        probe(summarise(messages[:-4]))
        probe(summarise(messages[-k:cut]))
        probe(retrieve(messages[-5:]))
        probe(retrieve(messages[2:]))
        probe(retrieve(messages[:len(messages)]))
        probe(retrieve(messages[:cut], messages[-1]))
"""


def test_a_call_given_the_older_part_of_the_conversation_is_not_per_request(tmp_path):
    # a slice that leaves out the newest messages (what a compaction summarises): the result
    # changes when that part is cut again, not with each new message
    for index in (0, 1, 2):
        seg, = probe(tmp_path, SLICED, index=index).segs
        assert (seg.kind, seg.volatility, seg.older) == (Kind.UNKNOWN, Volatility.UNKNOWN, True)


def test_a_call_given_the_newest_messages_is_per_request(tmp_path):
    for index, given in ((3, "messages[-5:]"), (4, "messages"), (5, "messages"), (6, "messages[-1]")):
        seg, = probe(tmp_path, SLICED, index=index).segs
        assert (seg.kind, seg.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
        assert seg.evidence == f"data fetched with `{given}`"


SUMMARISED = """
    def f(messages, cut, llm):
        older = messages[:cut]
        parts = []
        for m in older:
            parts.append(m["content"])
        probe("\\n".join(parts))
        probe(older[-1])
        text = "\\n".join(f"{m['role']}: {m['content']}" for m in older)
        probe(llm(f"Summarise:\\n{text}"))
        probe(messages[0]["content"] if False else messages[-1])
"""


def test_text_made_from_the_older_part_of_the_conversation_changes_where_it_is_cut(tmp_path):
    # it does not hold the newest message: not per-request; how often its cut moves the slice
    # does not say (unknown), and what is made of it (a summary) stays so
    for index in (0, 1, 2):
        seg, = [s for s in probe(tmp_path, SUMMARISED, index=index).segs if not s.is_static]
        assert (seg.kind, seg.volatility, seg.older) == (Kind.UNKNOWN, Volatility.UNKNOWN, True)
        assert seg.evidence == "made from the older part of the conversation `messages`: changes where it is cut"
    newest, = probe(tmp_path, SUMMARISED, index=3).segs  # the newest message is still per-request
    assert (newest.kind, newest.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)


LIST_OF_FETCHED = """
    def f(question, store, names):
        hits = search_index(question)
        ids = [h["id"] for h in hits]
        probe(store.get_many(ids))
        probe(store.get_many([n.upper() for n in names]))
"""


def test_a_call_given_a_list_made_from_fetched_data_fetches_with_it(tmp_path):
    # ids = [h["id"] for h in hits]: a list grown from data fetched with the question (its length
    # unknown) is still that data; what the store returns for it is new on every request
    seg, = probe(tmp_path, LIST_OF_FETCHED, index=0).segs
    assert (seg.kind, seg.volatility) == (Kind.USER_INPUT, Volatility.PER_REQUEST)
    assert seg.evidence.startswith("data fetched with")
    other, = probe(tmp_path, LIST_OF_FETCHED, index=1).segs  # a list made from a parameter: unknown
    assert (other.kind, other.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN)


def test_the_file_budget_bounds_followed_calls_and_callers(tmp_path):
    """Evaluations inside followed functions (a call's body, the callers' arguments of a
    parameter) spend from one budget per analysed file: once it is spent a call is not followed
    and a parameter's callers are not read; the value is unknown and says why. The next file
    starts afresh (`forget`)."""
    from promptlint.python.flow.budget import SPENT
    src = """
        def persona(name):
            return "You are " + name + ", the support assistant of Acme Tools."


        def ask(topic):
            probe(persona("Ada") + topic)


        def run():
            ask("billing")
    """
    full = probe(tmp_path, src)
    assert full.described == [("text", "You are "), ("text", "Ada"), ("text", ", the support assistant of Acme Tools."),
                              ("text", "billing")]
    ev = evaluator(tmp_path)
    ev.budget = Budget(file_limit=0)  # nothing left for followed functions
    spent = probe(tmp_path, src, ev=ev)
    assert [(s.kind, s.volatility, s.evidence) for s in spent.segs] == [
        (Kind.UNKNOWN, Volatility.UNKNOWN, SPENT),
        (Kind.UNKNOWN, Volatility.UNKNOWN, f"the parameter `topic` (its callers {SPENT})")]
    ev.forget()
    assert ev.budget.file_left == ev.budget.file_limit == 0
    ev.budget = Budget()
    assert probe(tmp_path, src, ev=ev).described == full.described
