#include "page/html.h"

#include <cctype>

#include "page/svg.h"

namespace dsanalyze::html {
namespace {

// SVG charts scale down to the page width, but not below 740 px, where
// their 12 px text would fall under 10 px: on a phone they scroll inside
// their figure; wide tables scroll inside their box rather than widening the
// page. Severities are words and bold, not only colours; print drops the
// shading. On a phone (up to 600 px) tables stack, one block per row with
// each cell named by its column.
constexpr std::string_view kStyle = R"(
body { font-family: sans-serif; margin: 0 auto; padding: 0 12px 24px; max-width: 1100px;
       color: #111; background: #fff; line-height: 1.4; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; overflow-wrap: anywhere; }
h2 { border-bottom: 2px solid #444; padding-bottom: 2px; margin-top: 1.6em; }
h3 { margin-bottom: 0.3em; overflow-wrap: anywhere; }
p, li, summary { overflow-wrap: anywhere; }
td, th { overflow-wrap: break-word; }
.subtitle { color: #444; margin-top: 0; }
svg { max-width: 100%; height: auto; display: block; }
figure { margin: 0.8em 0; max-width: 100%; }
figcaption { font-size: 0.9em; color: #333; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #999; padding: 2px 8px; text-align: left; vertical-align: top; }
thead th { background: #eee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f4f4f4; border: 1px solid #ccc; padding: 8px; overflow-x: auto;
      max-width: 100%; box-sizing: border-box; white-space: pre-wrap; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
details { margin: 0.5em 0; }
summary { cursor: pointer; font-weight: bold; }
ul.findings { padding-left: 1.2em; }
.severity { font-weight: bold; text-transform: uppercase; }
.severity-error { color: #a00000; }
.severity-warning { color: #805000; }
/* A phone (390 px): tables stack, one block per row with each cell named by
   its column, and a chart keeps its text at 10 px or more by scrolling
   sideways in its figure instead of shrinking below 740 px. */
@media (max-width: 600px) {
  table, tbody, tr, th, td { display: block; }
  thead { display: none; }
  table { border: none; }
  tr { border: 1px solid #999; margin-bottom: 6px; }
  th, td { border: none; }
  td.num { text-align: left; }
  td[data-label]::before { content: attr(data-label) ": "; font-weight: bold; }
  figure { overflow-x: auto; }
  figure svg { min-width: 740px; }
}
@media print {
  body { max-width: none; }
  thead th, pre { background: none; }
  section { break-inside: avoid-page; }
}
)";

bool LooksNumeric(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != 'e' &&
        c != '+' && c != '%' && c != ',')  // ',': page/numbers.h's thousands separators
      return false;
  return true;
}

Markup Wrap(std::string_view open, const Markup& inside, std::string_view close) {
  return {std::string(open) + inside.html + std::string(close)};
}

}  // namespace

Markup Text(std::string_view text) { return {svg::Escape(text)}; }

Markup Paragraph(std::string_view text) { return Wrap("<p>", Text(text), "</p>\n"); }

Markup Code(std::string_view text) { return Wrap("<code>", Text(text), "</code>"); }

Markup Section(std::string_view heading, const Markup& inside, std::string_view id) {
  const std::string open = id.empty() ? "<section>\n" : "<section id=\"" + Text(id).html + "\">\n";
  return Wrap(open + "<h2>" + Text(heading).html + "</h2>\n", inside, "</section>\n");
}

Markup Block(std::string_view heading, const Markup& inside, std::string_view id) {
  const std::string open = id.empty() ? "<div class=\"block\">\n"
                                      : "<div class=\"block\" id=\"" + Text(id).html + "\">\n";
  return Wrap(open + "<h3>" + Text(heading).html + "</h3>\n", inside, "</div>\n");
}

Markup Link(std::string_view id, std::string_view text) {
  return Wrap("<a href=\"#" + Text(id).html + "\">", Text(text), "</a>");
}

Markup List(const std::vector<Markup>& items) {
  Markup m{"<ul>\n"};
  for (const Markup& item : items) m += Wrap("<li>", item, "</li>\n");
  return m += Markup{"</ul>\n"};
}

Markup Facts(const std::vector<std::array<std::string, 2>>& rows) {
  std::string s = "<div class=\"scroll\"><table class=\"facts\">\n<tbody>\n";
  for (const auto& [name, value] : rows)
    s += "<tr><th scope=\"row\">" + Text(name).html + "</th><td" +
         (LooksNumeric(value) ? " class=\"num\">" : ">") + Text(value).html + "</td></tr>\n";
  return {s + "</tbody>\n</table></div>\n"};
}

std::string Shown(const nlohmann::ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

namespace {
void Flatten(const nlohmann::ordered_json& object, const std::string& prefix,
             std::vector<std::array<std::string, 2>>* rows) {
  for (const auto& [key, value] : object.items()) {
    if (value.is_object())
      Flatten(value, prefix + key + ".", rows);
    else
      rows->push_back({prefix + key, Shown(value)});
  }
}
}  // namespace

Markup JsonFacts(const nlohmann::ordered_json& object, const std::string& prefix) {
  std::vector<std::array<std::string, 2>> rows;
  Flatten(object, prefix, &rows);
  return Facts(rows);
}

Markup TableOf(const Table& table) {
  std::string s = "<div class=\"scroll\"><table>\n<thead><tr>";
  for (const std::string& h : table.head) s += "<th scope=\"col\">" + Text(h).html + "</th>";
  s += "</tr></thead>\n<tbody>\n";
  for (const std::vector<std::string>& row : table.rows) {
    s += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string label = i < table.head.size() && !table.head[i].empty()
                                    ? " data-label=\"" + Text(table.head[i]).html + "\""
                                    : std::string();
      s += std::string(LooksNumeric(row[i]) ? "<td class=\"num\"" : "<td") + label + ">" +
           Text(row[i]).html + "</td>";
    }
    s += "</tr>\n";
  }
  return {s + "</tbody>\n</table></div>\n"};
}

Markup Chart(std::string_view svg_document, std::string_view caption) {
  // Inline SVG takes no XML declaration.
  const size_t start = svg_document.find("<svg");
  return Wrap("<figure>\n", {std::string(svg_document.substr(start))},
              "<figcaption>" + Text(caption).html + "</figcaption>\n</figure>\n");
}

Markup Folded(std::string_view summary, const Markup& inside) {
  return Wrap("<details>\n<summary>" + Text(summary).html + "</summary>\n", inside, "</details>\n");
}

Markup Preformatted(std::string_view text) { return Wrap("<pre>", Text(text), "</pre>\n"); }

Markup Findings(const std::vector<Finding>& findings, std::string_view none) {
  if (findings.empty()) return Paragraph(none);
  std::string s = "<ul class=\"findings\">\n";
  for (const Finding& f : findings)
    s += "<li><span class=\"severity severity-" + Text(f.severity).html + "\">" +
         Text(f.severity).html + ":</span> " + Text(f.message).html +
         (f.fix.empty() ? "" : "<br>fix: " + Text(f.fix).html) + "</li>\n";
  return {s + "</ul>\n"};
}

std::string Document(std::string_view title, std::string_view subtitle, const Markup& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         Text(title).html + "</title>\n<style>" + std::string(kStyle) +
         "</style>\n</head>\n<body>\n<h1>" + Text(title).html + "</h1>\n<p class=\"subtitle\">" +
         Text(subtitle).html + "</p>\n" + body.html + "</body>\n</html>\n";
}

}  // namespace dsanalyze::html
