"""The rule registry: the one place a rule is listed, in code order (docs/architecture.md "Where to add things")."""
from __future__ import annotations

from .base import Rule

ALL_RULES: list[type[Rule]] = []


def _register() -> None:
    from .prm001_syntax_error import SyntaxErrorRule
    from .prm101_dynamic_before_static import DynamicBeforeStaticRule
    from .prm102_timestamp_in_prefix import TimestampInPrefixRule
    from .prm103_unique_id_in_prefix import UniqueIdInPrefixRule
    from .prm104_conditional_prefix import ConditionalPrefixRule
    from .prm105_history_window import HistoryWindowRule
    from .prm106_question_before_document import QuestionBeforeDocumentRule
    from .prm107_context_before_history import ContextBeforeHistoryRule
    from .prm201_unsorted_json_dumps import UnsortedJsonDumpsRule
    from .prm202_unordered_iteration_in_prompt import UnorderedIterationInPromptRule
    from .prm203_unstable_tool_order import UnstableToolOrderRule
    from .prm204_tools_changed_mid_conversation import ToolsChangedMidConversationRule
    from .prm205_model_switched_mid_conversation import ModelSwitchedMidConversationRule

    ALL_RULES.extend([
        SyntaxErrorRule,
        DynamicBeforeStaticRule,
        TimestampInPrefixRule,
        UniqueIdInPrefixRule,
        ConditionalPrefixRule,
        HistoryWindowRule,
        QuestionBeforeDocumentRule,
        ContextBeforeHistoryRule,
        UnsortedJsonDumpsRule,
        UnorderedIterationInPromptRule,
        UnstableToolOrderRule,
        ToolsChangedMidConversationRule,
        ModelSwitchedMidConversationRule,
        # further rules are registered below, in code order
    ])
    from .prm301_prefix_below_minimum import PrefixBelowMinimumRule
    from .prm302_missing_cache_breakpoint import MissingCacheBreakpointRule
    from .prm303_breakpoint_below_minimum import BreakpointBelowMinimumRule
    from .prm304_too_many_breakpoints import TooManyBreakpointsRule
    from .prm305_breakpoint_after_dynamic_content import BreakpointAfterDynamicContentRule
    from .prm306_unstable_cache_key import UnstableCacheKeyRule
    ALL_RULES.extend([PrefixBelowMinimumRule, MissingCacheBreakpointRule, BreakpointBelowMinimumRule,
                      TooManyBreakpointsRule, BreakpointAfterDynamicContentRule, UnstableCacheKeyRule])
    from .prm401_semantic_cache_without_ttl import SemanticCacheWithoutTtlRule
    from .prm402_semantic_threshold_too_loose import SemanticThresholdTooLooseRule
    ALL_RULES.extend([SemanticCacheWithoutTtlRule, SemanticThresholdTooLooseRule])
    from .prm901_unused_suppression import UnusedSuppressionRule
    ALL_RULES.append(UnusedSuppressionRule)
    ALL_RULES.sort(key=lambda r: r.code)


def rule_by_code(code: str) -> type[Rule] | None:
    """The rule class with this code (`PRM102`) or name (`timestamp-in-prefix`), or None."""
    for rule in ALL_RULES:
        if code.upper() == rule.code or code == rule.name:
            return rule
    return None


_register()
