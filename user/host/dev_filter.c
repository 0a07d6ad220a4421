// SPDX-License-Identifier: GPL-2.0
/* list's device filters (dev_filter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_filter.h"

/* One hex ID of at most four digits; "" (or "*") means any. */
static int parse_id(const char *s, size_t len, bool *has, uint16_t *id)
{
	char buf[8], *end;
	unsigned long v;

	if (!len || (len == 1 && *s == '*')) {
		*has = false;
		return 0;
	}
	if (len > 4)
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtoul(buf, &end, 16);
	if (*end || end == buf)
		return -1;
	*has = true;
	*id = (uint16_t)v;
	return 0;
}

static int parse_ids(struct dev_filter *f, const char *s)
{
	const char *colon = strchr(s, ':');
	size_t vlen = colon ? (size_t)(colon - s) : strlen(s);

	if (parse_id(s, vlen, &f->has_vendor, &f->vendor))
		return -1;
	if (colon && (strchr(colon + 1, ':') ||
		      parse_id(colon + 1, strlen(colon + 1), &f->has_device,
			       &f->device)))
		return -1;
	return f->has_vendor || f->has_device ? 0 : -1;
}

int dev_filter_opt(struct dev_filter *f, const char *opt, const char *arg,
		   const char *cmd)
{
	if (!strcmp(opt, "--gpus")) {
		f->gpus = true;
		return 1;
	}
	if (strcmp(opt, "--driver") && strcmp(opt, "-d"))
		return 0;
	if (!arg) {
		fprintf(stderr, "p2pmap: %s: %s needs a value\n", cmd, opt);
		return -1;
	}
	if (!strcmp(opt, "--driver")) {
		f->driver = arg;
		return 1;
	}
	if (parse_ids(f, arg)) {
		fprintf(stderr, "p2pmap: %s: -d takes VENDOR[:DEVICE] in hex, as lspci -d (10de, 10de:2330, :2330), not \"%s\"\n",
			cmd, arg);
		return -1;
	}
	return 1;
}

bool dev_filter_match(const struct dev_filter *f, uint16_t vendor,
		      uint16_t device, uint16_t device_class,
		      const char *driver)
{
	/* 03xx display/3D controllers, 1200 processing accelerators. */
	if (f->gpus && (device_class >> 8) != 0x03 && device_class != 0x1200)
		return false;
	if (f->has_vendor && vendor != f->vendor)
		return false;
	if (f->has_device && device != f->device)
		return false;
	return !f->driver || !strcmp(f->driver, driver ? driver : "");
}
