"""Subtitles (`summarizer.readers.subtitles`): SubRip and WebVTT files as players and video sites
write them, read for what is said."""

from __future__ import annotations

import codecs

from summarizer.readers import Document, format_of

# A film's SubRip file: numbered cues, italics and an ASS position tag, a sentence across cues,
# a dialogue of two speakers in one cue, sounds and music.
SRT = """\
1
00:00:03,273 --> 00:00:06,416
{\\an8}<i>The harbour was quiet</i>
that winter, and the boats stayed in.

2
00:00:06,417 --> 00:00:08,051
[waves crashing]

3
00:00:08,053 --> 00:00:11,085
- Will they sail again?
- Not before the spring.

4
00:00:11,100 --> 00:00:13,000
♪ Sailing home again ♪

5
00:00:13,100 --> 00:00:16,000
(LAUGHS)

6
00:00:21,000 --> 00:00:24,000
The fishermen waited
for better weather.
"""

# A talk's WebVTT captions: the header, a note, a style block, cue identifiers and settings,
# voices, class and timestamp tags, an entity.
VTT = """\
WEBVTT Kind: captions

NOTE This note is not said.

STYLE
::cue { color: yellow }

intro
00:00.000 --> 00:03.500 align:start position:10%
<v Roger Bingham>We are in New York City

00:03.500 --> 00:06.000
<v Roger Bingham>and we are talking about<00:04.500><c.highlight> dark matter</c> &amp; energy.

00:06.000 --> 00:09.000
<v Neil Tyson>It is the biggest question in physics today.
"""

# Automatic captions that roll up: each cue repeats the line before it.
ROLLING = """\
WEBVTT

00:00:00.000 --> 00:00:02.000
so today we are going to look

00:00:02.000 --> 00:00:04.000
so today we are going to look
at how the tides work

00:00:04.000 --> 00:00:06.000
at how the tides work
and why they matter.
"""


def test_a_subrip_file_reads_as_what_is_said():
    assert format_of("film.SRT") == format_of("talk.vtt") == "subtitles"
    assert Document.from_text(SRT, "subtitles").paragraphs == (
        "The harbour was quiet that winter, and the boats stayed in.",
        "Will they sail again?",
        "Not before the spring.",
        "The fishermen waited for better weather.",  # after a pause of 5 s: a paragraph of its own
    )


def test_webvtt_voices_start_paragraphs_and_its_blocks_and_tags_are_no_text():
    assert Document.from_text(VTT, "subtitles").paragraphs == (
        "We are in New York City and we are talking about dark matter & energy.",
        "It is the biggest question in physics today.",
    )


def test_rolling_captions_are_read_once():
    assert Document.from_text(ROLLING, "subtitles").paragraphs == (
        "so today we are going to look at how the tides work and why they matter.",
    )


def test_utf16_and_utf32_files_with_a_byte_order_mark_are_read(tmp_path):
    for codec, mark in (
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
    ):
        path = tmp_path / f"film-{codec}.srt"
        path.write_bytes(mark + SRT.encode(codec))
        assert Document.from_file(path).paragraphs == Document.from_text(SRT, "subtitles").paragraphs
    notes = tmp_path / "notes.txt"  # as Windows Notepad saves "Unicode" text
    notes.write_bytes(codecs.BOM_UTF16_LE + "The plan works.\r\n\r\nIt ships in May.\r\n".encode("utf-16-le"))
    assert Document.from_file(notes).paragraphs == ("The plan works.", "It ships in May.")


def test_in_a_transcript_without_full_stops_a_sentence_opener_after_an_unended_cue_begins_a_sentence():
    transcript = """\
1
00:00:06,500 --> 00:00:09,000
About two months ago I found myself
in the comments under a video

2
00:00:11,000 --> 00:00:17,000
And I was answering
Ayn Rand's readers

3
00:00:19,000 --> 00:00:24,000
So I started a campaign.
"""
    assert Document.from_text(transcript, "subtitles").paragraphs == (
        "About two months ago I found myself in the comments under a video",
        "And I was answering Ayn Rand's readers",  # a name after an unended line goes on
        "So I started a campaign.",
    )
