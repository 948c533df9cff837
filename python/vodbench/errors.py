"""The exceptions vodbench raises."""

from __future__ import annotations


class VodbenchError(Exception):
    """Any error of a vodbench command."""


class InputError(VodbenchError):
    """Bad input that is not a scenario's (a flag, a folder, a trace, a plugin library)."""


class RunError(VodbenchError):
    """The run failed: a plugin broke its contract, an output could not be written."""


class ScenarioError(InputError):
    """A scenario that is not valid.

    Attributes:
        file: the scenario file (``None`` when the error names none).
        line: the 1-based line of the key, when known.
        key: the dotted key (``server.disks_per_node``), when the error is about one.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 key: str | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.key = key


class PluginError(VodbenchError):
    """A policy failed: a Python policy raised (or answered a value of the wrong type), or a
    loaded library's call failed, or a policy could not be registered.

    Attributes:
        policy: the policy's kind and name (``disk.scheduler `my-sstf```), when a call failed.
        method: the method that failed (``dequeue``).
        source: the library, or the Python class's ``file#Class``.
        detail: what the policy said: for a Python policy, the formatted traceback.
    """

    def __init__(self, message: str, policy: str | None = None, method: str | None = None,
                 source: str | None = None, detail: str | None = None) -> None:
        super().__init__(message)
        self.policy = policy
        self.method = method
        self.source = source
        self.detail = detail
