"""The YAML-subset frontmatter reader used by skills and prompt templates."""

from __future__ import annotations

import pytest

from pi_cli.resources.frontmatter import FrontmatterError, parse_frontmatter, split_frontmatter, strip_frontmatter


def test_plain_values_comments_and_trimmed_body() -> None:
    meta, body = parse_frontmatter("---\nname: my-skill\ndescription: Does things: well # note\n---\n\nBody\n\n")
    assert meta == {"name": "my-skill", "description": "Does things: well"}
    assert body == "Body"


def test_hash_inside_a_word_is_content() -> None:
    meta, _ = parse_frontmatter("---\ndescription: use C# and F#\n---\n")
    assert meta["description"] == "use C# and F#"


def test_quoted_values_and_escapes() -> None:
    text = "---\nname: \"say \\\"hi\\\" \\u00e9\\n\"\ndescription: 'it''s # not a comment'\n---\nB"
    meta, _ = parse_frontmatter(text)
    assert meta == {"name": 'say "hi" é\n', "description": "it's # not a comment"}


def test_quoted_value_across_lines_folds_with_spaces() -> None:
    meta, _ = parse_frontmatter('---\ndescription: "first\n  second"\n---\n')
    assert meta["description"] == "first second"


def test_plain_value_continued_on_indented_lines() -> None:
    meta, _ = parse_frontmatter("---\ndescription: one\n  two\n  three\nname: n\n---\n")
    assert meta == {"description": "one two three", "name": "n"}


def test_block_scalars() -> None:
    folded, _ = parse_frontmatter("---\nd: >\n  line one\n  line two\n\n  para\n---\n")
    assert folded["d"] == "line one line two\npara\n"
    literal, _ = parse_frontmatter("---\nd: |-\n  keep\n    indented\n  lines\n---\n")
    assert literal["d"] == "keep\n  indented\nlines"
    kept, _ = parse_frontmatter("---\nd: |\n  a\n\nx: 1\n---\n")
    assert kept == {"d": "a\n", "x": 1}


def test_scalar_types_follow_yaml_core_schema() -> None:
    meta, _ = parse_frontmatter("---\na: true\nb: False\nc: 12\nd: 1.5\ne: ~\nf: null\ng: yes\nh:\n---\n")
    assert meta == {"a": True, "b": False, "c": 12, "d": 1.5, "e": None, "f": None, "g": "yes", "h": None}


def test_one_nested_level_mapping_and_list() -> None:
    meta, body = parse_frontmatter('---\nmetadata:\n  author: me\n  version: "1.0"\ntags:\n- a\n- "b c"\n---\nx')
    assert meta == {"metadata": {"author": "me", "version": "1.0"}, "tags": ["a", "b c"]}
    assert body == "x"


def test_crlf_bom_and_empty_block() -> None:
    assert parse_frontmatter("\ufeff---\r\nname: crlf\r\n---\r\nbody\r\n") == ({"name": "crlf"}, "body")
    assert parse_frontmatter("---\n---\nbody") == ({}, "body")


def test_no_or_unclosed_frontmatter_leaves_the_text_alone() -> None:
    assert split_frontmatter("plain\n\n") == (None, "plain\n\n")
    assert split_frontmatter("---\nname: x\nbody") == (None, "---\nname: x\nbody")
    assert strip_frontmatter("---\na: 1\n---\n  hello  \n") == "hello"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("---\nname x\n---\n", "line 1: expected `key: value`"),
        ('---\nname: "open\n---\n', "unterminated"),
        ("---\na: 1\na: 2\n---\n", 'line 2: duplicate key "a"'),
        ("---\n  indented: x\n---\n", "line 1: unexpected indentation"),
        ('---\nd: "bad \\q"\n---\n', "unknown escape"),
        ('---\nd: "closed" trailing\n---\n', "text after a closing quote"),
        ("---\n\tname: x\n---\n", "tabs"),
    ],
)
def test_malformed_frontmatter_names_the_line(text: str, fragment: str) -> None:
    with pytest.raises(FrontmatterError, match=None) as info:
        parse_frontmatter(text)
    assert fragment in str(info.value)
