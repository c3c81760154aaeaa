"""The seccomp program: syscall numbers against kernel headers, and its decisions, checked by
running the BPF in a small interpreter for both supported architectures."""

from __future__ import annotations

import errno
import re
import struct
from pathlib import Path

import pytest

from grading.sandbox import SandboxUnavailable
from grading.sandbox.seccomp import (
    AUDIT_ARCH_AARCH64,
    AUDIT_ARCH_X86_64,
    CLONE_NAMESPACE_FLAGS,
    DENIED,
    RET_ALLOW,
    RET_ERRNO,
    RET_KILL_PROCESS,
    SYSCALLS,
    build_filter,
    syscall_number,
)
from tests.conftest import require

HEADERS = {
    "x86_64": Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    "aarch64": Path("/usr/include/asm-generic/unistd.h"),
}
AUDIT_ARCH_I386 = 0x40000003
EPERM = RET_ERRNO | errno.EPERM
ENOSYS = RET_ERRNO | errno.ENOSYS


def run_bpf(program: bytes, nr: int, arch: int, arg0: int = 0, arg2: int = 0) -> int:
    """Interpret the classic-BPF subset the filter uses against one seccomp_data."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, 0, arg2, 0, 0, 0)
    code = [struct.unpack_from("=HBBI", program, offset)
            for offset in range(0, len(program), 8)]
    pc, accumulator = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif op == 0x06:
            return int(k)
        elif op in (0x15, 0x35, 0x45):
            taken = {0x15: accumulator == k, 0x35: accumulator >= k,
                     0x45: bool(accumulator & k)}[op]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unexpected opcode {op:#x}")


@pytest.mark.parametrize("machine", sorted(HEADERS))
def test_syscall_numbers_match_the_kernel_headers(machine: str) -> None:
    header = HEADERS[machine]
    require(header.exists(), f"{header} missing (apt-get install linux-libc-dev)")
    numbers = {name: int(number) for name, number
               in re.findall(r"#define\s+__NR_(\w+)\s+(\d+)", header.read_text())}
    for name in SYSCALLS:
        assert syscall_number(name, machine) == numbers.get(name), name


@pytest.mark.parametrize(("machine", "arch"), [("x86_64", AUDIT_ARCH_X86_64),
                                               ("aarch64", AUDIT_ARCH_AARCH64)])
def test_filter_decisions(machine: str, arch: int) -> None:
    program = build_filter(machine)
    assert len(program) % 8 == 0
    for name in DENIED:
        number = syscall_number(name, machine)
        if number is not None:
            assert run_bpf(program, number, arch) == EPERM, name
    for harmless in (0, 1, 2, 3, 63, 64, 200, 300):
        if harmless not in {syscall_number(name, machine) for name in SYSCALLS}:
            assert run_bpf(program, harmless, arch) == RET_ALLOW, harmless
    clone = syscall_number("clone", machine)
    assert clone is not None
    assert run_bpf(program, clone, arch, 0x3D0F00) == RET_ALLOW  # pthread_create's flags
    for flag in (0x00020000, 0x10000000, 0x20000000, 0x40000000):
        assert run_bpf(program, clone, arch, flag | 17) == EPERM
    assert run_bpf(program, syscall_number("clone3", machine) or 0, arch) == ENOSYS
    # prlimit64 reads limits (new_limit NULL, as getrlimit passes) but never sets one.
    prlimit64 = syscall_number("prlimit64", machine) or 0
    assert run_bpf(program, prlimit64, arch) == RET_ALLOW
    for new_limit in (0x7FFC_1234_5670, 0x1000, 1 << 32):
        assert run_bpf(program, prlimit64, arch, arg2=new_limit) == EPERM
    assert "setrlimit" in DENIED
    # Exit statuses of 128 + N are how bubblewrap reports a death by signal N.
    for name in ("exit", "exit_group"):
        number = syscall_number(name, machine) or 0
        for status in (0, 1, 3, 127, 256):
            assert run_bpf(program, number, arch, status) == RET_ALLOW, (name, status)
        for status in (128, 137, 159, 255, 393):
            assert run_bpf(program, number, arch, status) == RET_KILL_PROCESS, (name, status)
    assert run_bpf(program, 0, AUDIT_ARCH_I386) == RET_KILL_PROCESS


def test_x32_syscalls_cannot_dodge_the_table() -> None:
    program = build_filter("x86_64")
    socket = syscall_number("socket", "x86_64") or 0
    assert run_bpf(program, 0x40000000 | socket, AUDIT_ARCH_X86_64) == ENOSYS


def test_namespace_flag_mask() -> None:
    assert CLONE_NAMESPACE_FLAGS == 0x7E020000


def test_filter_is_cached_and_unknown_machines_are_refused() -> None:
    assert build_filter("x86_64") is build_filter("x86_64")
    with pytest.raises(SandboxUnavailable, match="x86_64 and aarch64"):
        build_filter("riscv64")
