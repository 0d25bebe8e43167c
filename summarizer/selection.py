"""Pick summary sentences from scores: ranking, trigram blocking, length controls, order."""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import regex

from summarizer.errors import check, check_at_least, check_choice
from summarizer.ranking import RankerConfig, best_combination
from summarizer.text.centrality import stop_words
from summarizer.text.layout import SENTENCE_WORDS, title_case
from summarizer.text.words import rouge_words

ORDERS = ("document", "score")
LEAD_IN_ENDINGS = (":", "\uff1a")  # a colon, ASCII or full-width
# A title set as a sentence: at most this many words ending in a full stop, each capitalized (or
# a number) save English's short function words ("Grant of Patent License.", a section's run-in
# title; "Tornadoes Fast Facts .", a news article's inner heading).
MAX_TITLE_WORDS = 6
# A fragment set as a sentence: fewer words than this, counted between spaces (those with a
# letter or digit), none of them a subject's or a finite verb's (`SENTENCE_WORDS`): "For
# French-language articles.", an option's description; "Subsubsection text here.", a
# template's placeholder; "Deathly silence." (not "Pero was 55.", "It's amazing."), in a script
# written with spaces between words.
MIN_STANDALONE_WORDS = 4
# A list's entry of at most this many words, none a subject's or finite verb's, is a phrase
# ("Multi-satellite management (calculation algorithms, display)."); a longer one is more likely
# a sentence whose verb the closed list of `SENTENCE_WORDS` lacks ("In case of ... file format,
# CDigiDoc software library supports HASHCODE data file mode for intermediary ddoc files.").
MAX_PHRASE_WORDS = 15
# A labelled entry set as a sentence: a label of at most this many words and a colon, then a
# phrase (it does not begin with a capital, as a sentence does) whose words are none of them a
# subject's or finite verb's: "Apple: over 75,000 nodes storing over 10 PB of data." (a talk's
# notes), "signed distances: not available for cloud-to-cloud distance." (an option's entry),
# "Last known altitude: 11,400 feet ." (a fact box); not a dateline's sentence ("NEW DELHI: The
# government on Monday announced ..."), nor "It read: ...".
MAX_LABEL_WORDS = 3
_LABEL = regex.compile(rf"^\s*[^\s:]+(?:\s+[^\s:]+){{0,{MAX_LABEL_WORDS - 1}}}:\s+(?=[^\s\p{{Lu}}\p{{Lt}}])")
# A command-line option's entry set as a sentence: the option (a hyphen and one letter,
# or two hyphens and a word in lower case), perhaps its argument in brackets, then what it does
# ("-M [matrixfile] the file containing the motif matrices", "--verbose, -v prints more"): a
# manual's or a README's list, not its text. Not a line of dialogue or a bullet set without a
# space ("-He went home.", "--The council said...", "-based").
_AN_OPTION = r"(?:-[A-Za-z]|--[a-z0-9]+(?:-[a-z0-9]+)*)(?:[= ]?(?:\[[^\]\s]*\]|<[^>\s]*>))?(?=[\s,])"
_OPTION = regex.compile(rf"^\s*{_AN_OPTION}(?:,\s*{_AN_OPTION})*\s")
# Code set as a sentence: at least this many words of code (`_CODE_WORD`), and this share of its
# words: "new SavePrsm(prsmGraph) (save_prsm.js) savePrsmObj.main() ...", a developer's notes;
# "... was: {{ p.name.full() }}.", a template's; not a manual's sentence that shows a command or
# two ("Using the standard LaTeX2e \mbox{text} will give normal text, ...: $x_{\mbox{e-p}}$ ...").
MIN_CODE_WORDS = 3
MIN_CODE_SHARE = 0.2
# A word of code: a call (empty, or of a name: "main()", "SavePrsm(prsmGraph)", not "form(s)",
# "Fe(II)", "(n=120)"), a name joined by underscores ("ms2svg_"), a path into a namespace
# ("xn::Context"), an arrow or a brace. A word with "@" or "://" (a handle, an address, a
# link) is none.
_CODE_WORD = regex.compile(r"\(\)|\w\([a-z_][\w.]+[,)=]|\w_|_\w|::|->|[{}]")
_NOT_CODE = regex.compile(r"@|://")
_WORD_CHARACTER = regex.compile(r"[\p{L}\p{N}]")
_APOSTROPHE = regex.compile(r"['’]")
_WORD_EDGES = ".,;:!?\"'“”‘’()[]«»—–-"
_UNSPACED_SCRIPT = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}]")
# A sentence's end: a full stop, question or exclamation mark of any script (Unicode's
# Sentence_Terminal: also 。 । ؟ ։ ...) or an ellipsis, then perhaps
# closing quotes (German's and Czech's close with “ ‘, Danish's with «), brackets, emphasis marks,
# footnote and citation marks ("...in 2019.[12]", "...in 2019.¹", "...grew.[citation needed]")
# and spaces (a quote the splitter left at the end: 'said Kaka. "'). Searched from the end (`(?r)`),
# so that a long run of marks ("[.][.][.]...") is read once, not once from each of its dots.
_ENDED = regex.compile(
    r"(?r)[\p{Sentence_Terminal}\u2026](?:[\p{Pe}\p{Pf}\p{Pi}\p{No}\"'*_\u2020\u2021\s\u200b]|\[[\w\s,.:\u2013\u2014-]{1,30}\])*$"
)
# Quotes, brackets and spaces before a sentence's first word ('"the', '(only', '« les', "» der");
# apostrophes too, so that the rest of a word cut from its start ("'s route to the final...")
# leaves "s", a stop word.
_OPENING_MARKS = regex.compile(r"^[\p{Ps}\p{Pi}\p{Pf}\"'\s]+")


@dataclass(frozen=True)
class SelectionConfig:
    """How many sentences to keep and how.

    Exactly one length control applies: `max_words` if set, else `ratio` if set, else `k`.
    `ratio` keeps ratio * number of sentences, rounded half up, at least one sentence.
    `trigram_blocking`: take a sentence that shares a word trigram with one already chosen only
    once every other candidate has been taken;
    None: as the model says (`BertSumConfig.trigram_blocking`, `for_model`), on without one.
    Either way a sentence that repeats a chosen one word for word is skipped.
    """

    k: int = 3
    ratio: float | None = None
    max_words: int | None = None
    trigram_blocking: bool | None = None
    order: str = "document"

    def __post_init__(self) -> None:
        check_at_least(self, 1, "k")
        check(self.ratio is None or 0.0 < self.ratio <= 1.0, "ratio", f"must be in (0, 1], got {self.ratio}")
        check_at_least(self, 1, "max_words", nullable=True)
        check_choice(self, "order", ORDERS)
        check(
            self.trigram_blocking is None or isinstance(self.trigram_blocking, bool),
            "trigram_blocking",
            f"must be true, false or null, got {self.trigram_blocking!r}",
        )

    def for_model(self, trigram_blocking: bool) -> SelectionConfig:
        """This selection with the model's `trigram_blocking` where it leaves it to the model."""
        return self if self.trigram_blocking is not None else replace(self, trigram_blocking=trigram_blocking)

    @property
    def blocks_trigrams(self) -> bool:
        """Whether a candidate that shares a word trigram with a chosen sentence waits: unless
        `trigram_blocking` is false (None, left to a model, blocks)."""
        return self.trigram_blocking is not False

    def describe(self) -> str:
        """How long these summaries are and whether they block trigrams, for a report's heading."""
        if self.max_words is not None:
            size = f"up to {self.max_words} words"
        elif self.ratio is not None:
            size = f"{self.ratio * 100:.3g}% of the sentences"
        else:
            size = f"{self.k} sentences"
        return f"{size}, trigram blocking {'on' if self.blocks_trigrams else 'off'}"

    def ranked_by(self, ranker: RankerConfig | None) -> bool:
        """Whether `ranker` chooses these summaries: a fixed number of sentences (no `ratio` or
        `max_words`), one of its `lengths`."""
        return ranker is not None and self.max_words is None and self.ratio is None and self.k in ranker.lengths

    def sentence_budget(self, num_sentences: int) -> int:
        """How many sentences `k` or `ratio` allows for a document of `num_sentences`."""
        if self.ratio is not None:
            return max(1, math.floor(self.ratio * num_sentences + 0.5))
        return self.k


def leads_in(sentence: str) -> bool:
    """Whether `sentence` ends with a colon: it introduces what follows rather than standing alone."""
    return sentence.rstrip().endswith(LEAD_IN_ENDINGS)


def is_title(sentence: str) -> bool:
    """Whether `sentence` is a title set as a sentence (`MAX_TITLE_WORDS`): it names what follows
    rather than saying anything."""
    text = sentence.strip()
    if not text.endswith(".") or text.endswith(".."):
        return False
    words = text[:-1].split()
    return 0 < len(words) <= MAX_TITLE_WORDS and title_case(words)


def too_short(sentence: str) -> bool:
    """Whether `sentence` is too short to say anything alone (`MIN_STANDALONE_WORDS`): a
    description's opening phrase, a placeholder, a label, a heading set as a sentence. Words are
    counted between spaces, those with a letter or digit ("It works — really ." is three); a
    subject's or finite verb's word makes a sentence of any length ("It's amazing.", "Don't
    panic."). Scripts
    written without spaces between words (Chinese, Japanese, Thai...) are not counted this way."""
    words = _counted_words(sentence)
    return words is not None and len(words) < MIN_STANDALONE_WORDS and not _says_something(words)


def labelled(sentence: str) -> bool:
    """Whether `sentence` is a labelled entry (`MAX_LABEL_WORDS`): a short label and a colon, then
    no subject's or finite verb's word; a talk's notes or an option list's entry, not a
    sentence. Not so counted in scripts written without spaces between words."""
    label = _LABEL.match(sentence)
    if label is None or _UNSPACED_SCRIPT.search(sentence) is not None or _says_something(label[0].split()):
        return False  # "It read: ...", "He said: ..." lead in to what a sentence says
    words = _counted_words(sentence[label.end() :]) or []
    return bool(words) and not _says_something(words)


def option_entry(sentence: str) -> bool:
    """Whether `sentence` is a command-line option's entry (`_OPTION`): it begins with the option."""
    return _OPTION.match(sentence) is not None


def code(sentence: str) -> bool:
    """Whether `sentence` is code more than prose: `MIN_CODE_WORDS` words of code (`_CODE_WORD`),
    and `MIN_CODE_SHARE` of its words."""
    words = sentence.split()
    found = sum(_CODE_WORD.search(word) is not None and _NOT_CODE.search(word) is None for word in words)
    return found >= MIN_CODE_WORDS and found >= MIN_CODE_SHARE * len(words)


def bare_entry(sentence: str) -> bool:
    """Whether `sentence`, of a list's entry (`summarizer.readers.Entry`), is a phrase, not a
    sentence: at most `MAX_PHRASE_WORDS` words, none a subject's or finite verb's
    ("Multi-satellite management (calculation algorithms, display).", a version's list of
    changes). Not so counted in scripts written without spaces between words."""
    words = _counted_words(sentence)
    return words is not None and len(words) <= MAX_PHRASE_WORDS and not _says_something(words)


def _counted_words(text: str) -> list[str] | None:
    """The words of `text` between spaces that have a letter or digit, or None for a script
    written without spaces between words (Chinese, Japanese, Thai...), which is not counted."""
    if _UNSPACED_SCRIPT.search(text) is not None:
        return None
    return [word for word in text.split() if _WORD_CHARACTER.search(word)]


def _says_something(words: Sequence[str]) -> bool:
    """Whether one of `words` is a subject's or finite verb's (`SENTENCE_WORDS`): the word, or a
    piece of it between apostrophes ("don't" is one of them, so is "it's"'s "it", and French
    elision's "c'est"'s "est", "qu'il"'s "il")."""
    bare = [word.strip(_WORD_EDGES).lower() for word in words]
    return any(
        word in SENTENCE_WORDS or any(piece in SENTENCE_WORDS for piece in _APOSTROPHE.split(word)) for word in bare
    )


def unended(sentence: str) -> bool:
    """Whether `sentence` ends without a sentence's end mark (`_ENDED`): a heading, a list item,
    a table row, an author's affiliation, text cut short."""
    return _ENDED.search(sentence.rstrip()) is None


def begins_lower(sentence: str, ordinary: Collection[str]) -> bool:
    """Whether `sentence` begins with one of the `ordinary` words (its language's stop words:
    "the", "all", "only") in lower case, perhaps after quotes, brackets or apostrophes
    (`_OPENING_MARKS`): in a document written in sentence case (`cased`), a list item that goes
    on from the sentence before it ("* the whole set of lints..." after "You can deny lints:"),
    or the rest of a quotation or a word cut from its start ('"the best day," he said.', "'s
    route to the final"). A name written in lower case ("pyenv lets you...") is not one of
    them."""
    words = _OPENING_MARKS.sub("", sentence).split(maxsplit=1)
    return bool(words) and words[0] in ordinary


def cased(sentences: Sequence[str]) -> bool:
    """Whether the document is written in sentence case: of its sentences that hold a letter
    with an upper and a lower case, at least a third have a capital as the first such letter ("2019
    was good." counts as lower case). A third, not half: formulas and list items cut from a
    paper or a README can begin most of its lines in lower case. Not cased: text lower-cased
    (as training text can be) or written without capitals but for a name or two, where a stop
    word begins sentences like any word, and text in scripts without case."""
    firsts = [letter for letter in map(_first_letter, sentences) if letter is not None]
    return bool(firsts) and sum(letter.isupper() for letter in firsts) * 3 >= len(firsts)


def _first_letter(sentence: str) -> str | None:
    """The first character of `sentence` that has an upper and a lower case, if any."""
    return next((c for c in sentence if c.lower() != c.upper()), None)


def stands_apart(sentence: str, ordinary: Collection[str] = (), entry: bool = False) -> bool:
    """Whether `sentence` does not stand alone in a summary: it leads in (`leads_in`), is a
    title (`is_title`), is too short (`too_short`), a labelled entry (`labelled`), an option's
    entry (`option_entry`) or code (`code`), ends without an end mark (`unended`), begins with
    one of the `ordinary` words in lower case (`begins_lower`) or, of a list's `entry`, is a
    phrase (`bare_entry`)."""
    return (
        (entry and bare_entry(sentence))
        or leads_in(sentence)
        or is_title(sentence)
        or too_short(sentence)
        or labelled(sentence)
        or option_entry(sentence)
        or code(sentence)
        or unended(sentence)
        or begins_lower(sentence, ordinary)
    )


def _trigrams(words: Sequence[str]) -> set[tuple[str, str, str]]:
    return set(zip(words, words[1:], words[2:]))


def select_sentences(
    sentences: Sequence[str],
    indices: Sequence[int],
    scores: Sequence[float],
    config: SelectionConfig = SelectionConfig(),
    language: str = "english",
    *,
    entries: Collection[int] = (),
    ranker: RankerConfig | None = None,
) -> list[int]:
    """Indices (into `sentences`) of the chosen sentences; `entries`: those of the sentences of
    a list's entries (`summarizer.readers.Document.entries`); `ranker`: the model's
    summary-level ranker, if it has one (`summarizer.ranking`).

    `indices[j]` is a scored sentence and `scores[j]` its score. Candidates are taken by
    descending score (ties: earlier sentence first); with it or without trigram blocking, one
    whose words repeat a chosen sentence's (a headline or a quote a page prints twice, "Not
    guilty.") is skipped. With
    `max_words`, sentences that would pass the word budget are skipped. A sentence ending with a
    colon introduces what follows it (a list, a quotation, a figure), a title set as a sentence
    names it, one of fewer than four words says too little, a label and a colon before words
    without a verb are an entry, words of code are no prose, a list's entry without one is a
    phrase, one without an end mark is a
    heading, a list item or a fragment, and in a document written in sentence case (`cased`),
    one that begins with a stop word of `language` in lower case goes on from what came before
    it; none of them stands alone in a summary, so they are taken only
    once no other candidate is left. With trigram blocking, a candidate that shares a word
    trigram with a chosen sentence waits until every other candidate, those that stand apart
    included, has been taken, so that a summary still has the length asked for. With
    `order="score"` the indices come in the order they were chosen.

    With a `ranker`, a summary of `k` sentences (no `ratio` or `max_words`), `k` one of the
    ranker's `lengths`, is instead the combination the ranker scores highest among the ranker's
    `candidates` best-scored sentences that stand alone, none of them repeating another's words
    (with trigram blocking: no two of them sharing a trigram); where there are no more such
    sentences than `k`, or trigram blocking refuses every combination, sentences are taken as
    above. With `order="score"` its sentences come by descending score.
    """
    if len(indices) != len(scores):
        raise ValueError(f"{len(indices)} sentence indices but {len(scores)} scores")
    ordinary = stop_words(language) if cased(sentences) else frozenset()
    listed = set(entries)
    apart = [stands_apart(sentences[i], ordinary, i in listed) for i in indices]
    ranked = sorted(range(len(indices)), key=lambda j: (-scores[j], indices[j]))
    if ranker is not None and config.ranked_by(ranker):
        ranked_choice = _ranked_choice(
            sentences, indices, scores, [j for j in ranked if not apart[j]], config, ranker, language
        )
        if ranked_choice is not None:
            return ranked_choice
    budget = len(indices) if config.max_words is not None else config.sentence_budget(len(sentences))
    chosen: list[int] = []
    seen_trigrams: set[tuple[str, str, str]] = set()
    seen_words: set[tuple[str, ...]] = set()  # a sentence repeated word for word is never taken twice
    words_used = 0

    def take(candidates: Sequence[int], block: bool) -> list[int]:
        """Take `candidates` in order while the budget lasts; the ones skipped for a chosen
        sentence's trigram (with `block`), in order."""
        nonlocal words_used
        blocked = []
        for j in candidates:
            if len(chosen) >= budget:
                break
            sentence = sentences[indices[j]]
            length = len(sentence.split())
            if config.max_words is not None and words_used + length > config.max_words:
                continue
            words = tuple(rouge_words(sentence))
            if words in seen_words:
                continue
            if block:  # only a blocking pass reads or needs the chosen sentences' trigrams
                trigrams = _trigrams(words)
                if trigrams & seen_trigrams:
                    blocked.append(j)
                    continue
                seen_trigrams.update(trigrams)
            seen_words.add(words)
            words_used += length
            chosen.append(indices[j])
        return blocked

    groups = ([j for j in ranked if not apart[j]], [j for j in ranked if apart[j]])
    for blocked in [take(group, config.blocks_trigrams) for group in groups]:  # every other candidate first
        take(blocked, block=False)
    return sorted(chosen) if config.order == "document" else chosen


def _ranked_choice(
    sentences: Sequence[str],
    indices: Sequence[int],
    scores: Sequence[float],
    ranked: Sequence[int],
    config: SelectionConfig,
    ranker: RankerConfig,
    language: str,
) -> list[int] | None:
    """`select_sentences`' choice by the `ranker` among the first of `ranked` (positions in
    `indices`, by descending score, none standing apart), or None where it has nothing to choose."""
    pool: list[int] = []
    seen_words: set[tuple[str, ...]] = set()
    trigrams: dict[int, set[tuple[str, str, str]]] = {}
    for j in ranked:
        words = tuple(rouge_words(sentences[indices[j]]))
        if words in seen_words:
            continue
        seen_words.add(words)
        pool.append(j)
        trigrams[indices[j]] = _trigrams(words) if config.blocks_trigrams else set()
        if len(pool) == ranker.candidates:
            break
    if len(pool) <= config.k:
        return None

    def apart_trigrams(combination: tuple[int, ...]) -> bool:
        return all(not trigrams[a] & trigrams[b] for a, b in itertools.combinations(combination, 2))

    chosen = best_combination(
        ranker,
        sentences,
        [indices[j] for j in pool],
        [scores[j] for j in pool],
        config.k,
        language,
        apart_trigrams if config.blocks_trigrams else None,
    )
    if chosen is None:
        return None
    if config.order == "document":
        return list(chosen)
    by_score = {indices[j]: scores[j] for j in pool}
    return sorted(chosen, key=lambda i: (-by_score[i], i))
