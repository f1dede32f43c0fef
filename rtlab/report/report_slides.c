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
	/* A plot slide gives the plot the room: at least 60 % of the screen. */
	".slide.has-plot{padding:2vh 2vw 4.5vh}\n"
	"html.js .slide.has-plot.current{display:flex;flex-direction:column}\n"
	".slide.has-plot h2{font-size:4.5vh;margin:0 0 1vh;padding-bottom:0.5vh}\n"
	".slide.has-plot figure.plot{flex:1 1 auto;min-height:0;display:flex;"
	"flex-direction:column;margin:0}\n"
	".slide.has-plot figure.plot svg{flex:1 1 auto;min-height:0;width:100%;height:auto;"
	"max-width:none}\n"
	".slide.has-plot figure.plot figcaption{font-size:2.6vh}\n"
	"p.sample-note{margin:0 0 0.5vh;padding:0.3vh 1vw;font-size:2.6vh;font-weight:bold;"
	"color:#7a4b00;background:#fff1cc;border-left:0.6vh solid #e0a100}\n"
	".slide.title p.course{font-size:4.5vh;margin:0 0 1vh;color:#14365e}\n"
	".slide.title p.teacher,.slide.title p.date,.slide.title p.licence{margin:0.5vh 0}\n"
	".notes{display:none;font-size:2.4vh;background:#fffbe6;border-top:0.3vh solid #cb5;"
	"padding:1vh 2vw;margin-top:2vh}\n"
	"html:not(.js) .notes,body.notes .notes{display:block}\n"
	"body.notes .slide.current{overflow:auto}\n"
	"#bar{position:fixed;right:2vw;bottom:1.5vh;font-size:2vh;color:#667}\n"
	"html:not(.js) #bar{display:none}\n"
	/* Print: landscape, no margin, each slide fills exactly one page. */
	"@media print{@page{size:landscape;margin:0}\n"
	"html,body{-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	"html.js .slide,.slide{display:block;width:100vw;height:100vh;min-height:0;"
	"overflow:hidden;page-break-after:always;break-after:page;break-inside:avoid;border:0}\n"
	"html.js .slide.has-plot,.slide.has-plot{display:flex;flex-direction:column}\n"
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
	"  speaker();\n"
	"}\n"
	/*
	 * The speaker view: a second window (key s) with the notes, the current
	 * and the next slide and the timer; it follows this window, whose keys
	 * it forwards, and this window keeps showing the slide.
	 */
	"var sv = null;\n"
	"function copy(k, into) {\n"
	"  into.textContent = '';\n"
	"  if (k >= n) { into.textContent = '(end of the deck)'; return; }\n"
	"  var c = s[k].cloneNode(true), a = c.querySelector('aside.notes');\n"
	"  if (a) a.parentNode.removeChild(a);\n"
	"  c.removeAttribute('id');\n"
	"  into.appendChild(sv.document.importNode(c, true));\n"
	"}\n"
	"function speaker() {\n"
	"  if (!sv || sv.closed) return;\n"
	"  var sd = sv.document, a = s[i].querySelector('aside.notes');\n"
	"  copy(i, sd.getElementById('cur'));\n"
	"  copy(i + 1, sd.getElementById('next'));\n"
	"  sd.getElementById('snotes').innerHTML = a ? a.innerHTML : '(no notes)';\n"
	"  sd.getElementById('snum').textContent = (i + 1) + ' / ' + n;\n"
	"  sd.body.setAttribute('data-slide', String(i + 1));\n"
	"}\n"
	"function openSpeaker() {\n"
	"  if (sv ? !sv.closed : false) { sv.focus(); return; }\n"
	"  sv = window.open('', 'rtlab-speaker', 'width=1100,height=750');\n"
	"  if (!sv) return;\n"
	"  window.rtlabSpeaker = sv;\n"
	"  var sd = sv.document, st = sd.createElement('style');\n"
	"  sd.title = 'Speaker view: ' + d.title;\n"
	"  st.textContent = d.querySelector('style').textContent + spcss;\n"
	"  sd.head.appendChild(st);\n"
	"  sd.documentElement.className = 'speaker';\n"
	"  sd.body.innerHTML = '';\n"
	"  ['cur', 'next', 'snotes', 'sbar'].forEach(function (id) {\n"
	"    var e = sd.createElement('div');\n"
	"    e.id = id;\n"
	"    sd.body.appendChild(e);\n"
	"  });\n"
	"  ['snum', 'sclock'].forEach(function (id) {\n"
	"    var e = sd.createElement('div');\n"
	"    e.id = id;\n"
	"    sd.getElementById('sbar').appendChild(e);\n"
	"  });\n"
	"  sd.addEventListener('keydown', onKey);\n"
	"  speaker();\n"
	"  tick();\n"
	"}\n"
	"var spcss = 'html.speaker body{display:grid;grid-template-columns:3fr 2fr;'\n"
	"  + 'grid-template-rows:auto 1fr auto;height:100vh;margin:0;gap:1vh 1vw}'\n"
	"  + '#cur{grid-row:1/3;border:2px solid #14365e;overflow:hidden}'\n"
	"  + '#next{border:1px dashed #99a;overflow:hidden;opacity:0.8}'\n"
	"  + '#cur .slide,#next .slide{width:auto;min-height:0;font-size:2.4vh;padding:1vh 1vw}'\n"
	"  + '#next .slide{font-size:1.6vh}'\n"
	"  + '.speaker .slide h1{margin:2vh 0;font-size:4vh}.speaker .slide h2{font-size:3vh}'\n"
	"  + '.speaker figure.plot svg{height:auto;width:100%}'\n"
	"  + '#snotes{grid-column:1/3;font-size:2.8vh;background:#fffbe6;padding:1vh 2vw;'\n"
	"  + 'overflow:auto;max-height:30vh}'\n"
	"  + '#sbar{grid-column:2;grid-row:2;font-size:6vh;color:#14365e;text-align:center}';\n"
	"function tick() {\n"
	"  var t = Math.floor((Date.now() - t0) / 1000), m = Math.floor(t / 60);\n"
	"  t = t % 60;\n"
	"  var c = m + ':' + (t > 9 ? '' : '0') + t;\n"
	"  d.getElementById('clock').textContent = c;\n"
	"  if (sv ? !sv.closed : false) sv.document.getElementById('sclock').textContent = c;\n"
	"}\n"
	"function fromHash() {\n"
	"  var k = parseInt(location.hash.slice(1), 10);\n"
	"  show(isNaN(k) ? 0 : k - 1);\n"
	"}\n"
	"function onKey(e) {\n"
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
	"  else if (k === 's') openSpeaker();\n"
	"  else if (k === 'Escape') typed = '';\n"
	"  else return;\n"
	"  typed = k === 'Enter' ? typed : '';\n"
	"  e.preventDefault();\n"
	"}\n"
	"d.addEventListener('keydown', onKey);\n"
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

/* The lab a "class:" plot draws: its sample's, else its file's name without ".json". */
static char *plot_lab(const struct slides_deck *deck, const struct slides_plot *p)
{
	struct rt_result *res = NULL;
	char *shown = NULL, *cause = NULL, *lab;
	const char *base = strrchr(p->results, '/');
	size_t n;

	if (p->sample && !slides_plot_read(deck, p, NULL, &(struct rt_result_opts){ lab_names() },
					   &res, &shown, &cause))
		lab = strdup(rt_result_lab(res));
	else {
		base = base ? base + 1 : p->results;
		n = strlen(base);
		if (n > 5 && !strcmp(base + n - 5, ".json"))
			n -= 5;
		lab = strndup(base, n);
	}
	rt_result_free(res);
	free(shown);
	free(cause);
	return lab;
}

/* A figure around @svg with the caption and the document's name as the deck gives it. */
static int figure(struct rt_buf *out, const struct rt_buf *svg, const struct slides_plot *p,
		  const char *note, const char *source)
{
	int ret;

	ret = rt_buf_puts(out, "<figure class=\"plot\">\n");
	if (note) {
		ret |= rt_buf_puts(out, "<p class=\"sample-note\">");
		ret |= report_html_escape(out, note);
		ret |= rt_buf_puts(out, "</p>\n");
	}
	ret |= rt_buf_append(out, svg->data, svg->len);
	ret |= rt_buf_puts(out, "<figcaption>");
	if (p->caption) {
		ret |= report_html_escape(out, p->caption);
		ret |= rt_buf_puts(out, " ");
	}
	/* The document as the deck names it: the page may be read on another machine. */
	ret |= rt_buf_puts(out, "<small>(");
	ret |= report_html_escape(out, source);
	ret |= rt_buf_puts(out, ")</small></figcaption>\n</figure>\n");
	return ret ? -ENOMEM : 0;
}

static int missing(struct rt_buf *out, const char *shown, const char *why)
{
	int ret;

	ret = rt_buf_puts(out, "<p class=\"plot-missing\">No plot from ");
	ret |= report_html_escape(out, shown);
	ret |= rt_buf_puts(out, ": ");
	ret |= report_html_escape(out, why);
	ret |= rt_buf_puts(out, "</p>\n");
	return ret ? -ENOMEM : 0;
}

static void warn(const struct report_slides_opts *o, const struct slides_deck *deck,
		 size_t slide, const char *what)
{
	if (o->warnings)
		rt_buf_printf(o->warnings, "%s, slide %zu: %s\n", deck->name, slide + 1, what);
}

/*
 * A "class:" plot whose file is not in the class folder: the class's runs of
 * its lab, or the sample with a note when nobody ran it. 1 when the class
 * folder has neither (the caller draws as before), 0, or -ENOMEM.
 */
static int class_plot_html(struct rt_buf *out, const struct slides_deck *deck, size_t slide,
			   const struct slides_plot *p, const struct report_slides_opts *o)
{
	struct report_class cls;
	struct rt_buf svg = RT_BUF_INIT, msg = RT_BUF_INIT;
	struct rt_result *res = NULL;
	char *lab = plot_lab(deck, p), *cause = NULL, *shown = NULL;
	int ret;

	if (!lab)
		return -ENOMEM;
	ret = report_class_read(o->class_dir, lab, &(struct rt_result_opts){ lab_names() }, &cls,
				&cause);
	if (ret) {
		free(lab);
		free(cause);
		return ret == -ENOMEM ? ret : 1;
	}
	if (cls.n) {
		ret = report_class_svg(&cls, o->names, &svg);
		if (!ret)
			ret = rt_buf_printf(&msg, "class: %zu run%s of lab %s", cls.n,
					    cls.n == 1 ? "" : "s", lab);
		if (!ret)
			ret = figure(out, &svg, p, NULL, rt_buf_str(&msg));
		else if (ret == -ENODATA)
			ret = missing(out, "class", "no run of the class has a latency histogram");
		goto out;
	}
	ret = rt_buf_printf(&msg, "no student in the class folder ran lab %s", lab);
	if (cls.links)
		ret |= rt_buf_printf(&msg, " (%zu symbolic link%s in it not followed)", cls.links,
				     cls.links == 1 ? "" : "s");
	if (cls.unreadable)
		ret |= rt_buf_printf(&msg, " (%zu results document%s that do%s not validate)",
				     cls.unreadable, cls.unreadable == 1 ? "" : "s",
				     cls.unreadable == 1 ? "es" : "");
	if (ret)
		goto out;
	if (!p->sample) {
		warn(o, deck, slide, rt_buf_str(&msg));
		ret = missing(out, "class", rt_buf_str(&msg));
		goto out;
	}
	ret = slides_plot_read(deck, p, NULL, &(struct rt_result_opts){ lab_names() }, &res,
			       &shown, &cause);
	if (!ret)
		ret = report_svg_slide(res, &svg);
	if (ret == -ENOMEM)
		goto out;
	ret = rt_buf_puts(&msg, ": drawing the deck's sample");
	warn(o, deck, slide, rt_buf_str(&msg));
	if (svg.len)
		ret |= figure(out, &svg, p, "Sample, not your class: no student in the class "
			      "folder ran this lab.", p->sample);
	else
		ret |= missing(out, p->sample, cause ? cause : "it cannot be read");
out:
	report_class_fini(&cls);
	rt_result_free(res);
	rt_buf_fini(&svg);
	rt_buf_fini(&msg);
	free(shown);
	free(cause);
	free(lab);
	return ret ? -ENOMEM : 0;
}

/* The plot of slide @slide, or a note saying why there is none. */
static int plot_html(struct rt_buf *out, const struct slides_deck *deck, size_t slide,
		     const struct report_slides_opts *o)
{
	const struct slides_plot *p = deck->slides[slide].plot;
	const char *class_dir = o->class_dir;
	struct rt_result *res = NULL;
	struct rt_buf svg = RT_BUF_INIT, src = RT_BUF_INIT;
	char *shown = NULL, *cause = NULL;
	int ret;

	ret = slides_plot_read(deck, p, class_dir, &(struct rt_result_opts){ lab_names() }, &res,
			       &shown, &cause);
	if (ret == -ENOENT && !res && p->in_class && class_dir) {
		ret = class_plot_html(out, deck, slide, p, o);
		if (ret <= 0)
			goto out;
		ret = -ENOENT;
	}
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
		ret = report_svg_slide(res, &svg);
		if (ret == -ENODATA) {
			free(cause);
			cause = strdup("the document has no latency histogram to draw");
		}
	}
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		/* As the deck names it: never the host's path to it. */
		ret = missing(out, shown, cause ? cause : "it cannot be read");
		goto out;
	}
	if (p->in_class && class_dir)
		ret = rt_buf_printf(&src, "class:%s", p->results);
	else if (p->in_class)
		ret = rt_buf_printf(&src, "%s, a sample", p->sample);
	else
		ret = rt_buf_puts(&src, p->results);
	ret = ret ? -ENOMEM : figure(out, &svg, p, NULL, rt_buf_str(&src));
out:
	rt_buf_fini(&svg);
	rt_buf_fini(&src);
	rt_result_free(res);
	free(shown);
	free(cause);
	return ret;
}

/*
 * The title slide's course, teacher, date and licence, each a line when
 * given: --course FILE's, else the deck's own (its ```deck block).
 */
static int course_html(struct rt_buf *out, const struct slides_deck *deck,
		       const struct report_slides_opts *o)
{
	const char *const what[][2] = {
		{ "course", o->course ? o->course : deck->course },
		{ "teacher", o->teacher ? o->teacher : deck->teacher },
		{ "date", o->date ? o->date : deck->date },
		{ "licence", o->licence ? o->licence : deck->licence },
	};
	int ret = 0;

	for (size_t k = 0; k < sizeof(what) / sizeof(what[0]); k++) {
		if (!what[k][1] || !*what[k][1])
			continue;
		ret |= rt_buf_printf(out, "<p class=\"%s\">", what[k][0]);
		ret |= k == 3 ? rt_buf_puts(out, "Licence: ") : 0;
		ret |= report_html_escape(out, what[k][1]);
		ret |= rt_buf_puts(out, "</p>\n");
	}
	return ret;
}

static int slide_html(struct rt_buf *out, const struct slides_deck *deck, size_t i,
		      const struct report_slides_opts *o)
{
	const struct slide *s = &deck->slides[i];
	int ret;

	ret = rt_buf_printf(out, "<section class=\"slide%s%s\" id=\"s%zu\">\n<h%u>",
			    s->level == 1 ? " title" : "", s->plot ? " has-plot" : "", i + 1,
			    s->level);
	ret |= inline_html(out, s->title);
	ret |= rt_buf_printf(out, "</h%u>\n", s->level);
	if (s->level == 1)
		ret |= course_html(out, deck, o);
	ret |= slides_markdown_html(s->body, out);
	if (!ret && s->plot)
		ret = plot_html(out, deck, i, o);
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
	return report_slides_page(deck, &(struct report_slides_opts){ .class_dir = class_dir },
				  out);
}

int report_slides_page(const struct slides_deck *deck, const struct report_slides_opts *o,
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
		ret = slide_html(out, deck, i, o);
	if (ret)
		return -ENOMEM;
	ret = rt_buf_printf(out, "</main>\n<div id=\"bar\"><span id=\"num\">1 / %zu</span> "
			    "<span id=\"clock\">0:00</span></div>\n<script>//<![CDATA[\n",
			    deck->nslides);
	ret |= rt_buf_puts(out, script);
	ret |= rt_buf_puts(out, "//]]></script>\n</body>\n</html>\n");
	return ret ? -ENOMEM : 0;
}
