"""PRM204: a chat template written in the code whose tool block is rendered only under a flag
(`{% if tool_calls %}` in the system message of `{% for message in messages %}`), rendered by one
function with the flag on (the step that may call a tool) and off (the answer, a request with no
tools): the two prompts of a conversation differ from the block on, so an engine that reuses the
previous prompt's prefix reads the conversation again at each switch. Info, where the block's
`{% if %}` is. Clean: the block after the conversation, a flag always on, a flag that writes no
tools, and a template that renders no conversation."""
from __future__ import annotations

from analysis_support import write

from promptlint import api


def _found(tmp_path, source: str):
    write(tmp_path, {"handler.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column, [r.span.start.row for r in d.related])
            for d in report.diagnostics if d.code == "PRM204"]


FOUND = '''
    import jinja2

    TEMPLATE = (
        "{% for message in messages %}"
        "<|im_start|>{{ message.role }}\\n"
        "{% if message.role == 'system' %}"
        "{{ message.content }}"
        "{% if tool_calls %}"
        "\\n\\nYou have access to the following functions:\\n"
        "{% for tool in tools %}functions.{{ tool.function.name }}\\n{% endfor %}"
        "{% endif %}"
        "<|im_end|>\\n"
        "{% endif %}"
        "{% if message.role != 'system' %}{{ message.content }}<|im_end|>\\n{% endif %}"
        "{% endfor %}"
        "{% if add_generation_prompt %}<|im_start|>assistant\\n{% endif %}"
    )


    def chat(llama, messages, tools=None):
        renderer = jinja2.Environment().from_string(TEMPLATE)
        if not tools:
            prompt = renderer.render(messages=messages, tools=[], tool_calls=None, add_generation_prompt=True)
            return llama.create_completion(prompt=prompt)
        prompt = renderer.render(messages=messages, tools=tools, tool_calls=True, add_generation_prompt=True)
        step = llama.create_completion(prompt=prompt)
        if step["choices"][0]["text"].startswith("<message>"):
            prompt = renderer.render(messages=messages, tools=[], tool_calls=None, add_generation_prompt=True)
            return llama.create_completion(prompt=prompt)
        return step
'''

CLEAN = '''
    import jinja2

    AFTER = (
        "{% for message in messages %}<|im_start|>{{ message.role }}\\n{{ message.content }}<|im_end|>\\n{% endfor %}"
        "{% if tool_calls %}You may call: {% for tool in tools %}{{ tool.name }} {% endfor %}{% endif %}"
    )

    ALWAYS = (
        "{% for message in messages %}{% if message.role == 'system' %}{{ message.content }}"
        "{% if tool_calls %}Functions: {% for tool in tools %}{{ tool.name }}{% endfor %}{% endif %}"
        "{% endif %}{{ message.content }}{% endfor %}"
    )

    NO_TOOLS = (
        "{% for message in messages %}{{ message.content }}{% if verbose %}(explain your steps){% endif %}{% endfor %}"
    )

    DOCS = "{% for doc in documents %}{% if use_tools %}Use the functions below.{% endif %}{{ doc }}{% endfor %}"


    def after(llama, messages, tools):
        r = jinja2.Template(AFTER)
        first = llama.create_completion(prompt=r.render(messages=messages, tools=tools, tool_calls=True))
        return first, llama.create_completion(prompt=r.render(messages=messages, tools=[], tool_calls=None))


    def always(llama, messages, tools):
        r = jinja2.Template(ALWAYS)
        first = llama.create_completion(prompt=r.render(messages=messages, tools=tools, tool_calls=True))
        return first, llama.create_completion(prompt=r.render(messages=messages, tools=tools, tool_calls=True))


    def no_tools(llama, messages):
        r = jinja2.Template(NO_TOOLS)
        return (llama.create_completion(prompt=r.render(messages=messages, verbose=True)),
                llama.create_completion(prompt=r.render(messages=messages, verbose=False)))


    def docs(llama, documents):
        r = jinja2.Template(DOCS)
        return (llama.create_completion(prompt=r.render(documents=documents, use_tools=True)),
                llama.create_completion(prompt=r.render(documents=documents, use_tools=False)))
'''


def test_a_tool_block_rendered_on_and_off_before_the_conversation_is_info_where_its_section_is(tmp_path):
    # (the `{% if tool_calls %}` of the system message; the renders that turn it on, then off, related)
    assert _found(tmp_path, FOUND) == [("PRM204", "info", 8, 6, [25, 23, 28])]


def test_a_block_after_the_conversation_a_flag_always_on_and_other_flags_are_not_reported(tmp_path):
    assert _found(tmp_path, CLEAN) == []
