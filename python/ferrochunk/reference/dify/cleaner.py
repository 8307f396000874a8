"""§7 ``CleanProcessor.clean``."""

from __future__ import annotations

import re
from typing import Any

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES = re.compile("[\t\f\r\x20\u00a0\u1680\u180e\u2000-\u200a\u202f\u205f\u3000]{2,}")
_EMAIL = re.compile(r"[a-zA-Z0-9_.+-]+@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+")
_LINK = re.compile(r"\[([^\]]*)\]\((https?://[^)]+)\)")
_IMAGE = re.compile(r"!\[.*?\]\((https?://[^)]+)\)")
_URL = re.compile(r"https?://\S+")


def _remove_urls_emails(text: str) -> str:
    text = _EMAIL.sub("", text)
    placeholders: list[str] = []

    def protect(m: re.Match[str], image: bool) -> str:
        placeholders.append(f"![image]({m.group(1)})" if image else m.group(0))
        return f"__MARKDOWN_PLACEHOLDER_{len(placeholders) - 1}__"

    text = _LINK.sub(lambda m: protect(m, False), text)
    text = _IMAGE.sub(lambda m: protect(m, True), text)
    text = _URL.sub("", text)
    for i, original in enumerate(placeholders):
        text = text.replace(f"__MARKDOWN_PLACEHOLDER_{i}__", original)
    return text


class CleanProcessor:
    @classmethod
    def clean(cls, text: str, process_rule: Any) -> str:
        """Always-on cleanup, then the enabled rules in list order."""
        text = re.sub(r"<\|", "<", text)
        text = re.sub(r"\|>", ">", text)
        text = _CONTROL.sub("", text)
        text = re.sub("\ufffe", "", text)
        rules = process_rule["rules"] if process_rule else {}
        if "pre_processing_rules" in rules:
            for rule in rules["pre_processing_rules"]:
                if rule["id"] == "remove_extra_spaces" and rule["enabled"] is True:
                    text = re.sub(r"\n{3,}", "\n\n", text)
                    text = _SPACES.sub(" ", text)
                elif rule["id"] == "remove_urls_emails" and rule["enabled"] is True:
                    text = _remove_urls_emails(text)
        return text
