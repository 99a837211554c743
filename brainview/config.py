"""Typed, forgiving configuration from TOML.

Read from the user-level file (``$XDG_CONFIG_HOME/brainview/config.toml``) and then
the project file (``.spikuit/brainview.toml``), the project winning.  Unknown keys and
bad values raise :class:`~brainview.errors.ConfigError` naming the file and key.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from brainview.core.key_names import key_problem
from brainview.core.text_rules import name_problem
from brainview.errors import ConfigError


@dataclass(frozen=True)
class ReviewConfig:
    """How decisions are recorded."""

    decider: str | None = None
    """Name recorded on decisions (default: the OS user); one line, no control character."""
    record_only: bool = False
    """Accept only records and grades; the curator applies accepted changes itself."""
    write_reflections: bool = True
    """Write a new reflection on every rejection (pause with ``reflect disable``)."""
    annotate_grade: int | None = None
    """Grade for ``annotate`` stances (1–4); none by default."""
    allow_self_approval: bool = False
    """Let a decider decide proposals recorded with their own name as the runtime (a
    one-person project whose curator runs under the person's name); refused by default."""


@dataclass(frozen=True)
class QueueConfig:
    """When the proposal queue raises an alert (``brainview proposals health``)."""

    stale_after_days: int = 7
    """A pending proposal created longer ago than this is stale (1–3650)."""
    window_days: int = 7
    """Window over which arrivals are compared with decisions (1–3650)."""
    growth_min: int = 5
    """Arrivals exceeding decisions by this many in the window raise the growth alert."""
    notify_command: list[str] = field(default_factory=list)
    """``proposals health --notify`` runs this argv (no shell) with the summary JSON on
    stdin when an alert is raised, e.g. ``["/usr/local/bin/notify-team", "--queue"]``."""
    notify_timeout: int = 10
    """Seconds the notify command may run before it is stopped (1–600)."""


@dataclass(frozen=True)
class TwoPersonConfig:
    """Changes that need a second, different person (``docs/team.md``)."""

    enabled: bool | None = None
    """On or off; unset: on when the project's users file holds two or more people."""
    rules: list[str] = field(default_factory=lambda: ["invalidate", "policy", "prune", "graduate"])
    """What needs two people: ``invalidate``, ``policy``, ``prune``, ``graduate`` or a kind."""
    prune_above: int = 10
    """Prune items in one decision above which pruning needs two people (1–100000)."""
    agreement_sample: float = 0.0
    """Share of other proposals two people decide, to measure agreement (0–1)."""
    sample_seed: int = 0
    """Seed of the agreement sample (which proposals fall in it)."""


@dataclass(frozen=True)
class ReflectionsConfig:
    """Forgetting and pruning of reflections."""

    pruning_threshold: float = 0.7
    """Retrievability below which a reflection is a pruning candidate."""
    fading_days: int = 14
    """Horizon of the fading list, in days."""


@dataclass(frozen=True)
class ConsolidateConfig:
    """How ``reflect consolidate`` plans (Spikuit's SHY defaults: factor 0.8, floor 0.05)."""

    stale_days: int = 30
    """A reflection that has not fired for this many days is stale."""
    hot_days: int = 7
    """Window of the *hot* tier (fired ``hot_fires`` times within it)."""
    hot_fires: int = 3
    """Fires within ``hot_days`` that make a reflection hot."""
    weak_below: float = 0.5
    """SHY decays only synapses between stale reflections weaker than this."""
    decay_factor: float = 0.8
    """SHY multiplies a weak synapse's weight by this."""
    weight_floor: float = 0.05
    """A decayed weight below this retires the synapse."""
    min_community: int = 3
    """REM drafts policies only for communities with at least this many reflections."""
    policy_overlap: float = 0.5
    """A policy is current when its members overlap the community this much (Jaccard)."""


@dataclass(frozen=True)
class HeldBackConfig:
    """Which held-back drafts the triage lane shows (``brainview held-back list``)."""

    min_confirmations: int = 2
    """A lesson confirmed by fewer distinct deciders than this is *weakly corroborated*:
    every undecided draft it opposed is shown.  A confirmation is a standing decision in
    which its stance won (support on accept, oppose on reject) or a standing "rightly
    held back" on a draft it opposed."""
    sample_rate: float = 0.1
    """Share of the other held-back drafts shown as a random check (0 to 1)."""
    sample_seed: int = 0
    """Seed of that random check (the same drafts are picked for the same seed)."""


@dataclass(frozen=True)
class SignalsConfig:
    """Suspicion signals over lessons (:mod:`brainview.core.signals`)."""

    rejected_min: int = 2
    """Rejections of proposals a lesson supported before it is a pattern."""
    high_influence: int = 5
    """Influence (drafts shaped + decisions swayed) that counts as high."""
    low_corroboration: int = 1
    """Confirming identities at or below which corroboration is low."""
    window_days: int = 3
    """Window in which near-identical lessons from several identities look like gaming."""
    min_identities: int = 3
    """Distinct identities (runtimes, deciders, sources) repeating one claim."""
    held_min: int = 2
    """Drafts a lesson held back, unconfirmed, before ``unconfirmed-hold`` fires."""
    reach_min: int = 5
    """Logged recalls returning an unconfirmed lesson before ``unconfirmed-reach`` fires."""
    similarity: float = 0.8
    """Jaccard of word 2-shingles at which two lesson texts are one claim."""


@dataclass(frozen=True)
class UiConfig:
    """Look and feel."""

    theme: str | None = None
    """A built-in Textual theme name (e.g. ``textual-light``)."""


@dataclass(frozen=True)
class Config:
    """Everything configurable."""

    review: ReviewConfig = field(default_factory=ReviewConfig)
    reflections: ReflectionsConfig = field(default_factory=ReflectionsConfig)
    consolidate: ConsolidateConfig = field(default_factory=ConsolidateConfig)
    ui: UiConfig = field(default_factory=UiConfig)
    signals: SignalsConfig = field(default_factory=SignalsConfig)
    held_back: HeldBackConfig = field(default_factory=HeldBackConfig)
    queue: QueueConfig = field(default_factory=QueueConfig)
    two_person: TwoPersonConfig = field(default_factory=TwoPersonConfig)
    keys: dict[str, str] = field(default_factory=dict)
    """Binding id → key(s), e.g. ``"triage.accept" = "y"``."""
    key_files: dict[str, Path] = field(default_factory=dict, compare=False, repr=False)
    """Binding id → the config file that remapped it (errors name the file)."""


def _check(section: str, cls: type, raw: object, where: Path) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: [{section}] must be a table")
    known = {f.name: f for f in fields(cls)}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key {section}.{key}")
        out[key] = _value(f"{section}.{key}", known[key].type, value, where)
    return out


def _value(name: str, typ: object, value: object, where: Path) -> object:
    t = str(typ)
    if t.startswith("bool"):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {name} must be true or false")
    elif t.startswith("int"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: {name} must be an integer")
        if name == "review.annotate_grade" and not 1 <= value <= 4:
            raise ConfigError(f"{where}: {name} must be 1, 2, 3 or 4")
        if name == "reflections.fading_days" and not 1 <= value <= 3650:
            raise ConfigError(f"{where}: {name} must be between 1 and 3650")
        if name.startswith(("consolidate.", "signals.")) and not 1 <= value <= 3650:
            raise ConfigError(f"{where}: {name} must be between 1 and 3650")
        if name == "held_back.min_confirmations" and not 1 <= value <= 1000:
            raise ConfigError(f"{where}: {name} must be between 1 and 1000")
        if name == "two_person.prune_above" and not 1 <= value <= 100_000:
            raise ConfigError(f"{where}: {name} must be between 1 and 100000")
        if name.endswith(".sample_seed") and not 0 <= value < 2**63:
            raise ConfigError(f"{where}: {name} must be between 0 and 2**63 - 1")
        if name.startswith("queue.") and not 1 <= value <= _QUEUE_MAX.get(name, 3650):
            raise ConfigError(f"{where}: {name} must be between 1 and {_QUEUE_MAX.get(name, 3650)}")
    elif t.startswith("list"):
        _argv(name, value, where)
        if name == "two_person.rules":
            _rules(name, value, where)  # type: ignore[arg-type]
    elif t.startswith("float"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where}: {name} must be a number")
        if name in ("held_back.sample_rate", "two_person.agreement_sample"):  # 0 and 1 fine
            if not 0.0 <= float(value) <= 1.0:
                raise ConfigError(f"{where}: {name} must be between 0 and 1")
            return float(value)
        if not 0.0 < float(value) < 1.0:
            raise ConfigError(f"{where}: {name} must be between 0 and 1")
        return float(value)
    elif t.startswith("str"):
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: {name} must be a non-empty string")
        if len(value) > 128:
            raise ConfigError(f"{where}: {name} is longer than 128 characters")
        why = name_problem(value)  # a decider name is stored in both brains
        if why:
            raise ConfigError(f"{where}: {name}: {why}")
    return value


_QUEUE_MAX = {"queue.notify_timeout": 600, "queue.growth_min": 1_000_000}


def _argv(name: str, value: object, where: Path) -> None:
    """A command as an argv list: 1–64 non-empty strings without NUL, 4096 chars each."""
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= 64
        or not all(isinstance(v, str) and v and "\0" not in v and len(v) <= 4096 for v in value)
    ):
        raise ConfigError(f"{where}: {name} must be a list of 1-64 non-empty strings (an argv)")


def _rules(name: str, value: list[str], where: Path) -> None:
    """Each a named rule (``invalidate``, ``policy``, ``prune``, ``graduate``) or a kind."""
    from brainview.core.kinds import KINDS
    from brainview.core.two_person import RULES

    for rule in value:
        if rule not in RULES and rule not in KINDS:
            raise ConfigError(
                f"{where}: {name}: unknown rule {rule!r} (one of {', '.join(RULES)} or a kind)"
            )


def parse(text: str, where: Path, base: Config | None = None) -> Config:
    """Parse one TOML document over ``base``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{where}: not valid TOML ({err})") from None
    except ValueError:  # an integer of more than 4,300 digits (Python's own limit)
        raise ConfigError(f"{where}: not valid TOML (an integer is too long)") from None
    cfg = base or Config()
    sections = {
        "review": ReviewConfig,
        "reflections": ReflectionsConfig,
        "consolidate": ConsolidateConfig,
        "ui": UiConfig,
        "held_back": HeldBackConfig,
        "signals": SignalsConfig,
        "queue": QueueConfig,
        "two_person": TwoPersonConfig,
    }
    for key, raw in data.items():
        if key == "keys":
            if not isinstance(raw, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in raw.items()
            ):
                raise ConfigError(f"{where}: [keys] maps binding ids to key strings")
            for binding_id, keys in raw.items():
                why = key_problem(keys)
                if why:
                    raise ConfigError(f"{where}: [keys] {binding_id!r}: {why}")
            cfg = replace(
                cfg,
                keys={**cfg.keys, **raw},
                key_files={**cfg.key_files, **dict.fromkeys(raw, where)},
            )
        elif key in sections:
            current = getattr(cfg, key)
            cfg = replace(cfg, **{key: replace(current, **_check(key, sections[key], raw, where))})
        else:
            raise ConfigError(f"{where}: unknown section [{key}]")
    return cfg


def user_config_path() -> Path:
    """The user-level config file."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "brainview" / "config.toml"


def load(project_file: Path | None, *, user_file: Path | None = None) -> Config:
    """User-level config, then the project's (``.spikuit/brainview.toml``)."""
    cfg = Config()
    for path in (user_file or user_config_path(), project_file):
        if path is not None and path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as err:
                raise ConfigError(f"{path}: cannot read ({err})") from None
            cfg = parse(text, path, cfg)
    return cfg
