"""promptlint/python/flow/callers.py: a package's own wrapper of the request (`chat(system_prompt,
user_prompt)`, called by `strict(...)`, called by a method of an agent class in another module)
takes the prompts its callers build, N wrappers up (up to MAX_HOPS):

- callers in other modules are counted by the calls that name this very function, not by the
  modules whose text names it (a docstring's `chat()`, a method `chat` of another class);
- a method that hands its own parameter to a module function (`Agent.query(self, task)` ->
  `strict(task)`) asks its own callers in turn (`self.query(...)`), as a module function does;
- a `self.name(...)` call in a class that defines its own method `name` calls that one, not the
  method of another class of the module."""
from __future__ import annotations

from analysis_support import code, evaluator, pos, probe, write

from promptlint.model import Kind, Volatility
from promptlint.python.flow.callers import MAX_CALLERS, MAX_WRAPPER_CALLERS
from promptlint.python.sites import find_layouts


def _request(tmp_path, files: dict[str, str], sender: str):
    write(tmp_path, files)
    ev = evaluator(tmp_path)
    layout, = [lt for lt in find_layouts(ev.project.load(tmp_path / sender), ev) if lt.source == "python-call"]
    return layout


LLM = """
    from openai import OpenAI

    client = OpenAI()


    def chat(system_prompt, user_prompt):
        return client.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}])
"""


def test_modules_that_name_the_wrapper_without_calling_it_leave_room_for_its_callers(tmp_path):
    # the wrapper's own module calls it MAX_CALLERS - 1 times: room for one more caller, the one
    # in agent.py; two other modules name `chat(` without calling this function
    local = "\n".join(f"def helper{i}(text):\n    return chat(\"Fixed instruction {i}.\", text)\n"
                      for i in range(MAX_CALLERS - 1))
    files = {
        "pkg/__init__.py": "",
        "pkg/llm.py": code(LLM) + "\n\n" + local,
        "pkg/session.py": '''
            class Session:
                """A conversation: `chat()` here is the session's own method."""

                def chat(self, message):
                    return message

                def replay(self, turns):
                    return [self.chat(t) for t in turns]
        ''',
        "pkg/cli.py": """
            def main(session, lines):
                return [session.chat(line) for line in lines]
        """,
        "pkg/agent.py": """
            from datetime import datetime

            from pkg.llm import chat


            def answer(question):
                return chat(f"Time: {datetime.now()}. Answer briefly.", question)
        """,
    }
    layout = _request(tmp_path, files, "pkg/llm.py")
    stamps = [s for s in layout.parts[0].segments if s.kind is Kind.TIMESTAMP]
    assert [(s.volatility, s.span.filename.endswith("agent.py")) for s in stamps] == [(Volatility.PER_REQUEST, True)]


WRAPPERS = """
    from openai import OpenAI

    client = OpenAI()


    def chat(system_prompt, user_prompt):
        return client.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}])


    def strict(system_prompt, user_prompt, schema):
        return chat(str(system_prompt) + f" Answer in JSON: {schema}", str(user_prompt))
"""

AGENT = """
    from datetime import datetime

    from pkg.llm import strict


    class Agent:
        def query(self, task, context):
            return strict(context + " You are the support assistant of Acme.", task, "answer, team")

        def plan(self, goal):
            return self.query(goal, f"Time: {datetime.now():%H:%M}.")

        def review(self, draft):
            return self.query(draft, "You review drafts.")
"""


def test_a_method_that_hands_its_parameter_to_a_module_wrapper_asks_its_own_callers(tmp_path):
    # chat <- strict <- Agent.query <- Agent.plan / Agent.review: the system prompt of the request
    # holds each caller's context, one per caller; plan's clock reading is where it changes
    files = {"pkg/__init__.py": "", "pkg/llm.py": WRAPPERS, "pkg/agent.py": AGENT}
    layout = _request(tmp_path, files, "pkg/llm.py")
    system = layout.parts[0].segments
    stamp, = [s for s in system if not s.is_static]
    assert (stamp.kind, stamp.volatility) == (Kind.TIMESTAMP, Volatility.PER_REQUEST)
    assert stamp.span.filename.endswith("agent.py") and stamp.span.start == pos(AGENT, "{datetime.now()")
    assert "".join(s.text for s in system[system.index(stamp) + 1:]) == \
        ". You are the support assistant of Acme. Answer in JSON: answer, team"
    # the user's message: what plan and review pass on is their own parameters, unread: the
    # wrapper's parameter name says more (the user's message)
    assert [(s.kind, s.volatility) for s in layout.parts[1].segments] == [(Kind.USER_INPUT, Volatility.PER_REQUEST)]


def test_a_method_caller_whose_callers_pass_fixed_texts_gives_one_text_per_caller(tmp_path):
    agent = AGENT.replace('f"Time: {datetime.now():%H:%M}."', '"You plan the steps."')
    files = {"pkg/__init__.py": "", "pkg/llm.py": WRAPPERS, "pkg/agent.py": agent}
    layout = _request(tmp_path, files, "pkg/llm.py")
    system = layout.parts[0].segments
    assert all(s.is_static or s.volatility is Volatility.STABLE for s in system), system
    assert not any(s.kind is Kind.CONDITIONAL for s in system)


OWN_METHODS = """
    class Agent:
        def ask(self, text):
            probe(text)

        def plan(self):
            return self.ask("Plan the steps.")


    class Reviewer:
        def ask(self, text):
            return text
""" + "".join(f"""
        def review{i}(self):
            return self.ask("Review {i}.")
""" for i in range(MAX_CALLERS))


def test_self_calls_in_a_class_with_its_own_method_are_not_callers(tmp_path):
    # Reviewer's MAX_CALLERS `self.ask(...)` calls are calls of Reviewer.ask, not of Agent.ask
    value = probe(tmp_path, OWN_METHODS)
    assert [s.text for s in value.segs] == ["Plan the steps."]


def test_a_wrapper_reached_from_the_request_takes_up_to_max_wrapper_callers(tmp_path):
    # `strict` (one wrapper up from the request) is called from as many places as a wrapper's
    # parameter reads (MAX_WRAPPER_CALLERS, at least MAX_CALLERS): each caller's text
    fixed = "".join(f"""

        def task{i}(text):
            return strict("You do task {i} of the support team.", text, "answer")
        """ for i in range(MAX_WRAPPER_CALLERS - 1))
    agent = f"""
        from datetime import datetime

        from pkg.llm import strict


        def stamped(text):
            return strict(f"Time: {{datetime.now()}}. You answer.", text, "answer")
        {fixed}
    """
    files = {"pkg/__init__.py": "", "pkg/llm.py": WRAPPERS, "pkg/agent.py": agent}
    system = _request(tmp_path, files, "pkg/llm.py").parts[0].segments
    assert [(s.kind, s.volatility) for s in system if not s.is_static] == [(Kind.TIMESTAMP, Volatility.PER_REQUEST)]
    # one caller more: the wrapper's parameter stays unknown
    files["pkg/agent.py"] = agent + """
        def task_more(text):
            return strict("You do one more task.", text, "answer")
    """
    system = _request(tmp_path, files, "pkg/llm.py").parts[0].segments
    assert [(s.kind, s.volatility, s.expr) for s in system if not s.is_static] == [
        (Kind.UNKNOWN, Volatility.UNKNOWN, "system_prompt"), (Kind.UNKNOWN, Volatility.UNKNOWN, "schema")]


FORWARDED = """
    from openai import OpenAI

    client = OpenAI()


    def chat(system_prompt, user_prompt):
        return client.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "system", "content": system_prompt}, {"role": "user", "content": user_prompt}])


    def ask(**options):
        return chat(**options)
"""


def test_a_wrapper_that_forwards_its_keywords_passes_its_callers_prompts(tmp_path):
    # chat <- ask(**options) <- answer(system_prompt=..., user_prompt=...) in another module
    agent = """
        from datetime import datetime

        from pkg.llm import ask


        def answer(question):
            return ask(system_prompt=f"Time: {datetime.now()}. Answer briefly.", user_prompt=question)
    """
    files = {"pkg/__init__.py": "", "pkg/llm.py": FORWARDED, "pkg/agent.py": agent}
    system = _request(tmp_path, files, "pkg/llm.py").parts[0].segments
    stamp, = [s for s in system if not s.is_static]
    assert (stamp.kind, stamp.volatility) == (Kind.TIMESTAMP, Volatility.PER_REQUEST)
    assert stamp.span.filename.endswith("agent.py")
    # a dict of the caller's own, sent as `**payload`
    files["pkg/llm.py"] = FORWARDED.replace("return chat(**options)", "payload = {'system_prompt': options['text'] + ' Answer.', 'user_prompt': ''}\n        return chat(**payload)")
    files["pkg/agent.py"] = agent.replace('system_prompt=f"Time: {datetime.now()}. Answer briefly.", user_prompt=question',
                                          'text=f"Time: {datetime.now()}."')
    system = _request(tmp_path, files, "pkg/llm.py").parts[0].segments
    assert [(s.kind, s.volatility) for s in system if not s.is_static] == [(Kind.TIMESTAMP, Volatility.PER_REQUEST)]
