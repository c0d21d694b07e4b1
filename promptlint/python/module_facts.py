"""Module facts for module rules (rules read them from `module.facts`): conversations cut, trimmed,
rewritten or re-rendered between requests, breakpoints only some models get, ids and times made per
conversion, head messages put on some calls only. Each gatherer runs only when the module's text can
hold its shape (a cheap substring test first). States facts; the rules judge them.
"""
from __future__ import annotations

from . import (added_marks, bedrock_models, cache_flags, compat_presets, context_caches, converted_ids, delegated_cuts, deque_windows, dropped_marks, field_hoists, flattened_marks,
               format_switches, front_inserts, gated_markers, handed_windows, head_marks, history_ids, history_loads,
               history_renders,
               history_trims, inplace_merges, inplace_rewrites, kept_callers, kept_keys, kept_marks, kept_removals, kept_rewrites,
               kind_windows, langchain_models, library_blocks, library_windows, marker_blocks, memory_windows, merged_marks,
               misindexed_marks, string_marks,
               newest_first, newest_marks,
               newest_queries, newest_remakes, opt_in_markers, pydantic_ai_models, rebound_windows, rebuilt_blocks, render_ids, replay_strips, role_stamps,
               message_expiry, older_edits, sent_rewrites, shared_prompts, spread_marks, stored_fields,
               shaped_windows, stored_cuts, strategy_cuts, walked_edits, summary_heads, summary_rewrites, system_hoists, thinking_budgets, unordered_reads, unseen_templates,
               window_calls)


def gather(module, evaluator, builder) -> list:
    """Record in `module.facts` every fact of `module` its module rules read, after its requests
    were found (`builder`: the module's LayoutBuilder, its layouts and sites); the layouts kept
    (those a stored cut claims are dropped: the cut is judged there)."""
    _gates(module, evaluator)
    if compat_presets.might_hold(module.source):  # (PRM302: a preset of Anthropic's OpenAI-compatible endpoint)
        module.facts["compat_presets"] = compat_presets.compat_presets(module, evaluator)
    if module.facts.get("kept_marks"):  # (one finding per cause: a loop's marks are PRM304's at the request)
        module.facts["kept_marks"] = kept_marks.unlisted(module.facts["kept_marks"], module, builder.layouts)
    if stored_cuts.holds_text(module.source):  # (after the requests: one may send the kept list)
        cuts, steps = stored_cuts.stored_cuts(module, evaluator, builder.layouts)
        module.facts["stored_cuts"] = cuts
        builder.layouts = stored_cuts.unclaimed(builder.layouts, cuts, steps)
        if steps and module.facts.get("memory_windows"):  # a memory cut in steps: cached between cuts
            module.facts["memory_windows"] = [w for w in module.facts["memory_windows"] if w[0].lineno not in steps]
    if module.facts.get("memory_windows"):  # (after the requests: one of the module may send the kept list)
        module.facts["memory_windows_sent"] = {
            held: sent for _at, held, *_ in module.facts["memory_windows"]
            if (sent := stored_cuts.sent_history(builder.layouts, held)) is not None}
    if handed_windows.TEXT in module.source:  # (after the requests: a slice inside one is judged there)
        module.facts["handed_windows"] = handed_windows.handed_windows(module, builder.covered)
    if "[" in module.source and rebound_windows.TEXT.search(module.source) is not None:
        module.facts["rebound_windows"] = rebound_windows.rebound_windows(module, builder.covered)
    if shaped_windows.might_hold(module.source):  # (after the requests: a slice inside one is judged there)
        module.facts["shaped_windows"] = shaped_windows.shaped_windows(module, builder.covered)
    if "_fit(" in module.source or "trim" in module.source or "truncate" in module.source:
        module.facts["trimmed_to_fit"] = handed_windows.trimmed_to_fit(module)
    if "keep_" in module.source and handed_windows.KEEP_TEXT.search(module.source):
        module.facts["kept_recent"] = handed_windows.kept_recent(module)
    if summary_rewrites.might_hold(module.source):  # (after the requests: the list it returns is no request)
        found = summary_rewrites.summary_rewrites(module)
        module.facts["summary_rewrites"] = [(made, call) for made, call, _ in found]
        rows = {ret.lineno for *_, ret in found}
        builder.layouts = [l for l in builder.layouts if l.source != "python-constant" or l.site.start.row not in rows]
    if strategy_cuts.might_hold(module.source):
        module.facts["strategy_cuts"] = strategy_cuts.strategy_cuts(module)
    if converted_ids.CONVERTS_MESSAGE.search(module.source) is not None:  # (PRM103, PRM102: ids, times made per conversion)
        module.facts["fresh_ids"] = converted_ids.fresh_ids(module, evaluator.project, builder.sites)
        module.facts["fresh_times"] = converted_ids.fresh_times(module, builder.sites)
    _rewrite_facts(module, evaluator, builder.sites)
    return builder.layouts


def _rewrite_facts(module, evaluator, sites) -> None:
    """Module facts of a conversation rewritten between requests: for PRM105 its newest turns rendered apart
    (`history_renders`), messages a caller names left out where it is kept (`kept_removals`), stored messages
    re-sent with a field cleared (`replay_strips`), a sent message's field cleared after the send
    (`sent_rewrites`), stored messages expiring one by one (`message_expiry`),
    or stored without their tool calls (`stored_fields`), the newest message re-made on a copy (`newest_remakes`)
    or given content for the request only (`newest_marks`); for
    PRM103 a new id among a rendered prompt's variables (`render_ids`) or per message converted (`history_ids`);
    for PRM104 a head message put on some calls only (`front_inserts`). Each when the text can hold its shape."""
    src = module.source
    if front_inserts.might_insert(src):
        moved = {m.lineno for m, *_ in module.facts.get("front_moves", ())}  # one cause: the move (PRM105)
        module.facts["front_inserts"] = [f for f in front_inserts.front_inserts(module, evaluator.project)
                                         if f[0].lineno not in moved]
    if ("enumerate" in src or "+=" in src or "reversed(" in src) and history_renders.TEXT.search(src) is not None \
            or history_renders.might_walk_apart(src):
        module.facts["rendered_apart"] = history_renders.rendered_apart(module)
    if kept_removals.may_hold(src):
        module.facts["kept_removals"] = kept_removals.kept_removals(module)
    if "filter" in src and any(v in src for v in ("remove_", "delete_", "drop_", "discard_", "purge_")) \
            and kept_removals.CALLER_TEXT.search(src) is not None:
        module.facts["chosen_removals"] = kept_removals.chosen_removals(module, evaluator.project)
    if "copy(" in src and any(w in src for w in replay_strips.TEXT + replay_strips.REMOVED):
        module.facts["replay_strips"] = replay_strips.replay_strips(module)
    if message_expiry.might_expire(src):
        module.facts["message_expiry"] = message_expiry.message_expiry(module)
    if stored_fields.might_store_fields(src):
        module.facts["stored_fields"] = stored_fields.stored_fields(module)
    if sent_rewrites.might_rewrite_sent(src):
        module.facts["sent_rewrites"] = sent_rewrites.sent_rewrites(module)
    if newest_remakes.might_remake(src):
        module.facts["newest_remakes"] = newest_remakes.newest_remakes(module)
    if newest_marks.might_mark(src):
        module.facts["newest_marks"] = newest_marks.newest_marks(module)
    if render_ids.may_hold(src):
        module.facts["render_ids"] = render_ids.render_ids(module, evaluator.project)
    if history_ids.CONVERTS_HISTORY.search(src) is not None:
        module.facts["history_ids"] = history_ids.history_ids(module, evaluator.project, sites)


def _gates(module, evaluator) -> None:
    """Module facts for module rules: for PRM302 (`gated_markers`) breakpoints only some models get, caching
    off by default and explicit cache modes in a package where no file names a breakpoint key, a block of the
    breakpoint alone (`marker_blocks`); for PRM304 breakpoints left in a conversation kept from turn to turn
    (`kept_marks`, capped ones PRM302's), added uncounted to a request handed in (`added_marks`) or a
    message's one copied onto every block a loop builds from it (`spread_marks`); for PRM302 consecutive
    messages merged with the first one's breakpoint only (`merged_marks`), a message's own breakpoint
    honoured for string content only (`string_marks`), a block a library function rebuilds for LiteLLM
    (`library_blocks`), a prompt-caching switch handed to LiteLLM under a name it does not read
    (`unread_cache_flags`) and a breakpoint set on a list's
    item by the counter of a loop over another list (`misindexed_marks`); for PRM105
    (`history_loads`) a conversation loaded as its newest turns, read as its newest items through a method of
    the object that keeps it (`window_calls`), one handed to a helper that keeps its newest
    messages and writes them back (`history_trims`), a token budget that an Assistants run truncates the thread
    to, a conversation kept in a bounded deque (`deque_windows`), cut or rewritten by the method that adds to it
    (`memory_windows`), read back by a newest-first query (`newest_queries`), newest first (`newest_first`) or in
    the store's order (`unordered_reads`), a running summary rewritten as
    it grows and sent at its head (`summary_heads`), a window of an agent library's memory or context class
    the module configures (`library_windows`), and system messages of anywhere in a conversation moved
    into the Responses API's instructions (`system_hoists`), to the head of the list a converter builds
    (`front_moves`) or into a request's system field (`field_hoists`)."""
    if "cache_control" in module.source or "cachePoint" in module.source:
        module.facts["model_gates"] = gated_markers.model_gates(module)
        module.facts["head_unmarks"] = gated_markers.head_unmarks(module)
        if "prompt-caching" in module.source:  # (PRM302: a breakpoint only behind the old beta header)
            module.facts["beta_gates"] = [g.test for g in gated_markers.beta_gates(module)]
        module.facts["kept_marks"] = kept_callers.rebuilt_by_callers(  # (PRM304, PRM302: marks left in a kept
            kept_marks.kept_marks(module), module, evaluator.project)  # list, but lists other modules rebuild)
        if marker_blocks.might_hold(module.source):  # (PRM302: a block of the breakpoint alone)
            module.facts["bare_marks"] = marker_blocks.bare_marks(module)
        if added_marks.might_add(module.source):  # (PRM304: breakpoints added to a request handed in, uncounted)
            module.facts["added_marks"] = added_marks.added_marks(module, evaluator.project)
        module.facts["opt_in_gates"] = opt_in_markers.opt_in_gates(module, evaluator.project)
        module.facts["rewritten_marks"] = opt_in_markers.rewritten_marks(module)
        if "break" in module.source:  # (PRM302: breakpoints on a list's first items, its tail unmarked)
            module.facts["head_marks"] = head_marks.head_marks(module)
        if "+= 1" in module.source and "cache_control" in module.source:  # (PRM302: the first breakpoints kept, the later removed)
            module.facts["kept_first_marks"] = head_marks.kept_first_marks(module)
        if spread_marks.might_spread(module.source):  # (PRM304: a message's breakpoint copied onto each block)
            module.facts["spread_marks"] = spread_marks.spread_marks(module)
        if merged_marks.might_merge(module.source):  # (PRM302: messages merged, the first one's breakpoint kept)
            module.facts["merged_marks"] = merged_marks.merged_marks(module)
        if string_marks.might_mark_strings(module.source):  # (PRM302: a message's breakpoint for string content only)
            module.facts["string_marks"] = string_marks.string_marks(module)
    elif opt_in_markers.might_build(module):  # (a message builder of a library given a caching flag)
        module.facts["opt_in_gates"] = opt_in_markers.opt_in_gates(module, evaluator.project)
    if cache_flags.might_flag(module.source):  # (PRM302: a prompt-caching switch LiteLLM does not read)
        module.facts["unread_cache_flags"] = cache_flags.unread_cache_flags(module, evaluator.project)
    if library_blocks.might_rebuild_blocks(module.source):  # (PRM302: a block rebuilt by a library function)
        module.facts["library_blocks"] = library_blocks.library_blocks(module)
    if misindexed_marks.might_misindex(module.source):  # (PRM302: a breakpoint set by another list's index)
        module.facts["misindexed_marks"] = misindexed_marks.misindexed_marks(module)
    if flattened_marks.might_flatten(module.source) or flattened_marks.might_flatten_loop(module.source) and \
            evaluator.project.marker_read_files(module.path):  # (PRM302: a system prompt's blocks joined to a string)
        module.facts["flattened_marks"] = flattened_marks.flattened_marks(module)
    if dropped_marks.writes_converse(module.source) and (  # (PRM302: a converter into Converse blocks dropping them)
            dropped_marks.names_marker(module.source) or evaluator.project.marker_read_files(module.path)):
        module.facts["dropped_marks"] = dropped_marks.dropped_marks(module)
    if rebuilt_blocks.might_rebuild(module.source):  # (PRM302: a typed block rebuilt as a dict without its breakpoint)
        module.facts["rebuilt_marks"], module.facts["branch_marks"] = rebuilt_blocks.rebuilt_blocks(module)
        flattened = {id(n) for n in module.facts.get("flattened_marks", ())}  # (one cause: the system prompt's)
        module.facts["flattened_contents"] = [c for c in rebuilt_blocks.flattened_contents(module) if id(c) not in flattened]
    if history_loads.window_text(module.source) or history_loads.may_call_loader(module.source):
        module.facts["history_windows"] = history_loads.history_windows(module, evaluator.project)
    if "istory" in module.source or "essages" in module.source:
        module.facts["history_trims"] = history_trims.history_trims(module, evaluator.project)
    if window_calls.TEXT.search(module.source) is not None:  # (PRM105: a kept conversation read as its newest items)
        module.facts["window_calls"] = window_calls.window_calls(module, evaluator.project)
    if "self." in module.source and delegated_cuts.TEXT.search(module.source) is not None:
        # (PRM105: a kept conversation cut through the remover of the object that holds it)
        module.facts["delegated_cuts"] = delegated_cuts.delegated_cuts(module, evaluator.project)
    if all(word in module.source for word in ("role", "continue", "system", "instruction")):
        module.facts["system_hoists"] = system_hoists.find_system_hoists(module)
    if system_hoists.might_move(module.source):
        module.facts["front_moves"] = system_hoists.find_front_moves(module)
    if field_hoists.might_hoist_field(module.source):
        module.facts["field_hoists"] = field_hoists.find_field_hoists(module) + field_hoists.find_filtered_hoists(module) \
            + field_hoists.find_lifted_partitions(module)
    if inplace_rewrites.TEXT in module.source:
        module.facts["inplace_rewrites"] = inplace_rewrites.inplace_rewrites(module)
    if older_edits.might_edit_older(module.source):  # (PRM105: older messages edited in place, by their place)
        module.facts["older_edits"] = older_edits.older_edits(module)
    if "[-" in module.source and kept_rewrites.OLDER_TEXT.search(module.source) is not None:
        module.facts["older_writes"] = kept_rewrites.older_writes(module)  # (PRM105: an older kept message written)
    if kept_rewrites.might_rewrite(module.source):  # (PRM105: a kept conversation rewritten before a new message)
        module.facts["kept_rewrites"] = kept_rewrites.kept_rewrites(module)
    if walked_edits.might_edit(module.source):  # (PRM105: messages of a handed list edited as walked)
        edits = walked_edits.walked_edits(module)
        module.facts["picked_edits"] = [(w, why) for w, why, shape in edits if shape == "picked"]
        module.facts["reprocessed_edits"] = [(w, why) for w, why, shape in edits if shape == "reprocessed"]
    if inplace_merges.might_merge(module.source):
        module.facts["inplace_merges"] = inplace_merges.inplace_merges(module)
    if inplace_merges.might_append(module.source):
        module.facts["inplace_appends"] = inplace_merges.inplace_appends(module)
    if context_caches.might_create(module.source):  # (PRM305: a Gemini context cache made for the request sent)
        module.facts["context_caches"] = context_caches.context_caches(module)
    if thinking_budgets.might_derive(module.source):  # (PRM205: a thinking budget fitted to the call's max_tokens)
        module.facts["thinking_budgets"] = thinking_budgets.thinking_budgets(module)
    if format_switches.might_switch(module.source):  # (PRM104: chat messages or a raw prompt by the content)
        module.facts["format_switches"] = format_switches.format_switches(module)
    if unseen_templates.might_hold(module.source):  # (PRM101: a system template of unseen text, fed per request)
        module.facts["unseen_templates"] = unseen_templates.unseen_templates(module)
    if shared_prompts.might_share(module.source):  # (PRM105: a class's prompt added to through self)
        module.facts["shared_prompts"] = shared_prompts.shared_prompts(module)
    if role_stamps.might_stamp(module.source):
        module.facts["role_stamps"] = role_stamps.role_stamps(module)
    if " - " in module.source and ("pop(" in module.source or "-= 1" in module.source):
        module.facts["kind_windows"] = kind_windows.kind_windows(module)
    if "+= 1" in module.source and ("pop(" in module.source or "del " in module.source or ".append(" in module.source):
        module.facts["newest_kinds"] = kind_windows.newest_kinds(module)
    if "enumerate(" in module.source and (":]" in module.source or "[:-" in module.source):
        module.facts["kept_indices"] = kind_windows.kept_indices(module)
    if kept_keys.might_keep(module.source):
        module.facts["kept_keys"] = kept_keys.kept_keys(module)
    if "maxlen" in module.source and "deque" in module.source:
        module.facts["deque_windows"] = deque_windows.deque_windows(module)
    if "class " in module.source and ("essages" in module.source or "istory" in module.source or "role" in module.source):
        module.facts["memory_windows"] = memory_windows.memory_windows(module)
    if newest_queries.might_hold(module.source):
        module.facts["newest_queries"] = newest_queries.newest_queries(module)
    if newest_queries.might_delete(module.source):
        module.facts["newest_deletes"] = newest_queries.newest_deletes(module)
    if unordered_reads.might_read(module.source):  # (PRM105: a stored conversation read in no set order)
        if unordered_reads.STORE_TEXT.search(module.source) is not None:
            module.facts["unordered_reads"] = unordered_reads.unordered_reads(module)
        if unordered_reads.HELPER_CALL.search(module.source) is not None:
            module.facts["helper_reads"] = unordered_reads.helper_reads(module, evaluator.project)
    if newest_first.might_hold(module.source):
        module.facts["newest_first"] = newest_first.newest_first(module)
    if "class " in module.source and summary_heads.REWRITTEN.search(module.source) is not None:
        module.facts["summary_heads"] = summary_heads.summary_heads(module)
    if "max_prompt_tokens" in module.source:
        module.facts["prompt_budgets"] = history_loads.prompt_budgets(module)
    if library_windows.might_configure(module.source):
        module.facts["library_windows"] = library_windows.library_windows(module)
    if "prompt_cach" in module.source:
        off = gated_markers.caching_off(module)
        if off and evaluator.project.marker_files(module.path):
            module.facts["caching_off"] = off
            module.facts["opt_in_gates"] = []  # one finding: the default that turns caching off
    if "prompt_cache_options" in module.source and not evaluator.project.marker_files(module.path):
        module.facts["explicit_modes"] = gated_markers.explicit_modes(module)
    if langchain_models.might_build(module.source):  # (PRM302: a Claude model no request marks, in agents)
        module.facts["uncached_models"] = langchain_models.uncached_models(module, evaluator.project)
        module.facts["uncached_chats"] = langchain_models.uncached_chats(module, evaluator.project)
        module.facts["runtime_models"] = langchain_models.runtime_models(module, evaluator.project)
    if bedrock_models.might_build(module.source):  # (PRM302: a Bedrock chat model on Claude with no cache point)
        module.facts["uncached_bedrock_models"] = bedrock_models.uncached_models(module, evaluator.project)
    if langchain_models.might_build(module.source) or bedrock_models.might_build(module.source):
        if any(module.facts.get(k) for k in ("uncached_models", "uncached_chats", "runtime_models",
                                             "uncached_bedrock_models")):
            # (files name a breakpoint key, only on requests they send themselves: own_marks.py)
            module.facts["own_marks"] = bool(evaluator.project.marker_files(module.path))
    if pydantic_ai_models.might_build(module.source):  # (PRM302: a pydantic-ai Claude model no request marks)
        module.facts["uncached_agent_models"] = pydantic_ai_models.uncached_models(module, evaluator.project)
