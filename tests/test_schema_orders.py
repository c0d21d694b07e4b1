"""promptlint/python/schema_orders.py: one tool's (or structured output's) schema written in the
code in an unstable order (a pydantic `Field`'s description or enum, a JSON schema's `enum` /
`required`, a tool class's `self.description`) outside any tools list a send site reads: PRM203,
info, where the order enters the schema; and the shapes that keep a schema in a fixed order."""
from __future__ import annotations

from promptlint import api

from analysis_support import write

FIELD_DESCRIPTION = """
    import re
    import typing

    from pydantic import BaseModel, Field


    def extraction_schema(original_prompt: str):
        required_variables = set(re.findall(r"[{](.+?)[}]", original_prompt))
        variables_str = ", ".join(f"<{var}>" for var in required_variables)
        description = f" The prompt holds these variables: {variables_str}."

        class Output(BaseModel):
            improved_prompt: typing.Optional[str] = Field(description="The updated prompt." + description)

        return Output
"""

ENUM_TWICE = """
    from pydantic import Field


    def enum_field(enum_values, description, openai):
        parsed = list({el[1] for el in enum_values})
        if openai:
            return Field(..., enum=parsed, description=f"{description}. Options are {parsed}")
        return Field(..., description=f"{description}. Options are {parsed}")
"""

ANNOTATED_TOOL = """
    from typing import Annotated

    from pydantic import Field


    class Group:
        def __init__(self):
            self._visited = set[str]()

        def visit(self, task_id):
            self._visited.add(task_id)

        def out_of_scope(self, active):
            task_ids = self._visited.copy()
            task_ids.discard(active)

            def regress(  # its parameter has the name of the set its annotation reads from the method
                task_ids: Annotated[list[str], Field(json_schema_extra={"items": {"type": "string", "enum": list(task_ids)}})],
            ) -> None:
                return None

            return regress
"""

REQUIRED_ITEM = """
    def strict(schema: dict) -> dict:
        if schema.get("type") == "object":
            required_fields = set(schema.get("required", []))
            for key in schema.get("properties", {}):
                required_fields.add(key)
            schema["required"] = list(required_fields)
        return schema
"""

TOOL_CLASS = """
    from crewai.tools import BaseTool


    class SearchTool(BaseTool):
        name: str = "search"
        description: str = "Search tables"

        def init_tables(self, tables, cursor):
            existing = {row[0] for row in cursor.fetchall()}
            if not tables:
                tables = list(existing)
            defs = []
            for table in tables:
                defs.append(f"{table}(...)")
            self.description = f"A tool that searches the {', '.join(defs)} table(s)."
"""


def _check(tmp_path, source: str):
    write(tmp_path, {"schemas.py": source})
    report = api.check([tmp_path], api.Settings(), jobs=1)
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related], d.message)
            for d in report.diagnostics]


def test_a_field_description_joined_from_a_set_is_reported_where_the_set_is_iterated(tmp_path):
    found = _check(tmp_path, FIELD_DESCRIPTION)
    assert [f[:4] for f in found] == [("PRM203", "info", 9, [8])]
    assert found[0][4].startswith("Tool schema ordered by `required_variables`")


def test_a_set_written_into_two_fields_is_one_finding_at_the_field_that_takes_it(tmp_path):
    assert [f[:4] for f in _check(tmp_path, ENUM_TWICE)] == [("PRM203", "info", 7, [5])]


def test_an_enum_of_a_tool_parameter_from_a_typed_set_copy(tmp_path):
    # `set[str]()` is a set as `set()` is; its `.copy()` too
    assert [f[:4] for f in _check(tmp_path, ANNOTATED_TOOL)] == [("PRM203", "info", 18, [14])]


def test_a_required_list_written_into_a_dict_named_schema(tmp_path):
    assert [f[:4] for f in _check(tmp_path, REQUIRED_ITEM)] == [("PRM203", "info", 6, [3])]


def test_a_tool_class_description_built_from_a_set(tmp_path):
    found = _check(tmp_path, TOOL_CLASS)
    assert [f[:3] for f in found] == [("PRM203", "info", 13)]


def test_sorted_orders_sets_of_ints_and_dict_keys_keep_a_schema_stable(tmp_path):
    source = """
    from pydantic import Field


    def sorted_enum(values):
        names = {v.name for v in values}
        return Field(enum=sorted(names), description=f"One of {', '.join(sorted(names))}")


    def ints():
        codes = {1, 2, 3}
        return {"type": "integer", "enum": list(codes)}


    def keyed(values):
        return {"type": "string", "enum": list(dict.fromkeys(values))}
    """
    assert _check(tmp_path, source) == []


def test_a_set_for_membership_a_log_line_or_a_dict_not_a_schema_is_no_schema_order(tmp_path):
    source = """
    import logging

    from crewai.tools import BaseTool
    from pydantic import Field

    log = logging.getLogger(__name__)


    def membership(values, allowed):
        seen = set(values)
        return {"type": "string", "enum": [a for a in allowed if a in seen]}


    def logged(values):
        s = set(values)
        log.info("fields: %s", ", ".join(s))
        return {"type": "object", "required": ["a", "b"]}


    def not_schema(values):
        config = {}
        config["required"] = list(set(values))
        return config


    class LabelsDTO:
        labels: set[str] = Field(description="The labels", examples=[{"vip", "priority"}])  # API docs


    class Runner:
        def init(self, tables):
            self.description = ", ".join(set(tables))  # not a tool class: no tool definition
    """
    assert _check(tmp_path, source) == []
