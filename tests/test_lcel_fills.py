"""A LangChain string prompt template filled where its chain is invoked (python/lcel_chains.py,
sdks/langchain.py `filled_chain`): the template built anywhere in the tree (also returned by a
helper that picks it by name, a dict lookup by a constant key), piped into a model (`prompt | llm
| parser`, `RunnableSequence`, `LLMChain(prompt=..., llm=...)`), its placeholders given the
invoke's values; and fixtures/lcel_fills, a package whose per-request values reach the prompt only
through such a fill."""
from __future__ import annotations

import shutil
from pathlib import Path

from analysis_support import layouts, parts, probe, sent

from promptlint import api
from promptlint.model import Kind, Precision, Volatility

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "lcel_fills"

PROMPTS = {"prompts.py": '''
    from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

    REVIEW = "Review this diff of {languages} code.\\n{diff}\\nBe brief."
    CHAT = "You help with {languages} code.\\nContext:\\n{context}\\nTask: {task}"


    def get_prompt(name, structured=False):
        if name == "review":
            if structured:
                return PromptTemplate(template=REVIEW + "{format_instructions}",
                                      input_variables=["diff", "languages"],
                                      partial_variables={"format_instructions": "Answer in JSON."})
            return PromptTemplate(template=REVIEW, input_variables=["diff", "languages"])
        table = {
            "chat": PromptTemplate(template=CHAT, input_variables=["languages", "context", "task"]),
            "joke": PromptTemplate(template="Tell a joke about {topic}.", input_variables=["topic"]),
            "commit": ChatPromptTemplate.from_messages([("system", "You write commit messages for {languages}."),
                                                        ("user", "{diff}")]),
        }
        return table[name]
'''}


def _invoked(found):
    return [lt for lt in sent(found) if lt.api == "langchain.invoke"]


def test_a_template_picked_by_name_in_a_helper_is_filled_with_the_invoke_values(tmp_path):
    found = layouts(tmp_path, """
        from datetime import datetime
        from langchain_core.output_parsers import StrOutputParser
        from langchain_openai import ChatOpenAI
        from .prompts import get_prompt


        def chat(task, files):
            prompt = get_prompt("chat")
            chain = prompt | ChatOpenAI(model="gpt-4o") | StrOutputParser()
            context = "Files:\\n" + "\\n".join(f for f in set(files))
            return chain.invoke({"languages": "python", "context": context, "task": task})
    """, PROMPTS)
    layout, = _invoked(found)
    assert (layout.provider, layout.model) == ("openai", "gpt-4o")
    (role, segments), = parts(layout)
    assert role == "user"
    assert segments == [
        ("text", "You help with "), ("text", "python"), ("text", " code.\nContext:\n"), ("text", "Files:\n"),
        ("unordered-iteration", "per-process", "set(files)"), ("text", "\nTask: "), ("unknown", "unknown", "task")]
    # the bound value is reported at the template's placeholder; the template's own layout is superseded
    assert layout.parts[0].segments[4].span.filename.endswith("app.py")
    assert [Path(s).name for s in layout.supersedes] == ["prompts.py:15"]  # the `"chat": PromptTemplate(...)` line


def test_the_invoke_keys_pick_the_template_and_unused_partials_stay_per_call(tmp_path):
    # keys {diff, languages}: both review templates use them (one with a partial): not one template,
    # nothing drawn at the invoke; keys {topic}: the joke template only
    found = layouts(tmp_path, """
        from langchain_openai import ChatOpenAI
        from .prompts import get_prompt

        llm = ChatOpenAI(model="gpt-4o-mini")


        def review(diff, json_mode):
            return (get_prompt("review", json_mode) | llm).invoke({"diff": diff, "languages": "go"})


        def joke(topic):
            return (get_prompt("joke") | llm).invoke({"topic": topic})
    """, PROMPTS)
    layout, = _invoked(found)
    # a bound value keeps its own volatility (a parameter: not known)
    assert parts(layout) == [("user", [("text", "Tell a joke about "), ("unknown", "unknown", "topic"),
                                       ("text", ".")])]


def test_a_chat_template_picked_by_name_is_filled_and_the_name_rules_out_the_other_branch(tmp_path):
    # `get_prompt("commit")`: the `if name == "review"` branch cannot run (flow/decided_returns.py),
    # so the review templates, which take the same keys, are not candidates
    found = layouts(tmp_path, """
        from langchain_anthropic import ChatAnthropic
        from .prompts import get_prompt


        def commit(diff):
            chain = get_prompt("commit") | ChatAnthropic(model="claude-sonnet-4-5")
            return chain.invoke({"diff": diff, "languages": "rust"})
    """, PROMPTS)
    layout, = _invoked(found)
    assert (layout.provider, layout.model) == ("anthropic", "claude-sonnet-4-5")
    assert parts(layout) == [
        ("system", [("text", "You write commit messages for "), ("text", "rust"), ("text", ".")]),
        ("user", [("unknown", "per-request", "diff")])]
    assert [Path(s).name for s in layout.supersedes] == ["prompts.py:17"]


def test_llm_chain_run_and_runnable_sequence_are_chains_too(tmp_path):
    found = layouts(tmp_path, """
        from datetime import datetime
        from langchain.chains import LLMChain
        from langchain_core.prompts import PromptTemplate
        from langchain_core.runnables import RunnableSequence
        from langchain_anthropic import ChatAnthropic

        llm = ChatAnthropic(model="claude-3-5-haiku-latest")


        def build():
            return PromptTemplate.from_template("It is {now}. Summarise: {text}")


        def summarise(text):
            chain = LLMChain(prompt=build(), llm=llm)
            return chain.run(now=datetime.now().isoformat(), text=text)


        def summarise_again(text):
            return RunnableSequence(build(), llm).invoke({"now": "today", "text": text})
    """)
    first, second = _invoked(found)
    assert (first.provider, first.model) == ("anthropic", "claude-3-5-haiku-latest")
    (_, segments), = parts(first)
    assert segments[:3] == [("text", "It is "), ("timestamp", "per-request", "datetime.now().isoformat()"),
                            ("text", ". Summarise: ")]
    assert first.parts[0].segments[1].precision is Precision.SUB_DAY
    assert parts(second) == [("user", [("text", "It is "), ("text", "today"), ("text", ". Summarise: "),
                                       ("unknown", "unknown", "text")])]


def test_an_invoke_whose_keys_fill_no_template_or_are_not_known_draws_nothing_there(tmp_path):
    found = layouts(tmp_path, """
        from langchain_openai import ChatOpenAI
        from .prompts import get_prompt

        llm = ChatOpenAI(model="gpt-4o-mini")


        def wrong_keys(q):
            return (get_prompt("joke") | llm).invoke({"question": q})


        def unknown_keys(values):
            return (get_prompt("joke") | llm).invoke(values)


        def not_a_template(load, q):
            return (load("joke") | llm).invoke({"topic": q})
    """, PROMPTS)
    assert _invoked(found) == []  # (the template's own layout, in prompts.py, stands)


def test_a_time_written_relative_to_now_is_a_sub_day_timestamp(tmp_path):
    found = probe(tmp_path, """
        import arrow
        import pendulum

        def header(path, mtime):
            probe(f"{path}, modified {arrow.get(mtime).humanize()}")
    """)
    segment = [s for s in found.segs if not s.is_static][-1]
    assert (segment.kind, segment.volatility, segment.precision) == (Kind.TIMESTAMP, Volatility.PER_REQUEST,
                                                                      Precision.SUB_DAY)
    # another time to compare with: no clock (`humanize(other)`)
    fixed = probe(tmp_path, """
        import arrow

        def header(mtime, then):
            probe(f"modified {arrow.get(mtime).humanize(then)}")
    """)
    assert all(s.kind is not Kind.TIMESTAMP for s in fixed.segs)


def _found(tmp_path, package):
    shutil.copytree(FIXTURE / package, tmp_path / package)
    report = api.check([tmp_path / package], api.Settings(), jobs=1)
    return [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row) for d in report.diagnostics]


def test_a_clock_and_a_set_filled_into_templates_picked_by_name_are_warnings(tmp_path):
    assert _found(tmp_path, "unsorted") == [("prompts.py", "PRM102", "warning", 53),
                                             ("prompts.py", "PRM202", "warning", 70)]


def test_the_same_package_with_the_clock_last_and_the_set_sorted_is_fine(tmp_path):
    assert _found(tmp_path, "sorted") == []
