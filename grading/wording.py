"""Messages worded by a count ("1 cutoff", "2 cutoffs"), in the reader's language.

Feedback stores a message as a code and its parameters and words it when it is shown
(:func:`grading.feedback.render_message`, :func:`grading.code.feedback.render_message`), so a
count is known only then. ``scripts/untranslated`` extracts a :class:`Plural`'s two forms as
it does ``ngettext``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import ngettext


@dataclass(frozen=True)
class Plural:
    """A message worded by a count: the ``number`` param, or the length of a list param."""

    singular: str
    plural: str
    number: str

    def worded(self, params: Mapping[str, Any]) -> str:
        """Return the message's text for ``params``' count in the active language, its
        ``%(name)s`` parameters not yet filled in."""
        raw = params[self.number]
        count = len(raw) if isinstance(raw, list | tuple) else int(raw)
        return ngettext(self.singular, self.plural, count)


def template_text(template: Any, params: Mapping[str, Any]) -> str:
    """Return the text of a message ``template`` (a lazy string or a :class:`Plural`) for
    ``params``, its parameters not yet filled in."""
    return template.worded(params) if isinstance(template, Plural) else str(template)
