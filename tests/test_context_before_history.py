"""PRM107 context-before-history: a placeholder named like content that changes with each turn
(retrieved context, the user's message, examples picked for the turn) before a placeholder named
like the conversation history, in every kind of prompt file and in Python templates; at most
info, one finding per prompt, the names as the evidence (docs/policies.md, Policies 2, 7, 8).
Each test writes a small project and checks the findings of the whole run."""
from __future__ import annotations

from analysis_support import write

from promptlint import api
from promptlint.turn_names import conversation_named, placeholder_name, turn_content


def _found(root, files: dict[str, str], code: str | None = "PRM107"):
    write(root, files)
    report = api.check([root], api.Settings(), jobs=1)
    return sorted((d.span.filename.rsplit("/", 1)[-1], d.span.start.row, d.code, d.severity.value)
                  for d in report.diagnostics if code is None or d.code == code)


def _messages(root, files):
    write(root, files)
    return [d.message for d in api.check([root], api.Settings(), jobs=1).diagnostics if d.code == "PRM107"]


# ---------------------------------------------------------------------------- names
def test_placeholder_names_read_through_filters_attributes_and_loops():
    assert placeholder_name("history | colang | to_messages") == "history"
    assert placeholder_name("{{ context.relevant_chunks | trim }}") == "relevant_chunks"
    assert placeholder_name("for turn in chat_history") == "chat_history"
    assert placeholder_name("{past_turns}") == "past_turns"
    assert placeholder_name("$notes") == "notes"
    assert placeholder_name("len(history)") == ""


def test_conversation_names_and_their_counts():
    for name in ("history", "chat_history", "conversation", "messages", "transcript", "formatted_history",
                 "historyText", "dialogue"):
        assert conversation_named(name), name
    for name in ("history_length", "max_history", "sample_conversation", "example_messages", "summary",
                 "conversation_summary", "history_window", ""):
        assert not conversation_named(name), name


def test_turn_content_names():
    for name in ("context", "context_str", "relevant_chunks", "retrieved_docs", "documents", "kb_passages",
                 "memories", "knowledge", "search_results", "ragContext"):
        assert turn_content(name) == "retrieved", name
    assert turn_content("question") == "user"
    assert turn_content("similar_examples") == "examples"
    assert turn_content("examples") == turn_content("few_shot_examples") == "few-shot"
    for name in ("system_context", "user_context", "tool_docs", "domain_knowledge", "results", "persona",
                 "sample_conversation", "example_format"):
        assert turn_content(name) is None, name


# ---------------------------------------------------------------------------- Jinja templates
GUIDE = """
    You are the guide of the Copperfield Museum. Answer visitors' questions about the galleries,
    tickets and the café, in a warm tone, in three sentences at most.
    {% if exhibits %}
    Exhibits that match the question:
    {% for item in exhibits %}- {{ item.title }} ({{ item.room }})
    {% endfor %}
    {% endif %}
    Retrieved notes:
    {{ curator_context }}

    Visit so far:
    {% for turn in history %}{{ turn.speaker }}: {{ turn.text }}
    {% endfor %}
    Visitor: {{ message }}
"""


def test_a_template_reports_the_first_retrieved_placeholder_before_the_history_loop(tmp_path):
    # `exhibits` says nothing; `curator_context` is not a retrieval word either; `context` alone is.
    assert _found(tmp_path, {"guide.j2": GUIDE}) == []
    assert _found(tmp_path, {"guide.j2": GUIDE.replace("curator_context", "context")}) == [
        ("guide.j2", 9, "PRM107", "info")]


def test_a_retrieved_block_inside_a_condition_is_found_at_its_placeholder(tmp_path):
    files = {"answer.jinja": """
        You help the staff of the Birchwood clinic with questions about opening hours and visits.
        {% if relevant_chunks %}
        From the handbook:
        {{ relevant_chunks }}
        {% endif %}
        Chat so far:
        {{ chat_history }}
        Staff member: {{ question }}
    """}
    assert _found(tmp_path, files) == [("answer.jinja", 4, "PRM107", "info")]
    message = _messages(tmp_path, {})[0]
    assert "named like content retrieved for each turn" in message
    assert "only the names are the evidence" in message


def test_the_history_first_or_no_history_at_all_is_no_finding(tmp_path):
    files = {
        "after.j2": """
            You help the staff of the Birchwood clinic with questions about opening hours.
            Chat so far:
            {{ chat_history }}
            From the handbook:
            {{ relevant_chunks }}
            Staff member: {{ question }}
        """,
        "one_shot.j2": """
            From the handbook:
            {{ relevant_chunks }}
            Answer the staff member's question in two sentences: {{ question }}
        """,
    }
    assert _found(tmp_path, files) == []


def test_fixed_examples_are_no_finding_without_retrieval_in_the_prompt_set(tmp_path):
    files = {"tutor.j2": """
        You are a chemistry tutor. Here is how you answer:
        {{ examples }}
        The lesson so far:
        {{ history }}
    """}
    assert _found(tmp_path, files) == []
    (tmp_path / "tutor.j2").write_text((tmp_path / "tutor.j2").read_text().replace(
        "{{ examples }}", "{{ examples }}\nReading for today: {{ documents }}"))
    assert _found(tmp_path, {}) == [("tutor.j2", 2, "PRM107", "info")]


# ---------------------------------------------------------------------------- prompt files
def test_a_prompt_file_with_plain_placeholders(tmp_path):
    files = {"prompts/planner.prompt": """
        You plan weekend walks in the Fell district for the Ramblers' club. Keep routes under
        twenty kilometres and mention where to eat.

        What you remember about this walker:
        {memories}

        Chat history:
        {chat_history}

        Walker: {walker_message}
    """}
    assert _found(tmp_path, files) == [("planner.prompt", 5, "PRM107", "info")]


# ---------------------------------------------------------------------------- YAML and TOML
def test_yaml_strings_and_message_lists(tmp_path):
    files = {"bot.yaml": """
        tasks:
          - task: answer
            messages:
              - type: system
                content: |
                  You are the help desk of the Spoke & Chain bicycle shop.
                  Sample answers:
                  {{ examples }}
              - "{{ history | as_messages }}"
              - type: user
                content: "{{ question }}"
          - task: parts
            content: |-
              Parts found for the question:
              {{ retrieved_parts }}
              {{ history }}
          - task: greet
            content: |-
              {{ history }}
              Catalogue hits: {{ retrieved_parts }}
    """}
    # the examples of `answer` count because the same file retrieves `retrieved_parts` per turn;
    # `greet` has the history first
    assert _found(tmp_path, files) == [("bot.yaml", 8, "PRM107", "info"), ("bot.yaml", 15, "PRM107", "info")]
    assert "its prompt set also takes `retrieved_parts`" in _messages(tmp_path, {})[0]


def test_a_message_list_whose_history_comes_first_is_no_finding(tmp_path):
    files = {"bot.yml": """
        prompts:
          - task: answer
            messages:
              - type: system
                content: You are the help desk of the Spoke & Chain bicycle shop. Be brief.
              - "{{ history | as_messages }}"
              - type: system
                content: |
                  Parts found for the question:
                  {{ relevant_chunks }}
    """}
    assert _found(tmp_path, files) == []


def test_toml_prompt_strings(tmp_path):
    files = {"tutor.toml": '''
        [tutor]
        chat_template = """
        You are a patient maths tutor for secondary school pupils.
        Worked examples close to the pupil's question:
        {{ similar_examples }}

        Lesson so far:
        {{ conversation }}
        Pupil: {{ pupil_message }}
        """

        [reviewer]
        review_template = """
        Lesson so far:
        {{ conversation }}
        Worked examples close to the pupil's question:
        {{ similar_examples }}
        """
    '''}
    assert _found(tmp_path, files) == [("tutor.toml", 5, "PRM107", "info")]


# ---------------------------------------------------------------------------- Python
def test_a_module_template_constant(tmp_path):
    files = {"library.py": '''
        LIBRARY_SYSTEM_PROMPT = """You are the assistant of the Willow Street Library. You help members find
        books, renew loans and book the reading rooms. Answer in two or three sentences and never invent
        a title that is not in the catalogue excerpts.

        Catalogue excerpts for this question:
        {retrieved_documents}

        The conversation so far:
        {chat_history}
        """


        def build(docs, history):
            return LIBRARY_SYSTEM_PROMPT.format(retrieved_documents=docs, chat_history=history)
    '''}
    assert _found(tmp_path, files) == [("library.py", 6, "PRM107", "info")]


LANGCHAIN = '''
    from langchain_core.prompts import PromptTemplate

    DIALOGUE_TEMPLATE = """
    {% if context %}
    Background for this turn:
    {{ context }}
    {% endif %}
    Dialogue:
    {{ history }}
    Visitor: {{ input }}
    Guide:"""


    def build(persona: str):
        return PromptTemplate(
            input_variables=["history", "input", "context"],
            template=persona + "\\n\\n" + DIALOGUE_TEMPLATE,
            template_format="jinja2",
        )
'''


def test_a_langchain_jinja_template_is_read_as_jinja(tmp_path):
    assert _found(tmp_path, {"chain.py": LANGCHAIN}) == [("chain.py", 6, "PRM107", "info")]
    flipped = LANGCHAIN.replace("Dialogue:\n    {{ history }}\n", "").replace(
        "{% if context %}", "Dialogue:\n    {{ history }}\n    {% if context %}")
    (tmp_path / "chain.py").unlink()
    assert _found(tmp_path, {"chain.py": flipped}) == []


def test_the_value_code_fills_a_template_with_decides(tmp_path):
    template = """
        You are the concierge of the Harbour Hotel. Answer guests' questions about rooms, meals and
        the town. Keep answers short and polite.
        Background:
        {{ context }}
        Earlier in this chat:
        {{ history }}
        Guest: {{ message }}
    """
    app = """
        from jinja2 import Environment, FileSystemLoader
        from openai import OpenAI

        client = OpenAI()
        env = Environment(loader=FileSystemLoader("templates"))
        HOUSE_NOTES = "Breakfast is served from seven to ten. The pool closes at nine."


        def reply(message: str, history_text: str):
            prompt = env.get_template("concierge.j2").render(context=HOUSE_NOTES, history=history_text,
                                                             message=message)
            return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": prompt}])
    """
    # a fixed text fills `context`: nothing changes with the turn
    assert _found(tmp_path, {"templates/concierge.j2": template, "app.py": app}) == []
    # the guest's message fills a placeholder named `notes`: the value decides, whatever the name
    files = {"templates/concierge.j2": template.replace("context", "notes"),
             "app.py": app.replace("context=HOUSE_NOTES", "notes=message")}
    assert _found(tmp_path, files) == [("concierge.j2", 4, "PRM107", "info")]
    assert "changes on every request" in _messages(tmp_path, {})[0]


def test_one_finding_per_prompt(tmp_path):
    files = {"many.j2": """
        Instructions for the Orchard Co-op assistant: answer members about harvest dates.
        {{ relevant_docs }}
        {{ memories }}
        {{ question }}
        Conversation:
        {{ history }}
    """}
    assert _found(tmp_path, files) == [("many.j2", 2, "PRM107", "info")]


RULES = "\n".join(f"Rule {i}: answer politely about apple variety number {i}, its harvest month and how to store it."
                  for i in range(25))


def test_a_conditional_section_reported_by_prm104_is_one_finding_there(tmp_path):
    files = {"orchard.j2": "You are the Orchard Co-op assistant.\n{% if show_docs %}\nDocuments:\n"
                           "{{ relevant_chunks }}\n{% endif %}\n" + RULES + "\nConversation:\n{{ history }}\n"}
    (tmp_path / "orchard.j2").write_text(files["orchard.j2"])
    report = api.check([tmp_path], api.Settings(), jobs=1)
    found = [(d.code, d.span.start.row, [r.span.start.row for r in d.related]) for d in report.diagnostics]
    # PRM104 would report the `{% if %}` (each variant caches the rules separately): this finding is
    # more specific at the same place, and names the placeholder and the history as related places
    assert found == [("PRM107", 2, [4, 32])]


def test_content_prm101_warns_about_is_left_to_it(tmp_path):
    rules = "\n".join(RULES.replace("Rule", "Note").splitlines() * 3)
    (tmp_path / "orchard.j2").write_text("You are the Orchard Co-op assistant.\nRecalled:\n{{ memories }}\n" + rules
                                         + "\nConversation:\n{{ history }}\n")
    report = api.check([tmp_path], api.Settings(), jobs=1)
    assert [(d.code, d.severity.value, d.span.start.row) for d in report.diagnostics] == [("PRM101", "warning", 3)]


def test_a_section_in_a_yaml_string_is_found_at_its_placeholder_in_the_file(tmp_path):
    files = {"desk.yaml": """
        desk:
          system_prompt: |
            You are the front desk of the Quayside ferry company. Answer in two sentences.
            {% if show_notes %}
            Notes:   {{ context }}
            {% endif %}
            Talk so far:
            {{ history }}
    """}
    write(tmp_path, files)
    (d,) = [d for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM107"]
    assert (d.span.start.row, d.span.start.column) == (5, 14)
    assert [(r.span.start.row, r.span.start.column) for r in d.related] == [(8, 5)]


def test_the_evidence_clause_names_what_the_placeholder_is_named_like(tmp_path):
    # (main: "is named like the user's message ... (only the names are the evidence: named like
    # retrieved context, ...)": the clause named retrieved context whatever the name said)
    files = {"triage.jinja": """\
        You sort the messages of the Birchwood clinic's front desk into one of its queues.
        Message: {{ user_input }}
        Chat so far:
        {{ chat_history }}
    """}
    assert _found(tmp_path, files) == [("triage.jinja", 2, "PRM107", "info")]
    message = _messages(tmp_path, {})[0]
    assert "is named like the user's message" in message
    assert "(only the names are the evidence: named like the user's message, before the placeholder" in message
    assert "retrieved" not in message
