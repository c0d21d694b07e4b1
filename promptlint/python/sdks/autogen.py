"""AutoGen: `AssistantAgent(name, model_client, tools=[...], system_message=...)` of AgentChat
(`autogen_agentchat.agents`), and of AutoGen 0.2 / AG2 (`autogen.AssistantAgent(name,
system_message=..., llm_config=...)`), drawn as the request the agent sends when it is run: its
tools, its system message, then the task it is given, the newest user message.

Facts, from AutoGen's documentation: `AssistantAgent(name, model_client, *, tools=None, ...,
system_message='You are a helpful AI assistant. ...')`, "a built-in agent that uses a language
model and has the ability to use tools"; "The agent maintains its state between calls ... Do not
pass the entire conversation history to the agent on each call"
(https://microsoft.github.io/autogen/0.4.0.dev13/reference/python/autogen_agentchat.agents.html);
"system_message Optional[str] - System message for the ChatCompletion inference"
(https://microsoft.github.io/FLAML/docs/reference/autogen/agentchat/assistant_agent, AutoGen 0.2's
agent). The system message is set when the agent is built, so a value in it is the same for
every run of that instance, and the conversation the agent keeps is that instance's: none of the
application's is drawn after it."""
from __future__ import annotations

from .base import Sdk, Shape, agent_request, agent_value, client_model, framework_call

_ROOTS = ("autogen_agentchat", "autogen")
#: AgentChat's model clients of OpenAI's API (autogen_ext.models.openai): automatic caching.
_OPENAI_CLIENTS = {"OpenAIChatCompletionClient": "openai", "AzureOpenAIChatCompletionClient": "azure-openai"}


def agent(b, call) -> None:
    if not framework_call(b, call, _ROOTS) or not call.has("system_message"):
        return
    frame = call.frame
    node = call.kwargs["system_message"]
    system = [b.part("system", agent_value(b, node, frame), frame, b.span_of(node))]
    provider, model = client_model(b, call.arg(1, "model_client"), frame, _OPENAI_CLIENTS)
    tools = b.tools(call.kwargs.get("tools"), frame)
    agent_request(b, call, "autogen.AssistantAgent", provider, model, tools, system, "the task the agent is run with")


SDK = Sdk(
    name="autogen",
    imports=_ROOTS,
    hints=("AssistantAgent",),
    shapes=(Shape("AssistantAgent", ("AssistantAgent",), lambda c: c.qual.endswith(".AssistantAgent"), agent),),
)
