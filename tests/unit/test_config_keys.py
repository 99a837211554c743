"""``[keys]``: only key names are accepted, and every key error names the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from brainview.config import load, parse
from brainview.core.key_names import is_key
from brainview.errors import ConfigError
from brainview.tui.keymap import validate


@pytest.mark.parametrize(
    "key", ["a", "y", "E", "?", "/", "ctrl+y", "ctrl+shift+up", "f5", "question_mark", "space"]
)
def test_key_names_accepted(key: str) -> None:
    assert is_key(key)


@pytest.mark.parametrize(
    "key", ["ctrl+shift+banana", "banana", "ctrl+ctrl+a", "hyperdrive+a", "", "ctrl+", "f99"]
)
def test_non_keys_refused(key: str) -> None:
    assert not is_key(key)


def test_unknown_key_name_refused_naming_file_and_binding(tmp_path: Path) -> None:
    where = tmp_path / "brainview.toml"
    with pytest.raises(ConfigError) as err:
        parse('[keys]\n"triage.accept" = "ctrl+shift+banana"\n', where)
    text = str(err.value)
    assert str(where) in text and "triage.accept" in text and "ctrl+shift+banana" in text
    assert "\n" not in text


def test_empty_key_in_a_list_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="empty key"):
        parse('[keys]\n"triage.accept" = "y,,n"\n', tmp_path / "c.toml")


def test_binding_errors_name_the_file_that_remapped(tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    project = tmp_path / "project.toml"
    user.write_text('[keys]\n"triage.nope" = "y"\n')
    project.write_text('[keys]\n"triage.accept" = "r"\n')
    cfg = load(project, user_file=user)
    assert cfg.key_files == {"triage.nope": user, "triage.accept": project}
    with pytest.raises(ConfigError) as err:
        validate(cfg.keys, cfg.key_files)
    assert str(user) in str(err.value) and "triage.nope" in str(err.value)
    with pytest.raises(ConfigError) as err:
        validate({"triage.accept": "r"}, cfg.key_files)
    assert str(project) in str(err.value) and "triage.reject" in str(err.value)


def test_good_remap_passes(tmp_path: Path) -> None:
    cfg = parse('[keys]\n"triage.accept" = "y"\n', tmp_path / "c.toml")
    validate(cfg.keys, cfg.key_files)
    assert cfg.keys == {"triage.accept": "y"}
