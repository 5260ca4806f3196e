"""What a person reads on a page Chromium drew, scanned for codes (issue 35 item 4): the
same reader and allowlist as the served-HTML scan (tests/service/test_words_not_codes.py),
applied to the rendered page, scripts' work included."""

from tests.service.test_words_not_codes import CODE, NAMES, SKIPPED

# The text a person sees: every rendered text node outside the skipped elements.
SHOWN_TEXT = """(skipped) => {
  const texts = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode, parent = node.parentElement;
    if (!parent || parent.closest(skipped) || parent.getClientRects().length === 0) continue;
    texts.push(node.textContent);
  }
  return texts.join(" ");
}"""


def codes_shown(page) -> set[str]:
    return set(CODE.findall(page.evaluate(SHOWN_TEXT, ", ".join(sorted(SKIPPED))))) - NAMES
