"""Request dicts the evaluator reads through the shapes SDK wrappers use: a dict copied before
more keys are added (`arguments = base_args.copy()`, also a dict completed by conditions) and a
payload builder that is a method of a generic base class (`class Llm(Base[P, M])`)."""
from __future__ import annotations

from analysis_support import one_call, probe

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
