"""The gate's bash parser: what runs, what is a construct, what is written."""

from __future__ import annotations

import pytest

from pi_cli.permissions.shell.analysis import analyse
from pi_cli.permissions.shell.parser import ShellSyntaxError, parse


def texts(command: str) -> list[str]:
    return [p.text for p in analyse(command).parts]


def roots(command: str) -> list[str]:
    return [p.text for p in analyse(command).roots]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("a; b && c || d | e & f\ng", ["a", "b", "c", "d", "e", "f", "g"]),
        ("(a; b) && { c; }", ["a", "b", "c"]),
        ("git status |& tee log", ["git status", "tee log"]),
        ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
        ("while a; do b; done; until c; do d; done", ["a", "b", "c", "d"]),
        ("for f in a b; do rm $f; done", ["rm $f"]),
        ("case $x in a|b) one;; (c) two;& *) three;;& esac", ["one", "two", "three"]),
        ("f() { inner; }; function g { other; }; f", ["inner", "other", "f"]),
        ("! a && time -p b", ["a", "b"]),
        ("echo 'a; b' \"c && d\" e\\;f # g; h", ["echo 'a; b' 'c && d' e;f"]),
        ("[[ -f x && y > z ]] && echo ok", ["echo ok"]),
        ("(( i > 2 )) && echo big", ["echo big"]),
        ("X=1 Y='a b' cmd arg", ["X=1 'Y=a b' cmd arg"]),
        ("r\\\nm -rf x", ["rm -rf x"]),
        ("$'\\x72\\155' -rf x", ["rm -rf x"]),
        ("{rm,-rf,/tmp/x}", ["rm -rf /tmp/x"]),
        ("echo {a,b}{1..2}", ["echo a1 a2 b1 b2"]),
        ("echo '{a,b}' \\{c,d\\}", ["echo {a,b} {c,d}"]),
    ],
)
def test_parts(command: str, expected: list[str]) -> None:
    assert roots(command) == expected


def test_substitutions_are_parsed_and_marked() -> None:
    analysis = analyse('echo $(date) `id` <(ls) >(wc) "$(whoami)" ${x:-$(hostname)} $((1 + $(nproc)))')
    root = analysis.roots[0]
    assert root.constructs == {"$(", "`", "<(", ">("}
    inner = sorted(p.text for p in analysis.parts if not p.root)
    assert inner == ["date", "hostname", "id", "ls", "nproc", "wc", "whoami"]


def test_nested_substitutions_and_case_inside_them() -> None:
    assert sorted(texts("echo $(echo $(rm x))")) == ["echo $(echo $(rm x))", "echo $(rm x)", "rm x"]
    assert "danger" in texts("x=$(case a in a) danger;; esac)")


def test_heredocs_quoted_and_not() -> None:
    assert texts("cat <<EOF\nrm -rf /\n$(touch x)\nEOF\necho after") == ["cat", "touch x", "echo after"]
    assert texts("cat <<'EOF'\n$(touch x)\nEOF") == ["cat"]
    assert texts("cat <<-\tEND\n\t$(a)\n\tEND\nb") == ["cat", "a", "b"]
    assert texts("cat <<A <<B\n$(one)\nA\n$(two)\nB\nthree") == ["cat", "one", "two", "three"]


def test_inline_code_is_parsed() -> None:
    assert "rm -rf x" in texts("bash -lc 'cd /; rm -rf x'")
    assert "rm y" in texts('eval "rm y"')
    assert "rm z" in texts("find . -name a -exec rm z \\;")
    assert "rm q" in texts("env -S 'rm q'")
    part = analyse("sh -c 'ls'").roots[0]
    assert part.constructs == {"-c"}


def test_wrappers_show_what_they_run() -> None:
    part = analyse("sudo -u root env A=1 nice -n 5 timeout 3 /bin/rm -rf /").roots[0]
    assert "rm -rf /" in part.variants


def test_writes() -> None:
    assert analyse("a > f1 2>> f2 &> f3 >| f4 <> f5 >&f6").writes == ("f1", "f2", "f3", "f4", "f5", "f6")
    assert analyse("a 2>/dev/null >/dev/stderr >&2 2>&1 >&- < in").writes == ()
    assert analyse("a > $F").writes == (None,)
    assert analyse("find . -fprint out.txt").writes == ("out.txt",)
    assert analyse("cd /etc && echo > passwd").changes_dir


@pytest.mark.parametrize(
    "command",
    ["echo 'open", 'echo "open', "echo $(open", "echo `open", "echo ${open", "a >", "(( 1 + 2", "echo $'x"],
)
def test_unreadable_commands_are_errors(command: str) -> None:
    with pytest.raises(ShellSyntaxError):
        parse(command)
    assert analyse(command).error is not None and not analyse(command).parts


def test_deep_nesting_and_long_lines_do_not_crash() -> None:
    deep = "echo " + "$(" * 200 + "x" + ")" * 200
    assert analyse(deep).error is not None
    long = " && ".join(f"echo {i}" for i in range(2000))
    assert len(analyse(long).roots) == 2000
