"""PRM401's judgement of the semantic response caches a module defines (`python/semantic/classes.py`
states them): the cache library's own code, where every cache made from the class inherits what it
does with a TTL.

- a warning at the constructor when the class sets no expiry anywhere (no TTL word in its code, and
  its constructor hands nothing on to a base class): no cache made from it can expire an answer; the
  calls of its write methods that store an entry are its related locations;
- a warning at the constructor's TTL parameter when that TTL is only kept (handed to the base's
  constructor, or set on an attribute nothing reads) while the class's own write methods send only
  their per-call TTL: a cache made with `ttl=3600` stores every entry without one;
- info at the TTL parameter when it defaults to None with no fallback: a cache made with the
  defaults keeps answers forever (the choice is the caller's, at each constructor call);
- info at a call in a read method that resets an entry's expiry on a hit: the TTL is an idle
  timeout, so an answer asked for often never expires, however stale.
"""
from __future__ import annotations

from ..model import Related, Severity
from ..python.semantic.classes import defined_caches


def findings(rule, module):
    """PRM401 diagnostics of the semantic cache classes `module` defines."""
    for cache in defined_caches(module):
        name = cache.cls.name
        if not cache.mentions_ttl and not cache.forwards:
            at = cache.init or cache.cls
            related = [Related(module.span(call), f"`{method.name}()` stores an entry with no expiry")
                       for method, call in cache.stores]
            yield rule.diagnostic(
                f"`{name}` is a semantic cache that never sets an expiry: no TTL is taken, stored or sent "
                "anywhere in the class, so every cache made from it serves an answer to similar questions "
                "until it is evicted for space, however stale; take a TTL in the constructor and set it on "
                "each stored entry", module.span(at), related=related)
            continue
        if cache.ttl_param is None or cache.fallback:
            pass
        elif cache.kept_unread and not cache.reads_kept_ttl and cache.own_ttl_writes:
            writes = sorted({f.name for f, _ in cache.own_ttl_writes})
            related = [Related(module.span(a), f"`{f.name}()` sends only its own `{a.arg}` argument")
                       for f, a in cache.own_ttl_writes]
            yield rule.diagnostic(
                f"The TTL given to `{name}(...)` as `{cache.ttl_param.arg}` is kept but never read by the "
                f"class: {', '.join(f'`{w}()`' for w in writes)} send only a TTL passed to each call, so a "
                "cache made with a TTL stores every entry without one and its answers never expire; fall back "
                f"to the constructor's TTL where an entry is stored (`{cache.ttl_param.arg} if "
                f"{cache.ttl_param.arg} is not None else self.<kept ttl>`)",
                module.span(cache.ttl_param), related=related)
        elif cache.default_none:
            yield rule.diagnostic(
                f"`{name}(...)` defaults `{cache.ttl_param.arg}` to None: a cache made with the defaults "
                "stores its answers with no expiry, so an answer that stops being true is still served to "
                "similar questions; give the TTL a finite default",
                module.span(cache.ttl_param), severity=Severity.INFO)
        for method, call in cache.refreshes:
            yield rule.diagnostic(
                f"`{name}.{method.name}()` resets the expiry of each entry it returns: the TTL restarts on "
                "every hit, so an answer asked for often never expires however stale it gets (the TTL is an "
                "idle timeout, not a maximum age); leave the expiry set when the entry was stored",
                module.span(call), severity=Severity.INFO)
