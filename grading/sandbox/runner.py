"""Run student code in bubblewrap and serve its game calls from the grader.

The process chain, each link exec'ing the next so they share one pid and process group:
``sh`` (joins the run's cgroup, only when there is one) -> ``prlimit`` -> ``setpriv`` (drops
to the unprivileged sandbox uid/gid with no groups, capabilities or bounding set) -> ``bwrap``
(new namespaces of every kind, read-only ``/usr``, the run's two files, seccomp) ->
``/usr/bin/python3 -I -S -B bootstrap.pyc``. bubblewrap is never started as root because it
would keep capabilities inside the sandbox; a grader that is not root itself skips ``setpriv``
and the sandbox runs as the grader's own uid.

Safe to call from a Celery worker running as root: nothing here changes the worker's own
credentials, signal handlers or cgroup. The run's files (the student's source and the
compiled bootstrap) are copied into the sandbox's own read-only root from memory, so no host
path or run id shows in its ``/proc/self/mountinfo`` and nothing is left on disk. The
worker does become a child subreaper (``PR_SET_CHILD_SUBREAPER``): a killed run's
interpreter, orphaned when bwrap dies, is then the worker's child, which reaps it, instead
of a zombie of the container's pid 1 (Celery, which never reaps it) counting against the
sandbox uid's process limit for good.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import fcntl
import functools
import logging
import math
import os
import secrets
import select
import shutil
import signal
import stat
import struct
import subprocess
import tempfile
import termios
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.game import Evaluator, Game

from . import cgroups, seccomp
from .errors import ProtocolViolation, SandboxUnavailable
from .harness import GameFailure, GameServer
from .limits import DEFAULT_LIMITS, SandboxConfig, SandboxLimits
from .protocol import FrameReader, encode_frame
from .record import RUN_ENDINGS, CallEvent, RunRecord, Verdict

logger = logging.getLogger(__name__)

BOOTSTRAP = Path(__file__).with_name("bootstrap.py")
BOOTSTRAP_PYC = "bootstrap.pyc"
MOUNT_POINT = "/sandbox"
PYTHON_FLAGS = ("-I", "-S", "-B", "-u", "-X", "utf8")
"""``-I``: no environment variables, user site or script directory on ``sys.path``; ``-S``: no
``site`` (so no dist-packages either, and a faster start); ``-B``: never write ``.pyc`` files;
``-u``: unbuffered, so output printed before a kill or crash is still captured."""
DRAIN_SECONDS = 0.5
"""How long to keep reading output after the sandbox exits, for pipes still being closed."""
JOIN_CGROUP = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
"""Shell script that moves itself into the cgroups named before ``--`` and execs the rest, so
the sandbox is inside its cgroup before its first instruction (no race, no preexec_fn)."""
CGROUP_JOIN_FAILED = 125
TMP_FILES = 4
"""The sandbox's ``/tmp`` holds this many files of the largest size ``max_file_bytes`` allows."""
CPU_MEASURE_SLACK = 0.5
"""Fraction of the CPU limit the measured time must reach for a SIGKILL to count as the CPU
limit. The kernel's RLIMIT_CPU clock runs up to a third ahead of rusage/cpuacct on a loaded
host, so this only rules out a kill that cannot have been the CPU limit."""
WALL_STRETCH = 2.0
"""A run may take up to this many times its wall-clock limit of real time, so that its own
time (the wall clock less the host's, see ``_Session.host_seconds``) can reach the limit."""
OTHER_CPU_SLACK = 0.2
"""CPU seconds the run's other processes and threads may use before waits for a CPU (its main
thread's and the grader's) stop being excused: a student's own children compete with both."""


def check_host(config: SandboxConfig) -> dict[str, str]:
    """Return the absolute paths of the tools the sandbox needs, or raise SandboxUnavailable."""
    tools: dict[str, str] = {}
    hints = {"bwrap": "apt-get install bubblewrap", "setpriv": "apt-get install util-linux",
             "prlimit": "apt-get install util-linux"}
    for name in ("bwrap", "setpriv", "prlimit"):
        path = shutil.which(getattr(config, name))
        if path is None:
            raise SandboxUnavailable(f"{name} not found; install it: {hints[name]}")
        tools[name] = path
    if not os.access(config.python, os.X_OK):
        raise SandboxUnavailable(
            f"{config.python} not found; install Debian's python3 (apt-get install python3)")
    seccomp.build_filter()
    _compiled_bootstrap(config.python)
    return tools


@functools.cache
def _compiled_bootstrap(python: str) -> bytes:
    """Return bootstrap.py compiled by the sandbox's own interpreter, once per worker process:
    compiling it inside every run cost a few milliseconds of CPU at each start."""
    script = ("import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], "
              f"dfile='{MOUNT_POINT}/bootstrap.py', doraise=True)")
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / BOOTSTRAP_PYC
        done = subprocess.run([python, "-I", "-S", "-c", script, str(BOOTSTRAP), str(target)],
                              capture_output=True, text=True, env={})
        if done.returncode != 0:
            raise SandboxUnavailable(f"{python} cannot compile the sandbox bootstrap: "
                                     f"{done.stderr.strip()[-500:]}")
        return target.read_bytes()


def run_in_sandbox(source: str, entry_point: str, args: Sequence[object], game: Game[Any, Any],
                   limits: SandboxLimits = DEFAULT_LIMITS, *,
                   evaluator: Evaluator[Any] | None = None,
                   players: Sequence[str] | None = None,
                   recorder: Callable[[CallEvent], None] | None = None,
                   config: SandboxConfig | None = None,
                   budget_left: float | None = None,
                   stop_after: float | None = None) -> RunRecord:
    """Run ``entry_point(game, *args)`` from the student's ``source`` and record what it did.

    ``args`` holds JSON scalars/lists and :class:`StateArg` states; ``game`` is the reference
    game the grader answers from, ``evaluator`` backs ``game.evaluate`` at a cutoff, and
    ``recorder`` sees each :class:`CallEvent` as it happens. Raises SandboxUnavailable when the
    host lacks bubblewrap, setpriv or prlimit; every failure of the student's code is a verdict.

    The wall-clock limit counts the run's own time: the CPU time the grader spent answering
    its game calls and the time the run (and the grader answering it) waited for a CPU held
    by other work do not count. ``budget_left`` (own seconds) stops it sooner, ending
    ``time_budget``: what is left of the time all of a submission's runs share. After
    ``WALL_STRETCH`` times that limit of real time (or ``stop_after`` seconds) a run is
    stopped: its time limit when the time it did not wait for a CPU reached the limit (its
    own calls took it), otherwise ``host_busy``, a sandbox error, the host's failure and not
    the student's.
    """
    config = config or SandboxConfig()
    tools = check_host(config)
    _become_subreaper()
    server = GameServer(game, evaluator=evaluator, players=players, recorder=recorder)
    start = {"entry": entry_point, "args": server.start_args(args)}
    run_id = secrets.token_hex(8)
    base_dir = _prepare_base_dir(config.base_dir.absolute())
    if config.use_cgroup:
        _sweep_stale_cgroups_now_and_then(config.cgroup_parent)
    cgroup: cgroups.RunCgroup | str = "unavailable: disabled in SandboxConfig"
    usage = _Usage()
    with _run_uid(config, base_dir) as uid:
        config = dataclasses.replace(config, uid=uid)
        try:
            if config.use_cgroup:
                cgroup = cgroups.create_run_cgroup(f"{cgroups.RUN_CGROUP_PREFIX}{run_id}",
                                                    limits, config.cgroup_parent)
            session = _Session(server, start, limits,
                               cgroup if isinstance(cgroup, cgroups.RunCgroup) else None,
                               budget_left, stop_after)
            session.run(_command(tools, config, limits, cgroup),
                        {"solution.py": source.encode("utf-8"),
                         BOOTSTRAP_PYC: _compiled_bootstrap(config.python)})
        finally:
            if isinstance(cgroup, cgroups.RunCgroup):
                cgroup.kill_all()
                usage = _Usage(cgroup.cpu_seconds(), cgroup.peak_memory(),
                               cgroup.memory_limit_reached())
                cgroup.remove()
    return session.record(usage, cgroup.status if isinstance(cgroup, cgroups.RunCgroup)
                          else cgroup)


PR_SET_CHILD_SUBREAPER = 36
_subreaper_pid: int | None = None
"""The process that made itself a subreaper: a forked child (a Celery pool process) does not
inherit the attribute, so it sets it again."""


def _become_subreaper() -> None:
    """Make this process the reaper of its orphaned descendants, once per process.

    bwrap and the interpreter it starts are parent and child; when a run is killed, bwrap may
    die first and its child would otherwise be re-parented to pid 1 of the host or container.
    """
    global _subreaper_pid
    if _subreaper_pid == os.getpid():
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise SandboxUnavailable(f"cannot become a child subreaper: {os.strerror(error)}")
    _subreaper_pid = os.getpid()


@dataclass(frozen=True)
class _Usage:
    """Hold what the run's cgroup measured; ``None`` where it could not (rusage is used)."""

    cpu_seconds: float | None = None
    peak_memory: int | None = None
    memory_limit_reached: bool = False


@contextlib.contextmanager
def _run_uid(config: SandboxConfig, base_dir: Path) -> Iterator[int]:
    """Hold one uid of the configured pool for the length of a run; yield it.

    An exclusive lock on ``<base_dir>/uid-<uid>.lock`` keeps it this run's among all workers
    sharing the base directory; when every uid is busy the run waits for one. Without root
    (no uid switch) or with a pool of one, yield ``config.uid``.
    """
    if os.geteuid() != 0 or config.uid_count <= 1:
        yield config.uid
        return
    first = secrets.randbelow(config.uid_count)  # spread runs over the pool
    uids = [config.uid + (first + step) % config.uid_count for step in range(config.uid_count)]
    for blocking in (False, True):
        for uid in uids:
            fd = os.open(base_dir / f"uid-{uid}.lock",
                         os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                os.close(fd)
                continue
            try:
                yield uid
            finally:
                os.close(fd)  # releases the lock
            return


CGROUP_SWEEP_SECONDS = 60.0
"""A worker looks for leftover run cgroups at most this often (reading every hierarchy)."""
_last_cgroup_sweep = float("-inf")


def _sweep_stale_cgroups_now_and_then(parent: Path | None) -> None:
    global _last_cgroup_sweep
    if time.monotonic() - _last_cgroup_sweep < CGROUP_SWEEP_SECONDS:
        return
    _last_cgroup_sweep = time.monotonic()
    removed = cgroups.sweep_stale_cgroups(parent)
    if removed:
        logger.warning("removed %d run cgroup(s) left by a killed worker: %s", len(removed),
                       ", ".join(str(path) for path in removed))


def _prepare_base_dir(base: Path) -> Path:
    """Create the base directory (it holds the uid pool's lock files) if needed and return it;
    refuse one another user could swap or fill (it may sit in /tmp)."""
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = base.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise SandboxUnavailable(
            f"sandbox base directory {base} must be a real directory owned by uid "
            f"{os.geteuid()} and writable only by it; remove it or set SandboxConfig.base_dir")
    return base


def _command(tools: dict[str, str], config: SandboxConfig, limits: SandboxLimits,
             cgroup: cgroups.RunCgroup | str) -> list[str]:
    cmd: list[str] = []
    if isinstance(cgroup, cgroups.RunCgroup):
        cmd += ["/bin/sh", "-c", JOIN_CGROUP, "sh", *map(str, cgroup.procs_files), "--"]
    cmd += [
        tools["prlimit"],
        # Soft = hard: a namespace's pid 1 ignores SIGXCPU, so the hard SIGKILL is the limit.
        f"--cpu={limits.cpu_seconds}",
        # RLIMIT_NPROC counts every task of the sandbox uid, the harness's three included.
        f"--nproc={limits.max_processes + cgroups.HARNESS_TASKS}",
        f"--fsize={limits.max_file_bytes}",
        f"--nofile={limits.max_open_files}",
        "--core=0",
        f"--as={limits.memory_bytes}",
        "--",
    ]
    if os.geteuid() == 0:
        cmd += [tools["setpriv"], f"--reuid={config.uid}", f"--regid={config.gid}",
                "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--"]
    cmd += [
        tools["bwrap"],
        "--unshare-all", "--unshare-user", "--disable-userns",
        "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL",
        # The interpreter is the namespace's pid 1, so bwrap reaps it itself; with bwrap's own
        # init, that init outlives bwrap as a zombie of the host's pid 1 and counts against
        # the sandbox uid's RLIMIT_NPROC until the host gets round to reaping it.
        "--as-pid-1",
        "--hostname", "sandbox",
        "--ro-bind", "/usr", "/usr",
    ]
    for link in ("bin", "lib", "lib64", "sbin"):
        target = Path("/", link)
        if target.is_symlink():
            cmd += ["--symlink", os.readlink(target), f"/{link}"]
        elif target.is_dir():
            cmd += ["--ro-bind", str(target), f"/{link}"]
    cmd += [
        "--proc", "/proc", "--dev", "/dev",
        "--size", str(TMP_FILES * limits.max_file_bytes), "--tmpfs", "/tmp",
        # Copies in the root, made read-only below: a bind mount would show its host path.
        "--perms", "0500", "--dir", MOUNT_POINT,
        "--perms", "0400", "--file", "{solution.py}", f"{MOUNT_POINT}/solution.py",
        "--perms", "0400", "--file", f"{{{BOOTSTRAP_PYC}}}", f"{MOUNT_POINT}/{BOOTSTRAP_PYC}",
        "--chdir", MOUNT_POINT,
        # bwrap's own root and /dev are tmpfs writable by the sandbox uid: without a memory
        # cgroup they would be an unbounded store, so only the sized /tmp stays writable.
        "--remount-ro", "/dev", "--remount-ro", "/",
        "--seccomp", "{seccomp_fd}",
        "--", config.python, *PYTHON_FLAGS, f"{MOUNT_POINT}/{BOOTSTRAP_PYC}",
        "{read_fd}", "{write_fd}", "{note_fd}",
    ]
    return cmd


@dataclass
class _Stream:
    """Capture one output pipe up to a byte cap."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.truncated = True
        self.data += chunk[:max(room, 0)]

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


class _Session:
    """Drive one sandboxed process: feed its channel, capture output, enforce the wall clock."""

    def __init__(self, server: GameServer, start: dict[str, Any], limits: SandboxLimits,
                 cgroup: cgroups.RunCgroup | None, budget_left: float | None = None,
                 stop_after: float | None = None) -> None:
        self.server = server
        self.budget_left = budget_left
        self.stop_after = stop_after
        self.start = start
        self.limits = limits
        self.cgroup = cgroup
        self.reader = FrameReader()
        self.stdout = _Stream(limits.max_output_bytes)
        self.stderr = _Stream(limits.max_output_bytes)
        self.outbox = bytearray()
        self.channel_w = -1
        self.proc: subprocess.Popen[bytes] | None = None
        self.said_hello = False
        self.result: dict[str, Any] | None = None
        self.killed_for: Verdict | None = None
        self.kill_ending = _Ending("returned", {})
        self.exit_status: int | None = None
        self.cpu_seconds = 0.0
        self.max_rss = 0
        self.wall_seconds = 0.0
        self.host_seconds = 0.0
        """Time the host took from the run, not counted against the wall limit: the grader's
        CPU time answering its calls and ``waited_seconds``."""
        self.waited_seconds = 0.0
        """Of ``host_seconds``, the time the run and the grader waited for a CPU held by other
        work: the host's load, which only it can cause."""
        self.serving_seconds = 0.0
        self.grader_delay_at_start = _run_delay(Path("/proc/thread-self/schedstat"))
        self.out_of_memory = False
        """Whether a process the student forked reported a MemoryError on the note pipe."""
        self.orphans: list[int] = []
        """pidfds of bwrap's children, taken when the run is killed: reaped after bwrap."""

    def run(self, template: list[str], files: dict[str, bytes]) -> None:
        """Run ``template`` (placeholders filled with descriptors), with ``files`` (name →
        content) for bwrap to copy into the sandbox."""
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        note_r, note_w = os.pipe()
        filter_r, filter_w = os.pipe()
        # The filter (a few hundred bytes) fits in the pipe buffer, so writing cannot block.
        os.write(filter_w, seccomp.build_filter())
        os.close(filter_w)
        fds = {"{seccomp_fd}": filter_r, "{read_fd}": to_child_r, "{write_fd}": from_child_w,
               "{note_fd}": note_w}
        for name, content in files.items():
            fds[f"{{{name}}}"] = _memory_file(name, content)
        child_fds = tuple(fds.values())
        cmd = [str(fds[arg]) if arg in fds else arg for arg in template]
        # Queued now, so the bootstrap finds it without waiting for a round trip.
        self.outbox += encode_frame(self.start)
        began = time.monotonic()
        try:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=child_fds, env={}, cwd="/", start_new_session=True)
        finally:
            for fd in child_fds:
                os.close(fd)
        assert proc.stdout is not None and proc.stderr is not None
        try:
            self._loop(proc, began, from_child_r, to_child_w, note_r)
        finally:
            self._kill(proc)
            self._reap(proc)
            self.wall_seconds = time.monotonic() - began
            for fd in (from_child_r, to_child_w, note_r):
                with contextlib.suppress(OSError):
                    os.close(fd)
            proc.stdout.close()
            proc.stderr.close()

    def _loop(self, proc: subprocess.Popen[bytes], began: float, channel_r: int,
              channel_w: int, note_r: int) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        streams = {proc.stdout.fileno(): self.stdout, proc.stderr.fileno(): self.stderr}
        readers = {channel_r, note_r, *streams}
        self.channel_w = channel_w
        self.proc = proc
        for fd in (channel_r, channel_w, note_r, *streams):
            os.set_blocking(fd, False)
        # poll, not select: a long-lived worker's descriptors can be numbered past 1024.
        poller = select.poll()
        for fd in readers:
            poller.register(fd, select.POLLIN)
        pidfd = os.pidfd_open(proc.pid)
        poller.register(pidfd, select.POLLIN)
        wall = self.limits.wall_seconds
        own_limit = wall if self.budget_left is None else min(wall, self.budget_left)
        stop_at = began + min(own_limit * WALL_STRETCH,
                              math.inf if self.stop_after is None else self.stop_after)
        deadline = min(began + own_limit, stop_at)
        exited_at: float | None = None
        try:
            while readers:
                now = time.monotonic()
                if exited_at is None and now >= deadline:
                    self._measure_host(proc)
                    elapsed = now - began
                    # At the last stop, the grader's time answering the run's own calls is
                    # the run's again: only the host's load can make it the host's failure.
                    spent = elapsed - (self.waited_seconds if now >= stop_at
                                       else self.host_seconds)
                    if spent >= own_limit:
                        if own_limit < wall:
                            self._stop(proc, "time_limit", "time_budget",
                                       seconds=f"{own_limit:.1f}")
                        else:
                            self._stop(proc, "time_limit", "wall_limit", seconds=f"{wall:g}")
                        return
                    if now >= stop_at:
                        self._stop(proc, "sandbox_error", "host_busy",
                                   elapsed=f"{elapsed:.1f}",
                                   host_seconds=f"{self.waited_seconds:.1f}")
                        return
                    # The host's time does not count: the run's own time has not reached its
                    # limit yet.
                    deadline = min(began + own_limit + self.host_seconds, stop_at)
                    continue
                if exited_at is not None and now >= exited_at + DRAIN_SECONDS:
                    return
                timeout = (deadline if exited_at is None else exited_at + DRAIN_SECONDS) - now
                if self.outbox:
                    poller.register(channel_w, select.POLLOUT)
                events = dict(poller.poll(max(timeout, 0) * 1000))
                if self.outbox:
                    poller.unregister(channel_w)
                if pidfd in events and exited_at is None:
                    exited_at = time.monotonic()
                    poller.unregister(pidfd)
                if channel_w in events:
                    self._flush(channel_w)
                for fd in events.keys() & readers:
                    try:
                        chunk = os.read(fd, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        readers.discard(fd)
                        poller.unregister(fd)
                    elif fd == channel_r:
                        # CPU time: the grader's own waits for a CPU are in its run delay.
                        serving_began = time.thread_time()
                        self._on_channel(proc, chunk)
                        self.serving_seconds += time.thread_time() - serving_began
                    elif fd == note_r:
                        self.out_of_memory = True
                    else:
                        streams[fd].add(chunk)
                        if streams[fd].truncated:
                            name = "stdout" if fd == proc.stdout.fileno() else "stderr"
                            self._stop(proc, "output_limit", "output_limit", stream=name,
                                       limit_bytes=self.limits.max_output_bytes)
                    if self.killed_for is not None:
                        return
        finally:
            os.close(pidfd)

    def _measure_host(self, proc: subprocess.Popen[bytes] | None) -> None:
        """Measure the time the host has taken from the run so far (``host_seconds``).

        Waits for a CPU (the grader's thread's and the student's process's) are the host's
        only while the run is that one process and its cgroup shows the CPU time of all of
        it: a student's own children and threads compete with it, and with the grader, too,
        so once they used more than ``OTHER_CPU_SLACK`` of CPU (or nothing can tell) every
        wait is the run's own.
        """
        self.waited_seconds = self._waits(proc) if proc is not None else 0.0
        self.host_seconds = self.serving_seconds + self.waited_seconds

    def _waits(self, proc: subprocess.Popen[bytes]) -> float:
        run_cpu = self.cgroup.cpu_seconds() if self.cgroup is not None else None
        children = _children(proc.pid)
        if run_cpu is None or len(children) != 1 or _children(children[0]):
            return 0.0
        stats = _schedstat(Path(f"/proc/{children[0]}/schedstat"))
        if stats is None:
            return 0.0
        on_cpu, waited = stats
        if run_cpu - on_cpu > OTHER_CPU_SLACK:
            return 0.0
        grader = _run_delay(Path("/proc/thread-self/schedstat")) - self.grader_delay_at_start
        return waited + max(0.0, grader)

    def _flush(self, channel_w: int) -> None:
        try:
            del self.outbox[:os.write(channel_w, self.outbox)]
        except BlockingIOError:
            pass
        except BrokenPipeError:
            # The student closed its end: nobody will read the rest, and retrying would spin.
            self.outbox.clear()

    def _on_channel(self, proc: subprocess.Popen[bytes], chunk: bytes) -> None:
        if self.killed_for is not None:
            return
        self.reader.feed(chunk)
        try:
            while (message := self.reader.next_frame()) is not None:
                self._on_message(message)
        except ProtocolViolation as exc:
            self._stop(proc, "illegal_operation", "protocol_violation", detail=str(exc))
        except GameFailure as exc:
            self._stop(proc, "sandbox_error", "game_failure", detail=str(exc))
        except _TooManyCalls:
            self._stop(proc, "time_limit", "too_many_calls", limit=self.limits.max_game_calls)

    def _on_message(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if self.result is not None:
            raise ProtocolViolation(f"message {op!r} after the final result")
        if not self.said_hello:
            # hello needs no reply: the start frame was queued before the sandbox started.
            if message != {"op": "hello"}:
                raise ProtocolViolation(f"expected hello, got {op!r}")
            self.said_hello = True
            return
        if self.reader.pending or self.outbox or _unread_bytes(self.channel_w):
            # The bootstrap reads each reply (the start frame first) in full before writing
            # again: bytes queued behind a message, or a message sent while our last reply
            # still sits in the pipe or in our outbox, were written out of turn.
            raise ProtocolViolation("message written before the previous reply was read")
        if op == "call":
            if len(self.server.calls) >= self.limits.max_game_calls:
                raise _TooManyCalls
            self.outbox += encode_frame(self.server.serve(message))
        elif op == "return" and set(message) == {"op", "value"}:
            self.result = {"op": "return", "value": self.server.decode_return(message["value"])}
        elif op == "error" and set(message) == {"op", "type", "traceback"} \
                and isinstance(message["type"], str) and isinstance(message["traceback"], str):
            self.result = message
        else:
            raise ProtocolViolation(f"unexpected message {op!r}")
        if self.result is not None:
            # Measured while the student's process still lives: a budget counts own time.
            self._measure_host(self.proc)

    def _stop(self, proc: subprocess.Popen[bytes], verdict: Verdict, ending: str,
              **params: str | int | float) -> None:
        if self.killed_for is None:
            self.killed_for, self.kill_ending = verdict, _Ending(ending, params)
        self._kill(proc)

    def _kill(self, proc: subprocess.Popen[bytes]) -> None:
        # The pid namespace's init (bwrap's child, the interpreter) first: its death takes
        # every process of the namespace with it, and bwrap reaps it if it is still alive.
        # Then the process group (the links before bwrap and bwrap itself) and the cgroup
        # (anything else). An init whose bwrap died first is this (subreaper) process's
        # child, reaped in _reap.
        for pid in _children(proc.pid):
            self._kill_orphan(pid, {proc.pid, os.getpid()})
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill_all()

    def _kill_orphan(self, pid: int, parents: set[int]) -> None:
        """SIGKILL ``pid`` if its parent is one of ``parents``, keeping a pidfd to reap it."""
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        # Checked once the pidfd pins the process: a pid reused before the open has another
        # parent, and one reused after it is not the process the pidfd signals.
        if _parent(pid) not in parents:
            os.close(pidfd)
            return
        self.orphans.append(pidfd)
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)

    def _reap(self, proc: subprocess.Popen[bytes]) -> None:
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = self.exit_status = os.waitstatus_to_exitcode(status)
        self.cpu_seconds = usage.ru_utime + usage.ru_stime
        self.max_rss = usage.ru_maxrss * 1024
        for pidfd in self.orphans:
            # ChildProcessError: bwrap reaped it before it died, or it was reaped already.
            with contextlib.suppress(ChildProcessError):
                os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
            os.close(pidfd)
        self.orphans.clear()

    def record(self, usage: _Usage, cgroup: str) -> RunRecord:
        """Return the run's record; ``usage`` (from the cgroup) beats rusage, which misses the
        processes bwrap's init reaps after bwrap itself has exited."""
        if usage.cpu_seconds is not None:
            self.cpu_seconds = usage.cpu_seconds
        verdict, ending, traceback = self._verdict(usage.memory_limit_reached or self.out_of_memory)
        result = self.result or {}
        return RunRecord(
            verdict=verdict, message=RUN_ENDINGS[ending.code].format(**ending.params),
            ending=ending.code, ending_params=tuple(sorted(ending.params.items())),
            return_value=result.get("value") if verdict == "ok" else None,
            calls=tuple(self.server.calls), traceback=traceback,
            stdout=self.stdout.text(), stderr=self.stderr.text(),
            stdout_truncated=self.stdout.truncated, stderr_truncated=self.stderr.truncated,
            wall_seconds=self.wall_seconds, cpu_seconds=self.cpu_seconds,
            host_seconds=max(self.host_seconds, self.serving_seconds),
            waited_seconds=self.waited_seconds,
            peak_memory_bytes=usage.peak_memory if usage.peak_memory is not None
            else self.max_rss or None,
            cgroup=cgroup, exit_status=self.exit_status, limits=self.limits)

    def _verdict(self, out_of_memory: bool) -> tuple[Verdict, _Ending, str | None]:
        """Return the run's verdict; ``out_of_memory``: some process of the run hit the memory
        limit (the cgroup says so, or a forked process's bootstrap caught a MemoryError)."""
        if self.killed_for is not None:
            return self.killed_for, self.kill_ending, None
        if not self.said_hello:
            detail = self.stderr.text().strip()[-2000:] or f"exit status {self.exit_status}"
            if self.exit_status == CGROUP_JOIN_FAILED:
                detail = "could not join the run's cgroup"
            return "sandbox_error", _Ending("not_started", {"detail": detail}), None
        if self.result is not None and self.result["op"] == "return":
            return "ok", _Ending("returned", {}), None
        traceback = self.result["traceback"] if self.result is not None else None
        if out_of_memory or self.result is not None and self.result["type"] == "MemoryError":
            # Whatever the main process then did (a ChildProcessError once its children were
            # killed, a crash), running out of memory is why the run failed.
            ending = "out_of_memory" if self.result is not None else "memory_killed"
            return "memory_limit", _Ending(
                ending, {"limit_bytes": self.limits.memory_bytes}), traceback
        if self.result is not None:
            return "runtime_error", _Ending("raised", {"exception": self.result["type"]}), traceback
        return self._verdict_from_exit()

    def _verdict_from_exit(self) -> tuple[Verdict, _Ending, str | None]:
        status = self.exit_status
        if status is not None and status < 0:
            # bwrap itself died of a signal, and only this grader's kills (which set
            # killed_for) come from inside the run's reach: something on the host killed it.
            return "sandbox_error", _Ending("killed_by_host",
                                            {"signal": _signal_name(-status)}), None
        # bwrap reports a child killed by signal N as exit status 128 + N.
        signum = status - 128 if status is not None and status > 128 else None
        # No process inside the sandbox can SIGKILL its pid 1, so a SIGKILL that was not the
        # OOM killer of the run's memory limit (out_of_memory, decided before) is RLIMIT_CPU's
        # when the measured time agrees. Below that it came from the host (its OOM killer, an
        # operator, a watchdog): the seccomp filter refuses the run any change to its own
        # limits, so it cannot bring RLIMIT_CPU's kill forward.
        if signum == signal.SIGXCPU or (signum == signal.SIGKILL and self.cpu_seconds
                                        >= self.limits.cpu_seconds * CPU_MEASURE_SLACK):
            return "time_limit", _Ending("cpu_limit", {"seconds": self.limits.cpu_seconds}), None
        if signum == signal.SIGKILL:
            return "sandbox_error", _Ending("killed_by_host", {"signal": "SIGKILL"}), None
        if signum is not None and signum < signal.NSIG:
            ending = "crashed_deep_recursion" if signum == signal.SIGSEGV else "crashed"
            return "runtime_error", _Ending(ending, {"signal": _signal_name(signum)}), None
        return "runtime_error", _Ending("no_result", {"status": str(status)}), None


@dataclass(frozen=True)
class _Ending:
    """Why a run ended: a key of RUN_ENDINGS and its parameters."""

    code: str
    params: dict[str, str | int | float]


def _signal_name(signum: int) -> str:
    """Return a signal's name, e.g. ``SIGSEGV``."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _children(pid: int) -> list[int]:
    """Return the pids of the children of every thread of ``pid`` (none once it has exited)."""
    children: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:  # it has exited (and been reaped) meanwhile
        return children
    for task in tasks:
        with contextlib.suppress(OSError):
            children += [int(child) for child in (task / "children").read_text().split()]
    return children


def _schedstat(path: Path) -> tuple[float, float] | None:
    """Return a task's time on a CPU and time waiting for one, in seconds, from its
    ``schedstat``; None when it is gone or the kernel keeps no scheduler statistics."""
    try:
        on_cpu, waited, _slices = path.read_text().split()
        return int(on_cpu) / 1e9, int(waited) / 1e9
    except (OSError, ValueError):
        return None


def _run_delay(path: Path) -> float:
    """Return a task's time waiting for a CPU, in seconds (0 when not known)."""
    stats = _schedstat(path)
    return 0.0 if stats is None else stats[1]


def _memory_file(name: str, content: bytes) -> int:
    """Return a descriptor of an in-memory file holding ``content``, read from the start."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _parent(pid: int) -> int | None:
    """Return the parent pid of ``pid``, or None when it is gone."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None
    return next((int(line.split()[1]) for line in lines if line.startswith("PPid:")), None)


def _unread_bytes(pipe_fd: int) -> int:
    """Return how many bytes sit in a pipe not yet read by its other end (FIONREAD works on
    either end of a Linux pipe)."""
    answer = fcntl.ioctl(pipe_fd, termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("i", answer)[0])


class _TooManyCalls(Exception):
    """The student made more game calls than ``limits.max_game_calls``."""
