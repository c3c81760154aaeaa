"""The attack corpus: hostile student code must end in a clear verdict, with nothing leaked
from the host and nothing changed on it.

Each attack reports what it tried as a list of ``"what: outcome"`` strings (``OK`` only when
the operation succeeded), so a failing test shows exactly which door was open.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import secrets
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from grading.sandbox import SandboxConfig, SandboxLimits, StateArg

from .conftest import FAST, REPO, TEST_BASE, TEST_UID, Runner, leaked, sandbox_processes

ATTEMPT = '''
import os, sys

def attempt(label, action):
    try:
        value = action()
    except BaseException as exc:
        return f"{label}: {type(exc).__name__}"
    return f"{label}: OK {str(value)[:200]}"
'''


def opened(outcomes: list[str]) -> list[str]:
    """Return the attempts that succeeded."""
    return [outcome for outcome in outcomes if ": OK" in outcome]


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """Listen on a loopback port so a test can prove no connection from the sandbox arrived."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def assert_no_connection(server: socket.socket) -> None:
    with pytest.raises(BlockingIOError):
        server.accept()


# --- network ---------------------------------------------------------------------------------

@pytest.mark.parametrize("port", [6379, 5432], ids=["redis", "postgresql"])
def test_cannot_connect_to_local_services(run: Runner, port: int) -> None:
    record = run(ATTEMPT + f'''
import socket
def solve(game, state):
    return [attempt("connect", lambda: socket.create_connection(("127.0.0.1", {port}), 1)),
            attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))]
''')
    assert record.verdict == "ok"
    assert record.return_value == ["connect: PermissionError", "udp: PermissionError"]


def test_the_sandbox_has_a_network_namespace_of_its_own(run: Runner,
                                                       listener: socket.socket) -> None:
    # Sharing the host's namespace, /proc/net would list the host's interfaces and its
    # listening Redis, PostgreSQL and web ports (this test's listener among them).
    record = run('''
import os
def solve(game, state):
    interfaces = [line.split(":")[0].strip() for line in open("/proc/net/dev").readlines()[2:]]
    sockets = [open(f"/proc/net/{name}").readlines()[1:] for name in ("tcp", "tcp6", "udp")]
    return [interfaces, sockets, os.readlink("/proc/self/ns/net")]
''')
    assert record.verdict == "ok", record.message
    interfaces, sockets, namespace = record.return_value
    assert interfaces == ["lo"]
    assert sockets == [[], [], []]
    assert namespace != os.readlink("/proc/self/ns/net")


def test_cannot_reach_a_web_port(run: Runner, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    record = run(ATTEMPT + f'''
import urllib.request
def solve(game, state):
    return [attempt("http", lambda: urllib.request.urlopen("http://127.0.0.1:{port}/", timeout=1))]
''')
    assert record.verdict == "ok"
    assert opened(record.return_value) == []
    assert_no_connection(listener)


def test_cannot_resolve_names(run: Runner) -> None:
    record = run(ATTEMPT + '''
import socket
def solve(game, state):
    return [attempt("dns", lambda: socket.getaddrinfo("pypi.org", 443)),
            attempt("localhost", lambda: socket.gethostbyname("localhost")),
            attempt("resolv.conf", lambda: open("/etc/resolv.conf").read())]
''')
    assert record.verdict == "ok"
    assert opened(record.return_value) == []


def test_raw_syscalls_through_ctypes_are_denied(run: Runner, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    record = run(f'''
import ctypes, struct
libc = ctypes.CDLL(None, use_errno=True)

def call(*args):
    result = libc.syscall(*args)
    return result, ctypes.get_errno()

def solve(game, state):
    fd, _ = call(41, 2, 1, 0)                   # socket(AF_INET, SOCK_STREAM)
    unix, _ = call(41, 1, 1, 0)                 # socket(AF_UNIX, SOCK_STREAM)
    pair = (ctypes.c_int * 2)()
    spair, _ = call(53, 1, 1, 0, pair)          # socketpair
    address = struct.pack("<HH4s8x", 2, {port}, bytes([127, 0, 0, 1]))
    connected, _ = call(42, 3, address, 16)     # connect() on a guessed fd
    traced, _ = call(101, 0, 0, 0, 0)           # ptrace(PTRACE_TRACEME)
    shared, _ = call(272, 0x10000000)           # unshare(CLONE_NEWUSER)
    mounted, _ = call(165, b"none", b"/tmp", b"tmpfs", 0, 0)
    uring, _ = call(425, 8, ctypes.create_string_buffer(120))
    bpf, _ = call(321, 0, 0, 0)
    keys, _ = call(250, 0, 0, 0, 0, 0)          # keyctl
    perf, _ = call(298, 0, 0, -1, -1, 0)        # perf_event_open
    cloned, _ = call(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(CLONE_NEWUSER | SIGCHLD)
    return [fd, unix, spair, connected, traced, shared, mounted, uring, bpf, keys, perf, cloned]
''')
    assert record.verdict == "ok", record.traceback
    assert record.return_value == [-1] * 12
    assert_no_connection(listener)


def test_clone3_reports_enosys_and_threads_still_work(run: Runner) -> None:
    record = run('''
import ctypes, threading
libc = ctypes.CDLL(None, use_errno=True)
def solve(game, state):
    result = libc.syscall(435, 0, 0)
    out = []
    thread = threading.Thread(target=lambda: out.append(game.actions(state)))
    thread.start()
    thread.join()
    return [result, ctypes.get_errno(), len(out[0])]
''')
    assert record.verdict == "ok", record.traceback
    assert record.return_value == [-1, 38, 2]


# --- reading the host ------------------------------------------------------------------------

def test_cannot_read_host_secrets(run: Runner, tmp_path: Path) -> None:
    database = REPO / "var" / "cutoff.sqlite3"
    paths = ["/etc/shadow", "/etc/passwd", str(REPO / "config" / "settings" / "base.py"),
             str(REPO / ".env"), str(database), "/root/.bash_history", "/var/run/docker.sock",
             str(REPO / "grading" / "sandbox" / "runner.py")]
    record = run(ATTEMPT + '''
def solve(game, state, paths):
    return [attempt(p, lambda p=p: open(p, "rb").read(40)) for p in paths]
''', args=[StateArg("A"), paths])
    assert record.verdict == "ok"
    assert opened(record.return_value) == []
    assert all(outcome.endswith("FileNotFoundError") for outcome in record.return_value)


def test_cannot_open_the_database(run: Runner) -> None:
    database = REPO / "var" / "cutoff.sqlite3"
    before = database.stat().st_mtime_ns if database.exists() else None
    record = run(ATTEMPT + f'''
import sqlite3
def solve(game, state):
    def query():
        with sqlite3.connect("file:{database}?mode=ro", uri=True) as db:
            return db.execute("select name from sqlite_master").fetchall()
    return [attempt("sqlite", query)]
''')
    assert record.verdict == "ok"
    assert opened(record.return_value) == []
    assert (database.stat().st_mtime_ns if database.exists() else None) == before


def test_environment_is_empty_of_grader_secrets(run: Runner, canary: str) -> None:
    record = run(ATTEMPT + '''
def solve(game, state):
    return [repr(dict(os.environ)),
            attempt("self", lambda: open("/proc/self/environ", "rb").read().decode()),
            attempt("init", lambda: open("/proc/1/environ", "rb").read().decode()),
            attempt("parent", lambda: open(f"/proc/{os.getppid()}/environ", "rb").read().decode()),
            attempt("cmdline", lambda: open("/proc/1/cmdline", "rb").read().decode())]
''')
    assert record.verdict == "ok"
    assert not leaked(record, canary)
    assert "DATABASE_URL" not in repr(record.return_value)


def test_cannot_see_other_runs(run: Runner) -> None:
    TEST_BASE.mkdir(mode=0o711, exist_ok=True)
    other = TEST_BASE / "run-other"
    other.mkdir(mode=0o700)
    secret = secrets.token_hex(16)
    (other / "solution.py").write_text(f"SECRET = '{secret}'\n")
    os.chown(other, TEST_UID, TEST_UID)
    os.chown(other / "solution.py", TEST_UID, TEST_UID)
    try:
        record = run(ATTEMPT + '''
def solve(game, state, base, other):
    return [attempt("list base", lambda: os.listdir(base)),
            attempt("read other", lambda: open(other + "/solution.py").read()),
            attempt("list root", lambda: sorted(os.listdir("/"))),
            attempt("list sandbox", lambda: sorted(os.listdir("/sandbox"))),
            attempt("proc mounts", lambda: open("/proc/self/mounts").read())]
''', args=[StateArg("A"), str(TEST_BASE), str(other)])
    finally:
        (other / "solution.py").unlink()
        other.rmdir()
    assert record.verdict == "ok"
    outcomes = record.return_value
    assert outcomes[0:2] == ["list base: FileNotFoundError", "read other: FileNotFoundError"]
    assert secret not in repr(outcomes)
    assert str(TEST_BASE) not in outcomes[4] and "run-" not in outcomes[4]
    assert outcomes[3] == "list sandbox: OK ['bootstrap.pyc', 'solution.py']"


def test_mountinfo_shows_no_host_path_or_run_id(run: Runner) -> None:
    record = run('''
def solve(game, state):
    return open("/proc/self/mountinfo").read()
''')
    assert record.verdict == "ok", record.message
    mounted = {line.split()[4]: line.split()[3] for line in record.return_value.splitlines()}
    assert str(TEST_BASE) not in record.return_value and "run-" not in record.return_value
    assert "/sandbox" not in mounted  # a bind mount would name its host directory


def test_answer_key_next_to_the_harness_is_unreadable(run: Runner) -> None:
    key = Path(__file__).with_name("answer_key.json")
    beside_runs = TEST_BASE / "answer_key.json"
    secret = "expected-move-" + secrets.token_hex(8)
    TEST_BASE.mkdir(mode=0o711, exist_ok=True)
    for path in (key, beside_runs):
        path.write_text(f'{{"move": "{secret}"}}')
        path.chmod(0o644)
    try:
        record = run(ATTEMPT + '''
import glob
def solve(game, state, paths):
    found = [attempt(p, lambda p=p: open(p).read()) for p in paths]
    found.append(attempt("relative", lambda: open("../answer_key.json").read()))
    found.append(attempt("glob", lambda: glob.glob("/*/answer_key*") + glob.glob("/*/*/answer_key*")
                         or 1 / 0))
    return found
''', args=[StateArg("A"), [str(key), str(beside_runs)]])
    finally:
        key.unlink()
        beside_runs.unlink()
    assert record.verdict == "ok"
    assert opened(record.return_value) == []
    assert not leaked(record, secret)


def test_cannot_import_the_grader(run: Runner) -> None:
    record = run(ATTEMPT + '''
import importlib
def solve(game, state):
    found = [attempt(name, lambda name=name: importlib.import_module(name))
             for name in ("grading", "grading.sandbox", "engine", "django", "config",
                          "celery", "redis", "psycopg")]
    found.append(repr(sys.path))
    return found
''')
    assert record.verdict == "ok"
    *imports, path = record.return_value
    assert all(outcome.endswith("ModuleNotFoundError") for outcome in imports), imports
    assert "/work" not in path and "site-packages" not in path and "dist-packages" not in path


# --- changing the host -----------------------------------------------------------------------

def test_writes_outside_the_run_directory_never_reach_the_host(run: Runner) -> None:
    token = secrets.token_hex(6)
    targets = [f"/tmp/pwned-{token}", str(REPO / f"pwned-{token}"), f"/root/pwned-{token}",
               str(TEST_BASE / f"pwned-{token}")]
    record = run(ATTEMPT + '''
def write(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write("pwned")
    return path

def solve(game, state, targets):
    found = [attempt(t, lambda t=t: write(t)) for t in targets]
    found.append(attempt("run dir", lambda: write("/sandbox/pwned")))
    found.append(attempt("bootstrap", lambda: write("/sandbox/bootstrap.py")))
    found.append(attempt("usr", lambda: write("/usr/lib/python3.11/pwned.py")))
    return found
''', args=[StateArg("A"), targets])
    assert record.verdict == "ok"
    for target in targets:
        assert not Path(target).exists(), target
    assert not Path("/usr/lib/python3.11/pwned.py").exists()
    outcomes = record.return_value
    # Anything the sandbox let it write landed in its own throwaway /tmp or root tmpfs.
    assert opened(outcomes[-3:]) == []


def test_symlinks_and_hard_links_do_not_lead_out(run: Runner) -> None:
    settings = str(REPO / "config" / "settings" / "base.py")
    record = run(ATTEMPT + '''
def solve(game, state, settings):
    os.symlink(settings, "/tmp/settings")
    os.symlink("/proc/1/root/", "/tmp/root")
    return [attempt("follow", lambda: open("/tmp/settings").read()),
            attempt("proc root", lambda: sorted(os.listdir("/tmp/root"))),
            attempt("link into run dir", lambda: os.symlink("/", "/sandbox/escape")),
            attempt("hard link python", lambda: os.link("/usr/bin/python3", "/tmp/py")),
            attempt("hard link solution", lambda: os.link("/sandbox/solution.py", "/tmp/s")),
            attempt("hard link shadow", lambda: os.link("/etc/shadow", "/tmp/shadow"))]
''', args=[StateArg("A"), settings])
    assert record.verdict == "ok"
    follow, proc_root, *links = record.return_value
    assert follow == "follow: FileNotFoundError"
    assert "work" not in proc_root and "etc" not in proc_root
    assert opened(links) == []


def test_cannot_become_root_or_gain_capabilities(run: Runner) -> None:
    record = run(ATTEMPT + '''
def solve(game, state):
    status = open("/proc/self/status").read()
    caps = [line for line in status.splitlines() if line.startswith(("Cap", "NoNewPrivs"))]
    return [str(os.getuid()), str(os.getgid()), repr(os.getgroups()), *caps,
            attempt("setuid", lambda: os.setuid(0)),
            attempt("chroot", lambda: os.chroot("/tmp")),
            attempt("mknod", lambda: os.mknod("/tmp/mem", 0o600 | 0o020000, os.makedev(1, 1))),
            attempt("sethostname", lambda: __import__("socket").sethostname("x"))]
''')
    assert record.verdict == "ok"
    uid, gid, groups, *rest = record.return_value
    assert (uid, gid, groups) == (str(TEST_UID), str(TEST_UID), "[]")
    caps = [line for line in rest if line.startswith("Cap")]
    assert caps and all(line.split()[1] == "0000000000000000" for line in caps), caps
    assert "NoNewPrivs:\t1" in rest
    assert opened(rest) == []


# --- resources -------------------------------------------------------------------------------

def test_fork_bomb(run: Runner) -> None:
    record = run('''
import os
def solve(game, state):
    while True:
        try:
            os.fork()
        except OSError:
            pass
''')
    assert record.verdict == "time_limit"
    assert sandbox_processes() == []


def test_memory_bomb(run: Runner) -> None:
    record = run('''
def solve(game, state):
    hog = []
    while True:
        hog.append(bytearray(16 * 1024 * 1024))
''')
    assert record.verdict == "memory_limit"
    assert record.peak_memory_bytes is None or record.peak_memory_bytes <= FAST.memory_bytes


@pytest.mark.parametrize("use_cgroup", [True, False], ids=["cgroup", "no-cgroup"])
def test_memory_bomb_across_processes(run: Runner, sandbox_host: SandboxConfig,
                                      use_cgroup: bool) -> None:
    # The children die (OOM-killed, or of MemoryError under RLIMIT_AS); the parent then sees
    # only ChildProcessError, but running out of memory is why the run failed.
    record = run('''
import os
def solve(game, state):
    for _ in range(8):
        if os.fork() == 0:
            hog = []
            while True:
                hog.append(bytearray(16 * 1024 * 1024))
    while True:
        os.wait()
''', limits=FAST.override(memory_bytes=128 * 1024 * 1024),
        config=dataclasses.replace(sandbox_host, use_cgroup=use_cgroup))
    assert record.verdict == "memory_limit", record.message
    assert record.ending in ("out_of_memory", "memory_killed")
    if record.cgroup.startswith("v"):
        assert record.peak_memory_bytes is not None
        assert record.peak_memory_bytes <= 128 * 1024 * 1024


def test_shared_memory_is_not_offered(run: Runner, sandbox_host: SandboxConfig) -> None:
    # No RLIMIT_AS counts these pages once unmapped: without a cgroup they would let a run
    # hold any amount of memory.
    record = run(ATTEMPT + '''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)

def syscall(name, *args):
    if getattr(libc, name)(*args) == -1:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

def solve(game, state):
    return [attempt("memfd", lambda: os.memfd_create("hog")),
            attempt("shmget", lambda: syscall("shmget", 0, 1 << 20, 0o1600)),
            attempt("msgget", lambda: syscall("msgget", 0, 0o1600))]
''', config=dataclasses.replace(sandbox_host, use_cgroup=False))
    assert record.verdict == "ok", record.message
    assert record.return_value == ["memfd: PermissionError", "shmget: PermissionError",
                                   "msgget: PermissionError"]


def test_filling_the_filesystem_is_bounded(run: Runner) -> None:
    record = run(ATTEMPT + '''
def fill(directory):
    index = 0
    while True:
        with open(f"{directory}/f{index}", "wb") as handle:
            handle.write(b"x" * (1 << 20))
        index += 1

def solve(game, state):
    found = [attempt(d, lambda d=d: fill(d)) for d in ("/", "/dev", "/dev/shm", "/tmp")]
    found.append(attempt("big file", lambda: open("/tmp/big", "wb").write(b"x" * (4 << 20))))
    found.append(attempt("dev null", lambda: open("/dev/null", "w").write("fine")))
    return found
''')
    assert record.verdict == "ok", record.message
    assert record.return_value == ["/: OSError", "/dev: OSError", "/dev/shm: OSError",
                                   "/tmp: OSError", "big file: OSError", "dev null: OK 4"]


CPU_BOUND = SandboxLimits(cpu_seconds=1, wall_seconds=30.0)
"""A wall limit far above the CPU limit, so the CPU limit is what ends the run even when other
work on a shared host leaves the sandbox a fraction of a core."""


def test_cpu_loop(run: Runner) -> None:
    record = run("def solve(game, state):\n    while True:\n        pass\n", limits=CPU_BOUND)
    assert record.verdict == "time_limit"
    assert "CPU" in record.message
    # The kernel's RLIMIT_CPU clock and the measured CPU time differ by up to ~30% under load.
    assert record.cpu_seconds >= 0.5


def test_ignoring_sigxcpu_still_hits_the_hard_cpu_limit(run: Runner) -> None:
    record = run('''
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
def solve(game, state):
    while True:
        pass
''', limits=CPU_BOUND)
    assert record.verdict == "time_limit"


def test_sleep_past_the_wall_limit(run: Runner) -> None:
    record = run("import time\ndef solve(game, state):\n    time.sleep(3600)\n",
                 limits=FAST.override(wall_seconds=1.0))
    assert record.verdict == "time_limit"
    assert "wall-clock" in record.message
    assert 1.0 <= record.wall_seconds < 5.0


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_huge_output_is_capped(run: Runner, stream: str) -> None:
    record = run(f'''
import sys
def solve(game, state):
    while True:
        print("x" * 4096, file=sys.{stream})
''')
    assert record.verdict == "output_limit"
    assert len(getattr(record, stream)) == FAST.max_output_bytes
    assert getattr(record, f"{stream}_truncated")


def test_thread_bomb(run: Runner) -> None:
    record = run('''
import threading, time
def solve(game, state):
    threads = []
    while True:
        thread = threading.Thread(target=time.sleep, args=(60,), daemon=True)
        thread.start()
        threads.append(thread)
''')
    assert record.verdict == "runtime_error"
    assert "can't start new thread" in (record.traceback or "")


def test_deep_recursion(run: Runner) -> None:
    record = run("def solve(game, state):\n    return solve(game, state)\n")
    assert record.verdict == "runtime_error"
    assert "RecursionError" in (record.traceback or "")
    assert record.traceback is not None and len(record.traceback) < 16 * 1024


def test_unbounded_recursion_limit(run: Runner) -> None:
    record = run('''
import sys, threading
sys.setrecursionlimit(10 ** 9)
threading.stack_size(512 * 1024 * 1024)
def deep(n):
    return deep(n + 1) + 1
def solve(game, state):
    return deep(0)
''')
    assert record.verdict in ("runtime_error", "memory_limit", "time_limit")


def test_too_many_open_files(run: Runner) -> None:
    record = run(ATTEMPT + '''
def solve(game, state):
    handles = []
    def hog():
        while True:
            handles.append(open("/dev/null"))
    return [attempt("hog", hog), str(len(handles))]
''')
    assert record.verdict == "ok"
    assert record.return_value[0] == "hog: OSError"
    assert int(record.return_value[1]) < FAST.max_open_files


# --- the grader and its harness --------------------------------------------------------------

def test_killing_the_parent_and_everyone(run: Runner) -> None:
    grader = os.getpid()
    record = run(ATTEMPT + '''
import signal
def solve(game, state, grader):
    found = [attempt("ppid", lambda: os.kill(os.getppid(), signal.SIGKILL)),
             attempt("grader", lambda: os.kill(grader, signal.SIGKILL)),
             attempt("init", lambda: os.kill(1, signal.SIGTERM)),
             attempt("pgroup", lambda: os.killpg(os.getpgid(0), signal.SIGCONT)),
             attempt("all", lambda: os.kill(-1, signal.SIGKILL))]
    return found + [str(len(game.actions(state)))]
''', args=[StateArg("A"), grader])
    assert record.verdict == "ok", record.message
    assert record.return_value[1] == "grader: ProcessLookupError"
    assert record.return_value[-1] == "2"
    os.kill(grader, 0)


def test_signals_to_itself_are_ignored(run: Runner) -> None:
    # The interpreter is its pid namespace's init: signals from inside without a handler,
    # SIGKILL and SIGSTOP included, do nothing.
    record = run("import os, signal\ndef solve(game, state):\n"
                 "    for signum in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):\n"
                 "        os.kill(os.getpid(), signum)\n"
                 "    return 'alive'\n")
    assert record.verdict == "ok"
    assert record.return_value == "alive"


def test_a_crash_is_a_runtime_error(run: Runner) -> None:
    record = run("import ctypes\ndef solve(game, state):\n    return ctypes.string_at(0)\n")
    assert record.verdict == "runtime_error"
    assert "SIGSEGV" in record.message


def test_garbage_on_the_pipe(run: Runner) -> None:
    record = run('''
import os, sys
def solve(game, state):
    os.write(int(sys.argv[2]), b"\\x00\\x00\\x00\\x05hello")
    return game.actions(state)
''')
    assert record.verdict == "illegal_operation"
    assert "not valid JSON" in record.message
    assert record.return_value is None


def test_oversized_frame(run: Runner) -> None:
    record = run('''
import os, sys, struct
def solve(game, state):
    os.write(int(sys.argv[2]), struct.pack(">I", 1 << 30))
    return game.actions(state)
''')
    assert record.verdict == "illegal_operation"
    assert "exceeds" in record.message


def test_fabricated_state_handle(run: Runner) -> None:
    record = run("def solve(game, state):\n    return game.actions(type(state)(999))\n")
    assert record.verdict == "illegal_operation"
    assert "unknown state handle 999" in record.message


def test_fabricated_action_handle(run: Runner) -> None:
    record = run('''
def solve(game, state):
    real = game.actions(state)[0]
    return type(real)(77, "l")
''')
    assert record.verdict == "illegal_operation"
    assert "unknown action handle 77" in record.message


def test_wrong_types_in_a_forged_frame(run: Runner) -> None:
    record = run('''
import sys
channel = sys.modules["__main__"].Channel
def solve(game, state):
    return game._channel.request({"op": "call", "method": "utility",
                                  "args": [{"s": 1}, 42]})
''')
    assert record.verdict == "illegal_operation"
    assert "player must be a string" in record.message


def test_unknown_method_in_a_forged_frame(run: Runner) -> None:
    record = run('''
def solve(game, state):
    return game._channel.request({"op": "call", "method": "answer_key", "args": []})
''')
    assert record.verdict == "illegal_operation"


def test_writing_out_of_turn(run: Runner) -> None:
    record = run('''
def solve(game, state):
    channel = game._channel
    frame = {"op": "call", "method": "actions", "args": [{"s": 1}]}
    channel.send(frame)
    channel.send(frame)
    return channel.request(frame)
''')
    assert record.verdict == "illegal_operation"
    assert "before the previous reply" in record.message


def test_returning_twice(run: Runner) -> None:
    record = run('''
def solve(game, state):
    game._channel.send({"op": "return", "value": 1})
    return 2
''')
    assert record.verdict == "illegal_operation"


def test_monkeypatching_the_proxy_does_not_change_the_record(run: Runner) -> None:
    record = run('''
import sys
main = sys.modules["__main__"]
def solve(game, state):
    main.Game.actions = lambda self, s: ["fake"]
    main.encode = lambda value: "r"
    assert game.actions(state) == ["fake"]
    return "l"
''')
    assert record.verdict == "ok"
    assert record.return_value == "r"
    assert record.calls == ()
    assert not record.was_offered(record.return_value, "A")


def test_lying_about_expansions_is_visible_in_the_record(run: Runner) -> None:
    record = run("def solve(game, state):\n    return 'l'\n")
    assert record.verdict == "ok"
    assert record.calls == ()
    assert not record.was_offered(record.return_value, "A")
    honest = run("def solve(game, state):\n    return game.actions(state)[0]\n")
    assert honest.return_value == "l"
    assert honest.was_offered(honest.return_value, "A")


def test_nothing_is_left_on_the_host(run: Runner) -> None:
    record = run("def solve(game, state):\n    open('/tmp/scratch', 'w').write('x')\n"
                 "    return 1\n")
    assert record.verdict == "ok"
    assert not TEST_BASE.exists() or [p.name for p in TEST_BASE.iterdir()
                                      if not p.name.endswith(".lock")] == []
    assert not Path("/tmp/scratch").exists()
    assert sandbox_processes() == []


def test_sandbox_cannot_signal_host_processes(run: Runner) -> None:
    # A process of the sandbox uid on the host: the sandbox must not be able to signal it.
    import subprocess

    victim = subprocess.Popen(["setpriv", f"--reuid={TEST_UID}", f"--regid={TEST_UID}",
                               "--clear-groups",
                               "sleep", "30"])
    try:
        record = run(ATTEMPT + '''
import signal
def solve(game, state, victim):
    return [attempt("kill victim", lambda: os.kill(victim, signal.SIGKILL)),
            attempt("kill all", lambda: os.kill(-1, signal.SIGKILL))]
''', args=[StateArg("A"), victim.pid])
        assert victim.poll() is None
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.wait()
    assert record.verdict == "ok"
    assert record.return_value[0] == "kill victim: ProcessLookupError"


@pytest.mark.skipif(platform.machine() != "x86_64", reason="i386 and x32 ABIs exist on x86_64")
def test_foreign_syscall_abis_cannot_dodge_the_filter(run: Runner) -> None:
    x32 = run('''
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def solve(game, state):
    return [libc.syscall(0x40000000 | 41, 2, 1, 0), ctypes.get_errno()]  # x32 socket()
''')
    assert x32.return_value == [-1, 38]
    i386 = run('''
import ctypes, mmap
def solve(game, state):
    # mov eax, 20 (i386 getpid); int 0x80; ret
    code = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    code.write(bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3]))
    address = ctypes.addressof(ctypes.c_char.from_buffer(code))
    return ctypes.CFUNCTYPE(ctypes.c_int)(address)()
''')
    assert i386.verdict == "runtime_error"
    assert "SIGSYS" in i386.message


def test_closing_the_channel_ends_the_run_cleanly(run: Runner) -> None:
    record = run('''
import os, sys, time
def solve(game, state):
    os.close(int(sys.argv[1]))
    try:
        game.actions(state)
    except OSError:
        pass
    time.sleep(1)
    return "still here"
''')
    # The reply could not be delivered; the student's own result still arrives on fd 4.
    assert record.verdict == "ok"
    assert record.return_value == "still here"
    assert record.wall_seconds < FAST.wall_seconds
