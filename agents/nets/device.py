"""Where a network runs: one device string, checked and resolved in one place.

Every torch user (the trainers, the `az`, `az-net` and `ppo` agents) takes a device as
Stable-Baselines3, TorchRL and CleanRL do: ``"auto"`` (CUDA when torch sees a GPU, else the
CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. `check_device` checks the form alone, without
torch (a config is checked before anything is imported); `resolve_device` gives the
`torch.device`, and refuses a CUDA device this torch cannot use with one line instead of a
traceback from deep inside the first forward pass. The engine always stays on the CPU: a
forward pass sends its observations and feature rows to the device as one tensor each and
brings its result back as one array.

`autocast` is the mixed precision the trainers offer (`amp`, off by default): their learning
steps in bfloat16 autocast on the run's device, the weights and the losses in float32. It
pays where the hardware computes in bfloat16 (a GPU; a CPU with AVX512-BF16 or AMX) and
costs elsewhere; `experiments/benchmarks/gpu_check.py` measures both precisions on every
device.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

DEVICE_FORMS = "auto, cpu, cuda or cuda:N"
_FORM = re.compile(r"auto|cpu|cuda(:\d+)?")


def set_torch_threads(threads: int) -> None:
    """torch's CPU threads for the learning steps. numba's OpenMP pool, which the engine
    starts, sets the process's OpenMP thread count when it starts, and torch's with it (the
    count asked for is lost, and small torch ops on a busy machine run up to 100x slower):
    so the pool is started first, then torch's count set."""
    import numba
    import torch

    numba.get_num_threads()  # starts numba's threads
    torch.set_num_threads(threads)


def check_device(device: str) -> str:
    """`device` if it is one of the accepted forms (module doc), else a ValueError naming
    them. Needs no torch."""
    if not isinstance(device, str) or not _FORM.fullmatch(device):
        raise ValueError(f"device {device!r} is not one of {DEVICE_FORMS}")
    return device


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """The torch device of `device` ("auto": CUDA if available, else the CPU); a ValueError
    of one line for a bad string or a CUDA device this torch cannot use."""
    import torch

    if isinstance(device, torch.device):
        device = str(device)
    check_device(device)
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            build = (
                "a CPU build"
                if torch.version.cuda is None
                else f"built for CUDA {torch.version.cuda} but finds no GPU"
            )
            raise ValueError(
                f"device {device!r} asked for, but torch.cuda.is_available() is False "
                f"(torch {torch.__version__} is {build}); use 'cpu' or 'auto'"
            )
        index = int(device.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            raise ValueError(
                f"device {device!r} asked for, but torch sees {torch.cuda.device_count()} "
                f"CUDA device(s) (cuda:0 to cuda:{torch.cuda.device_count() - 1})"
            )
    return torch.device(device)


def available_devices() -> list[str]:
    """The devices this machine can run on: "cpu", then every CUDA device."""
    import torch

    cuda = [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    return ["cpu", *(cuda if torch.cuda.is_available() else [])]


def device_of(module: torch.nn.Module) -> torch.device:
    """The device a network's weights are on (where its inputs must go)."""
    return next(module.parameters()).device


def autocast(device: torch.device, amp: bool) -> contextlib.AbstractContextManager:
    """bfloat16 autocast on `device` with `amp`; no change without (module doc)."""
    import torch

    if amp:
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return contextlib.nullcontext()
