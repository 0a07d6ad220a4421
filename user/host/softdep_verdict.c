// SPDX-License-Identifier: GPL-2.0
/* Is p2pmap loaded before the GPU driver at boot? (softdep_verdict.h) */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "softdep_verdict.h"

static bool same_deps(const struct softdep_line *a,
		      const struct softdep_line *b)
{
	unsigned int i;

	if (a->npre != b->npre || a->npost != b->npost)
		return false;
	for (i = 0; i < a->npre; i++)
		if (!softdep_same_module(a->pre[i], b->pre[i]))
			return false;
	for (i = 0; i < a->npost; i++)
		if (!softdep_same_module(a->post[i], b->post[i]))
			return false;
	return true;
}

/*
 * The line kmod uses: on this host kmod's own answer (named by the file
 * that holds it when the scan finds it), else the scan's first.  Returns
 * whether there is one.
 */
static bool used_line(const char *root, const struct softdep_view *sv,
		      const char *driver, struct softdep_line *used)
{
	size_t k;
	int r = -1;

	if (!root[0] || !strcmp(root, "/"))
		r = softdep_kmod_first(NULL, driver, used);
	if (r < 0) {
		if (sv->n)
			*used = sv->line[0];
		return sv->n;
	}
	for (k = 0; r && k < sv->n; k++)
		if (same_deps(&sv->line[k], used)) {
			*used = sv->line[k];
			break;
		}
	return r;
}

/* The modules of @sv's other lines that @used does not name. */
static void missing(const struct softdep_view *sv,
		    const struct softdep_line *used, char *buf, size_t len)
{
	size_t k, n = 0;
	unsigned int i;
	bool pre;

	buf[0] = '\0';
	for (k = 0; k < sv->n; k++) {
		const struct softdep_line *l = &sv->line[k];

		for (pre = true; ; pre = false) {
			for (i = 0; i < (pre ? l->npre : l->npost); i++) {
				const char *m = pre ? l->pre[i] : l->post[i];

				if (softdep_same_module(m, "p2pmap") ||
				    softdep_names(used, true, m) ||
				    softdep_names(used, false, m))
					continue;
				n += snprintf(buf + n, n < len ? len - n : 0,
					      "%s%s (%s line %u)",
					      n ? ", " : "", m, l->file,
					      l->line);
			}
			if (!pre)
				break;
		}
	}
}

int softdep_judge(const char *root, const char *kver, const char *driver,
		  struct softdep_verdict *v)
{
	struct softdep_view sv;
	bool have;
	size_t k;

	memset(v, 0, sizeof(*v));
	if (softdep_scan(root, kver, driver, &sv))
		return -1;
	have = used_line(root, &sv, driver, &v->used);
	v->state = SOFTDEP_NONE;
	if (have && softdep_names(&v->used, true, "p2pmap")) {
		missing(&sv, &v->used, v->missing, sizeof(v->missing));
		v->state = v->missing[0] ? SOFTDEP_STALE : SOFTDEP_OK;
		if (sv.install_file[0])
			snprintf(v->install_ignored, sizeof(v->install_ignored),
				 "%s line %u", sv.install_file, sv.install_line);
		if (v->state == SOFTDEP_OK && v->install_ignored[0])
			v->state = SOFTDEP_INSTALL;
	} else if (have) {
		for (k = 0; k < sv.n; k++)
			if (softdep_names(&sv.line[k], true, "p2pmap")) {
				v->ours = sv.line[k];
				v->state = SOFTDEP_SHADOWED;
				break;
			}
	}
	softdep_view_free(&sv);
	return 0;
}

/* "softdep nvidia pre: p2pmap vfio-pci (/etc/modprobe.d/F line N)" */
static void line_text(const struct softdep_line *l, const char *driver,
		      char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "\"softdep %s", driver);
	unsigned int i;

	for (i = 0; i < l->npre; i++)
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
			      i ? " " : " pre: ", l->pre[i]);
	for (i = 0; i < l->npost; i++)
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s",
			      i ? " " : " post: ", l->post[i]);
	if (l->line)
		snprintf(buf + n, n < len ? len - n : 0, "\" (%s line %u)",
			 l->file, l->line);
	else
		snprintf(buf + n, n < len ? len - n : 0, "\" (%s)", l->file);
}

#define LATE "at boot %s can probe before p2pmap loads, and its DMA allocations can take a peer's BAR addresses (that link then cannot map)"

void softdep_verdict_text(const struct softdep_verdict *v,
			  const char *driver, char *text, size_t tlen,
			  char *fix, size_t flen)
{
	char used[PATH_MAX + 4096], ours[PATH_MAX + 4096];
	const char *base;

	line_text(&v->used, driver, used, sizeof(used));
	line_text(&v->ours, driver, ours, sizeof(ours));
	fix[0] = '\0';
	switch (v->state) {
	case SOFTDEP_OK:
		snprintf(text, tlen, "%s is the first softdep line for %s that kmod reads, the only one it uses: modprobe loads p2pmap before %s, which then probes with the peers' windows reserved",
			 used, driver, driver);
		break;
	case SOFTDEP_NONE:
		snprintf(text, tlen, "no \"softdep %s pre: p2pmap\" in modprobe.d: " LATE,
			 driver, driver);
		snprintf(fix, flen, "p2pmap config save (it writes a softdep for each driver of the policy)");
		break;
	case SOFTDEP_SHADOWED:
		snprintf(text, tlen, "kmod uses only the first softdep line for %s it reads, %s, and ignores %s: " LATE,
			 driver, used, ours, driver);
		base = strrchr(v->ours.file, '/');
		if (base && !strcmp(base + 1, SOFTDEP_FILE_NAME))
			snprintf(fix, flen, "rename %s to sort after %s (kmod reads modprobe.d files by name), then p2pmap config save",
				 v->used.file, SOFTDEP_FILE_NAME);
		else
			snprintf(fix, flen, "p2pmap config save (it writes %s, which kmod reads first, with p2pmap and the modules of every softdep line for %s)",
				 SOFTDEP_FILE, driver);
		break;
	case SOFTDEP_INSTALL:
		snprintf(text, tlen, "%s is the first softdep line for %s that kmod reads, and it loads p2pmap first; but kmod ignores the \"install %s\" command of %s while a softdep line with modules applies (it inserts %s itself)",
			 used, driver, driver, v->install_ignored, driver);
		snprintf(fix, flen, "do what that install command does another way (its modules as softdep pre: or post: modules in another line for %s, then p2pmap config save merges them)",
			 driver);
		break;
	case SOFTDEP_STALE:
		snprintf(text, tlen, "%s is the softdep line kmod uses for %s, and it lacks what another line names: %s; kmod ignores those lines, so at boot %s loads without them",
			 used, driver, v->missing, driver);
		snprintf(fix, flen, "p2pmap config save (it merges the modules of every softdep line for %s into its own)",
			 driver);
		break;
	}
}
