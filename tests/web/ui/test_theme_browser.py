"""The panel's theme in real Chromium: dark mode reaches the code editor, fonts are HA's own.

A new user in dark mode found the tool editor still white (CodeMirror's own stylesheet, loaded
after ours, set its colours), and the text in a font other than Home Assistant's when Roboto is
not installed. These measure what Chromium computed.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, expect

from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = pytest.mark.browser

HA_BODY_FONT = "Roboto, Noto, sans-serif"
"""Home Assistant's frontend: ``--ha-font-family-body`` in src/resources/ha-style.ts."""

# The editor's parts as Chromium painted them: relative luminance (WCAG) of each colour, the
# text and the syntax tokens against the editor's background, as contrast ratios.
EDITOR_COLOURS = """
() => {
  const rgb = (colour) => colour.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const luminance = (colour) => {
    const [r, g, b] = rgb(colour).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const style = (selector) => getComputedStyle(document.querySelector(selector));
  const editor = style(".CodeMirror");
  const background = editor.backgroundColor;
  const tokens = {};
  for (const token of document.querySelectorAll(".CodeMirror-code [class*='cm-']")) {
    const kind = [...token.classList].find((name) => name.startsWith("cm-"));
    tokens[kind] = contrast(getComputedStyle(token).color, background);
  }
  // The cursor shows with nothing selected; the selection's layer once a line is selected.
  const cm = document.querySelector(".CodeMirror").CodeMirror;
  cm.focus();
  cm.setCursor({line: 0, ch: 2});
  const cursor = style(".CodeMirror-cursor");
  const cursorColour = cursor.borderLeftColor;
  cm.setSelection({line: 0, ch: 0}, {line: 1, ch: 0});
  return {
    background: luminance(background),
    text: contrast(editor.color, background),
    gutter: luminance(style(".CodeMirror-gutters").backgroundColor),
    line_number: contrast(style(".CodeMirror-linenumber").color, background),
    cursor: contrast(cursorColour, background),
    selection: luminance(style(".CodeMirror-selected").backgroundColor),
    tokens,
  };
}
"""


async def open_editor(page: Page) -> None:
    """Wait for the editor and its highlighted example definition."""
    await expect(page.locator(".CodeMirror .cm-atom").first).to_be_visible()


async def test_the_code_editor_follows_dark_mode(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """With the system in dark mode the editor, its gutter and selection are dark, text light."""
    session = await browsing(color_scheme="dark")
    page = await session.open("/tools/new")
    await open_editor(page)
    colours: dict[str, Any] = await page.evaluate(EDITOR_COLOURS)
    assert colours["background"] < 0.05, colours
    assert colours["gutter"] < 0.05, colours
    assert colours["selection"] < 0.2, colours
    assert colours["text"] >= 7, colours
    assert colours["line_number"] >= 3, colours
    assert colours["cursor"] >= 7, colours
    assert colours["tokens"], "the example definition is highlighted"
    unreadable = {kind: ratio for kind, ratio in colours["tokens"].items() if ratio < 4.5}
    assert unreadable == {}, colours
    assert session.console_errors == []


async def test_the_code_editor_stays_light_in_light_mode(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """In light mode the editor is light with dark, readable text and tokens."""
    session = await browsing(color_scheme="light")
    page = await session.open("/tools/new")
    await open_editor(page)
    colours: dict[str, Any] = await page.evaluate(EDITOR_COLOURS)
    assert colours["background"] > 0.8, colours
    assert colours["text"] >= 7, colours
    unreadable = {kind: ratio for kind, ratio in colours["tokens"].items() if ratio < 4.5}
    assert unreadable == {}, colours


async def test_text_uses_home_assistants_font_stack(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Body text, form controls and the editor's prose use Home Assistant's own font stack."""
    session = await browsing()
    page = await session.open("/tools/new")
    await expect(page.locator(".CodeMirror")).to_be_visible()
    families: dict[str, str] = await page.evaluate(
        """() => Object.fromEntries(["body", "button", "input", "select", "h1", ".tab"].map(
          (selector) => [selector, getComputedStyle(document.querySelector(selector)).fontFamily]
        ))"""
    )
    assert families == dict.fromkeys(families, HA_BODY_FONT)


async def test_the_code_editor_uses_the_code_font(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """The editor's text is in the panel's code font, not CodeMirror's bare ``monospace``."""
    session = await browsing()
    page = await session.open("/tools/new")
    await expect(page.locator(".CodeMirror")).to_be_visible()
    editor, code = await page.evaluate(
        """() => [getComputedStyle(document.querySelector(".CodeMirror")).fontFamily,
                  getComputedStyle(document.querySelector("code, .mono")).fontFamily]"""
    )
    assert editor == code
