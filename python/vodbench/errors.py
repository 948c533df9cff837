"""The exceptions vodbench raises."""

from __future__ import annotations


class VodbenchError(Exception):
    """Any error of a vodbench command."""


class InputError(VodbenchError):
    """Bad input that is not a scenario's (a flag, a folder, a trace, a plugin library)."""


class RunError(VodbenchError):
    """The run failed: a built-in plugin broke its contract (a bug in vodbench), an output
    could not be written. A loaded policy's broken contract is a :class:`PluginError`."""


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
    loaded library's call failed, or a loaded policy (a Python class, a library's) broke its
    contract (an answer the engine refused: the command line's exit code 2), or a policy
    could not be registered.

    Attributes:
        policy: the policy's kind and name (``disk.scheduler `my-sstf```), when a call failed
            or a contract was broken.
        method: the method that failed (``dequeue``); ``None`` for a broken contract (the
            fault is in an answer, not in a call).
        source: the library, or the Python class's ``file#Class``.
        detail: what the policy said (for a Python policy that raised, the formatted
            traceback), or, for a broken contract, what it did.
    """

    def __init__(self, message: str, policy: str | None = None, method: str | None = None,
                 source: str | None = None, detail: str | None = None) -> None:
        super().__init__(message)
        self.policy = policy
        self.method = method
        self.source = source
        self.detail = detail
