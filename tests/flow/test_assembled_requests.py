"""Request dicts assembled across methods before `client.messages.create(**request)`: `|` of dicts
set in branches (flow/variants.py `dict_union`), a dict handed to a helper that changes it in place
(flow/handed.py), a function that hands the dict on to itself (flow/callers.py), and dicts merged
with data whose keys are not known (`Mapping.open`)."""
from __future__ import annotations

from analysis_support import one_call, probe

from promptlint.python.flow.values import Alt, Mapping, Obj


def _keys(value) -> list[list[str]]:
    """The keys of each dict a value stands for (one, or each variant of an Alt)."""
    options = value.options if isinstance(value, Alt) else [value]
    return [list(o.items) for o in options]


def test_a_merge_with_a_dict_set_in_branches_is_one_dict_per_variant(tmp_path):
    found = probe(tmp_path, """
        class Provider:
            def options(self, thinking):
                params = {"model": "claude-sonnet-4-5", "max_tokens": 1024}
                if thinking:
                    params["thinking"] = {"type": "adaptive"}
                return params

            def generate(self, messages, system, thinking):
                request = dict(messages=messages)
                if system is not None:
                    request["system"] = system
                probe(request | self.options(thinking))
    """)
    assert sorted(_keys(found.value)) == [
        ["messages", "model", "max_tokens"], ["messages", "model", "max_tokens", "thinking"],
        ["messages", "system", "model", "max_tokens"], ["messages", "system", "model", "max_tokens", "thinking"]]


def test_a_dict_piped_into_a_prompt_stays_a_chain(tmp_path):
    found = probe(tmp_path, """
        def answer(prompt, question):
            probe({"question": question} | prompt)
    """)
    assert isinstance(found.value, Obj) and found.value.qualname == "chain"


def test_a_dict_handed_to_a_helper_holds_what_the_helper_sets(tmp_path):
    found = probe(tmp_path, """
        TOOLS = [{"name": "lookup"}]


        def add_cache(request):
            request["cache_control"] = {"type": "ephemeral"}


        class Provider:
            def add_tools(self, request, tools):
                request["tools"] = tools

            def add_options(self, request):
                request.update(temperature=0)

            def generate(self, messages):
                request = {"model": "claude-sonnet-4-5", "messages": messages}
                self.add_tools(request, TOOLS)
                add_cache(request=request)
                self.add_options(request)
                probe(request)
    """)
    assert isinstance(found.value, Mapping)
    assert list(found.value.items) == ["model", "messages", "tools", "cache_control", "temperature"]
    assert found.text == ""  # (the dict itself is no text)


def test_a_helper_that_copies_the_dict_or_is_of_another_object_leaves_it_as_it_was(tmp_path):
    found = probe(tmp_path, """
        class Provider:
            def widened(self, request):
                request = dict(request)
                request["tools"] = []
                return request

            def generate(self, messages, other):
                request = {"model": "claude-sonnet-4-5", "messages": messages}
                self.widened(request)
                other.add_tools(request)
                probe(request)
    """)
    assert isinstance(found.value, Mapping) and list(found.value.items) == ["model", "messages"]


def test_a_function_that_hands_the_dict_on_to_itself_holds_what_its_callers_pass(tmp_path):
    lt = one_call(tmp_path, """
        import anthropic

        client = anthropic.Anthropic()


        def perform(request):
            reply = client.messages.create(**request)
            if reply.stop_reason == "pause_turn":
                tail = dict(request)
                tail["messages"] = request["messages"] + [{"role": "assistant", "content": reply.content}]
                return perform(tail)
            return reply


        def generate(question):
            return perform({"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Be brief.",
                            "messages": [{"role": "user", "content": question}]})
    """)
    assert [p.role for p in lt.parts] == ["system", "user"] and lt.model == "claude-sonnet-4-5"
    assert not lt.unread_options


def test_a_dict_merged_with_keys_not_known_is_open(tmp_path):
    source = """
        def build(settings, options, extra, messages):
            merged = {**settings, "model": "claude-sonnet-4-5"}
            copied = dict(options, model="claude-sonnet-4-5")
            spread = dict(model="claude-sonnet-4-5", **options)
            updated = {"model": "claude-sonnet-4-5"}
            updated.update(extra)
            known = dict({"model": "claude-sonnet-4-5"}, max_tokens=5)
            written = {**{"model": "claude-sonnet-4-5"}, "messages": messages}
            probe(merged)
            probe(copied)
            probe(spread)
            probe(updated)
            probe(known)
            probe(written)
    """
    values = [probe(tmp_path / str(i), source, index=i).value for i in range(6)]
    assert all(isinstance(v, Mapping) for v in values)
    assert [v.open for v in values] == [True, True, True, True, False, False]
    assert [list(v.items) for v in values] == [["model"], ["model"], ["model"], ["model"], ["model", "max_tokens"],
                                               ["model", "messages"]]


def test_a_request_sent_with_an_open_dict_reads_its_known_keys_and_may_hold_others(tmp_path):
    lt = one_call(tmp_path, """
        import anthropic

        client = anthropic.Anthropic()


        def ask(settings, question):
            request = {**settings, "model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Be brief."}
            return client.messages.create(messages=[{"role": "user", "content": question}], **request)
    """)
    assert [p.role for p in lt.parts] == ["system", "user"] and lt.open_options and not lt.unread_options


def test_a_dict_attribute_holds_the_keys_its_methods_set(tmp_path):
    source = """
        class Assistant:
            def __init__(self, options):
                self.params = {"model": "claude-sonnet-4-5"}
                self.params["system"] = "Be brief."
                self.options = {"max_tokens": 5}
                self.options.update(options)

            def enable_cache(self):
                self.params["cache_control"] = {"type": "ephemeral"}

            def ask(self):
                probe(self.params)
                probe(self.options)
    """
    params = probe(tmp_path / "params", source).value
    assert isinstance(params, Alt) and _keys(params) == [["model", "system"], ["model", "system", "cache_control"]]
    options = probe(tmp_path / "options", source, index=1).value
    assert isinstance(options, Mapping) and list(options.items) == ["max_tokens"] and options.open


def test_a_dict_handed_to_an_inherited_helper_holds_what_it_sets(tmp_path):
    files = {"base.py": """
        class Base:
            def mark(self, request):
                request["cache_control"] = {"type": "ephemeral"}

            def add_system(self, request, text):
                request["system"] = text

            def log(self, request):
                print(request)
    """}
    source = """
        from base import Base


        class Provider(Base):
            def generate(self, messages):
                request = {"model": "claude-sonnet-4-5", "messages": messages}
                self.add_system(request, "Be brief.")
                self.log(request)
                self.mark(request)
                probe(request)
    """
    found = probe(tmp_path, source, files=files)
    assert isinstance(found.value, Mapping)
    assert list(found.value.items) == ["model", "messages", "system", "cache_control"]


def test_a_key_set_by_default_is_set_where_it_is_missing(tmp_path):
    source = """
        def send(messages, kwargs, quick):
            request = {"messages": messages}
            if quick:
                request["max_tokens"] = 64
            request.setdefault("max_tokens", 1024)
            request.setdefault("messages", [])
            options = dict(kwargs)
            options.setdefault("system", "Be brief.")
            probe(request)
            probe(options)
    """
    request = probe(tmp_path / "request", source).value
    assert isinstance(request, Alt) and _keys(request) == [["messages", "max_tokens"], ["messages", "max_tokens"]]
    assert sorted(o.items["max_tokens"].segs[0].text for o in request.options) == ["1024", "64"]
    options = probe(tmp_path / "options", source, index=1).value
    system = options.items["system"]  # the caller's `system`, if it holds one, or the default
    assert isinstance(system, Alt) and system.fallback and system.options[1].segs[0].text == "Be brief."
