"""Full-text search over what was said: the FTS5 index ``turns_fts`` on user and reply text.

The text a user types into the search box is never handed to FTS5 as query syntax: each
whitespace-separated term becomes a quoted string, so ``AND``, ``NEAR(``, ``*`` or a stray quote
are searched for as words instead of raising a syntax error. Terms are ANDed (every word must
appear, in either column), as a search box is expected to behave.
"""

from __future__ import annotations


def fts_query(user_text: str, *, any_term: bool = False) -> str:
    """The FTS5 query for ``user_text``: each term quoted (inner quotes doubled), ANDed.

    With ``any_term`` the terms are ORed instead, for recall: a question shares some words with
    the memory that answers it, rarely all, and BM25 ranks the ones sharing the rarer words first.

    Inside a quoted string FTS5 accepts every character but NUL, which ends the query early
    ("unterminated string"), so NUL separates terms like a space. Lone surrogates (from badly
    decoded input) cannot be encoded for SQLite at all and become "?".
    """
    cleaned = user_text.replace("\x00", " ").encode("utf-8", "replace").decode("utf-8")
    joiner = " OR " if any_term else " "
    return joiner.join('"' + term.replace('"', '""') + '"' for term in cleaned.split())
