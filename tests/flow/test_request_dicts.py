"""Request dicts the evaluator reads through the shapes SDK wrappers use: a dict copied before
more keys are added (`arguments = base_args.copy()`, also a dict completed by conditions) and a
payload builder that is a method of a generic base class (`class Llm(Base[P, M])`)."""
from __future__ import annotations

from analysis_support import layouts, one_call, parts, probe, sent

from promptlint.python.flow.values import Mapping


def test_a_request_dict_copied_keeps_its_keys(tmp_path):
    found = probe(tmp_path, """
        def send(messages, system, max_tokens):
            base_args = {"model": "claude-sonnet-4-5", "messages": messages, "system": system}
            if max_tokens is not None:
                base_args["max_tokens"] = max_tokens
            probe(base_args.copy())
    """)
    assert not isinstance(found.value, Mapping)  # one dict per branch
    variants = found.value.options
    assert all(isinstance(v, Mapping) for v in variants) and {"model", "messages", "system"} <= set(variants[0].items)
    plain = probe(tmp_path / "plain", """
        def send(messages):
            probe({"model": "claude-sonnet-4-5", "messages": messages}.copy())
    """)
    assert isinstance(plain.value, Mapping) and list(plain.value.items) == ["model", "messages"]


def test_a_method_of_a_generic_base_class_is_read(tmp_path):
    lt = one_call(tmp_path, """
        from typing import Generic, TypeVar

        import anthropic

        P = TypeVar("P")


        class Base(Generic[P]):
            def prepare(self, base_args: dict) -> dict:
                arguments = base_args.copy()
                arguments["max_tokens"] = 1024
                return arguments


        class Llm(Base[dict]):
            def send(self, messages):
                client = anthropic.Anthropic()
                base_args = {"model": "claude-sonnet-4-5", "messages": messages, "system": "Be brief."}
                return client.messages.create(**self.prepare(base_args))
    """)
    assert [p.role for p in lt.parts] == ["system", "history"] and lt.model == "claude-sonnet-4-5"


def test_a_method_whose_receiver_has_another_name_binds_its_arguments(tmp_path):
    lt = one_call(tmp_path, """
        import litellm


        class Handler:
            def add_callbacks(selfs, kwargs) -> dict:
                kwargs["metadata"] = {"tags": ["review"]}
                return kwargs

            async def chat(self, model: str, system: str, user: str, callbacks: bool):
                kwargs = {"model": model, "messages": [{"role": "system", "content": system},
                                                       {"role": "user", "content": user}]}
                if callbacks:
                    kwargs = self.add_callbacks(kwargs)
                return await litellm.acompletion(**kwargs)
    """)
    assert [p.role for p in lt.parts] == ["system", "user"] and not lt.unread_options


def test_a_record_handed_in_as_a_parameter_holds_what_its_constructor_calls_pass(tmp_path):
    # the request dict travels in a record (`payload: dict`) to a task that sends it: the field
    # holds the dict its constructor call was given, so the send call reads its system prompt
    lt = one_call(tmp_path, """
        from datetime import datetime

        import anthropic
        from pydantic import BaseModel


        class CompletionRequest(BaseModel):
            payload: dict


        async def _execute(client, payload: dict):
            return await client.messages.create(**payload)


        class Tasks:
            @staticmethod
            async def request_completion(request: CompletionRequest):
                return await _execute(anthropic.AsyncAnthropic(), request.payload)


        class Llm:
            async def generate(self, messages):
                arguments = {"model": "claude-sonnet-4-5", "messages": messages,
                             "system": f"Time: {datetime.now()}. You are a careful reviewer."}
                return await self.executor.execute(Tasks.request_completion, CompletionRequest(payload=arguments))
    """)
    (role, system), (history, _) = parts(lt)
    assert (role, history) == ("system", "history")
    assert system == [("text", "Time: "), ("timestamp", "per-request", "datetime.now()"),
                      ("text", ". You are a careful reviewer.")]
    # a record that is never built in the code: its field stays unknown (no prompt to read)
    unread = probe(tmp_path / "unread", """
        from pydantic import BaseModel


        class CompletionRequest(BaseModel):
            payload: dict


        def send(request: CompletionRequest):
            probe(request.payload)
    """)
    assert [d[0] for d in unread.described] == ["unknown"]


def test_a_namesake_class_of_another_module_is_not_a_caller(tmp_path):
    # five provider modules each define their own `Request`: only this module's constructor call counts
    others = {f"provider_{i}.py": f"""
        from pydantic import BaseModel


        class Request(BaseModel):
            payload: dict


        def build():
            return Request(payload={{"model": "m{i}", "messages": []}})
    """ for i in range(5)}
    lt = one_call(tmp_path, """
        import openai
        from pydantic import BaseModel


        class Request(BaseModel):
            payload: dict


        class Tasks:
            @staticmethod
            def send(request: Request):
                return openai.OpenAI().chat.completions.create(**request.payload)


        def ask(executor, question):
            return executor.execute(Tasks.send, Request(payload={"model": "gpt-4o", "messages": [
                {"role": "system", "content": "You answer in French."},
                {"role": "user", "content": question}]}))
    """, files=others)
    assert [p.role for p in lt.parts] == ["system", "user"] and lt.model == "gpt-4o"


def test_a_keywords_parameter_holds_what_its_callers_pass(tmp_path):
    lt = one_call(tmp_path, """
        import anthropic


        class Chat:
            async def _create_message(self, **params):
                return await anthropic.AsyncAnthropic().messages.create(**params)

            async def ask(self, history, question):
                options = {"max_tokens": 1024}
                return await self._create_message(model="claude-sonnet-4-5", system="You are terse.",
                                                  messages=[*history, {"role": "user", "content": question}],
                                                  **options)
    """)
    assert [p.role for p in lt.parts] == ["system", "history", "user"] and lt.model == "claude-sonnet-4-5"
    assert not lt.unread_options


def test_request_dicts_with_different_messages_are_one_layout_each(tmp_path):
    found = sent(layouts(tmp_path, """
        import openai


        async def _execute(payload):
            return await openai.AsyncOpenAI().chat.completions.create(**payload)


        async def chat(history, question):
            payload = {"model": "gpt-4o", "messages": [{"role": "system", "content": "You are a tutor."},
                                                       *history, {"role": "user", "content": question}]}
            if question.endswith("?"):
                payload["temperature"] = 0
            return await _execute(payload)


        async def structured(text):
            return await _execute({"model": "gpt-4o", "messages": [{"role": "user", "content": text}]})
    """))
    assert sorted([p.role for p in lt.parts] for lt in found) == [["system", "history", "user"], ["user"]]
    assert sorted(lt.variant for lt in found) == [0, 1]
    # one dict completed in branches (a system prompt set one way or another): one request
    one = one_call(tmp_path / "one", """
        import anthropic


        def send(messages, system, cached):
            args = {"model": "claude-sonnet-4-5", "messages": messages, "system": system}
            if cached:
                args["system"] = [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]
            return anthropic.Anthropic().messages.create(**args)
    """)
    assert [p.role for p in one.parts] == ["system", "history"]


def test_a_name_bound_in_an_if_test_is_read(tmp_path):
    lt = one_call(tmp_path, """
        import anthropic


        class Agent:
            instruction = "You review pull requests."

            def send(self, messages, params):
                arguments = {"model": "claude-sonnet-4-5", "messages": messages}
                if system := (self.instruction or params.system_prompt):
                    arguments["system"] = system
                return anthropic.Anthropic().messages.create(**arguments)
    """)
    assert parts(lt) == [("system", [("text", "You review pull requests.")]),
                         ("history", [("history", "unknown", "messages")])]


def test_a_request_dict_completed_by_update_keeps_its_keys(tmp_path):
    lt = one_call(tmp_path, """
        from datetime import datetime

        import anthropic


        def send(messages):
            payload = {"model": "claude-sonnet-4-5", "messages": messages}
            payload.update({"system": f"Now {datetime.now()}. You are a reviewer."}, max_tokens=100)
            return anthropic.Anthropic().messages.create(**payload)
    """)
    assert parts(lt)[0] == ("system", [("text", "Now "), ("timestamp", "per-request", "datetime.now()"),
                                       ("text", ". You are a reviewer.")])
    # an update with a dict of keys not known: the keys known so far, in an order not the code's
    merged = probe(tmp_path / "unknown", """
        def f(messages, extra):
            payload = {"model": "claude-sonnet-4-5", "messages": messages}
            payload.update(extra)
            probe(payload)
    """)
    assert isinstance(merged.value, Mapping) and list(merged.value.items) == ["model", "messages"]
    assert merged.value.node is None
