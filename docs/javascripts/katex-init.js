// Renders the formulas pymdownx.arithmatex marks (generic mode) with the KaTeX bundled in
// docs/javascripts/katex: no network needed. Material's instant navigation swaps pages
// without a reload, so render on each page it shows.
function renderFormulas() {
  renderMathInElement(document.body, {
    delimiters: [
      {left: "$$", right: "$$", display: true},
      {left: "\\[", right: "\\]", display: true},
      {left: "\\(", right: "\\)", display: false},
    ],
    ignoredTags: ["script", "noscript", "style", "textarea", "pre", "code"],
  });
}
if (typeof document$ !== "undefined") {
  document$.subscribe(renderFormulas);
} else {
  document.addEventListener("DOMContentLoaded", renderFormulas);
}
