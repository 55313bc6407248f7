"""Reading the UI's HTML in tests: every URL it points at, and what the CSP would forbid."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

URL_ATTRIBUTES = frozenset({"href", "src", "action", "data-stream-url"})


@dataclass(frozen=True, slots=True)
class Reference:
    """One URL in a page: the element, the attribute and the element's other attributes."""

    tag: str
    attribute: str
    url: str
    attributes: dict[str, str]


@dataclass
class Page(HTMLParser):
    """A parsed page: its URLs, inline styles and handlers, inline scripts and forms."""

    references: list[Reference] = field(default_factory=list)
    inline_attributes: list[str] = field(default_factory=list)
    inline_scripts: int = 0
    style_elements: int = 0
    forms: list[dict[str, str]] = field(default_factory=list)
    hidden_inputs: list[dict[str, str]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        HTMLParser.__init__(self, convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name, value in values.items():
            if name in URL_ATTRIBUTES:
                self.references.append(Reference(tag, name, value, values))
            if name == "style" or name.startswith("on"):
                self.inline_attributes.append(f"<{tag} {name}={value!r}>")
        if tag == "script" and "src" not in values:
            self.inline_scripts += 1
        if tag == "style":
            self.style_elements += 1
        if tag == "form":
            self.forms.append(values)
        if tag == "input" and values.get("type") == "hidden":
            self.hidden_inputs.append(values)

    def handle_data(self, data: str) -> None:
        self.texts.append(data)

    @property
    def text(self) -> str:
        """The page's text, entities decoded, whitespace collapsed, elements space-separated."""
        return " ".join(" ".join(self.texts).split())


def parse(html: str) -> Page:
    """Parse one page."""
    page = Page()
    page.feed(html)
    page.close()
    return page


def is_home_assistant_link(reference: Reference) -> bool:
    """A link into Home Assistant's own frontend, which must open in the top window."""
    return reference.attributes.get("target") == "_top" and reference.url.startswith("/config/")


def is_external_link(reference: Reference) -> bool:
    """A link to another site (the documentation), opened in a new tab without a referrer."""
    return (
        reference.url.startswith("https://")
        and reference.attributes.get("target") == "_blank"
        and "noopener" in reference.attributes.get("rel", "")
    )


def misplaced_urls(html: str, prefix: str) -> list[str]:
    """URLs in the page that would leave the UI's prefix (HA and documentation links excepted)."""
    return [
        f"<{ref.tag} {ref.attribute}={ref.url!r}>"
        for ref in parse(html).references
        if not (ref.url.startswith(prefix + "/") and not ref.url.startswith("//"))
        and not is_home_assistant_link(ref)
        and not is_external_link(ref)
    ]
