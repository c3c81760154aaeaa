"""Build the seccomp filter that bubblewrap installs just before it runs the student's Python.

The program is classic BPF assembled here in pure Python rather than with libseccomp: the
grader runs in the project's venv (a pyenv interpreter), where Debian's ``python3-seccomp``
bindings are not importable, and a pip wheel would add a C dependency for ~60 instructions.
The syscall numbers below are checked against the kernel headers by the tests.

Policy: everything is allowed except a denylist of calls that let a process reach outside its
sandbox (new sockets, namespaces, mounts, tracing, kernel keyrings, BPF, io_uring, modules...)
or outgrow its memory limit (anonymous and SysV shared memory, message queues), and setting
its own resource limits. Denied calls fail with EPERM so that Python raises a clean
``PermissionError``; ``clone3`` fails with ENOSYS because its flags live in memory BPF cannot
read, and glibc then falls back to ``clone``, whose namespace flags are checked. A foreign
architecture (i386 via ``int 0x80``, or x32 numbers on x86_64) cannot be matched against these
tables, so it kills or fails.
"""

from __future__ import annotations

import errno
import functools
import platform
import struct

from .errors import SandboxUnavailable

# Linux <linux/filter.h> and <linux/seccomp.h> constants.
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K

RET_KILL_PROCESS = 0x80000000
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000

# Offsets into struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6];}. Both supported
# architectures are little-endian, so the low half of args[0] sits at offset 16.
_OFFSET_NR = 0
_OFFSET_ARCH = 4
_OFFSET_ARG0_LOW = 16
_OFFSET_ARG2_LOW = 32
_OFFSET_ARG2_HIGH = 36

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
_X32_SYSCALL_BIT = 0x40000000
EXIT_SIGNAL_BIT = 0x80
"""Set in every exit status of 128 to 255, the ones bubblewrap uses for deaths by signal."""

# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET.
CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 \
    | 0x20000000 | 0x40000000

# name: (x86_64 number, aarch64 number); None where the architecture has no such call.
SYSCALLS: dict[str, tuple[int | None, int | None]] = {
    "socket": (41, 198),
    "socketpair": (53, 199),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "pidfd_getfd": (438, 438),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "open_tree": (428, 428),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "unshare": (272, 97),
    "setns": (308, 268),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    # Memory no process's RLIMIT_AS counts: it would let a run outgrow its memory limit where
    # no cgroup bounds the run (mapping it counts, but the pages stay after unmapping).
    "memfd_create": (319, 279),
    "memfd_secret": (447, 447),
    "shmget": (29, 194),
    "msgget": (68, 186),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "quotactl": (179, 60),
    "quotactl_fd": (443, 443),
    "syslog": (103, 116),
    "vhangup": (153, 58),
    "name_to_handle_at": (303, 264),
    "open_by_handle_at": (304, 265),
    "fanotify_init": (300, 262),
    "lookup_dcookie": (212, 18),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "adjtimex": (159, 171),
    "clock_adjtime": (305, 266),
    "uselib": (134, None),
    "iopl": (172, None),
    "ioperm": (173, None),
    "modify_ldt": (154, None),
    # A run may not change its own resource limits: one lowering its RLIMIT_CPU would be
    # SIGKILLed early, which could not be told from the host killing it
    # (runner._verdict_from_exit).
    "setrlimit": (160, 164),
    "clone": (56, 220),
    "clone3": (435, 435),
    "prlimit64": (302, 261),
    # An exit status of 128 + N is how bubblewrap reports a death by signal N: a run exiting
    # with 137 of its own would pass for one SIGKILLed by the host.
    "exit": (60, 93),
    "exit_group": (231, 94),
}

CONDITIONAL = ("clone", "clone3", "prlimit64", "exit", "exit_group")
DENIED = tuple(name for name in SYSCALLS if name not in CONDITIONAL)
"""Calls that always fail with EPERM; ``clone`` is only denied with namespace flags,
``prlimit64`` only when it sets a limit (reading one, as ``getrlimit`` and thread start-up
do, passes ``NULL``), and ``exit``/``exit_group`` with a status of 128 or more kill the
process (SIGSYS) instead."""

_ARCHES = {
    "x86_64": (0, AUDIT_ARCH_X86_64),
    "amd64": (0, AUDIT_ARCH_X86_64),
    "aarch64": (1, AUDIT_ARCH_AARCH64),
    "arm64": (1, AUDIT_ARCH_AARCH64),
}


def syscall_number(name: str, machine: str) -> int | None:
    """Return the number of syscall ``name`` on ``machine`` (``platform.machine()`` spelling)."""
    column, _ = _arch(machine)
    return SYSCALLS[name][column]


def _arch(machine: str) -> tuple[int, int]:
    try:
        return _ARCHES[machine.lower()]
    except KeyError:
        raise SandboxUnavailable(
            f"the sandbox's seccomp filter supports x86_64 and aarch64, not {machine!r}"
        ) from None


class _Assembler:
    """Collect BPF instructions whose jump targets are labels, then resolve them."""

    def __init__(self) -> None:
        self._code: list[tuple[int, str | None, str | None, int]] = []
        self._labels: dict[str, int] = {}

    def emit(self, code: int, k: int, jt: str | None = None, jf: str | None = None) -> None:
        self._code.append((code, jt, jf, k))

    def label(self, name: str) -> None:
        self._labels[name] = len(self._code)

    def assemble(self) -> bytes:
        out = bytearray()
        for index, (code, jt, jf, k) in enumerate(self._code):
            out += struct.pack("=HBBI", code, self._offset(index, jt), self._offset(index, jf), k)
        return bytes(out)

    def _offset(self, index: int, label: str | None) -> int:
        if label is None:
            return 0
        offset = self._labels[label] - index - 1
        # Classic BPF jumps are forward-only and fit in one byte.
        if not 0 <= offset <= 255:
            raise ValueError(f"BPF jump to {label} out of range: {offset}")
        return offset


@functools.cache
def build_filter(machine: str | None = None) -> bytes:
    """Return the filter as raw ``struct sock_filter`` entries, the format ``bwrap --seccomp``
    reads; cached because every run of a worker uses the same bytes."""
    machine = machine or platform.machine()
    column, audit_arch = _arch(machine)
    asm = _Assembler()
    asm.emit(_LD_W_ABS, _OFFSET_ARCH)
    asm.emit(_JEQ_K, audit_arch, jf="kill")
    asm.emit(_LD_W_ABS, _OFFSET_NR)
    if audit_arch == AUDIT_ARCH_X86_64:
        # x32 calls share the x86_64 audit arch but are numbered from 0x40000000.
        asm.emit(_JGE_K, _X32_SYSCALL_BIT, jt="enosys")
    asm.emit(_JEQ_K, _require(SYSCALLS["clone"][column]), jt="clone")
    asm.emit(_JEQ_K, _require(SYSCALLS["clone3"][column]), jt="enosys")
    asm.emit(_JEQ_K, _require(SYSCALLS["prlimit64"][column]), jt="prlimit64")
    asm.emit(_JEQ_K, _require(SYSCALLS["exit"][column]), jt="exit")
    asm.emit(_JEQ_K, _require(SYSCALLS["exit_group"][column]), jt="exit")
    for name in DENIED:
        number = SYSCALLS[name][column]
        if number is not None:
            asm.emit(_JEQ_K, number, jt="eperm")
    asm.emit(_RET_K, RET_ALLOW)
    asm.label("clone")
    asm.emit(_LD_W_ABS, _OFFSET_ARG0_LOW)
    asm.emit(_JSET_K, CLONE_NAMESPACE_FLAGS, jt="eperm")
    asm.emit(_RET_K, RET_ALLOW)
    asm.label("prlimit64")
    # prlimit64(pid, resource, new_limit, old_limit): allowed only with new_limit NULL.
    asm.emit(_LD_W_ABS, _OFFSET_ARG2_LOW)
    asm.emit(_JEQ_K, 0, jf="eperm")
    asm.emit(_LD_W_ABS, _OFFSET_ARG2_HIGH)
    asm.emit(_JEQ_K, 0, jf="eperm")
    asm.emit(_RET_K, RET_ALLOW)
    asm.label("exit")
    # The status is arg0's low byte (the kernel keeps status & 0xff).
    asm.emit(_LD_W_ABS, _OFFSET_ARG0_LOW)
    asm.emit(_JSET_K, EXIT_SIGNAL_BIT, jt="kill")
    asm.emit(_RET_K, RET_ALLOW)
    asm.label("eperm")
    asm.emit(_RET_K, RET_ERRNO | errno.EPERM)
    asm.label("enosys")
    asm.emit(_RET_K, RET_ERRNO | errno.ENOSYS)
    asm.label("kill")
    asm.emit(_RET_K, RET_KILL_PROCESS)
    return asm.assemble()


def _require(number: int | None) -> int:
    assert number is not None, "the calls checked by argument exist on every architecture"
    return number
