"""A trainer as N processes (ranks) under torchrun: data-parallel learning on many cores.

    torchrun --standalone --nproc_per_node 2 -m mortyenv.cli train --config ppo_2p

torchrun starts the ranks with `RANK`, `WORLD_SIZE`, `LOCAL_RANK` and the rendezvous in
their environment; `start` joins them in one process group (gloo on the CPU, nccl on GPUs,
each rank on the GPU of its local rank). Each rank plays its share of the games with its own
seed and computes its gradients; `average_gradients` makes every rank's gradients the
ranks' mean before each optimizer step, so the ranks' copies of the network take the same
steps and stay the same, as under `DistributedDataParallel`. Rank 0 (`lead`) evaluates,
logs, checkpoints and writes the run folder; what depends on its clock (the end of the
run) it decides for all (`lead_says`), so that every rank stops at the same update.

Without torchrun (no `WORLD_SIZE`) `start` gives None and a trainer is one process, exactly
as it is without this module.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import torch
import torch.distributed as dist


@dataclass(frozen=True)
class Ranks:
    """This process's place among the ranks of a run, and what they do together."""

    rank: int
    size: int
    device: torch.device  # this rank's: its GPU, or the CPU

    @property
    def lead(self) -> bool:
        """Rank 0: the one that evaluates, logs, checkpoints and writes."""
        return self.rank == 0

    def share(self, total: int, what: str) -> int:
        """This rank's part of `total` (games, a minibatch), which must split evenly, so
        that every rank does the same work and the run is the recipe of its config."""
        if total % self.size:
            raise ValueError(f"{what} = {total} does not split evenly over {self.size} ranks")
        return total // self.size

    def average_gradients(self, parameters: Iterable[torch.nn.Parameter]) -> None:
        """Every rank's gradients become the ranks' mean, in one all-reduce of them all
        flattened. The parameters without a gradient (a head the loss does not use) are
        left out: the same ones on every rank, since every rank runs the same loss."""
        grads = [param.grad for param in parameters if param.grad is not None]
        flat = torch.cat([grad.flatten() for grad in grads])
        dist.all_reduce(flat)
        flat /= self.size
        for grad, mean in zip(grads, flat.split([g.numel() for g in grads]), strict=True):
            grad.copy_(mean.view_as(grad))

    def same_weights(self, module: torch.nn.Module) -> None:
        """Every rank takes rank 0's weights (and buffers): the start of a run."""
        for tensor in (*module.parameters(), *module.buffers()):
            dist.broadcast(tensor.data, 0)

    def lead_says(self, value: float) -> float:
        """Rank 0's `value` on every rank: a decision of its clock taken by all."""
        shared = torch.tensor([value], dtype=torch.float64, device=self.device)
        dist.broadcast(shared, 0)
        return float(shared.item())

    def mean(self, value: float) -> float:
        """The ranks' mean of `value`: a statistic whose decision every rank must share."""
        shared = torch.tensor([value], dtype=torch.float64, device=self.device)
        dist.all_reduce(shared)
        return float(shared.item()) / self.size


def start(device: torch.device) -> Ranks | None:
    """Join the run's ranks (module doc); None without torchrun. `device` is the one the
    config asks for: a GPU becomes this rank's own (cuda:LOCAL_RANK). The engine's threads
    are shared out too: ranks that each ran numba on every core would fight for them."""
    if "WORLD_SIZE" not in os.environ:
        return None
    import numba

    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if device.type == "cuda":
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    here = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS // here))
    return Ranks(dist.get_rank(), dist.get_world_size(), device)


def stop(ranks: Ranks | None) -> None:
    """Leave the process group (after the last collective)."""
    if ranks is not None and dist.is_initialized():
        dist.destroy_process_group()
