// The one small HTML writer behind every page dsanalyze writes (the run's
// report.html, `curriculum --html`, `batches --html`, `compare --html`), so
// that they all look the same: a self-contained document with inline CSS and
// inline SVG charts, no script, no network, printable and readable without
// colour (severities and chart series are named in text, not only coloured).
//
// Text is escaped in exactly one place: Text() (page/svg.h Escape, the
// escaping the charts use). Every builder that takes a string_view takes
// plain text and escapes it; a Markup argument is markup already built here,
// so nothing is escaped twice and no text reaches the page unescaped. A chart
// is one of the SVG helpers' documents (page/svg.h), inlined as it is.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dsanalyze::html {

struct Markup {
  std::string html;
  Markup& operator+=(const Markup& m) {
    html += m.html;
    return *this;
  }
};

inline Markup operator+(Markup a, const Markup& b) { return a += b; }

// `text` escaped for an element's content or a double-quoted attribute.
Markup Text(std::string_view text);

Markup Paragraph(std::string_view text);
// <code>text</code>: a file name, a command or a config key.
Markup Code(std::string_view text);
// A level-2 section with its heading; `id` (an anchor) may be empty.
Markup Section(std::string_view heading, const Markup& inside, std::string_view id = "");
// A level-3 block inside a section (one metric); `id` (an anchor) may be empty.
Markup Block(std::string_view heading, const Markup& inside, std::string_view id = "");
// <a href="#id">text</a>: a link to a section or block of the same page.
Markup Link(std::string_view id, std::string_view text);
// A bulleted list of items already built.
Markup List(const std::vector<Markup>& items);
// Name / value rows (the page's facts), names as row headers.
Markup Facts(const std::vector<std::array<std::string, 2>>& rows);
// A JSON value as pages show it: a string as it is, anything else exactly as
// the JSON files write it (so a page and its JSON file agree to the digit).
std::string Shown(const nlohmann::ordered_json& value);
// The facts of a JSON object, nested objects flattened ("a.b"), each name
// after `prefix`.
Markup JsonFacts(const nlohmann::ordered_json& object, const std::string& prefix = "");
// A table with a header row; cells that read as numbers are right-aligned.
// Each cell carries its column's heading (data-label), which names it when
// a phone's screen stacks the table.
struct Table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};
Markup TableOf(const Table& table);
// An SVG document (page/svg.h) inline, with a caption under it.
Markup Chart(std::string_view svg_document, std::string_view caption);
// Folded: only `summary` shows until opened (printing shows it folded too).
Markup Folded(std::string_view summary, const Markup& inside);
// Text as it is, monospaced (a config, a command line).
Markup Preformatted(std::string_view text);

// A finding with its fix; the severity ("error", "warning", "note") is
// written as a word before it, so it reads without colour.
struct Finding {
  std::string severity;
  std::string message;
  std::string fix;
};
// The findings as a list, or `none` as a paragraph when there are none.
Markup Findings(const std::vector<Finding>& findings, std::string_view none);

// The whole document: doctype, head with the title and the style, a page
// heading (`title`) and `subtitle` under it, then `body`.
std::string Document(std::string_view title, std::string_view subtitle, const Markup& body);

}  // namespace dsanalyze::html
