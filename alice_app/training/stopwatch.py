"""Wall and CPU seconds since a start: what the warm start's report and each GRPO step record."""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Stopwatch:
    """Started when made."""

    wall: float = field(default_factory=time.perf_counter)
    cpu: float = field(default_factory=time.process_time)

    def seconds(self) -> float:
        """Wall seconds since the start."""
        return time.perf_counter() - self.wall

    def cpu_seconds(self) -> float:
        """CPU seconds of this process's threads since the start: what a machine busy with other work does not
        inflate as it does wall seconds."""
        return time.process_time() - self.cpu
