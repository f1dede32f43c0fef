/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * doctor_parse: every parser here copes with truncated, empty or hostile
 * text (the fuzzers feed them garbage), never reads past the NUL, and never
 * trusts a length it did not count.
 */
#include "doctor_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_parse.h"

/* Copy @n bytes of a /proc/mounts field, turning \ooo escapes into bytes. */
static char *unescape_field(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	size_t o = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 3 < n &&
		    s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			out[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
					  (s[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* Span of the @idx-th blank-separated field of the line at @line. */
static bool line_field(const char *line, int idx, const char **start, size_t *len)
{
	const char *p = line;

	for (int i = 0;; i++) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n')
			return false;
		n = strcspn(p, " \t\n");
		if (i == idx) {
			*start = p;
			*len = n;
			return true;
		}
		p += n;
	}
}

char *doctor_parse_mount(const char *mounts, const char *fstype, const char *prefer)
{
	const char *line = mounts;
	char *found = NULL;

	while (line && *line) {
		const char *type, *dir;
		size_t tlen, dlen;

		if (line_field(line, 2, &type, &tlen) && tlen == strlen(fstype) &&
		    strncmp(type, fstype, tlen) == 0 && line_field(line, 1, &dir, &dlen)) {
			char *mp = unescape_field(dir, dlen);

			if (!mp) {
				free(found);
				errno = ENOMEM;
				return NULL;
			}
			if (!found) {
				found = mp;
			} else if (prefer && strcmp(mp, prefer) == 0) {
				free(found);
				found = mp;
			} else {
				free(mp);
			}
			if (!prefer || strcmp(found, prefer) == 0)
				return found;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!found)
		errno = ENOENT;
	return found;
}

int doctor_parse_status_hex(const char *status, const char *field, uint64_t *out)
{
	size_t n = strlen(field);
	const char *line = status;

	while (line && *line) {
		if (strncmp(line, field, n) == 0) {
			const char *p = line + n;
			uint64_t v = 0;
			int digits = 0;

			while (*p == ' ' || *p == '\t')
				p++;
			for (; isxdigit((unsigned char)*p); p++, digits++) {
				if (digits == 16)
					return -EINVAL;
				v = v << 4 | (uint64_t)(isdigit((unsigned char)*p) ?
					*p - '0' : tolower((unsigned char)*p) - 'a' + 10);
			}
			if (!digits || (*p != '\n' && *p != '\0' && *p != ' '))
				return -EINVAL;
			*out = v;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

void doctor_words_free(char **w, size_t n)
{
	if (!w)
		return;
	for (size_t i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

int doctor_parse_words(const char *text, char ***out, size_t *n)
{
	const char *seps = " \t\n\r";
	char **w = NULL;
	size_t count = 0, cap = 0;
	const char *p = text;

	for (;;) {
		size_t len;

		p += strspn(p, seps);
		if (!*p)
			break;
		len = strcspn(p, seps);
		if (count == cap) {
			char **bigger = realloc(w, (cap ? cap * 2 : 8) * sizeof(*w));

			if (!bigger)
				goto out_nomem;
			w = bigger;
			cap = cap ? cap * 2 : 8;
		}
		w[count] = strndup(p, len);
		if (!w[count])
			goto out_nomem;
		count++;
		p += len;
	}
	*out = w;
	*n = count;
	return 0;

out_nomem:
	doctor_words_free(w, count);
	return -ENOMEM;
}

bool doctor_words_has(char *const *w, size_t n, const char *word)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w[i], word) == 0)
			return true;
	return false;
}

bool doctor_parse_trigger_has_hist(const char *trigger)
{
	static const char mark[] = "# Available triggers:";
	const char *line = strstr(trigger, mark);
	const char *end;

	if (!line)
		return false;
	/* The names follow on the same line or, in some kernels, the next one. */
	line += sizeof(mark) - 1;
	end = strchr(line, '\n');
	if (end && end[1] == '#')
		end = strchr(end + 1, '\n');
	for (const char *p = line; *p && (!end || p < end);) {
		size_t n;

		p += strspn(p, " \t\n#");
		n = strcspn(p, " \t\n");
		if (n == 4 && strncmp(p, "hist", 4) == 0)
			return true;
		if (!n)
			break;
		p += n;
	}
	return false;
}

int doctor_parse_ll(const char *text, long long *out)
{
	char num[24];
	size_t len;
	int64_t v;

	text += strspn(text, " \t");
	len = strlen(text);
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\n'))
		len--;
	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, text, len);
	num[len] = '\0';
	if (rt_parse_s64(NULL, num, INT64_MIN, INT64_MAX, &v, NULL))
		return -EINVAL;
	*out = v;
	return 0;
}

char *doctor_parse_qemu_version(const char *out)
{
	static const char mark[] = "version ";
	const char *p = strstr(out, mark);
	size_t n;

	if (!p) {
		errno = EINVAL;
		return NULL;
	}
	p += sizeof(mark) - 1;
	n = strspn(p, "0123456789.");
	if (!n || !isdigit((unsigned char)p[0])) {
		errno = EINVAL;
		return NULL;
	}
	return strndup(p, n);
}

char *doctor_first_line(const char *text)
{
	return strndup(text, strcspn(text, "\n"));
}
