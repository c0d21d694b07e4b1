"""promptlint/python/sdks/langchain.py: `ChatPromptTemplate.from_messages` / `from_template`,
chains invoked with values (`prompt | llm`, `.partial`), chat models invoked with messages,
`bind_tools`, LangGraph / LangChain agents; and `invoke` / `bind_tools` / agents that send no
prompt of their own."""
from __future__ import annotations

from analysis_support import code, layouts, parts, pos, sent

from promptlint.model import Kind
from promptlint.python.prefilter import might_hold_prompt

CHAIN = """
    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model="gpt-4o-mini", temperature=0)

    prompt = ChatPromptTemplate.from_messages([
        ("system", "You answer questions about {product}."),
        MessagesPlaceholder("history"),
        ("human", "{question}"),
    ])
    chain = prompt | llm


    def ask(question, history):
        return chain.invoke({"product": "Acme CRM", "question": question, "history": history})
"""


def test_prompt_template_messages_with_template_variables(tmp_path):
    assert might_hold_prompt(code(CHAIN))
    template = sent(layouts(tmp_path, CHAIN))[0]
    assert (template.provider, template.api, template.model) == ("langchain", "ChatPromptTemplate", None)
    assert parts(template) == [
        ("system", [("text", "You answer questions about "), ("template-variable", "unknown", "{product}"),
                    ("text", ".")]),
        ("history", [("history", "unknown", "MessagesPlaceholder")]),
        ("user", [("user-input", "per-request", "{question}")]),
    ]
    assert template.newest_user == 2
    assert template.parts[0].segments[1].span.start == pos(CHAIN, "{product}")


def test_chain_invoked_with_values_binds_the_template_and_supersedes_it(tmp_path):
    template, invoked = sent(layouts(tmp_path, CHAIN))
    assert (invoked.provider, invoked.api, invoked.model) == ("openai", "langchain.invoke", "gpt-4o-mini")
    assert parts(invoked) == [
        ("system", [("text", "You answer questions about "), ("text", "Acme CRM"), ("text", ".")]),
        ("history", [("history", "unknown", "MessagesPlaceholder")]),
        ("user", [("user-input", "per-request", "question")]),
    ]
    assert invoked.parts[0].segments[1].span.start == pos(CHAIN, "Acme CRM")  # the bound value, where written
    assert invoked.newest_user == 2
    assert invoked.supersedes == [template.id]


def test_partial_values_and_stream_through_a_chain(tmp_path):
    found = sent(layouts(tmp_path, """
        from langchain_anthropic import ChatAnthropic
        from langchain_core.prompts import ChatPromptTemplate

        prompt = ChatPromptTemplate.from_messages([("system", "Style: {style}."), ("user", "{text}")])


        def rewrite(text):
            chain = prompt.partial(style="formal") | ChatAnthropic(model="claude-3-5-haiku-latest")
            return chain.stream({"text": text})
    """))
    template, layout = found
    assert template.id in layout.supersedes
    assert (layout.provider, layout.api, layout.model) == ("anthropic", "langchain.invoke", "claude-3-5-haiku-latest")
    assert parts(layout) == [("system", [("text", "Style: "), ("text", "formal"), ("text", ".")]),
                             ("user", [("unknown", "per-request", "text")])]


MODELS = """
    from langchain_anthropic import ChatAnthropic
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(model="gpt-4o-mini")


    def direct(question):
        return llm.invoke([SystemMessage(content="You are terse."), HumanMessage(content=question)])


    def tools_bound(search_tool):
        model = ChatAnthropic(model="claude-3-5-haiku-latest").bind_tools([search_tool])
        return model.invoke("What is new?")
"""


def test_chat_model_invoked_with_messages_or_a_string(tmp_path):
    direct, bound, invoked = sent(layouts(tmp_path, MODELS))
    assert (direct.provider, direct.api, direct.model) == ("openai", "langchain.invoke", "gpt-4o-mini")
    assert parts(direct) == [("system", [("text", "You are terse.")]),
                             ("user", [("user-input", "per-request", "question")])]
    assert direct.newest_user == 1
    assert (invoked.provider, invoked.model) == ("anthropic", "claude-3-5-haiku-latest")  # through bind_tools
    assert parts(invoked) == [("user", [("text", "What is new?")])]
    assert invoked.newest_user == 0


APP_MESSAGES = {"app/messages.py": """
    from pydantic import BaseModel


    class SystemMessage(BaseModel):
        content: str


    class UserMessage(BaseModel):
        content: str
"""}


def test_a_model_not_known_invoked_with_message_objects_sends_them(tmp_path):
    # an application's own chat client (a parameter) invoked with a list of message objects of its
    # own classes: the list written at the call is the evidence of a chat request
    found = layouts(tmp_path, """
        from app.messages import SystemMessage, UserMessage

        RULES = "Extract what the query asks for."


        async def extract(llm, query: str, page: str):
            return await llm.ainvoke([SystemMessage(content=RULES), UserMessage(content=f"{query}: {page}")])
    """, APP_MESSAGES)
    call, = sent(found)
    assert (call.provider, call.api, call.model) == (None, "chat.invoke", None)
    assert parts(call) == [("system", [("text", "Extract what the query asks for.")]),
                           ("user", [("user-input", "per-request", "query"), ("text", ": "),
                                     ("unknown", "per-request", "page")])]
    assert call.newest_user == 1


def test_a_message_chosen_by_a_condition_is_one_message_of_its_role(tmp_path):
    found = layouts(tmp_path, """
        from app.messages import SystemMessage, UserMessage


        async def extract(llm, query: str, image: str | None):
            message = UserMessage(content=[query, image]) if image else UserMessage(content=query)
            return await llm.ainvoke([SystemMessage(content="Answer the query."), message])
    """, APP_MESSAGES)
    call, = sent(found)
    assert [p.role for p in call.parts] == ["system", "user"]
    assert call.newest_user == 1


def test_a_model_not_known_invoked_with_other_values_sends_nothing(tmp_path):
    found = layouts(tmp_path, """
        from app.messages import SystemMessage, UserMessage


        def other(llm, retriever, question, rows, messages):
            retriever.invoke(question)  # a string: any runnable takes one
            retriever.invoke([question, "more"])  # not message objects
            llm.invoke([SystemMessage(content="A."), question])  # one item is not a message object
            llm.invoke(messages)  # a list not written at the call
            llm.invoke([])
    """, APP_MESSAGES)
    assert sent(found) == []


def test_bind_tools_records_the_tools_of_the_chat_model(tmp_path):
    _, bound, _ = sent(layouts(tmp_path, MODELS))
    assert (bound.provider, bound.api, bound.model) == ("anthropic", "langchain.bind_tools", "claude-3-5-haiku-latest")
    assert [p.role for p in bound.parts] == ["tools"]
    seg, = bound.parts[0].segments
    assert (seg.kind, seg.expr, seg.evidence) == (Kind.UNKNOWN, "[search_tool]", "tool definitions not known statically")
    assert bound.site.start == pos(MODELS, "ChatAnthropic(")


AGENTS = """
    from datetime import datetime

    from langchain.agents import create_agent
    from langchain_anthropic import ChatAnthropic
    from langgraph.prebuilt import create_react_agent


    def lookup(city: str) -> str:
        \"\"\"Weather of a city.\"\"\"
        return city


    graph = create_react_agent(model=ChatAnthropic(model="claude-sonnet-4-5"), tools=[lookup],
                               prompt=f"You help on {datetime.now():%A}.")
    positional = create_react_agent(ChatAnthropic(model="claude-sonnet-4-5"), [lookup], prompt="You help.")
    v1 = create_agent("openai:gpt-4.1", [lookup], system_prompt="You plan trips.")
"""


def test_agent_prompt_then_the_agent_state_messages(tmp_path):
    graph = sent(layouts(tmp_path, AGENTS))[0]
    assert (graph.provider, graph.api, graph.model) == ("anthropic", "langgraph.create_react_agent", "claude-sonnet-4-5")
    assert [p.role for p in graph.parts] == ["tools", "system", "history"]
    assert parts(graph)[1:] == [
        ("system", [("text", "You help on "), ("timestamp", "per-request", "datetime.now()"), ("text", ".")]),
        ("history", [("history", "unknown", "agent state messages")]),
    ]
    assert graph.parts[1].segments[1].precision.value == "day"  # `%A`: the day of the week
    assert '"name": "lookup"' in graph.parts[0].segments[0].text  # a tool function's schema


def test_agent_with_the_model_and_tools_passed_by_position(tmp_path):
    _, positional, v1 = sent(layouts(tmp_path, AGENTS))
    # `create_react_agent(model, tools, prompt=...)`: the model and tools are positional parameters
    assert (positional.provider, positional.model) == ("anthropic", "claude-sonnet-4-5")
    assert [p.role for p in positional.parts] == ["tools", "system", "history"]
    assert '"name": "lookup"' in positional.parts[0].segments[0].text
    assert (v1.provider, v1.model) == ("openai", "gpt-4.1")
    assert [p.role for p in v1.parts] == ["tools", "system", "history"]
    assert parts(v1)[1] == ("system", [("text", "You plan trips.")])


def test_look_alikes_are_not_langchain_prompts(tmp_path):
    found = layouts(tmp_path, """
        from langchain_core.prompts import PromptTemplate
        from langchain_openai import ChatOpenAI
        from langgraph.prebuilt import create_react_agent

        from .forms import Templates

        llm = ChatOpenAI(model="gpt-4o")


        def other(retriever, question, tools, registry):
            retriever.invoke(question)  # not a chat model
            create_react_agent(llm, tools)  # no prompt of its own
            registry.bind_tools(tools)  # not a chat model
            llm.invoke  # not called
            Templates.from_messages([("system", "Not LangChain.")])
            Templates.from_template("Not LangChain either: {x}")
            PromptTemplate.from_template("A mustache template: {{ x }}", template_format="mustache")  # not read
    """)
    assert sent(found) == []


def test_a_jinja_string_template_is_read_as_jinja(tmp_path):
    # its placeholders are filled per call, but for a partial variable (its value is not known here);
    # a section's placeholders stay readable on the section (`Segment.inner`)
    (call,) = sent(layouts(tmp_path, """
        from langchain_core.prompts import PromptTemplate


        def build(tone):
            return PromptTemplate.from_template(
                "Answer in a {{ tone }} tone.{% if notes %} Notes: {{ notes }}{% endif %} Topic: {{ topic }}",
                template_format="jinja2", partial_variables={"tone": tone})
    """))
    (role, segs), = parts(call)
    assert role == "user"
    assert segs == [("text", "Answer in a "), ("template-variable", "unknown", "tone"), ("text", " tone."),
                    ("conditional", "unknown", "if notes"), ("text", " Topic: "),
                    ("template-variable", "per-request", "topic")]
    section = call.parts[0].segments[3]
    assert [(s.expr, s.span.start.row) for s in section.inner] == [("notes", 6)]


RULES = "Answer in one short paragraph. Never invent facts that are not in the page. " * 3
STRING_TEMPLATE = {"prompts.py": f"""
TEMPLATE_ANALYSIS = \"\"\"
Current code:
{{generated_code}}

Page:
{{html_code}}

{RULES}
\"\"\"
"""}


def test_string_prompt_template_with_partial_variables_is_a_user_message(tmp_path):
    # `PromptTemplate(template=..., input_variables=[...], partial_variables={...})` piped into a
    # model: the template text from another module, its placeholders where they are written
    layout = sent(layouts(tmp_path, """
        from langchain_core.prompts import PromptTemplate
        from .prompts import TEMPLATE_ANALYSIS


        def analyse(state, llm):
            prompt = PromptTemplate(
                template=TEMPLATE_ANALYSIS,
                input_variables=["generated_code"],
                partial_variables={"html_code": state["html"]},
            )
            return (prompt | llm).invoke({"generated_code": state["code"]})
    """, STRING_TEMPLATE))[0]
    assert (layout.provider, layout.api) == ("langchain", "PromptTemplate")
    (role, segments), = parts(layout)
    assert role == "user"
    dynamic = [s for s in segments if s[0] != "text"]
    # the input variable is filled per call; the partial value is what the call was given
    assert dynamic == [("template-variable", "per-request", "{generated_code}"),
                       ("unknown", "per-request", 'state["html"]')]
    first = layout.parts[0].segments[1]
    assert first.span.filename.endswith("prompts.py") and first.span.start.row == 3


def test_from_template_and_text_joined_before_the_template(tmp_path):
    # `PromptTemplate.from_template(extra + TEMPLATE)`: the joined text keeps its own volatility
    layout = sent(layouts(tmp_path, """
        from langchain_core.prompts import PromptTemplate
        from .prompts import TEMPLATE_ANALYSIS


        class Node:
            def __init__(self, node_config):
                self.extra = node_config.get("extra")

            def run(self, llm):
                prompt = PromptTemplate.from_template(self.extra + TEMPLATE_ANALYSIS)
                return (prompt | llm).invoke({})
    """, STRING_TEMPLATE))[0]
    (role, segments), = parts(layout)
    assert [s for s in segments if s[0] != "text"] == [
        ("unknown", "unknown", 'node_config.get("extra")'),
        ("template-variable", "per-request", "{generated_code}"),
        ("template-variable", "per-request", "{html_code}")]


def test_a_string_template_kept_at_module_level_is_filled_where_it_is_used(tmp_path):
    # `PERSONA = PromptTemplate.from_template(...)`: a template object, not one call's prompt
    found = layouts(tmp_path, """
        from langchain_core.prompts import PromptTemplate

        PERSONA = PromptTemplate.from_template("You are {name}. " + "Be precise and kind in every answer. " * 30)
    """)
    assert [lt for lt in found if lt.api == "PromptTemplate"] == []


def test_a_partial_value_kept_on_the_instance_is_not_per_call(tmp_path):
    layout = sent(layouts(tmp_path, """
        from langchain_core.prompts import PromptTemplate
        from .prompts import TEMPLATE_ANALYSIS


        class Node:
            def run(self, state, llm):
                prompt = PromptTemplate(template=TEMPLATE_ANALYSIS, input_variables=["generated_code"],
                                        partial_variables={"html_code": self.library})
                return (prompt | llm).invoke({"generated_code": state["code"]})
    """, STRING_TEMPLATE))[0]
    (role, segments), = parts(layout)
    assert [s[:2] for s in segments if s[0] != "text"] == [("template-variable", "per-request"),
                                                            ("unknown", "unknown")]


JINJA_LOOP_OVER_A_PARTIAL = '''
from langchain_core.prompts import PromptTemplate

TOOLS = ["search", "fetch"]


def answer(q):
    prompt = PromptTemplate(template="Tools:{% for t in tools %} {{ t }}{% endfor %}. Question: {{ q }}",
                            template_format="jinja2", partial_variables={"tools": TOOLS})
    return prompt.format(q=q)
'''


def test_a_jinja_loop_over_a_partial_variable_is_not_new_on_each_call(tmp_path):
    """`{% for t in tools %}` iterates `tools`, fixed when the template is built: not per call."""
    [layout] = [lt for lt in layouts(tmp_path, JINJA_LOOP_OVER_A_PARTIAL) if lt.api == "PromptTemplate"]
    loops = [s for p in layout.parts for s in p.segments if (s.expr or "").startswith("for t in tools")]
    assert loops and all(s.volatility.value != "per-request" for s in loops)


LEGACY_REACT = """
    from langchain.agents import AgentExecutor, create_react_agent
    from langchain_core.prompts import PromptTemplate
    from langchain_openai import ChatOpenAI

    TEMPLATE = '''Answer the question as best you can. You have these tools:

    {tools}

    Use the format: Thought, then Action (one of [{tool_names}]), then Observation.

    Question: {input}
    Thought:{agent_scratchpad}'''


    def build(tools):
        prompt = PromptTemplate.from_template(TEMPLATE)
        agent = create_react_agent(llm=ChatOpenAI(model="gpt-4o"), tools=tools, prompt=prompt)
        return AgentExecutor(agent=agent, tools=tools)
"""


def test_legacy_react_agent_is_its_text_template_not_a_system_prompt_and_history(tmp_path):
    # `langchain.agents.create_react_agent`: one ReAct text prompt; only the template is laid out
    found = layouts(tmp_path, LEGACY_REACT)
    assert [layout.api for layout in found] == ["PromptTemplate"]
    roles_and_kinds = [(p.role, [(s.kind.value, s.volatility.value) for s in p.segments if not s.is_static])
                       for p in found[0].parts]
    # `{tools}` and `{tool_names}`: the agent's tools, named so (Policy 7: what the agent is set up with)
    assert roles_and_kinds == [("user", [("unknown", "stable")] * 2 + [("template-variable", "per-request")] * 2)]


def test_langgraph_and_langchain_1_agents_keep_their_system_prompt_and_history(tmp_path):
    # the same call imported from LangGraph is the agent with a system prompt and the state's messages
    graph = sent(layouts(tmp_path, LEGACY_REACT.replace("from langchain.agents import AgentExecutor, create_react_agent",
                                                        "from langgraph.prebuilt import create_react_agent")))
    assert [layout.api for layout in graph] == ["PromptTemplate", "langgraph.create_react_agent"]
    assert [p.role for p in graph[1].parts][-1] == "history"


PARTIAL_ROUTED = """
    from datetime import datetime

    from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
    from langchain_core.runnables import RunnableBranch

    SYSTEM = "You plan with these tools: {tools}. The time now is: {now}. Answer with a numbered plan."


    class Planner:
        def __init__(self, llm, tools):
            self.llm = llm
            self.tools = tools

        def build(self):
            base = ChatPromptTemplate.from_messages([("system", SYSTEM), MessagesPlaceholder("messages")])
            planner = base.partial(tools=", ".join(self.tools), now=datetime.now().strftime("%H:%M:%S"))
            return RunnableBranch((lambda s: False, planner), planner) | self.llm
"""


def test_a_partial_of_a_chat_template_binds_its_values_where_no_invoke_is_seen(tmp_path):
    # the chain is returned (the call that invokes it is not in view): what `.partial` binds is in
    # every request made of it; the template's own layout is superseded
    template, bound = sent(layouts(tmp_path, PARTIAL_ROUTED))
    assert bound.api == "ChatPromptTemplate.partial" and template.id in bound.supersedes
    system = parts(bound)[0][1]
    assert ("timestamp", "per-request", 'datetime.now().strftime("%H:%M:%S")') in system
    assert parts(bound)[1][0] == "history"


def test_a_partial_of_something_else_is_no_prompt(tmp_path):
    found = layouts(tmp_path, """
        from functools import partial
        from langchain_core.prompts import ChatPromptTemplate

        def make(fn, now):
            return partial(fn, now=now)
    """)
    assert not any(lt.api == "ChatPromptTemplate.partial" for lt in found)


def test_a_partial_in_the_function_that_builds_the_template_is_superseded_by_its_invoke(tmp_path):
    template, bound, invoked = sent(layouts(tmp_path, """
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_openai import ChatOpenAI

        def answer(question, tools):
            base = ChatPromptTemplate.from_messages([("system", "Tools: {tools}."), ("user", "{question}")])
            prompt = base.partial(tools=tools)
            return (prompt | ChatOpenAI(model="gpt-4.1")).invoke({"question": question})
    """))
    assert bound.api == "ChatPromptTemplate.partial" and bound.id in invoked.supersedes
    assert template.id in bound.supersedes and template.id in invoked.supersedes
