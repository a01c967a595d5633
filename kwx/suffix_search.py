"""spaCy's suffix search, answered from a token's last characters.

spaCy finds a token's suffix with ``re.search`` of one expression: every English suffix
followed by ``$``, joined by ``|``. The engine tries all of them at every position of
the token, so a long token ("sqlalchemy.sql.expression.False_") costs its length times
the alternatives: much of spaCy's time on the chunks kwx still gives it.

Every English suffix of spaCy 3.8 but ``\\.\\.+`` matches at most five characters (the
widths ``re``'s parser gives; a look-behind has none), so a match of one of them starts
in the token's last five: they are searched from there (``Pattern.search(text, pos)``,
whose look-behinds still see the characters before ``pos``). The suffixes of no bounded
width are searched over the whole token, and the leftmost match of the two is the
answer, as the leftmost is in the one expression. Which suffix matched does not
matter: spaCy reads only the match's length, and every match ends where the token does
(``$``; a token with a line break, before which ``$`` also matches, is searched by the
one expression). ``tests/test_suffix_search.py`` compares the two on real and
generated tokens, and spaCy's tokens with each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

try:  # re's own parser: private, but what measures an expression's width
    import re._parser as _sre_parse
    from re._constants import AT as _AT
    from re._constants import AT_END as _AT_END
    from re._constants import MAXREPEAT as _MAXREPEAT
except ImportError:  # another Python: spaCy's own search stays
    _sre_parse = None


class TailSuffixSearch:
    """A drop-in for a tokenizer's ``suffix_search``: the same match spans, from fewer
    places (see the module docstring). ``expression`` is the one it stands for."""

    def __init__(self, expression: re.Pattern[str], reach: int, bounded: Sequence[str],
                 unbounded: Sequence[str]) -> None:
        self.expression = expression
        self._reach = reach
        self._bounded = _joined(bounded, expression.flags)
        self._unbounded = _joined(unbounded, expression.flags)

    @classmethod
    def of(cls, tokenizer: object, suffixes: Sequence[str]) -> TailSuffixSearch | None:
        """The search for ``tokenizer``, whose suffix expression must be ``suffixes``
        joined as spaCy joins them; None when it is not, or when a suffix's match may not
        end at the end (a ``|`` of its own: "a|b" then "$" anchors only b)."""
        expression = expression_of(getattr(tokenizer, "suffix_search", None))
        suffixes = [suffix for suffix in suffixes if suffix.strip()]  # as spaCy drops them
        if expression is None or _sre_parse is None or not suffixes:
            return None
        if _joined(suffixes, expression.flags) != expression:
            return None
        bounded, unbounded, reach = [], [], 0
        for suffix in suffixes:
            parsed = _sre_parse.parse(f"{suffix}$", expression.flags)
            if not len(parsed) or parsed[-1] != (_AT, _AT_END):
                return None
            width = parsed.getwidth()[1]
            if width >= _MAXREPEAT:
                unbounded.append(suffix)
            else:
                bounded.append(suffix)
                reach = max(reach, width)
        return cls(expression, reach, bounded, unbounded)

    def __call__(self, text: str) -> re.Match[str] | None:
        if "\n" in text:
            return self.expression.search(text)
        found = None
        if self._bounded is not None:
            found = self._bounded.search(text, max(len(text) - self._reach, 0))
        if self._unbounded is not None:
            other = self._unbounded.search(text)
            if other is not None and (found is None or other.start() < found.start()):
                found = other
        return found


def expression_of(search: object) -> re.Pattern[str] | None:
    """The expression a tokenizer's search function runs: a compiled expression's bound
    method, or a :class:`TailSuffixSearch`; None for anything else."""
    if isinstance(search, TailSuffixSearch):
        return search.expression
    pattern = getattr(search, "__self__", None)
    return pattern if isinstance(pattern, re.Pattern) else None


def _joined(suffixes: Sequence[str], flags: int) -> re.Pattern[str] | None:
    """The suffixes (none blank) as spaCy's ``compile_suffix_regex`` joins them."""
    if not suffixes:
        return None
    return re.compile("|".join(f"{suffix}$" for suffix in suffixes), flags)
