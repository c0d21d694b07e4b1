"""promptlint/python/flow/narrowed.py: a field read off an instance known only by its base class
(`config: StrategyConfig`) is the field of the one subclass of the tree that declares it."""
from __future__ import annotations

from analysis_support import probe

NARROWED = """
    from pydantic import BaseModel, Field


    class StrategyConfig(BaseModel):
        name: str = "strategy"


    class RefineConfig(StrategyConfig):
        refinement_template: str = Field(default="Refine the plan: {current_plan}")


    class JudgeConfig(StrategyConfig):
        judge_template: str = Field(default="Judge the plan: {current_plan}")


    class OtherJudgeConfig(StrategyConfig):
        judge_template: str = Field(default="Judge it otherwise: {current_plan}")


    class Base:
        def __init__(self, config: StrategyConfig) -> None:
            self.config: StrategyConfig = config


    class Editor(Base):
        def refine(self):
            probe(self.config.refinement_template)
            probe(self.config.judge_template)
            probe(self.config.missing_template)
            probe(self.config.name)
"""


def test_a_field_only_one_subclass_declares_reads_as_it_does_there(tmp_path):
    assert probe(tmp_path, NARROWED, index=0).described == [("text", "Refine the plan: {current_plan}")]


def test_a_field_several_subclasses_or_none_declare_is_not_narrowed(tmp_path):
    for index in (1, 2):
        assert not any(d[0] == "text" for d in probe(tmp_path, NARROWED, index=index).described)


def test_a_field_of_the_annotated_class_itself_is_read_there(tmp_path):
    assert probe(tmp_path, NARROWED, index=3).described == [("text", "strategy")]
