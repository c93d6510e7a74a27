"""MOTO_PROFILE: where the emulator's time goes.

MOTO_PROFILE=<file> profiles the server: each request's handling (reading it, the answer,
writing it) is timed by cProfile on its own thread's CPU clock, and when the server stops the
functions that took the most CPU, in total and in themselves, are written to the file, with the
requests counted by service and action. It is for finding where the emulator's time goes; it
slows every request.
"""

import os
import threading
import time


class RequestProfile:
    """MOTO_PROFILE: per-request cProfile runs on the thread CPU clock, merged at exit."""

    def __init__(self, path):
        import cProfile
        import pstats

        self.path = path
        self.cprofile = cProfile
        self.pstats = pstats
        self.lock = threading.Lock()
        self.pending = []
        self.stats = None
        self.requests = {}

    def run(self, handle, label):
        profile = self.cprofile.Profile(time.thread_time)
        profile.enable()
        try:
            handle()
        finally:
            profile.disable()
            with self.lock:
                key = label()
                self.requests[key] = self.requests.get(key, 0) + 1
                self.pending.append(profile)
                if len(self.pending) >= 200:
                    self._merge()

    def _merge(self):
        for profile in self.pending:
            if self.stats is None:
                self.stats = self.pstats.Stats(profile)
            else:
                self.stats.add(profile)
        self.pending = []

    def write(self):
        with self.lock:
            self._merge()
            if self.stats is None:
                return
            with open(self.path, "w") as out:
                out.write("requests by service and action:\n")
                for key, n in sorted(self.requests.items(), key=lambda kv: -kv[1]):
                    out.write(f"{n:10d}  {key}\n")
                self.stats.stream = out
                self.stats.sort_stats("cumulative").print_stats(80)
                self.stats.sort_stats("tottime").print_stats(60)


PROFILE = RequestProfile(os.environ["MOTO_PROFILE"]) if os.environ.get("MOTO_PROFILE") else None
"""The profile of this run, or None when MOTO_PROFILE is not set."""
