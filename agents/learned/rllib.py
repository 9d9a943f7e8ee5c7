"""RLlib policies: the masked PPO RLModule `morty train-rllib` trains, and the agent that plays it.

RLlib's new API stack (RLModule/Learner) knows nothing of legal moves; as in RLlib's
action-masking example, the module reads a Dict observation `{"observations", "action_mask"}`
(RLlib's key names; `mortyenv/envs/rllib.py` renames PettingZoo's `observation`), builds
its networks for the observations alone, and adds log(mask) to the action logits, so an
illegal action has probability 0 when exploring, in inference and in the PPO loss.

A policy folder holds the RLModule as RLlib saves it plus `morty.json` (the metadata of
`agents.nets.checkpoint`): `RLlibAgent.load` refuses a policy made for another ruleset, player
count or observation layout. `make_agent("rllib:PATH", ...)` plays one in any tool.
Ray and torch are imported here, only when an RLlib agent is built.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

try:
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ImportError as err:  # RLlib pins another gymnasium: it lives in its own venv
    raise ModuleNotFoundError(
        f"RLlib is not installed here ({err}); `make rllib` builds .venv-rllib, whose "
        "`morty` trains and plays RLlib policies (docs/ray.md)",
        name="ray.rllib",
    ) from err

from agents.base import PolicyAgent
from agents.nets.checkpoint import METADATA_NAME, check_game
from mortyenv.engine import BatchEngine, BatchState
from mortyenv.envs.observation import observation_encoder
from mortyenv.rules import Ruleset

OBS, MASK = "observations", "action_mask"


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module over `observations`, its logits masked by `action_mask`."""

    def __init__(self, *, observation_space: Any = None, **kwargs: Any):
        # The networks are built for the observations alone; the module's own space (what
        # RLlib checks batches against and saves) is the Dict with the mask.
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def split(batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        """(the batch with the observations alone, the mask), without changing `batch`."""
        inner = dict(batch)
        inner[Columns.OBS] = batch[Columns.OBS][OBS]
        return inner, batch[Columns.OBS][MASK]

    @staticmethod
    def masked(out: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask.float()), min=FLOAT_MIN
        )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = self.split(batch)
        return self.masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = self.split(batch)
        return self.masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if isinstance(batch[Columns.OBS], dict):
            batch, _ = self.split(batch)
        return super().compute_values(batch, embeddings)


def policy_path(path: str | Path) -> Path:
    """The policy folder of `path`: itself, or the `policy/` of a train-rllib run folder."""
    path = Path(path)
    if (path / METADATA_NAME).is_file():
        return path
    if (path / "policy" / METADATA_NAME).is_file():
        return path / "policy"
    raise ValueError(f"{path}: not an RLlib policy folder (no {METADATA_NAME}); see train-rllib")


class RLlibAgent(PolicyAgent):
    """Plays the masked argmax of an RLlib policy (or samples it, `deterministic=False`).

    Observations are encoded for each game's current player exactly as the env encodes
    them (one shared policy plays every seat)."""

    name = "rllib"

    def __init__(
        self,
        module: RLModule,
        metadata: dict[str, Any],
        seed: int | np.random.Generator | None = None,
        deterministic: bool = True,
    ):
        super().__init__(metadata, seed, deterministic)
        self.module = module.eval()

    @classmethod
    def read(
        cls, path: str | Path, rules: Ruleset | None, num_players: int | None, device: str
    ) -> tuple[RLModule, dict[str, Any]]:
        """(module, metadata) of a policy folder; with `rules`/`num_players`, refuse one
        made for another game. RLlib's modules play on the CPU here."""
        if device not in ("cpu", "auto"):
            raise ValueError(f"{path}: an RLlib policy plays on the CPU, not {device!r}")
        folder = policy_path(path)
        metadata = json.loads((folder / METADATA_NAME).read_text())
        check_game(metadata, rules, num_players, str(path))
        # RLlib reads checkpoints through pyarrow's file systems, which want absolute paths
        return RLModule.from_checkpoint(folder.resolve()), metadata

    def act_batch(
        self, engine: BatchEngine, state: BatchState, games: np.ndarray, mask: np.ndarray
    ) -> np.ndarray:
        self.check_game(engine)
        games = np.asarray(games, dtype=np.int64)
        if len(games) == 0:
            return np.zeros(0, dtype=np.int64)
        seats = engine.current_player(state)[games]
        obs = observation_encoder(engine.rules, engine.num_players).encode(state, seats, games)
        batch = {Columns.OBS: {OBS: torch.as_tensor(obs), MASK: torch.as_tensor(mask)}}
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        return self.choose(out[Columns.ACTION_DIST_INPUTS].numpy().astype(np.float64), mask)
