"""Whether a project runs the two-person rule, and on what (``[two_person]``).

``two_person.enabled`` decides when set; unset, the rule is on exactly when the
project's users file (``.spikuit/brainview-users.json``) holds two or more people —
so a project without a users file, or with one person, works as it always did.  The
file's people are counted again only when its ``stat`` changed.
"""

from __future__ import annotations

import threading
from pathlib import Path

from brainview.config import TwoPersonConfig
from brainview.core import two_person as tp
from brainview.core.kinds import KINDS
from brainview.errors import ConfigError
from brainview.store.discovery import BrainPaths
from brainview.store.users_file import Signature, default_path, read_users, signature

_cache: dict[Path, tuple[Signature | None, int]] = {}
_lock = threading.Lock()


def people(path: Path) -> int:
    """How many people the users file at ``path`` holds (0: no file)."""
    sig = signature(path)
    with _lock:
        hit = _cache.get(path)
        if hit is not None and hit[0] == sig and sig is not None:
            return hit[1]
    found = read_users(path) if sig is not None else None
    doc = found[0] if found is not None else None
    users = doc.get("users") if isinstance(doc, dict) else None
    n = len(users) if isinstance(users, dict) else 0
    with _lock:
        _cache[path] = (sig, n)
    return n


def check_rules(names: list[str]) -> frozenset[str]:
    """The configured rule names, each a known rule or proposal kind."""
    for name in names:
        if name not in tp.RULES and name not in KINDS:
            raise ConfigError(
                f"two_person.rules: unknown rule {name!r} (one of {', '.join(tp.RULES)} "
                "or a proposal kind)"
            )
    return frozenset(names)


def rules_for(paths: BrainPaths, cfg: TwoPersonConfig) -> tp.Rules:
    """The project's rules now."""
    enabled = cfg.enabled
    if enabled is None:
        enabled = people(default_path(paths.spikuit_dir)) >= 2
    return tp.Rules(
        enabled=enabled,
        rules=check_rules(list(cfg.rules)),
        prune_above=cfg.prune_above,
        sample_rate=cfg.agreement_sample,
        sample_seed=cfg.sample_seed,
    )
