// The HTML writer (page/html.h): text is escaped wherever it enters a page,
// charts are inlined without their XML declaration, findings name their
// severity in words.
#include "page/html.h"

#include <catch2/catch.hpp>

namespace dsanalyze {
namespace {

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("text from paths and names is escaped in every builder", "[html]") {
  const std::string evil = "<script>alert(\"x\")&</script>";
  const std::string escaped = "&lt;script&gt;alert(&quot;x&quot;)&amp;&lt;/script&gt;";
  const html::Markup body =
      html::Section(evil, html::Paragraph(evil) + html::Code(evil) + html::Block(evil, {}), evil) +
      html::Facts({{evil, evil}}) + html::TableOf({{evil}, {{evil}}}) +
      html::Folded(evil, html::Preformatted(evil)) + html::Findings({{evil, evil, evil}}, "") +
      html::Chart("<svg></svg>", evil);
  const std::string page = html::Document(evil, evil, body);
  CHECK_FALSE(Has(page, "<script"));
  CHECK_FALSE(Has(page, "alert(\""));
  CHECK(Has(page, "<title>" + escaped + "</title>"));
  CHECK(Has(page, "<p>" + escaped + "</p>"));
  CHECK(Has(page, "<pre>" + escaped + "</pre>"));
}

TEST_CASE("a chart is inlined without its XML declaration", "[html]") {
  const std::string svg =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg a=\"1\"><rect/></svg>\n";
  const html::Markup m = html::Chart(svg, "caption");
  CHECK_FALSE(Has(m.html, "<?xml"));
  CHECK(Has(m.html, "<figure>\n<svg a=\"1\"><rect/></svg>\n<figcaption>caption</figcaption>"));
}

TEST_CASE("findings name their severity in words; none is a sentence", "[html]") {
  const std::string list = html::Findings({{"warning", "it is slow", "add cores"}}, "").html;
  CHECK(Has(list, ">warning:</span> it is slow<br>fix: add cores</li>"));
  CHECK(html::Findings({}, "No warning.").html == "<p>No warning.</p>\n");
}

TEST_CASE("JSON values show as their JSON files write them", "[html]") {
  CHECK(html::Shown(nlohmann::ordered_json(4999.5)) == "4999.5");
  CHECK(html::Shown(nlohmann::ordered_json("a<b")) == "a<b");  // escaped where it is placed
  const std::string facts =
      html::JsonFacts(nlohmann::ordered_json{{"a", {{"b", 1}}}, {"c", "x"}}, "p.").html;
  CHECK(Has(facts, "<th scope=\"row\">p.a.b</th><td class=\"num\">1</td>"));
  CHECK(Has(facts, "<th scope=\"row\">p.c</th><td>x</td>"));
}

}  // namespace dsanalyze
