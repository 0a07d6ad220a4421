/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which devices a listing shows: --gpus (display, 3D and processing
 * accelerator classes), --driver NAME, -d VENDOR[:DEVICE] (hex, as
 * lspci -d).  Every filter given must match.
 */
#ifndef P2PMAP_DEV_FILTER_H
#define P2PMAP_DEV_FILTER_H

#include <stdbool.h>
#include <stdint.h>

struct dev_filter {
	bool gpus;
	bool has_vendor, has_device;
	uint16_t vendor, device;
	const char *driver;		/* NULL: any; "": unbound */
};

/*
 * Option @opt (with @arg, NULL for none) a filter option?  1: taken, 0: not
 * a filter option, -1: a bad or missing value (said on stderr, naming @cmd).
 */
int dev_filter_opt(struct dev_filter *f, const char *opt, const char *arg,
		   const char *cmd);

/* @device_class: the 16-bit base class and subclass (lspci's "0302"). */
bool dev_filter_match(const struct dev_filter *f, uint16_t vendor,
		      uint16_t device, uint16_t device_class,
		      const char *driver);

#endif /* P2PMAP_DEV_FILTER_H */
