"""Subtitles and captions (SubRip .srt, WebVTT .vtt): what is said, as running text.

A cue's text lines are joined to the cues before them, as one speaker's sentences run on across
cues; a new speaker (a WebVTT voice, `<v Name>`) or a pause of `PAUSE_SECONDS` or more starts a
new paragraph, and so does, after a line that ends no sentence, a line that begins with a
capitalized word that only a sentence's start capitalizes ("And", "So", "The": a transcript
without full stops). Never cue numbers and identifiers, timings and their settings, the WebVTT header,
notes, styles and regions, tags (`<i>`, `<c.yellow>`, `<00:00:01.500>`, `{\\an8}`), a dialogue
line's dash, sounds and music (`[applause]`, a line all in parentheses, `♪ ... ♪`). Captions that
roll up (each cue repeats the line before it, as automatic captions do) are read once.
"""

from __future__ import annotations

import html
import re

from summarizer.readers.base import Reader

PAUSE_SECONDS = 4.0  # a silence this long between cues ends a paragraph
_TIMING = re.compile(r"^\s*((?:\d+:)?\d{1,2}:\d{2}[,.]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[,.]\d{1,3})(?:\s.*)?$")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?\s+([^>]*)>")
_TAG = re.compile(r"<[^<>\n]*>|\{\\[^{}\n]*\}")  # WebVTT and SubRip tags, SubRip's ASS overrides
_SOUND = re.compile(r"\[[^\[\]\n]*\]")  # [applause], [music playing]
_ASIDE = re.compile(r"\([^()\n]*\)")
_MUSIC = "♪♫♬"
_DASH = re.compile(r"^[-–—]\s*")
_BLOCKS = ("NOTE", "STYLE", "REGION")  # WebVTT blocks that are no cue
# Words capitalized only at a sentence's start (not "I", nor names): after a line that ends no
# sentence, such a word begins a new one.
_OPENERS = frozenset(
    "And But So Or Then Now Well Yes No Okay The A An This That These Those It It's We We're You He She They "
    "There Here What When Why How If In On At As For My Our Your His Her Their Its Let's Because".split()
)
_ENDED = re.compile(r"[.!?…:;][\"'”’)\]]*$")
MAX_ROLLED_LINES = 3  # a rolling caption repeats at most this many lines of the cue before


def subtitle_paragraphs(text: str) -> list[str]:
    """The paragraphs of what a subtitle file's cues say, each on one line."""
    paragraphs: list[list[str]] = []
    last_end: float | None = None
    speaker: str | None = None
    shown: list[str] = []  # the lines of the cue before, to leave out what a rolling cue repeats
    for block in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = block.strip("\n").split("\n")
        timing_at, timing = next(((i, m) for i, line in enumerate(lines) if (m := _TIMING.match(line))), (0, None))
        if timing is None or lines[0].startswith(_BLOCKS):
            continue  # the header, a note, a style, a region, or no cue
        start, end = _seconds(timing[1]), _seconds(timing[2])
        said = [line for line in (_said(line) for line in lines[timing_at + 1 :]) if line[1]]
        texts = [words for _, words, _ in said]
        new = said[_repeated(texts, shown) :]
        shown = texts
        if new and last_end is not None and start - last_end >= PAUSE_SECONDS:
            paragraphs.append([])
        for voice, words, turn in new:
            voice = voice or speaker
            if not paragraphs or turn or (voice is not None and voice != speaker) or _begins(words, paragraphs[-1]):
                paragraphs.append([])
            paragraphs[-1].append(words)
            speaker = voice
        if new:
            last_end = max(end, last_end or end)
    return [line for line in (" ".join(" ".join(p).split()) for p in paragraphs) if line]


def _said(line: str) -> tuple[str | None, str, bool]:
    """A cue line's voice (`<v Name>`, else None), its words (no tags, sounds, music or dialogue
    dash; entities decoded) and whether a dialogue dash begins it (another speaker's turn)."""
    voice = _VOICE.search(line)
    words = html.unescape(_TAG.sub("", line))
    words = _SOUND.sub("", words).strip()
    if any(mark in words for mark in _MUSIC) or _ASIDE.fullmatch(words):
        words = ""
    turn = _DASH.match(words) is not None
    return (voice[1].strip() if voice else None), _DASH.sub("", words).strip(), turn


def _begins(words: str, paragraph: list[str]) -> bool:
    """Whether a line begins a sentence after a paragraph that ends none: with an opener."""
    return bool(paragraph) and not _ENDED.search(paragraph[-1]) and words.split(maxsplit=1)[0] in _OPENERS


def _repeated(lines: list[str], before: list[str]) -> int:
    """How many lines at the start of `lines` end the cue before (a rolling caption)."""
    for size in range(min(len(lines), len(before), MAX_ROLLED_LINES), 0, -1):
        if lines[:size] == before[-size:]:
            return size
    return 0


def _seconds(stamp: str) -> float:
    parts = stamp.replace(",", ".").split(":")
    return sum(float(part) * 60**power for power, part in enumerate(reversed(parts)))


READER = Reader("subtitles", "a subtitle file", (".srt", ".vtt"), subtitle_paragraphs)
