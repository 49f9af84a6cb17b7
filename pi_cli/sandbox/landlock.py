"""Linux Landlock through ctypes: ABI detection, rulesets, and restricting the calling thread.

Landlock (Linux ≥ 5.13) lets an unprivileged thread drop access rights for itself and everything
it starts: a *ruleset* lists the rights it handles and, per file hierarchy (or TCP port), the
rights still granted; ``landlock_restrict_self`` turns it into a domain that can never be left or
widened, inherited across fork and exec. Rights a ruleset does not handle stay allowed.

ABI levels used here (``landlock_create_ruleset(NULL, 0, VERSION)``): 1 filesystem, 2 ``REFER``
(rename/link across folders), 3 ``TRUNCATE``, 4 TCP bind/connect, 5 ``IOCTL_DEV``, 6 scoping
(abstract unix sockets, signals), 7 audit flags. Only the rights the running ABI knows are put in a
ruleset, since the kernel refuses unknown bits.

The domain is per *thread* (until ABI 8's TSYNC), and so is ``no_new_privs``: pi_cli restricts a
dedicated spawner thread, never the threads that run the agent (see :mod:`pi_cli.sandbox.spawner`).
Nothing here runs at import time beyond defining constants; libc is loaded on first use.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
import sys
from functools import cache

# x86_64, aarch64, riscv64 … share these numbers (the syscalls were added after the table unification).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_RULE_NET_PORT = 2
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights (include/uapi/linux/landlock.h).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
# Network rights (ABI 4) and scopes (ABI 6).
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

READ = READ_FILE | READ_DIR
# Everything that changes the filesystem. EXECUTE and IOCTL_DEV are never handled: running programs
# and ioctls on devices stay as they are.
_WRITE_ABI1 = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK
_WRITE_ABI1 |= MAKE_FIFO | MAKE_BLOCK | MAKE_SYM
# Rights that make sense on a file (not a folder) in a path-beneath rule.
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV


class LandlockError(OSError):
    """A Landlock call failed; ``str()`` names the call and the errno."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel struct is __attribute__((packed)): 12 bytes
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


class _NetPortAttr(ctypes.Structure):
    _fields_ = (("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64))


@cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def _syscall(number: int, *args: ctypes.c_long | ctypes.c_void_p) -> int:
    return int(_libc().syscall(ctypes.c_long(number), *args))


def _error(call: str) -> LandlockError:
    errno = ctypes.get_errno()
    return LandlockError(errno, f"{call} failed: {os.strerror(errno)}")


@cache
def abi_version() -> int:
    """The running kernel's Landlock ABI: 0 when there is none (not Linux, too old, or disabled)."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64", "riscv64", "loongarch64"):
        return 0
    try:
        value = _syscall(
            _SYS_CREATE_RULESET, ctypes.c_void_p(None), ctypes.c_long(0), ctypes.c_long(_CREATE_RULESET_VERSION)
        )
    except (OSError, AttributeError):
        return 0
    return max(value, 0)


def unavailable_reason() -> str:
    """Why Landlock cannot be used here, as a clause ("this is macOS, …")."""
    if sys.platform != "linux":
        return f"Landlock is a Linux feature and this system is {platform.system() or sys.platform}"
    if platform.machine() not in ("x86_64", "aarch64", "riscv64", "loongarch64"):
        return f"pi_cli's Landlock support does not know the syscall numbers of {platform.machine()}"
    return (
        f"the kernel ({platform.release()}) has no Landlock: it needs Linux 5.13 or later with "
        "Landlock enabled (CONFIG_SECURITY_LANDLOCK and 'landlock' in the lsm= boot list)"
    )


def write_rights(abi: int) -> int:
    """Every filesystem-changing right the ABI knows (REFER from 2, TRUNCATE from 3)."""
    rights = _WRITE_ABI1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    return rights


class Ruleset:
    """A ruleset under construction (an fd). Build it in the parent, then :meth:`restrict_current_thread`.

    ``handled_fs`` / ``handled_net`` / ``scoped`` must only hold rights the ABI knows. The fd is
    close-on-exec, so no started process can add rules to it (which would widen later sandboxes).
    """

    def __init__(self, handled_fs: int, handled_net: int = 0, scoped: int = 0, *, abi: int | None = None) -> None:
        level = abi_version() if abi is None else abi
        attr = _RulesetAttr(handled_fs, handled_net, scoped)
        size = 24 if level >= 6 else 16 if level >= 4 else 8  # the struct grew with the ABI
        fd = _syscall(
            _SYS_CREATE_RULESET, ctypes.c_void_p(ctypes.addressof(attr)), ctypes.c_long(size), ctypes.c_long(0)
        )
        if fd < 0:
            raise _error("landlock_create_ruleset")
        self.fd: int | None = fd
        self.handled_fs = handled_fs
        self.handled_net = handled_net

    def _fd(self) -> int:
        if self.fd is None:
            raise LandlockError(9, "the Landlock ruleset is closed")
        return self.fd

    def allow_path(self, path: str, access: int) -> bool:
        """Grant ``access`` (masked by what is handled) beneath ``path``; False when it cannot be
        opened (gone, or a symlink: rules attach to inodes, and a link's target has its own rules)."""
        try:
            target = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            return False
        try:
            mode = os.fstat(target).st_mode
            if stat.S_ISLNK(mode):
                return False
            if not stat.S_ISDIR(mode):
                access &= FILE_RIGHTS
            access &= self.handled_fs
            if not access:
                return True
            self._add_rule(_RULE_PATH_BENEATH, _PathBeneathAttr(access, target), path)
            return True
        finally:
            os.close(target)

    def allow_port(self, port: int, access: int = NET_CONNECT_TCP) -> None:
        """Grant TCP ``access`` (connect by default) to ``port`` on any address."""
        self._add_rule(_RULE_NET_PORT, _NetPortAttr(access & self.handled_net, port), f"port {port}")

    def _add_rule(self, kind: int, rule: ctypes.Structure, what: str) -> None:
        """``landlock_add_rule`` of one rule of ``kind``; raises naming ``what`` it was for."""
        result = _syscall(
            _SYS_ADD_RULE,
            ctypes.c_long(self._fd()),
            ctypes.c_long(kind),
            ctypes.c_void_p(ctypes.addressof(rule)),
            ctypes.c_long(0),
        )
        if result != 0:
            raise _error(f"landlock_add_rule({what})")

    def restrict_current_thread(self) -> None:
        """``no_new_privs`` then ``landlock_restrict_self`` for the calling thread (irreversible)."""
        libc = _libc()
        zero = ctypes.c_ulong(0)
        if libc.prctl(ctypes.c_int(_PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), zero, zero, zero) != 0:
            raise _error("prctl(PR_SET_NO_NEW_PRIVS)")
        if _syscall(_SYS_RESTRICT_SELF, ctypes.c_long(self._fd()), ctypes.c_long(0)) != 0:
            raise _error("landlock_restrict_self")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
