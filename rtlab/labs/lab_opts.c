/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_opts: the one reader of a lab's options, driven by the lab's table
 * (struct lab_option in lab.h), and the two texts printed from that table:
 * `rtlab lab run LAB --help` and the LAB OPTIONS section of rtlab(1). A
 * new lab writes a table and a params block; parsing, the checks that
 * name the option, --help and the man page come from here, and --seed N,
 * --json FILE and --help are the same for every lab.
 *
 * Numbers, durations and CPU lists are read by core/rt_parse, so an option
 * refuses "12x" with the same words in every lab. Only lab_args_parse()
 * allocates; the rest is pure, except lab_seed_from_clock().
 */
#include "lab.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_buf.h"
#include "core/rt_err.h"
#include "core/rt_parse.h"
#include "core/rt_result.h"

#define NAME_MAX_LEN 30u	/* of an option's long name */
#define HELP_COL 24u		/* where --help's descriptions start */
#define HELP_WIDTH 79u

/* The options every lab takes, in the table's form so that help prints them alike. */
static const struct lab_option common_options[] = {
	{ .name = "seed", .kind = LAB_OPT_U64, .metavar = "N", .max = UINT64_MAX,
	  .help = "The seed of the run's random choices (a simulation's, a hunt's hidden "
		  "cause), so that a run can be repeated; recorded in the results document as "
		  "params.seed.", .defval = "one from the clock" },
	{ .name = "json", .kind = LAB_OPT_STRING, .metavar = "FILE",
	  .help = "Write the results document to FILE, replaced if it exists (the place is "
		  "checked before the run measures).",
	  .defval = "a time-stamped file under the state directory's results/" },
	{ .name = "help", .short_name = 'h', .kind = LAB_OPT_FLAG,
	  .help = "Show the lab's options and exit." },
	{ .name = NULL },
};

enum { COMMON_SEED, COMMON_JSON, COMMON_HELP };

static bool takes_value(const struct lab_option *o)
{
	return o->kind != LAB_OPT_FLAG;
}

/* The option of @opts whose long name is the @len bytes at @name, or NULL. */
static const struct lab_option *find_long(const struct lab_option *opts, const char *name,
					  size_t len)
{
	for (const struct lab_option *o = opts; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct lab_option *find_short(const struct lab_option *opts, char c)
{
	for (const struct lab_option *o = opts; o && o->name; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

static const char *unit_words(uint64_t unit_ns)
{
	switch (unit_ns) {
	case 1:
		return "nanoseconds";
	case RT_PARSE_NS_PER_US:
		return "microseconds";
	case RT_PARSE_NS_PER_MS:
		return "milliseconds";
	default:
		return "seconds";
	}
}

/* "a, b or c" */
static int join_values(struct rt_buf *b, const char *const *values, const char *sep,
		       const char *last)
{
	int ret = 0;

	for (size_t i = 0; values[i]; i++)
		ret |= rt_buf_printf(b, "%s%s", i == 0 ? "" : values[i + 1] ? sep : last,
				     values[i]);
	return ret;
}

/* ---- Applying one value ------------------------------------------------------------ */

static int set_enum(const struct lab_option *o, const char *what, const char *v, int *out,
		    char **cause)
{
	struct rt_buf words = RT_BUF_INIT;
	int ret;

	for (int i = 0; o->values[i]; i++) {
		if (!strcmp(o->values[i], v)) {
			*out = i;
			return 0;
		}
	}
	join_values(&words, o->values, ", ", " or ");
	ret = rt_err(cause, -EINVAL, "%s: expected %s, got \"%.*s\"", what, rt_buf_str(&words),
		     RT_PARSE_QUOTE_MAX, v);
	rt_buf_fini(&words);
	return ret;
}

static int apply_value(const struct lab_option *o, void *params, const char *v, char **cause)
{
	char *field = (char *)params + o->offset;
	char what[NAME_MAX_LEN + 3];
	uint64_t u, ns;
	int ret;

	snprintf(what, sizeof(what), "--%s", o->name);
	switch (o->kind) {
	case LAB_OPT_FLAG:
		*(bool *)field = !o->off;
		return 0;
	case LAB_OPT_UINT:
		return rt_parse_uint(what, v, (unsigned int)o->min, (unsigned int)o->max,
				     (unsigned int *)field, cause);
	case LAB_OPT_U64:
		ret = rt_parse_u64(what, v, o->min, o->max, &u, cause);
		if (!ret)
			memcpy(field, &u, sizeof(u));
		return ret;
	case LAB_OPT_DURATION:
		ret = rt_parse_duration(what, v, RT_PARSE_NS_PER_S, o->min, o->max, &ns, cause);
		if (ret)
			return ret;
		if (ns % o->unit_ns)
			return rt_err(cause, -EINVAL, "%s: %.*s is not a whole number of %s", what,
				      RT_PARSE_QUOTE_MAX, v, unit_words(o->unit_ns));
		*(unsigned int *)field = (unsigned int)(ns / o->unit_ns);
		return 0;
	case LAB_OPT_CPUS: {
		unsigned int n = 0;

		ret = rt_parse_cpus(what, v, (unsigned int)o->max, (unsigned int *)field,
				    (unsigned int)(o->size / sizeof(unsigned int)), &n, cause);
		if (!ret)
			*(unsigned int *)((char *)params + o->count_offset) = n;
		return ret;
	}
	case LAB_OPT_ENUM:
		return set_enum(o, what, v, (int *)field, cause);
	case LAB_OPT_STRING:
		if (o->set)
			return o->set(params, v, cause);
		if (strlen(v) >= o->size)
			return rt_err(cause, -EINVAL, "%s: at most %zu characters, got \"%.*s...\"",
				      what, o->size - 1, RT_PARSE_QUOTE_MAX, v);
		memcpy(field, v, strlen(v) + 1);
		return 0;
	case LAB_OPT_DECIMAL:
		return rt_parse_decimal(what, v, o->dmin, o->dmax, (double *)field, cause);
	}
	return rt_err(cause, -EINVAL, "%s: the lab's option table is broken", what);
}

/* --seed, --json, --help into @a. */
static int apply_common(const struct lab_option *o, const char *v, struct lab_args *a,
			char **cause)
{
	switch (o - common_options) {
	case COMMON_SEED:
		if (rt_parse_u64("--seed", v, 0, UINT64_MAX, &a->seed, cause))
			return -EINVAL;
		a->seed_given = true;
		return 0;
	case COMMON_JSON:
		if (!*v)
			return rt_err(cause, -EINVAL, "--json: expected a file name, got nothing");
		a->json_path = v;
		return 0;
	default:
		a->help = true;
		return 0;
	}
}

/* ---- Parsing ----------------------------------------------------------------------- */

/* "a, b or c" (", or all" when @all) of @names, for a message. */
static int names_list(struct rt_buf *b, const char *const *names, bool all)
{
	int ret = 0;

	for (size_t i = 0; names[i] && !ret; i++)
		ret = rt_buf_printf(b, "%s%s", i == 0 ? "" : names[i + 1] || all ? ", " : " or ",
				    names[i]);
	return ret ?: all ? rt_buf_puts(b, " or all") : 0;
}

int lab_opts_names(const char *opt, const char *noun, const char *value,
		   const char *const *names, bool all, uint32_t *mask, char **cause)
{
	struct rt_buf known = RT_BUF_INIT;
	const char *w = value;
	int ret = 0;

	*mask = 0;
	while (*w && !ret) {
		size_t len = strcspn(w, ","), i;

		for (i = 0; names[i] && (strlen(names[i]) != len || strncmp(w, names[i], len)); i++)
			;
		if (!len)
			ret = rt_err(cause, -EINVAL, "%s: an empty name in the list '%s'", opt,
				     value);
		else if (names[i])
			*mask |= 1u << i;
		else if (all && len == 3 && !strncmp(w, "all", 3))
			for (i = 0; names[i]; i++)
				*mask |= 1u << i;
		else
			ret = names_list(&known, names, all) ?:
			      rt_err(cause, -EINVAL, "%s: no %s called '%.*s' (%s)", opt, noun,
				     (int)len, w, known.data);
		w += len + (w[len] == ',');
	}
	if (!ret && !*mask)
		ret = rt_err(cause, -EINVAL, "%s: name at least one %s", opt, noun);
	rt_buf_fini(&known);
	return ret;
}

int lab_opts_apply(const struct lab_option *opts, int argc, char **argv, void *params,
		   struct lab_args *a, char **cause)
{
	const char *lab = argc > 0 && argv[0] ? argv[0] : "LAB";

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq = NULL;
		const struct lab_option *o = NULL;
		bool common = false;
		size_t nlen = 0;
		char shown[NAME_MAX_LEN + 3];
		int ret;

		if (!arg || arg[0] != '-' || !arg[1])
			return rt_err(cause, -EINVAL, "unexpected argument \"%.60s\"",
				      arg ? arg : "(null)");
		if (arg[1] == '-' && arg[2]) {
			eq = strchr(arg + 2, '=');
			nlen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
			o = find_long(opts, arg + 2, nlen);
			if (!o && a) {
				o = find_long(common_options, arg + 2, nlen);
				common = o != NULL;
			}
		} else if (!arg[2]) {
			o = find_short(opts, arg[1]);
			if (!o && a) {
				o = find_short(common_options, arg[1]);
				common = o != NULL;
			}
		}
		if (!o) {
			size_t shown_len = eq ? (size_t)(eq - arg) : strlen(arg);

			return rt_err(cause, -EINVAL, "unknown option \"%.*s\" (see `rtlab lab run "
				      "%.30s --help`)", (int)(shown_len < 40 ? shown_len : 40), arg,
				      lab);
		}
		snprintf(shown, sizeof(shown), "--%s", o->name);
		if (takes_value(o)) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc && argv[i + 1])
				val = argv[++i];
			else
				return rt_err(cause, -EINVAL, "%s needs a value", shown);
		} else if (eq) {
			return rt_err(cause, -EINVAL, "%s takes no value", shown);
		}
		ret = common ? apply_common(o, val, a, cause) : apply_value(o, params, val, cause);
		if (ret)
			return ret;
		if (a && a->help)
			return 0;	/* the help is all that is wanted */
	}
	return 0;
}

int lab_args_parse(const struct lab_ops *lab, int argc, char **argv, struct lab_args *a,
		   char **cause)
{
	int ret;

	memset(a, 0, sizeof(*a));
	ret = lab_opts_table_check(lab, cause);
	if (ret)
		return ret;
	if (lab->params_size) {
		a->params = calloc(1, lab->params_size);
		if (!a->params)
			return rt_err(cause, -ENOMEM, "out of memory");
		if (lab->params_init)
			lab->params_init(a->params);
	}
	ret = lab_opts_apply(lab->options, argc, argv, a->params, a, cause);
	if (ret || a->help)
		return ret;
	if (!a->seed_given)
		a->seed = lab_seed_from_clock();
	if (lab->params_check && a->params)
		return lab->params_check(a->params, cause);
	return 0;
}

void lab_args_fini(const struct lab_ops *lab, struct lab_args *a)
{
	if (a->params && lab && lab->free_params)
		lab->free_params(a->params);
	free(a->params);
	memset(a, 0, sizeof(*a));
}

/* ---- The table's own check --------------------------------------------------------- */

static bool name_ok(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > NAME_MAX_LEN || s[0] == '-' || s[len - 1] == '-')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

/* Printable ASCII without double quotes: safe in --help and as a roff argument. */
static bool text_ok(const char *s, bool quotes)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || (!quotes && *s == '"'))
			return false;
	return true;
}

static bool field_ok(const struct lab_ops *lab, const struct lab_option *o, size_t size)
{
	return o->size == size && o->offset <= lab->params_size &&
	       o->size <= lab->params_size - o->offset;
}

static bool kind_ok(const struct lab_ops *lab, const struct lab_option *o)
{
	switch (o->kind) {
	case LAB_OPT_FLAG:
		return field_ok(lab, o, sizeof(bool));
	case LAB_OPT_UINT:
		return field_ok(lab, o, sizeof(unsigned int)) && o->min <= o->max &&
		       o->max <= UINT_MAX;
	case LAB_OPT_U64:
		return field_ok(lab, o, sizeof(uint64_t)) && o->min <= o->max;
	case LAB_OPT_DURATION:
		return field_ok(lab, o, sizeof(unsigned int)) && (o->unit_ns == 1 ||
		       o->unit_ns == RT_PARSE_NS_PER_US || o->unit_ns == RT_PARSE_NS_PER_MS ||
		       o->unit_ns == RT_PARSE_NS_PER_S) && o->min <= o->max &&
		       o->max / o->unit_ns <= UINT_MAX;
	case LAB_OPT_CPUS:
		return o->size >= sizeof(unsigned int) && o->size % sizeof(unsigned int) == 0 &&
		       field_ok(lab, o, o->size) && o->max >= 1 && o->max <= RT_PARSE_CPUS_MAX &&
		       o->count_offset <= lab->params_size &&
		       sizeof(unsigned int) <= lab->params_size - o->count_offset;
	case LAB_OPT_ENUM:
		return field_ok(lab, o, sizeof(int)) && o->values && o->values[0];
	case LAB_OPT_STRING:
		return o->set || (o->size >= 2 && field_ok(lab, o, o->size));
	case LAB_OPT_DECIMAL:
		return field_ok(lab, o, sizeof(double)) && o->dmin <= o->dmax;
	}
	return false;
}

int lab_opts_table_check(const struct lab_ops *lab, char **cause)
{
	for (const struct lab_option *o = lab->options; o && o->name; o++) {
		const char *n = o->name;

		if (!name_ok(n))
			return rt_err(cause, -EINVAL, "%s: option \"%.40s\": a long name is 1 to %u "
				      "of a-z, 0-9 and '-'", lab->name, n, NAME_MAX_LEN);
		if (find_long(common_options, n, strlen(n)) ||
		    (o->short_name && find_short(common_options, o->short_name)))
			return rt_err(cause, -EINVAL, "%s: --%s: every lab has that option already",
				      lab->name, n);
		if (find_long(lab->options, n, strlen(n)) != o ||
		    (o->short_name && find_short(lab->options, o->short_name) != o))
			return rt_err(cause, -EINVAL, "%s: --%s is in the table twice", lab->name, n);
		if (o->short_name && !((o->short_name >= 'a' && o->short_name <= 'z') ||
				       (o->short_name >= 'A' && o->short_name <= 'Z') ||
				       (o->short_name >= '0' && o->short_name <= '9')))
			return rt_err(cause, -EINVAL, "%s: --%s: a short name is a letter or a digit",
				      lab->name, n);
		if (!o->help || !*o->help || !text_ok(o->help, true) ||
		    (o->metavar && (!*o->metavar || !text_ok(o->metavar, false) ||
				    strchr(o->metavar, ' '))) ||
		    (o->defval && !text_ok(o->defval, true)))
			return rt_err(cause, -EINVAL, "%s: --%s: help, metavar and default are one "
				      "line of printable ASCII (a metavar without blanks or quotes)",
				      lab->name, n);
		for (const char *const *v = o->kind == LAB_OPT_ENUM ? o->values : NULL; v && *v; v++)
			if (!**v || !text_ok(*v, false) || strchr(*v, ' '))
				return rt_err(cause, -EINVAL, "%s: --%s: an enum word is printable "
					      "ASCII without blanks", lab->name, n);
		if (!kind_ok(lab, o))
			return rt_err(cause, -EINVAL, "%s: --%s: the field, its size or the range "
				      "does not fit the kind", lab->name, n);
	}
	return 0;
}

/* ---- Seeds ------------------------------------------------------------------------- */

uint64_t lab_seed_from_clock(void)
{
	struct timespec ts;

	/* Labs mix their seed themselves (the hunt through splitmix64); this only has to differ. */
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * RT_PARSE_NS_PER_S + (uint64_t)ts.tv_nsec) ^
	       ((uint64_t)getpid() << 40);
}

int lab_seed_record(struct rt_result *res, uint64_t seed)
{
	char digits[24];

	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)seed);
	return rt_result_set_param_str(res, "seed", digits);
}

/* ---- --help ------------------------------------------------------------------------ */

/* The value's name: the metavar, "a|b|c" for an enum, else from the kind. */
static int metavar(struct rt_buf *b, const struct lab_option *o)
{
	static const char *const by_kind[] = {
		[LAB_OPT_UINT] = "N", [LAB_OPT_U64] = "N", [LAB_OPT_DURATION] = "D",
		[LAB_OPT_CPUS] = "LIST", [LAB_OPT_STRING] = "TEXT", [LAB_OPT_DECIMAL] = "X",
	};

	if (!takes_value(o))
		return 0;
	if (o->metavar)
		return rt_buf_puts(b, o->metavar);
	if (o->kind == LAB_OPT_ENUM)
		return join_values(b, o->values, "|", "|");
	return rt_buf_puts(b, by_kind[o->kind]);
}

/* @text from column @col, words wrapped at HELP_WIDTH, later lines from column @indent. */
static int wrap(struct rt_buf *out, const char *text, size_t col, size_t indent)
{
	bool fresh = true;	/* no word on this line yet */
	int ret = 0;

	text += strspn(text, " ");
	while (*text) {
		size_t wl = strcspn(text, " ");

		if (!fresh && col + 1 + wl > HELP_WIDTH) {
			ret |= rt_buf_printf(out, "\n%*s", (int)indent, "");
			col = indent;
			fresh = true;
		}
		if (!fresh) {
			ret |= rt_buf_puts(out, " ");
			col++;
		}
		ret |= rt_buf_append(out, text, wl);
		col += wl;
		fresh = false;
		text += wl;
		text += strspn(text, " ");
	}
	return ret | rt_buf_puts(out, "\n");
}

/* The whole help text of @o: its help and its default. */
static int help_text(struct rt_buf *b, const struct lab_option *o)
{
	int ret = rt_buf_puts(b, o->help);

	if (o->defval)
		ret |= rt_buf_printf(b, " Default: %s.", o->defval);
	return ret;
}

static int help_options(struct rt_buf *out, const struct lab_option *opts)
{
	int ret = 0;

	for (const struct lab_option *o = opts; o && o->name; o++) {
		struct rt_buf head = RT_BUF_INIT, text = RT_BUF_INIT;

		ret |= rt_buf_puts(&head, "  ");
		if (o->short_name)
			ret |= rt_buf_printf(&head, "-%c, ", o->short_name);
		ret |= rt_buf_printf(&head, "--%s", o->name);
		if (takes_value(o)) {
			ret |= rt_buf_puts(&head, " ");
			ret |= metavar(&head, o);
		}
		ret |= help_text(&text, o);
		ret |= rt_buf_puts(out, rt_buf_str(&head));
		/* A long head gets a line of its own. */
		if (head.len + 1 < HELP_COL)
			ret |= rt_buf_printf(out, "%*s", (int)(HELP_COL - head.len), "");
		else
			ret |= rt_buf_printf(out, "\n%*s", (int)HELP_COL, "");
		ret |= wrap(out, rt_buf_str(&text), HELP_COL, HELP_COL);
		rt_buf_fini(&head);
		rt_buf_fini(&text);
	}
	return ret;
}

int lab_opts_help(const struct lab_ops *lab, struct rt_buf *out)
{
	struct lab_scenario sc;
	int ret = 0;

	ret |= rt_buf_printf(out, "usage: rtlab lab run %s%s [--seed N] [--json FILE]\n\n",
			     lab->name, lab->options && lab->options->name ? " [OPTIONS]" : "");
	ret |= rt_buf_printf(out, "%s", lab->title);
	if (lab->summary) {
		ret |= rt_buf_puts(out, ": ");
		ret |= wrap(out, lab->summary, strlen(lab->title) + 2, 0);
	} else {
		ret |= rt_buf_puts(out, "\n");
	}
	if (lab->state != LAB_STATE_READY)
		ret |= rt_buf_puts(out, "This lab is planned and not available yet.\n");
	if (lab->options && lab->options->name) {
		ret |= rt_buf_printf(out, "\nOptions of the %s lab:\n", lab->name);
		ret |= help_options(out, lab->options);
	}
	if (lab->options_note) {
		ret |= rt_buf_puts(out, "\n");
		ret |= wrap(out, lab->options_note, 0, 0);
	}
	if (lab->scenario && lab->scenario(0, &sc)) {
		ret |= rt_buf_puts(out, "\nScenarios (named in its documents and in predict "
				   "questions):\n");
		for (size_t i = 0; lab->scenario(i, &sc); i++) {
			ret |= rt_buf_printf(out, "  %-20s", sc.name);
			if (strlen(sc.name) > 20)
				ret |= rt_buf_printf(out, "\n%22s", "");
			ret |= wrap(out, sc.summary, 22, 22);
		}
	}
	ret |= rt_buf_puts(out, "\nOptions of every lab:\n");
	ret |= help_options(out, common_options);
	return ret ? -ENOMEM : 0;
}

/* ---- rtlab(1) ---------------------------------------------------------------------- */

/* @s as roff text: backslashes and hyphens escaped, a leading '.' or '\'' made literal. */
static int roff(struct rt_buf *out, const char *s)
{
	int ret = 0;

	if (*s == '.' || *s == '\'')
		ret |= rt_buf_puts(out, "\\&");
	for (; *s; s++) {
		if (*s == '\\')
			ret |= rt_buf_puts(out, "\\e");
		else if (*s == '-')
			ret |= rt_buf_puts(out, "\\-");
		else
			ret |= rt_buf_append(out, s, 1);
	}
	return ret;
}

static int man_options(struct rt_buf *out, const struct lab_option *opts)
{
	int ret = 0;

	for (const struct lab_option *o = opts; o && o->name; o++) {
		struct rt_buf name = RT_BUF_INIT;

		if (o->short_name)
			ret |= rt_buf_printf(&name, "-%c, ", o->short_name);
		ret |= rt_buf_printf(&name, "--%s", o->name);
		ret |= rt_buf_puts(out, ".TP\n");
		ret |= rt_buf_puts(out, takes_value(o) ? ".BI \"" : ".B \"");
		ret |= roff(out, rt_buf_str(&name));
		ret |= rt_buf_puts(out, "\"");
		if (takes_value(o)) {
			rt_buf_reset(&name);
			ret |= metavar(&name, o);
			ret |= rt_buf_puts(out, " \" ");
			ret |= roff(out, rt_buf_str(&name));
			ret |= rt_buf_puts(out, "\"");
		}
		ret |= rt_buf_puts(out, "\n");
		ret |= roff(out, o->help);
		ret |= rt_buf_puts(out, "\n");
		if (o->defval) {
			/* a line of its own: roff ends a sentence only at a line's end */
			ret |= rt_buf_puts(out, "Default: ");
			ret |= roff(out, o->defval);
			ret |= rt_buf_puts(out, ".\n");
		}
		rt_buf_fini(&name);
	}
	return ret;
}

int lab_opts_man(struct rt_buf *out)
{
	struct lab_scenario sc;
	int ret = 0;

	ret |= rt_buf_puts(out, ".SH LAB OPTIONS\n"
			   ".\\\" Generated by `make man` from the option tables in rtlab/labs/;\n"
			   ".\\\" edit those, not this section.\n"
			   ".B rtlab lab run\n"
			   ".I LAB\n"
			   "takes the options of its lab, listed below and by\n"
			   ".BI \"rtlab lab run \" LAB \" \\-\\-help\" .\n"
			   "Every lab takes these:\n");
	ret |= man_options(out, common_options);
	for (const struct lab_ops *const *l = lab_table; *l; l++) {
		const struct lab_ops *lab = *l;

		if (lab->state != LAB_STATE_READY)
			continue;
		ret |= rt_buf_puts(out, ".SS \"");
		ret |= roff(out, lab->name);
		ret |= rt_buf_puts(out, "\"\n");
		ret |= roff(out, lab->title);
		ret |= rt_buf_puts(out, ".\n");
		if (!lab->options || !lab->options->name)
			ret |= rt_buf_puts(out, "It has no options of its own.\n");
		ret |= man_options(out, lab->options);
		if (lab->options_note) {
			ret |= rt_buf_puts(out, ".PP\n");
			ret |= roff(out, lab->options_note);
			ret |= rt_buf_puts(out, "\n");
		}
		if (lab->scenario && lab->scenario(0, &sc))
			ret |= rt_buf_puts(out, ".PP\nIts scenarios:\n");
		for (size_t i = 0; lab->scenario && lab->scenario(i, &sc); i++) {
			ret |= rt_buf_puts(out, ".TP\n.B ");
			ret |= roff(out, sc.name);
			ret |= rt_buf_puts(out, "\n");
			ret |= roff(out, sc.summary);
			ret |= rt_buf_puts(out, "\n");
		}
	}
	return ret ? -ENOMEM : 0;
}
