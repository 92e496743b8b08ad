"""Python highlighting from Pygments tokens, one editor line at a time.

Qt highlights a document block by block and re-highlights only the edited block and
the following ones whose start state changed. To fit that, each line is lexed with
Pygments' own `PythonLexer` rules starting from the lexer state stack left at the end
of the previous line (an `ExtendedRegexLexer` exposes that stack). The stack is
interned as the block's integer state, so a triple-quoted string opened on one line
keeps the next lines in the string state, and typing inside a 2,000-line file costs
one line of lexing.

One rule of `PythonLexer` spans lines by itself: a statement-level triple-quoted
string is matched as a whole `String.Doc` token. Line by line that regex cannot see
the closing quotes, so the docstring state is carried explicitly (`_DOC_START`);
`tests/ui/test_editor.py` checks that line-by-line tokens equal whole-file tokens.
"""

from __future__ import annotations

import re
import time
from functools import lru_cache

from pygments.lexer import ExtendedRegexLexer, LexerContext
from pygments.lexers.python import PythonLexer
from pygments.styles import get_style_by_name
from pygments.token import String, Text, _TokenType
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

Token = tuple[int, int, _TokenType]  # (start, length, token type), str indices


class _StatefulPythonLexer(ExtendedRegexLexer):
    """Pygments' Python rules unchanged; the extended driver exposes the state stack."""

    name = "Python (line by line)"
    tokens = PythonLexer.tokens


_LEXER = _StatefulPythonLexer()
_ROOT = ("root",)
_DOC_START = re.compile(r"""^(\s*)([rRuUbB]{,2})(\"\"\"|''')""")

# Interned line-end states: (lexer stack, open docstring delimiter or None).
_STATES: list[tuple[tuple[str, ...], str | None]] = [(_ROOT, None)]
_STATE_IDS: dict[tuple[tuple[str, ...], str | None], int] = {(_ROOT, None): 0}


def _intern(stack: tuple[str, ...], doc: str | None) -> int:
    key = (stack, doc)
    state = _STATE_IDS.get(key)
    if state is None:
        state = len(_STATES)
        _STATES.append(key)
        _STATE_IDS[key] = state
    return state


@lru_cache(maxsize=32768)
def lex_line(text: str, state: int = 0) -> tuple[tuple[Token, ...], int]:
    """Tokens of one line (without its newline) lexed from `state`; returns (tokens, end state).

    State 0 is the start of a file. Cached: re-highlighting after a theme change or
    after a quote that flips the rest of the file back costs dictionary lookups.
    """
    stack, doc = _STATES[state] if 0 <= state < len(_STATES) else _STATES[0]
    out: list[Token] = []
    pos = 0
    if doc is not None:
        end = text.find(doc)
        if end < 0:
            return ((0, len(text), String.Doc),) if text else (), state
        out.append((0, end + 3, String.Doc))
        pos, stack = end + 3, _ROOT
    elif stack == _ROOT:
        m = _DOC_START.match(text)
        if m and text.find(m.group(3), m.end()) < 0:
            # A docstring that goes on below: PythonLexer would make it one String.Doc.
            if m.end(1) > 0:
                out.append((0, m.end(1), Text.Whitespace))
            if m.end(2) > m.start(2):
                out.append((m.start(2), m.end(2) - m.start(2), String.Affix))
            out.append((m.start(3), len(text) - m.start(3), String.Doc))
            return tuple(out), _intern(_ROOT, m.group(3))
    # The newline is lexed too, as in a whole file: some states end at it.
    ctx = LexerContext(text + "\n", pos, stack=list(stack))
    n = len(text)
    for start, ttype, value in _LEXER.get_tokens_unprocessed(context=ctx):
        if start < n and value:
            out.append((start, min(len(value), n - start), ttype))
    return tuple(out), _intern(tuple(ctx.stack), None)


def _utf16_offsets(text: str) -> list[int] | None:
    """Qt counts UTF-16 units; map str indices when the line has characters beyond the BMP."""
    if text.isascii() or all(ord(c) <= 0xFFFF for c in text):
        return None
    offsets, unit = [], 0
    for c in text:
        offsets.append(unit)
        unit += 2 if ord(c) > 0xFFFF else 1
    offsets.append(unit)
    return offsets


def char_format(style_name: str, ttype: _TokenType) -> QTextCharFormat | None:
    """The Qt format a Pygments style gives a token type, or None when it is plain text."""
    spec = get_style_by_name(style_name).style_for_token(ttype)
    fmt = QTextCharFormat()
    plain = True
    if color := spec.get("color"):
        fmt.setForeground(QColor("#" + color))
        plain = False
    if bgcolor := spec.get("bgcolor"):
        fmt.setBackground(QColor("#" + bgcolor))
        plain = False
    if spec.get("bold"):
        fmt.setFontWeight(QFont.Weight.Bold)
        plain = False
    if spec.get("italic"):
        fmt.setFontItalic(True)
        plain = False
    if spec.get("underline"):
        fmt.setFontUnderline(True)
        plain = False
    return None if plain else fmt


# Block state of a line not lexed yet: a long pass stops after its time budget and goes
# on from the event loop, so opening a big file never freezes the window.
DEFERRED = 1 << 30
PASS_BUDGET_S = 0.04
PASS_MIN_BLOCKS = 200  # never defer inside small documents: tests see formats at once
_NEW_PASS_GAP_S = 0.005


class PythonHighlighter(QSyntaxHighlighter):
    """Colours Python source with a Pygments style; Qt calls `highlightBlock` per line."""

    def __init__(self, document: QTextDocument, style_name: str = "default") -> None:
        super().__init__(document)
        self._style_name = style_name
        self._pass_start = self._last_call = 0.0
        self._pass_blocks = 0
        self._resume_hint: int | None = None
        self._resume_timer = QTimer(self)
        self._resume_timer.setSingleShot(True)
        self._resume_timer.setInterval(0)
        self._resume_timer.timeout.connect(self._on_resume)
        self._formats: dict[_TokenType, QTextCharFormat | None] = {}
        # (line, start state) -> merged (start, length, format) runs in Qt units, end state
        self._runs: dict[tuple[str, int], tuple[list[tuple[int, int, QTextCharFormat]], int]] = {}

    @property
    def style_name(self) -> str:
        return self._style_name

    def set_style(self, style_name: str) -> None:
        """Switch the Pygments style (light/dark) and repaint the document."""
        if style_name == self._style_name:
            return
        get_style_by_name(style_name)  # fail here, not in the middle of painting
        self._style_name = style_name
        self._formats.clear()
        self._runs.clear()
        self.rehighlight()

    def format_for(self, ttype: _TokenType) -> QTextCharFormat | None:
        """The format used for a token type (None: drawn as plain text)."""
        if ttype not in self._formats:
            self._formats[ttype] = char_format(self._style_name, ttype)
        return self._formats[ttype]

    def is_pending(self) -> bool:
        """True while some lines wait to be coloured (a long pass was split up)."""
        return self._resume_timer.isActive()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt override)
        now = time.perf_counter()
        if now - self._last_call > _NEW_PASS_GAP_S:
            self._pass_start, self._pass_blocks = now, 0
        self._pass_blocks += 1
        previous = self.previousBlockState()
        if previous == DEFERRED or (
            self._pass_blocks > PASS_MIN_BLOCKS and now - self._pass_start > PASS_BUDGET_S
        ):
            self.setCurrentBlockState(DEFERRED)
            number = self.currentBlock().blockNumber()
            if self._resume_hint is None or number < self._resume_hint:
                self._resume_hint = number
            self._resume_timer.start()
            self._last_call = time.perf_counter()
            return
        key = (text, previous if previous >= 0 else 0)
        cached = self._runs.get(key)
        if cached is None:
            if len(self._runs) > 50_000:
                self._runs.clear()
            cached = self._runs[key] = self._format_runs(text, key[1])
        runs, end_state = cached
        for start, length, fmt in runs:
            self.setFormat(start, length, fmt)
        self.setCurrentBlockState(end_state)
        self._last_call = time.perf_counter()

    def _on_resume(self) -> None:
        document = self.document()
        if document is None:
            return
        hint, self._resume_hint = self._resume_hint, None
        block = document.findBlockByNumber(hint or 0)
        if not (block.isValid() and block.userState() == DEFERRED) or (
            block.previous().isValid() and block.previous().userState() == DEFERRED
        ):
            block = document.firstBlock()  # edits moved things: look from the top
            while block.isValid() and block.userState() != DEFERRED:
                block = block.next()
        if block.isValid():
            self._pass_start, self._pass_blocks = time.perf_counter(), 0
            self._last_call = self._pass_start
            self.rehighlightBlock(block)

    def _format_runs(
        self, text: str, state: int
    ) -> tuple[list[tuple[int, int, QTextCharFormat]], int]:
        """Formatted runs of a line: plain tokens dropped, touching tokens of one format merged."""
        tokens, end_state = lex_line(text, state)
        offsets = _utf16_offsets(text)
        runs: list[tuple[int, int, QTextCharFormat]] = []
        for start, length, ttype in tokens:
            fmt = self.format_for(ttype)
            if fmt is None:
                continue
            if offsets is not None:
                start, length = offsets[start], offsets[start + length] - offsets[start]
            if runs and runs[-1][2] is fmt and runs[-1][0] + runs[-1][1] == start:
                runs[-1] = (runs[-1][0], runs[-1][1] + length, fmt)
            else:
                runs.append((start, length, fmt))
        return runs, end_state
