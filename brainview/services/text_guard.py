"""The text rules (:mod:`brainview.core.text_rules`) at the services' entry points that
take text from a person rather than a proposal: decider and actor names (from
``--decider``/``--actor``, the config's ``review.decider`` or the OS user), decision and
lifecycle reasons, an edited policy text.  A refused value is one line naming the field,
exit code 4 (``InvalidInputError``), and nothing is written.
"""

from __future__ import annotations

from brainview.core.proposal_rules import MAX_ID
from brainview.core.text_rules import FieldError, check_name, check_text
from brainview.errors import InvalidInputError


def name(field: str, value: object, *, max_len: int = MAX_ID) -> str:
    """A decider or actor name: one line, no control, bidi or invisible character."""
    try:
        return check_name(field, value, max_len=max_len)
    except FieldError as err:
        if err.reason.startswith(("required", "longer")):
            msg = f"{field} must be a non-empty name of at most {max_len} characters"
            raise InvalidInputError(msg) from None
        raise InvalidInputError(str(err)) from None


def text(field: str, value: object, *, max_len: int, required: bool = False) -> str:
    """A reason or other free text: lines and tabs allowed, no other control character,
    no bidi control."""
    try:
        return check_text(field, value, max_len=max_len, required=required)
    except FieldError as err:
        raise InvalidInputError(str(err)) from None


def optional_text(field: str, value: object, *, max_len: int) -> str | None:
    """:func:`text`, ``None`` passing through."""
    return None if value is None else text(field, value, max_len=max_len)
