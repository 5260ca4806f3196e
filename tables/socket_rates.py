"""Per-socket rates for what a socket may ask of the database: `sync` (a snapshot read)
and commands. A token bucket per socket, in the consumer's memory: a socket is served
by one process, so there is nothing to share, and a bucket is a few lines where a
library (`limits`, `aiolimiter`) would bring its own storage or make the caller wait
instead of answering `rate_limited` at once.

A bucket holds up to `burst` tokens and gains `per_second` a second; each message
takes one. The command bucket's burst is sized for a tablet's outbox flushed after a
reconnect (settings.CARDROOM_SOCKET_COMMAND_BURST), so that is never refused.
"""

import time
from dataclasses import dataclass, field


@dataclass
class TokenBucket:
    burst: float
    per_second: float
    tokens: float = field(init=False)
    at: float = field(init=False)
    clock: callable = time.monotonic

    def __post_init__(self):
        self.tokens = self.burst
        self.at = self.clock()

    def take(self) -> float:
        """0 if a token was taken; else the seconds until one will be there."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.per_second if self.per_second > 0 else 60.0
