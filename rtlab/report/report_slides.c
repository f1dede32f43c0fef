/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report_slides: a teacher's deck as one HTML page that needs nothing else,
 * like report_html: CSS and script inline, plots as inline SVG drawn by
 * report_svg() from the results documents the deck names, no font, image
 * or address to fetch. It is also well-formed XML (script and style in
 * CDATA sections, cmark's XHTML-style void elements), so xmllint can check
 * it. The script shows one slide at a time and reads the keyboard; without
 * it, and in print, every slide is shown, one per page, without the notes.
 *
 * The page reports where it is on <body>: data-slide (1-based) and
 * data-title (the current slide's heading), which the headless browser test
 * reads back from the DOM.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_result.h"
#include "labs/lab.h"
#include "lesson/slides.h"

static const char css[] =
	"html,body{margin:0;padding:0;background:#fff;color:#111;"
	"font-family:'DejaVu Sans',Helvetica,Arial,sans-serif}\n"
	".slide{box-sizing:border-box;width:100vw;min-height:100vh;padding:5vh 7vw 8vh;"
	"font-size:3.2vh;line-height:1.35;border-bottom:1px solid #ccc}\n"
	"html.js .slide{display:none;height:100vh;overflow:hidden;border:0}\n"
	"html.js .slide.current{display:block}\n"
	".slide h1{font-size:8vh;margin:22vh 0 4vh;color:#14365e}\n"
	".slide h2{font-size:6vh;margin:0 0 3vh;color:#14365e;"
	"border-bottom:0.4vh solid #14365e;padding-bottom:1vh}\n"
	".slide h3{font-size:4vh;margin:2vh 0 1vh}\n"
	".slide pre{background:#f3f3f0;padding:1.5vh 2vw;font-size:2.5vh;overflow:hidden}\n"
	".slide code{font-family:'DejaVu Sans Mono',monospace}\n"
	".slide li{margin:0.6vh 0}\n"
	".slide blockquote{border-left:0.6vh solid #9ab;margin-left:0;padding-left:2vw;"
	"color:#333}\n"
	"figure.plot{margin:1vh 0;text-align:center}\n"
	"figure.plot svg{max-width:100%;height:52vh;width:auto}\n"
	"figure.plot figcaption{font-size:2.4vh;color:#444}\n"
	"p.plot-missing{border:0.3vh dashed #b33;padding:2vh;color:#822}\n"
	".notes{display:none;font-size:2.4vh;background:#fffbe6;border-top:0.3vh solid #cb5;"
	"padding:1vh 2vw;margin-top:2vh}\n"
	"html:not(.js) .notes,body.notes .notes{display:block}\n"
	"body.notes .slide.current{overflow:auto}\n"
	"#bar{position:fixed;right:2vw;bottom:1.5vh;font-size:2vh;color:#667}\n"
	"html:not(.js) #bar{display:none}\n"
	"@media print{@page{size:landscape}\n"
	"html.js .slide,.slide{display:block;height:auto;min-height:0;width:auto;"
	"page-break-after:always;break-after:page;border:0}\n"
	".notes,body.notes .notes,#bar{display:none}\n"
	".slide h1{margin-top:20vh}}\n";

/* No '<' or '&' in here either: the page stays XML as well as HTML. */
static const char script[] =
	"(function () {\n"
	"var d = document, s = d.querySelectorAll('section.slide'), n = s.length;\n"
	"var i = 0, typed = '', t0 = Date.now();\n"
	"d.documentElement.className = 'js';\n"
	"function clamp(k) { return Math.max(0, Math.min(n - 1, k)); }\n"
	"function show(k) {\n"
	"  if (!n) return;\n"
	"  s[i].classList.remove('current');\n"
	"  i = clamp(k);\n"
	"  s[i].classList.add('current');\n"
	"  var h = s[i].querySelector('h1, h2');\n"
	"  d.body.setAttribute('data-slide', String(i + 1));\n"
	"  d.body.setAttribute('data-title', h ? h.textContent : '');\n"
	"  d.getElementById('num').textContent = (i + 1) + ' / ' + n;\n"
	"  if (location.hash !== '#' + (i + 1)) history.replaceState(null, '', '#' + (i + 1));\n"
	"}\n"
	"function tick() {\n"
	"  var t = Math.floor((Date.now() - t0) / 1000), m = Math.floor(t / 60);\n"
	"  t = t % 60;\n"
	"  d.getElementById('clock').textContent = m + ':' + (t > 9 ? '' : '0') + t;\n"
	"}\n"
	"function fromHash() {\n"
	"  var k = parseInt(location.hash.slice(1), 10);\n"
	"  show(isNaN(k) ? 0 : k - 1);\n"
	"}\n"
	"d.addEventListener('keydown', function (e) {\n"
	"  var k = e.key;\n"
	"  if (e.ctrlKey || e.altKey || e.metaKey) return;\n"
	"  if (/^[0-9]$/.test(k)) { typed += k; return; }\n"
	"  if (k === 'Enter' && typed) { show(parseInt(typed, 10) - 1); typed = ''; }\n"
	"  else if (['ArrowRight', 'ArrowDown', 'PageDown', ' ', 'l', 'j'].indexOf(k) + 1)\n"
	"    show(i + 1);\n"
	"  else if (['ArrowLeft', 'ArrowUp', 'PageUp', 'Backspace', 'h', 'k'].indexOf(k) + 1)\n"
	"    show(i - 1);\n"
	"  else if (k === 'Home' || k === 'g') show(0);\n"
	"  else if (k === 'End' || k === 'G') show(n - 1);\n"
	"  else if (k === 'n') d.body.classList.toggle('notes');\n"
	"  else if (k === 'Escape') typed = '';\n"
	"  else return;\n"
	"  typed = k === 'Enter' ? typed : '';\n"
	"  e.preventDefault();\n"
	"});\n"
	"window.addEventListener('hashchange', fromHash);\n"
	"fromHash();\n"
	"tick();\n"
	"setInterval(tick, 1000);\n"
	"})();\n";

/* A title's inline Markdown as HTML, without the paragraph cmark wraps it in. */
static int inline_html(struct rt_buf *out, const char *md)
{
	struct rt_buf b = RT_BUF_INIT;
	const char *s;
	size_t n;
	int ret;

	ret = slides_markdown_html(md, &b);
	if (ret)
		goto out;
	s = rt_buf_str(&b);
	n = b.len;
	while (n && s[n - 1] == '\n')
		n--;
	if (n >= 7 && !strncmp(s, "<p>", 3) && !strncmp(s + n - 4, "</p>", 4)) {
		s += 3;
		n -= 7;
	}
	ret = rt_buf_append(out, s, n);
out:
	rt_buf_fini(&b);
	return ret;
}

/* The plot of @p, or a note saying why there is none. */
static int plot_html(struct rt_buf *out, const struct slides_deck *deck,
		     const struct slides_plot *p, const char *class_dir)
{
	struct rt_result *res = NULL;
	struct rt_buf svg = RT_BUF_INIT;
	char *shown = NULL, *cause = NULL;
	int ret;

	ret = slides_plot_read(deck, p, class_dir, &(struct rt_result_opts){ lab_names() }, &res,
			       &shown, &cause);
	if (ret == -ENOENT && !res && p->in_class && !class_dir && !p->sample) {
		ret = rt_buf_puts(out, "<p class=\"plot-missing\">This plot draws the class's "
				  "document ");
		ret |= report_html_escape(out, p->results);
		ret |= rt_buf_puts(out, ": export with --class DIR to show it.</p>\n");
		ret = ret ? -ENOMEM : 0;
		goto out;
	}
	if (!shown) {
		ret = -ENOMEM;
		goto out;
	}
	if (!ret) {
		ret = report_svg(res, false, &svg);
		if (ret == -ENODATA) {
			free(cause);
			cause = strdup("the document has no latency histogram to draw");
		}
	}
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		/* As the deck names it: never the host's path to it. */
		ret = rt_buf_puts(out, "<p class=\"plot-missing\">No plot from ");
		ret |= report_html_escape(out, shown);
		ret |= rt_buf_puts(out, ": ");
		ret |= report_html_escape(out, cause ? cause : "it cannot be read");
		ret |= rt_buf_puts(out, "</p>\n");
		ret = ret ? -ENOMEM : 0;
		goto out;
	}
	ret = rt_buf_puts(out, "<figure class=\"plot\">\n");
	ret |= rt_buf_append(out, svg.data, svg.len);
	ret |= rt_buf_puts(out, "<figcaption>");
	if (p->caption) {
		ret |= report_html_escape(out, p->caption);
		ret |= rt_buf_puts(out, " ");
	}
	/* The document as the deck names it: the page may be read on another machine. */
	ret |= rt_buf_puts(out, "<small>(");
	if (p->in_class && class_dir)
		ret |= rt_buf_puts(out, "class:");
	ret |= report_html_escape(out, p->in_class && !class_dir ? p->sample : p->results);
	ret |= rt_buf_puts(out, p->in_class && !class_dir ? ", a sample" : "");
	ret |= rt_buf_puts(out, ")</small></figcaption>\n</figure>\n");
	ret = ret ? -ENOMEM : 0;
out:
	rt_buf_fini(&svg);
	rt_result_free(res);
	free(shown);
	free(cause);
	return ret;
}

static int slide_html(struct rt_buf *out, const struct slides_deck *deck, size_t i,
		      const char *class_dir)
{
	const struct slide *s = &deck->slides[i];
	int ret;

	ret = rt_buf_printf(out, "<section class=\"slide%s\" id=\"s%zu\">\n<h%u>",
			    s->level == 1 ? " title" : "", i + 1, s->level);
	ret |= inline_html(out, s->title);
	ret |= rt_buf_printf(out, "</h%u>\n", s->level);
	ret |= slides_markdown_html(s->body, out);
	if (!ret && s->plot)
		ret = plot_html(out, deck, s->plot, class_dir);
	if (!ret && s->notes) {
		ret = rt_buf_puts(out, "<aside class=\"notes\">\n");
		ret |= slides_markdown_html(s->notes, out);
		ret |= rt_buf_puts(out, "</aside>\n");
	}
	ret |= rt_buf_puts(out, "</section>\n");
	return ret ? -ENOMEM : 0;
}

int report_slides_html(const struct slides_deck *deck, const char *class_dir,
		       struct rt_buf *out)
{
	int ret;

	ret = rt_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
			  "<meta charset=\"utf-8\"/>\n"
			  "<meta name=\"viewport\" content=\"width=device-width\"/>\n<title>");
	ret |= report_html_escape(out, deck->title);
	ret |= rt_buf_puts(out, "</title>\n<style>/*<![CDATA[*/\n");
	ret |= rt_buf_puts(out, css);
	ret |= rt_buf_puts(out, "/*]]>*/</style>\n</head>\n<body data-slide=\"1\" data-title=\"");
	ret |= report_html_escape(out, deck->title);
	ret |= rt_buf_puts(out, "\">\n<main>\n");
	for (size_t i = 0; i < deck->nslides && !ret; i++)
		ret = slide_html(out, deck, i, class_dir);
	if (ret)
		return -ENOMEM;
	ret = rt_buf_printf(out, "</main>\n<div id=\"bar\"><span id=\"num\">1 / %zu</span> "
			    "<span id=\"clock\">0:00</span></div>\n<script>//<![CDATA[\n",
			    deck->nslides);
	ret |= rt_buf_puts(out, script);
	ret |= rt_buf_puts(out, "//]]></script>\n</body>\n</html>\n");
	return ret ? -ENOMEM : 0;
}
