// SPDX-License-Identifier: GPL-2.0
/*
 * The words of a control request and their values, for every verb: the
 * server splits a line into a verb and words (KEY=VALUE or bare flags),
 * and a handler takes the words it knows, picks ports and directions with
 * the keys every verb shares, parses values in the units tc-netem uses,
 * and refuses whatever is left over.  Nothing here touches a socket, so
 * a start option (--impair, --qos) and a request on the control socket
 * are parsed alike.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "switch.h"

/* ------------------------------------------------------------------ */
/* Words of a request */

/* Splits line in place; a->verb is NULL for a blank or comment line. */
int ctl_split(char *line, struct ctl_args *a)
{
	char *save = NULL, *w;
	unsigned int i;

	memset(a, 0, sizeof(*a));
	w = strtok_r(line, " \t\r\n", &save);
	if (!w || w[0] == '#')
		return 0;
	a->verb = w;
	while ((w = strtok_r(NULL, " \t\r\n", &save))) {
		char *eq = strchr(w, '=');

		if (a->n == CTL_MAX_WORDS)
			return ctl_err(a, "more than %d words", CTL_MAX_WORDS);
		if (eq == w)
			return ctl_err(a, "'%s': no key before '='", w);
		if (eq) {
			*eq = '\0';
			if (!eq[1])
				return ctl_err(a, "%s: no value after '='", w);
		}
		for (i = 0; i < a->n; i++)
			if (!strcmp(a->key[i], w))
				return ctl_err(a, "'%s' given twice", w);
		a->key[a->n] = w;
		a->val[a->n] = eq ? eq + 1 : NULL;
		a->n++;
	}
	return 0;
}

const char *ctl_take(struct ctl_args *a, const char *key)
{
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (a->val[i] && !strcmp(a->key[i], key)) {
			a->used[i] = true;
			return a->val[i];
		}
	return NULL;
}

bool ctl_flag(struct ctl_args *a, const char *word)
{
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (!a->val[i] && !strcmp(a->key[i], word)) {
			a->used[i] = true;
			return true;
		}
	return false;
}

const char *ctl_take_bare(struct ctl_args *a)
{
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (!a->val[i] && !a->used[i]) {
			a->used[i] = true;
			return a->key[i];
		}
	return NULL;
}

int ctl_check_unused(struct ctl_args *a)
{
	unsigned int i;

	for (i = 0; i < a->n; i++) {
		if (a->used[i])
			continue;
		if (a->val[i])
			return ctl_err(a, "%s: unknown key '%s'", a->verb,
				       a->key[i]);
		return ctl_err(a, "%s: unknown word '%s'", a->verb, a->key[i]);
	}
	return 0;
}

int ctl_ports(struct sw *sw, struct ctl_args *a, bool required,
	      uint64_t *mask)
{
	const char *s = ctl_take(a, "port");
	uint64_t all = sw->nports == 64 ? UINT64_MAX :
		       (1ULL << sw->nports) - 1;
	char buf[256], *tok, *save = NULL;

	*mask = 0;
	if (!s) {
		if (required)
			return ctl_err(a, "%s: give port=N[,N]... or port=all",
				       a->verb);
		*mask = all;
		return 0;
	}
	if (!strcmp(s, "all")) {
		*mask = all;
		return 0;
	}
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return ctl_err(a, "port: '%s' is too long", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long n;

		if (ctl_parse_uint(tok, UINT32_MAX, &n))
			return ctl_err(a, "port: '%s' is not a port number",
				       tok);
		if (n >= sw->nports)
			return ctl_err(a, "port %llu: the switch has ports 0..%u",
				       n, sw->nports - 1);
		*mask |= 1ULL << n;
	}
	if (!*mask)
		return ctl_err(a, "port: no port in '%s'", s);
	return 0;
}

int ctl_dirs(struct ctl_args *a, bool required, unsigned int *mask)
{
	const char *s = ctl_take(a, "dir");

	if (!s) {
		if (required)
			return ctl_err(a, "%s: give dir=ingress, dir=egress or dir=both",
				       a->verb);
		*mask = (1u << SW_DIR_NUM) - 1;
		return 0;
	}
	if (!strcmp(s, "ingress"))
		*mask = 1u << SW_DIR_INGRESS;
	else if (!strcmp(s, "egress"))
		*mask = 1u << SW_DIR_EGRESS;
	else if (!strcmp(s, "both"))
		*mask = (1u << SW_DIR_NUM) - 1;
	else
		return ctl_err(a, "dir: '%s' is not ingress, egress or both",
			       s);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Values */

int ctl_parse_prob(const char *s, double *p)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || v < 0 || v > 1)
		return -1;
	*p = v;
	return 0;
}

int ctl_parse_time(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 }, { "ns", 1 },
	};
	unsigned int i;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v = v * units[i].ns + 0.5;
		if (v > (double)SW_MAX_DELAY_NS + 0.5)
			return -1;
		*ns = (uint64_t)v;
		return 0;
	}
	/* No unit, or an unknown one: "2" could mean 2 s, ms or us. */
	return -1;
}

int ctl_parse_ns(const char *s, uint64_t *ns)
{
	unsigned long long v;

	/* Digits alone: virtual ns, which may run past any delay's bound. */
	if (*s && strspn(s, "0123456789") == strlen(s)) {
		if (ctl_parse_uint(s, UINT64_MAX, &v))
			return -1;
		*ns = v;
		return 0;
	}
	return ctl_parse_time(s, ns);
}

int ctl_parse_uint(const char *s, unsigned long long max,
		   unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end || *v > max)
		return -1;
	return 0;
}
