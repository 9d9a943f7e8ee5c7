"""The trainers' configs: every key typed and checked by its trainer's schema before anything
runs (one line naming the key, the value and what is allowed), shipped configs by name, the
docs' tables of keys from the same schemas; and the `morty` router's hint for a missing
extra."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agents.settings import (
    CONFIG_DIR,
    Int,
    Names,
    Real,
    Schema,
    config_path,
    shipped_configs,
)
from agents.training.schemas import EXPERT, PPO, RLLIB, SCHEMAS
from mortyenv.cli import main, missing_extra
from mortyenv.usage import UsageError

ROOT = Path(__file__).resolve().parents[2]
SMALL = Schema("morty small", {"run": {"name": Int(1, "a number"), "seed": Int(0, "seed")}})


def test_a_shipped_config_is_found_by_name_with_or_without_toml() -> None:
    assert config_path("ppo_2p") == CONFIG_DIR / "ppo_2p.toml"
    assert config_path("smoke.toml") == CONFIG_DIR / "smoke.toml"
    assert {"ppo_2p", "ppo_4p", "smoke", "az_net_2p", "az_net_4p", "rllib_smoke"} <= set(
        shipped_configs()
    )


def test_a_file_path_wins_over_a_shipped_name(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smoke.toml").write_text('[run]\nname = "mine"\n')
    assert config_path("smoke.toml") == Path("smoke.toml")
    assert PPO.load("smoke.toml")["run"]["name"] == "mine"


@pytest.mark.parametrize("name", ["nope", "dir/ppo_2p", "ppo_2p.json"])
def test_an_unknown_config_names_the_shipped_ones(name: str) -> None:
    with pytest.raises(UsageError, match=r"not a shipped config \(shipped: .*ppo_2p"):
        config_path(name)


def test_the_help_lists_only_the_configs_a_trainer_can_run() -> None:
    ppo, expert, rllib = (shipped_configs(s) for s in (PPO, EXPERT, RLLIB))
    assert {"ppo_2p", "ppo_4p", "smoke"} <= set(ppo) and "az_net_2p" not in ppo
    assert {"az_net_2p", "az_net_4p"} <= set(expert) and "ppo_2p" not in expert
    assert "rllib_smoke" in rllib and "smoke" not in rllib


@pytest.mark.parametrize("name", shipped_configs())
def test_every_shipped_config_is_valid_for_exactly_one_trainer(name: str) -> None:
    data = tomllib.loads(config_path(name).read_text())
    (schema,) = [s for s in SCHEMAS.values() if s.names_fit(data)]
    config = schema.load(name)
    for section, keys in data.items():
        for key in keys:
            assert config[section][key] == data[section][key]


@pytest.mark.parametrize(
    ("schema", "toml", "message"),
    [
        (
            PPO,
            '[ppo]\nlearning_rate = "fast"',
            r'ppo\.learning_rate = "fast": must be a number > 0',
        ),
        (PPO, "[ppo]\ngamma = 1.5", r"ppo\.gamma = 1\.5: must be a number in \[0, 1\]"),
        (PPO, "[ppo]\nbatch_size = 1", r"ppo\.batch_size = 1: must be an integer >= 2"),
        (PPO, "[env]\ngroups = 2.5", r"env\.groups = 2\.5: must be an integer >= 1"),
        (PPO, "[run]\nnum_players = 5", r"run\.num_players = 5: must be an integer in \[2, 4\]"),
        (PPO, "[run]\nseed = true", r"run\.seed = true: must be an integer >= 0"),
        (
            PPO,
            '[network]\nactivation = "gelu"',
            r'network\.activation = "gelu": must be one of "tanh"',
        ),
        (PPO, "[network]\nnet_arch = []", r"network\.net_arch = \[\]: must be a non-empty list"),
        (PPO, "[network]\nnet_arch = [64, 0]", r"network\.net_arch = \[64, 0\]: must be a non"),
        (PPO, '[eval]\nopponents = ["oracle"]', r'eval\.opponents = \["oracle"\]: must be a non'),
        (PPO, '[eval]\nray = "yes"', r'eval\.ray = "yes": must be true or false'),
        (PPO, "[ppo]\nlearning_rat = 0.1", r"unknown key ppo\.learning_rat; \[ppo\] has learn"),
        (PPO, "[trian]\nsteps = 3", r"unknown section \[trian\]; morty train reads \[run\]"),
        (PPO, "[env]\nn_envs = 10\ngroups = 3", r"env\.n_envs = 10 does not split evenly"),
        (PPO, "[opponents]\ngreedy = 0\nheuristic = 0\nself = 0", r"opponents: the weights"),
        (EXPERT, "[search]\nwalks = -5", r"search\.walks = -5: must be an integer >= 1 or none"),
        (EXPERT, '[search]\nroot = "best"', r'search\.root = "best": must be one of "puct"'),
        (EXPERT, "[search.rollout]\ncolour = 1", r"search\.rollout = \{.*\}: must be a table of"),
        (EXPERT, "[train]\naverage = 1", r"train\.average = 1: must be a number in \[0, 1\)"),
        (EXPERT, "[network]\nafter = [256]", r"unknown key network\.after; \[network\] has tr"),
        (RLLIB, '[env]\nreward = "points"', r'env\.reward = "points": must be one of "rank"'),
    ],
)
def test_a_bad_config_is_one_line_naming_the_key_the_value_and_what_is_allowed(
    tmp_path: Path, schema: Schema, toml: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(toml + "\n")
    with pytest.raises(UsageError, match=rf"^config {re.escape(str(path))}: {message}") as err:
        schema.load(path)
    assert "\n" not in str(err.value)


def test_a_bad_override_names_the_command_line() -> None:
    with pytest.raises(UsageError, match=r"^config command line: run\.seed = -1: must be an"):
        PPO.load("smoke", {"run": {"seed": -1}})


def test_values_are_taken_as_the_trainer_uses_them(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text("[ppo]\nlearning_rate = 1\n[run]\ntotal_timesteps = 4_096\n")
    config = PPO.load(path)
    assert config["ppo"]["learning_rate"] == 1.0 and isinstance(
        config["ppo"]["learning_rate"], float
    )
    assert config["run"]["total_timesteps"] == 4096
    assert config["network"]["net_arch"] == [256, 256]  # the default where the file says none


def test_a_schema_refuses_a_default_it_does_not_allow() -> None:
    with pytest.raises(ValueError, match="an integer >= 1"):
        Int(0, "a count", low=1)
    with pytest.raises(ValueError, match="a number in"):
        Real(2.0, "a share", low=0.0, high=1.0)
    with pytest.raises(ValueError, match="a non-empty list of"):
        Names(["nobody"], "agents", ("random",))


def test_the_ppo_schema_allows_the_activations_the_policy_builds() -> None:
    from agents.learned.ppo import ACTIVATIONS

    assert set(PPO.sections["network"]["activation"].choices) == set(ACTIVATIONS)


def test_every_trainers_keys_are_in_the_docs(tmp_path: Path) -> None:
    """docs/training.md includes each schema's table, written at build time from the schema
    (docs/_ext/mortydocs.py); the table has every key with its default and what it allows."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import mortydocs
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    page = (ROOT / "docs" / "training.md").read_text()
    for command, schema in SCHEMAS.items():
        name, table = mortydocs.config_table(command)
        assert f"_generated/{name}" in page, f"docs/training.md does not include {name}"
        for section, key, spec in schema.entries():
            assert f"`{section}.{key}`" in table and spec.allowed() in table


def test_a_small_schema_layers_defaults_file_and_overrides(tmp_path: Path) -> None:
    path = tmp_path / "small.toml"
    path.write_text("[run]\nname = 5\nseed = 2\n")
    assert SMALL.load(path, {"run": {"seed": 3}})["run"] == {"name": 5, "seed": 3}
    assert SMALL.defaults() == {"run": {"name": 1, "seed": 0}}


def test_morty_train_with_a_bad_config_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[ppo]\nlearning_rate = "fast"\n')
    done = subprocess.run(
        [sys.executable, "-m", "mortyenv.cli", "train", "--config", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        f'morty train: config {path}: ppo.learning_rate = "fast": must be a number > 0'
    )
    assert not (tmp_path / "runs").exists()  # nothing ran


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train-az-net", "--seed", "-3"], "config command line: run.seed = -3: must be an"),
        (["train-az-net", "--config", "nope"], "config nope: no such file, and not a shipped"),
        (["train", "--max-minutes", "-1"], "config command line: run.max_minutes = -1.0: must"),
        (["train-az-net", "--ship", "missing.zip"], "missing.zip: no such checkpoint file"),
        (["train-az-net", "--ray-address", "auto"], "config command line: run.ray_address needs"),
        (["train-az-net", "--workers", "0"], "config command line: run.workers = 0: must be an"),
    ],
)
def test_a_trainers_usage_error_exits_2_before_anything_runs(
    argv: list[str], message: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"morty {argv[0]}: {message}") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("missing", "expected"),
    [
        ("torch", ("torch", "train")),
        ("stable_baselines3.common", ("stable_baselines3.common", "train")),
        ("starlette", ("starlette", "web")),
        ("ray", ("ray", "ray")),
        ("ray.rllib", ("ray.rllib", "rllib")),
        ("no_such_module", None),
    ],
)
def test_a_missing_optional_package_is_mapped_to_its_extra(
    missing: str, expected: tuple[str, str] | None
) -> None:
    assert missing_extra(ModuleNotFoundError(f"No module named {missing!r}", name=missing)) == (
        expected
    )
    wrapped = ImportError("RLlib is not installed here")
    wrapped.__cause__ = ModuleNotFoundError("x", name=missing)
    assert missing_extra(wrapped) == expected


@pytest.mark.parametrize("command", ["train", "train-az-net"])
def test_a_run_folder_that_cannot_be_written_is_one_line_and_exit_2(
    tmp_path: Path, capsys, command: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main([command, "--config", "smoke" if command == "train" else "az_net_2p",
                 "--out", str(blocker / "run")]) == 2  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--out {blocker / 'run'}: cannot write a run there" in err[0]
    assert blocker.read_text() == "not a folder"


def test_the_search_section_is_the_search_config_and_reads_the_old_names(tmp_path: Path) -> None:
    """`[search]` holds every SearchConfig setting (rollout weights as a sub-table); the
    names it had before (`iterations`, `width`) are read, with a DeprecationWarning."""
    from agents.search.config import SELFPLAY, from_section

    path = tmp_path / "old.toml"
    path.write_text("[search]\niterations = 64\nwidth = 6\n[search.rollout]\nflip_cost = 2.5\n")
    with pytest.warns(DeprecationWarning, match=r"search\.iterations is now search\.walks"):
        config = EXPERT.load(path)
    search = from_section(config["search"])
    assert (search.walks, search.root_width, search.inner_width) == (64, 6, 6)
    assert search.rollout.flip_cost == 2.5 and search.rollout.temperature == 0.2
    assert from_section(EXPERT.load(None)["search"]) == SELFPLAY
