"""PRM204: the messages of an agent's run (an agent the class builds with `tools=`) re-sent by a
request of the method's own with no tools (a structured-output follow-up): the run's requests
carried the tool definitions, so this one shares no prefix with them and reads the whole
conversation uncached. Info, at the request. Clean: a follow-up that sends the agent's tools,
one that sends only the final answer, an agent built without tools, and options of keys not read."""
from __future__ import annotations

from analysis_support import write

from promptlint import api


def _found(tmp_path, source: str):
    write(tmp_path, {"agent.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in report.diagnostics if d.code == "PRM204"]


HEAD = '''
    from typing import Any

    from langgraph.prebuilt import create_react_agent
    from litellm import acompletion


    def to_dict(m):
        return {"role": m.type, "content": m.content}

'''

FOUND = HEAD + '''
    class Runner:
        def __init__(self, config, tools):
            self.config = config
            self._agent = create_react_agent(model=config.model, tools=tools, prompt=config.instructions)

        async def run(self, prompt: str):
            result = await self._agent.ainvoke({"messages": [("user", prompt)]})
            if self.config.output_type:
                params: dict[str, Any] = {}
                params["model"] = self.config.model_id
                previous = [to_dict(m) for m in result["messages"]]
                params["messages"] = [*previous, {"role": "user", "content": "Answer as JSON."}]
                params["response_format"] = self.config.output_type
                return await self.call_model(**params)
            return result["messages"][-1].content

        async def summary(self, prompt: str):
            result = await self._agent.ainvoke({"messages": [("user", prompt)]})
            return await acompletion(model=self.config.model_id,
                                     messages=[*map(to_dict, result["messages"]), {"role": "user", "content": "Sum up."}])

        async def call_model(self, **kwargs: Any):
            return await acompletion(**kwargs)
'''

CLEAN = HEAD + '''
    class WithTools:
        def __init__(self, config, tools):
            self.config = config
            self._tools = tools
            self._agent = create_react_agent(model=config.model, tools=tools)

        async def run(self, prompt: str):
            result = await self._agent.ainvoke({"messages": [("user", prompt)]})
            previous = [to_dict(m) for m in result["messages"]]
            return await acompletion(model=self.config.model_id, messages=previous, tools=self._tools,
                                     tool_choice="none")

        async def answer_only(self, prompt: str):
            result = await self._agent.ainvoke({"messages": [("user", prompt)]})
            last = result["messages"][-1].content
            return await acompletion(model=self.config.model_id, messages=[{"role": "user", "content": "Fix: " + last}])

        async def configured(self, prompt: str):
            result = await self._agent.ainvoke({"messages": [("user", prompt)]})
            params = self.config.model_args or {}
            params["messages"] = [to_dict(m) for m in result["messages"]]
            return await acompletion(**params)


    class NoTools:
        def __init__(self, config):
            self.config = config
            self._agent = create_react_agent(model=config.model, tools=[])

        async def run(self, prompt: str):
            result = await self._agent.ainvoke({"messages": [("user", prompt)]})
            return await acompletion(model=self.config.model_id, messages=[to_dict(m) for m in result["messages"]])
'''


def test_a_run_of_an_agent_built_with_tools_re_sent_without_them_is_info_at_the_request(tmp_path):
    # (through a method handed the options as `**params`, and a direct call; the run and the agent related)
    assert _found(tmp_path, FOUND) == [("PRM204", "info", 24, [17, 14]),
                                       ("PRM204", "info", 29, [28, 14])]


def test_tools_sent_the_final_answer_alone_options_not_read_and_an_agent_with_no_tools_are_not_reported(tmp_path):
    assert _found(tmp_path, CLEAN) == []


MODULE = HEAD + '''
    from openai import OpenAI

    client = OpenAI()
    agent = create_react_agent("openai:gpt-4.1", tools=[to_dict])


    def answer(question):
        state = agent.invoke({"messages": [("user", question)]})
        history = [to_dict(m) for m in state["messages"]]
        return client.chat.completions.create(model="gpt-4.1", messages=history + [{"role": "user", "content": "JSON"}],
                                              response_format={"type": "json_object"})


    def answer_with_tools(question):
        local = create_react_agent("openai:gpt-4.1", tools=[to_dict])
        state = local.invoke({"messages": [("user", question)]})
        return client.chat.completions.create(model="gpt-4.1", messages=[to_dict(m) for m in state["messages"]],
                                              tools=[{"type": "function", "function": {"name": "to_dict"}}])
'''


def test_a_module_level_agent_s_run_re_sent_without_tools_is_info_at_the_request(tmp_path):
    assert _found(tmp_path, MODULE) == [("PRM204", "info", 20, [18, 14])]
