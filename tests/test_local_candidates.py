"""Prompt text built in a function and kept in a local name is a prompt candidate of its own
(docs/policies.md, Policy 9): judged on its own text when it reaches no send site the analysis
follows (a wrapper with too many callers to follow, an SDK it does not know), superseded where it
reaches one. LangChain's `PromptTemplate.from_template(text)` is a `str.format` template."""
from __future__ import annotations

from analysis_support import code, layouts, parts, write

from promptlint import api

TEMPLATES = """
    from langchain_core.prompts import PromptTemplate

    subqueries = PromptTemplate.from_template(
        '''
    You construct up to {max_queries} web search queries for the user's question.
    Current date: {current_date}
    Examples of good queries, with the chat history they were written for:
    - History: "I use Hacker News for tech news." Query: "top posts on Hacker News today"
    - History: "We are planning a trip to Lisbon in May." Query: "Lisbon weather in May"
    - History: "My laptop is slow since the update." Query: "laptop slow after operating system update"
    Chat history:
    {chat_history}
    Question: {query}
    '''.strip()
    )
    jinja_style = PromptTemplate.from_template("Hello {{ name }}", template_format="jinja2")
"""

SENDER = """
    from openai import OpenAI

    client = OpenAI()


    def send(query, system_message=""):
        messages = [{"role": "system", "content": system_message}, {"role": "user", "content": query}]
        return client.chat.completions.create(model="gpt-4.1", messages=messages)
"""

CALLERS = {f"c{i}.py": f"""
    from llm import send


    def ask{i}(text):
        return send("question {i}: " + text)
""" for i in range(6)}

HELPERS = """
    from datetime import datetime

    import prompts
    from llm import send


    def subqueries(q, history):
        today = datetime.now().strftime("%Y-%m-%d %H:%M")
        queries_prompt = prompts.subqueries.format(query=q, chat_history=history, max_queries=3, current_date=today)
        return send(queries_prompt)


    def direct(q):
        direct_prompt = f"Answer the question in one sentence, in plain words, without lists. {q}" + " Be kind." * 40
        status = f"{q} " + "x" * 300
        return direct_prompt, status
"""


def test_a_template_object_formatted_in_a_function_is_a_prompt(tmp_path):
    found = layouts(tmp_path, HELPERS, {"prompts.py": TEMPLATES, "llm.py": SENDER, **CALLERS}, name="helpers.py")
    local = [lt for lt in found if lt.source == "python-constant"]
    assert [lt.site.start.row for lt in local] == [9, 14]
    (role, described), = parts(local[0])
    assert role == "prompt"  # `queries_prompt`: where it goes in a request is not known
    first = next(i for i, d in enumerate(described) if d[0] != "text")
    assert "".join(d[1] for d in described[:first]) == \
        "You construct up to 3 web search queries for the user's question.\nCurrent date: "
    assert described[first] == ("timestamp", "per-request", 'datetime.now().strftime("%Y-%m-%d %H:%M")')
    assert described[first + 1][1].startswith("\nExamples of good queries")
    assert [d[0] for d in parts(local[1])[0][1]] == ["text", "unknown", "text"]  # the parameter `q`


def test_a_local_prompt_is_reported_where_the_value_enters_its_text(tmp_path):
    write(tmp_path, {"prompts.py": TEMPLATES, "llm.py": SENDER, "helpers.py": HELPERS, **CALLERS})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = sorted((d.code, d.span.filename.rsplit("/", 1)[-1], d.span.start.row) for d in report.diagnostics)
    assert ("PRM102", "prompts.py", 6) in got  # the `{current_date}` placeholder of the template
    stamp = next(d for d in report.diagnostics if d.code == "PRM102")
    assert [r.span.start.row for r in stamp.related] == [8]  # datetime.now() in helpers.py
    assert not any(name == "helpers.py" and row == 15 for _, name, row in got)  # `status` is not prompt-named


def test_a_local_prompt_that_reaches_a_send_site_is_judged_there_once(tmp_path):
    source = """
        from datetime import datetime
        from openai import OpenAI

        client = OpenAI()
        RULES = "Follow the house style. " * 300


        def ask(question):
            system_prompt = f"Now: {datetime.now():%H:%M}. " + RULES
            return client.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "system", "content": system_prompt},
                                           {"role": "user", "content": question}])
    """
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.span.start.row, d.severity.value) for d in report.diagnostics] == [("PRM102", 9, "warning")]
    assert sum(1 for lt in layouts(tmp_path, source) if lt.source == "python-constant") == 1  # superseded in the run


def test_a_jinja2_prompt_template_is_not_read_as_str_format(tmp_path):
    write(tmp_path, {"prompts.py": TEMPLATES})
    probe_src = code("""
        import prompts

        def f(name):
            greeting_prompt = prompts.jinja_style.format(name=name) + " Be brief." * 40
            return greeting_prompt
    """)
    found = layouts(tmp_path, probe_src, name="g.py")
    texts = [d for lt in found for _, ds in parts(lt) for d in ds]
    assert not any(d[0] == "text" and "Hello" in d[1] for d in texts)


def test_a_flattened_history_after_retrieved_context_counts_as_history_after_it(tmp_path):
    source = '''
        from string import Template

        QA_PROMPT = Template("""You answer questions from the context provided for each query and never mention it.
        Refrain from phrases such as 'According to the context provided' or 'Based on the context'; be concise.
        Context information:
        $context
        Conversation history:
        $history
        Query: $query
        """)


        def answer(retriever, chat_history, input_query):
            context = "\\n".join(retriever.search(input_query))
            qa_prompt = QA_PROMPT.substitute(context=context, query=input_query, history=chat_history)
            return qa_prompt
    '''
    write(tmp_path, {"app.py": source})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.span.start.row, d.severity.value) for d in found] == [("PRM101", 6, "info")]
    assert "and the conversation history after it" in found[0].message


def test_prompt_text_whose_place_is_not_known_is_not_called_a_system_prompt(tmp_path):
    from promptlint.python.prompt_names import role_of
    assert [role_of(n) for n in ("SYSTEM_PROMPT", "agent_instructions", "buildSysprompt", "query_prompt",
                                 "PROMPTS")] == ["system", "system", "system", "prompt", "prompt"]
    write(tmp_path, {"app.py": '''
        from datetime import datetime

        RULES = "Answer in the house style and cite the article you used for every claim. " * 18


        def build_query_prompt(question):
            query_prompt = f"Now: {datetime.now():%H:%M}. " + RULES + question
            return query_prompt
    '''})
    found, = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert found.code == "PRM102" and "in the prompt text:" in found.message


def test_a_time_before_a_few_words_of_prompt_text_whose_send_is_not_found_is_not_reported(tmp_path):
    # the same builder with one sentence (15 tokens) of rules after the time: what the request
    # adds after this text is not known, and 15 tokens are not worth caching on their own
    write(tmp_path, {"app.py": '''
        from datetime import datetime

        RULES = "Answer in the house style and cite the article you used for every claim. "


        def build_query_prompt(question):
            query_prompt = f"Now: {datetime.now():%H:%M}. " + RULES + question
            return query_prompt
    '''})
    assert api.check([tmp_path], api.Settings(), jobs=1).diagnostics == []


def test_a_local_prompt_whose_dynamic_part_a_send_site_lost_is_judged_on_its_own(tmp_path):
    source = """
        from datetime import datetime
        from openai import OpenAI

        client = OpenAI()
        RULES = "Follow the house style. " * 300


        def ask(question, convert):
            system_prompt = f"Now: {datetime.now():%H:%M}. " + RULES
            messages = convert([{"role": "system", "content": system_prompt}, {"role": "user", "content": question}])
            messages.append({"role": "system", "content": RULES})
            return client.chat.completions.create(model="gpt-4.1", messages=messages)
    """
    write(tmp_path, {"app.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    # the send site holds RULES (appended again) but not the time: the candidate is judged itself
    assert [(d.code, d.span.start.row) for d in report.diagnostics] == [("PRM102", 9)]


def test_prompt_text_built_only_to_key_an_application_cache_is_not_a_prompt(tmp_path):
    source = """
        import hashlib
        import json


        def cached_call(llm, cache, history, question, rules):
            _prompt = "\\\\n".join([question, rules, json.dumps(history)]) + " Answer in the house style. " * 20
            key = hashlib.sha256(_prompt.encode()).hexdigest()
            hit = cache.lookup(compute_args_hash(_prompt))
            save_to_cache(cache, CacheData(prompt=_prompt, key=key))
            return hit or llm(question)


        def sent(llm, history, question):
            user_prompt = f"{json.dumps(history)} Answer in the house style." + " Be brief and exact. " * 20
            log_hash(user_prompt)
            return llm(user_prompt)
    """
    write(tmp_path, {"app.py": source})
    found = [(lt.site.start.row) for lt in layouts(tmp_path, source) if lt.source == "python-constant"]
    assert found == [14]  # `user_prompt` is also handed to `llm(...)`: still prompt text


def test_a_prompt_that_an_unknown_override_may_replace_is_judged_on_its_default(tmp_path):
    source = """
        PROMPTS = {}
        PROMPTS["answer"] = "Answer from the context only, cite every source you use. " * 20 + "Context: {context}"


        def answer(result, system_prompt):
            template = system_prompt if system_prompt else PROMPTS["answer"]
            sys_prompt = template.format(context=result.context)
            return sys_prompt
    """
    found = [lt for lt in layouts(tmp_path, source) if lt.source == "python-constant"]
    assert [lt.site.start.row for lt in found] == [7]
    assert found[0].parts[0].segments[0].text.startswith("Answer from the context only")


def test_a_message_list_handed_to_a_wrapper_is_a_prompt_even_in_a_file_naming_no_sdk(tmp_path):
    # No SDK import and no prompt-named assignment: the file passes the pre-filter by its system
    # message written as a dict; the list kept in `messages` reaches only a wrapper not followed.
    source = '''
        from datetime import datetime

        from .llm import create_chat_completion


        async def plan(query, results):
            current_time = datetime.now().strftime("%Y-%m-%d %H:%M:%S")
            messages = [
                {"role": "system", "content": "You are an expert researcher who plans the research."},
                {"role": "user", "content": f"""Current time: {current_time}

        How to plan: read the topic and the search results below as a researcher who has to write a report
        on the topic for readers who know little about it. Note what the results agree on, what they
        disagree on, and what none of them answers. A good question names one aspect of the topic, can be
        answered by a search of the web, and does not repeat a question that the results already answer.
        Prefer questions about causes, consequences, numbers, dates and named sources over questions about
        opinions. Avoid questions that can be answered with yes or no, questions that hold two questions,
        and questions that only a single source could answer. Keep every question under thirty words, write
        it in plain language, and do not refer to the results by their number or position in the list.
        When the results are thin, ask for the basic facts first; when they are rich, ask for what is
        missing between them. Cover at least three different aspects of the topic across the five
        questions, and order them from the most general to the most specific. Never ask about the
        researcher, the search engine, or this plan itself, and never include an answer in a question.
        Write the questions in the language of the topic, and spell names as the results spell them.

        Search results:
        {results}

        Based on these results, generate five questions that explore different aspects of the topic.
        Format each question on a new line starting with 'Question: '. Write nothing else at all."""},
            ]
            return await create_chat_completion(messages=messages, temperature=0.4)


        def status(done):
            notes = [{"role": "system", "content": "Research finished."}, {"role": "user", "content": "ok"}]
            return notes, done
    '''
    write(tmp_path, {"app.py": source})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.span.start.row, d.severity.value) for d in found] == [("PRM102", 10, "info")]
    assert "in the newest user message" in found[0].message
    assert [lt.site.start.row for lt in layouts(tmp_path, source) if lt.source == "python-constant"] == [8]


def test_the_prefilter_admits_a_system_message_written_as_a_dict():
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt('m = [{"role": "system", "content": rules}]\n')
    assert might_hold_prompt("m = [{'role': 'system', 'content': rules}]\n")
    assert not might_hold_prompt('row = {"role": "admin", "name": name}\n')


def test_text_that_fills_a_prompt_template_is_a_candidate_whatever_its_name(tmp_path):
    rules = "Do only the task above. Use the context from the previous steps to inform it. " * 4
    src = f"""
        from runner import run

        TASK_PROMPT_TEMPLATE = "<task>\\n{{task}}\\n</task>\\n{rules}"
        GREETING = "<task>\\n{{task}}\\n</task>\\n{rules}"


        def step(plan, runner):
            for task in plan.tasks:
                task_description = TASK_PROMPT_TEMPLATE.format(task=task.description)
                greeting = GREETING.format(task=task.description)
                run(runner, task_description, greeting)
    """
    write(tmp_path, {"runner.py": "def run(*args):\n    return args\n"})
    found = {lt.site.start.row: lt for lt in layouts(tmp_path, src) if lt.source == "python-constant"}
    # the template's name says prompt: the text it fills is judged (the task before the rules),
    # besides the template itself (line 3); a template named otherwise is not a prompt by its name
    assert sorted(found) == [3, 9]
    (role, described), = parts(found[9])
    assert role == "prompt" and [d[0] for d in described] == ["text", "unknown", "text"]


REVIEW_RULES = "Decide whether the action moved the task forward and answer with one word and one reason. " * 8


def test_a_template_imported_from_a_prompts_module_and_filled_is_a_candidate(tmp_path):
    # `from app.prompts.review import reflect_template`: the module it is read from says prompt
    files = {"app/__init__.py": "", "app/prompts/__init__.py": "",
             "app/prompts/review.py": f'reflect_template = """I took the action {{action}}.\n{REVIEW_RULES}"""\n',
             "app/other.py": f'reflect_template = """I took the action {{action}}.\n{REVIEW_RULES}"""\n'}
    source = """
        from app.prompts.review import reflect_template


        async def reflect(action, llm):
            context = reflect_template.format(action=action)
            return await llm.aask(context)
    """
    from promptlint.python.prefilter import might_hold_prompt
    assert might_hold_prompt(code(source))
    local = [lt for lt in layouts(tmp_path, source, files) if lt.source == "python-constant"]
    (role, described), = parts(local[0])
    assert described[1] == ("unknown", "unknown", "action")
    assert local[0].parts[0].segments[1].span.filename.endswith("review.py")
    # the same template read from a module not named for prompts is not one (its name says nothing)
    other = source.replace("app.prompts.review", "app.other")
    assert not might_hold_prompt(code(other))
    assert not [lt for lt in layouts(tmp_path, other, files, name="b.py") if lt.source == "python-constant"]


def test_a_placeholder_a_langchain_template_leaves_unfilled_does_not_hide_the_candidate_that_fills_it(tmp_path):
    # `subqueries = PromptTemplate.from_template(...)` is a string prompt of its own, but its
    # `{current_date}` left as written says nothing of the value `.format(current_date=...)` gives
    write(tmp_path, {"prompts.py": TEMPLATES.replace("jinja_style", "# jinja_style"), "llm.py": SENDER,
                     "helpers.py": HELPERS, **CALLERS})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.severity.value)
            for d in report.diagnostics if d.code == "PRM102"] == [("PRM102", "prompts.py", 6, "warning")]


def test_text_only_returns_are_never_message_lists():
    """A function not named for a prompt that returns such text returns no candidate; it is not
    evaluated (candidates._text_only)."""
    import ast
    from promptlint.python.candidates import _text_only

    def shape(src):
        return ast.parse(src, mode="eval").body

    for src in ('"\\n".join(lines)', '"Hi {x}".format(x=x)', '"%s!" % name', 'f"{a}"', '"x"',
                'f"{a}".join(b)', '"a, b".replace(",", ";")', "sep.join(lines)", "textwrap.dedent(text)",
                "Template(t).substitute(task=task)", "template.format_map(values)"):
        assert _text_only(shape(src)), src
    # (`format` of an object: DSPy's adapters `format(signature, demos, inputs)` a message list)
    for src in ("build(f'{a}')", "template.format(x=1)", "adapter.format(sig, demos, inputs)", "x % y",
                "[{'role': 'system'}]", '"{}".split()'):
        assert not _text_only(shape(src)), src


CLASSIFIER = '''
    CLASSIFY_INSTRUCTION = """You are a precise intent classifier. Below are the intents you classify into, with examples:

    {context}

    Your task is to analyze the following request and determine the most likely intent. Consider how well
    the request matches the intent descriptions and examples, which entities it names, and how sure you are.
    Respond in JSON with the intent, a confidence, a score between 0 and 1 and a brief explanation.

    Request: {request}

    GUIDANCE
    """


    class Intent:
        name: str
        description: str


    class Classifier:
        def __init__(self, llm: "LLM", intents: list[Intent]):
            self.llm = llm
            self.intents = {intent.name: intent for intent in intents}

        def _context(self):
            return "\\n\\n".join(f"Intent: {i.name}\\nDescription: {i.description}" for i in self.intents.values())

        async def classify(self, request):
            prompt = CLASSIFY_INSTRUCTION.format(context=self._context(), request=request)
            return await self.llm.generate(message=prompt)
'''


GUIDANCE = "\n    ".join(f"- Rule {i}: return only intents with reasonable confidence, and say why in one line." for i in range(30))


def test_a_template_filled_in_the_tree_is_judged_at_its_fill_not_at_its_first_placeholder(tmp_path):
    write(tmp_path, {"app.py": CLASSIFIER.replace("GUIDANCE", GUIDANCE)})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    got = [(d.code, d.span.start.row, d.message.split("`")[1]) for d in report.diagnostics]
    # `{context}` (row 3) holds the intents the classifier is built with, the same on every call:
    # the request (row 9) is what changes
    assert got == [("PRM101", 9, "request")], got


def test_an_unfilled_template_is_still_judged_on_its_own(tmp_path):
    write(tmp_path, {"app.py": CLASSIFIER.replace("GUIDANCE", GUIDANCE).split("class Classifier")[0]})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.span.start.row) for d in report.diagnostics] == [("PRM101", 3)]


def test_a_web_page_returned_by_a_function_named_for_prompts_is_no_prompt(tmp_path):
    """`render_tape_with_prompts` returns a style sheet and HTML: no model is sent it. The same
    function returning prompt text with a date is a candidate."""
    page = """
        STYLE = (
            "<style>"
            ".box { margin: 4px; padding: 2px; padding-left: 6px; background: #f0f0f0; border-radius: 3px; }"
            ".prompt { margin: 4px; padding: 2px; padding-left: 6px; background: #e0e0ff; }"
            ".row { display: flex; align-items: end; } .column { width: 50%; } .user { width: 25%; }"
            "</style>"
        )


        def render_tape_with_prompts(tape):
            return STYLE + tape.render()
    """
    assert [lt for lt in layouts(tmp_path, page) if lt.source == "python-constant"] == []
    prose = page.replace('"<style>"', '"You summarise the tape for the reviewer. "').replace('"</style>"', '""')
    assert [lt.site.start.row for lt in layouts(tmp_path, prose) if lt.source == "python-constant"] == [11]


GROWN = """
    from datetime import UTC, datetime

    from loop import run_loop

    RULES = "You operate a browser for the user. Follow the rules below and never guess a value. " * 20
    URLS = "Some links are shown as opaque handles: pass them back exactly as given, never edit them. " * 5


    async def run(goal: str, extra: str, llm):
        system_prompt = RULES + extra
        system_prompt += datetime.now(UTC).strftime("Today's date is %Y-%m-%d.")
        {tail}
        return await run_loop(llm=llm, system_prompt=system_prompt, user_prompt=goal)
"""


def test_a_local_prompt_grown_by_augmented_assignments_is_judged_on_its_whole_text(tmp_path):
    """`system_prompt += date` and then `system_prompt += GUIDANCE`: the text handed on is the
    grown one; the date (day precision) before the static guidance is info (Policy 1)."""
    write(tmp_path, {"app.py": GROWN.replace("{tail}", "system_prompt += URLS"), "loop.py": "def run_loop(**kw):\n    pass\n"})
    found = api.check([tmp_path], api.Settings(), jobs=1).diagnostics
    assert [(d.code, d.severity.value, d.span.start.row, d.span.start.column) for d in found] == [
        ("PRM102", "info", 11, 22)]


def test_a_date_added_last_to_a_local_prompt_loses_nothing(tmp_path):
    write(tmp_path, {"app.py": GROWN.replace("{tail}", "pass"), "loop.py": "def run_loop(**kw):\n    pass\n"})
    assert api.check([tmp_path], api.Settings(), jobs=1).diagnostics == []
