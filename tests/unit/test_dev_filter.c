// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/host/dev_filter.c: list's --gpus, --driver, -d. */
#include <string.h>

#include "dev_filter.h"
#include "tap.h"

/* parse OPT [VALUE] ...: dev_filter_opt() over them; the last result. */
static int parse(struct dev_filter *f, int argc, char **argv)
{
	const char *opt, *arg;
	int i, r = 0;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < argc; i++) {
		opt = argv[i];
		arg = NULL;
		if (!strcmp(opt, "-d") || !strcmp(opt, "--driver"))
			arg = i + 1 < argc ? argv[++i] : NULL;
		r = dev_filter_opt(f, opt, arg, "test");
		if (r <= 0)
			return r;
	}
	return r;
}

#define ARGS(...) (sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)), \
		  ((char *[]){ __VA_ARGS__ })

int main(void)
{
	struct dev_filter f;

	tap_ok(parse(&f, ARGS("-d", "10de")) == 1 && f.has_vendor &&
	       f.vendor == 0x10de && !f.has_device, "-d VENDOR");
	tap_ok(parse(&f, ARGS("-d", "10DE:2330")) == 1 && f.vendor == 0x10de &&
	       f.has_device && f.device == 0x2330, "-d VENDOR:DEVICE, any case");
	tap_ok(parse(&f, ARGS("-d", ":2330")) == 1 && !f.has_vendor &&
	       f.device == 0x2330, "-d :DEVICE");
	tap_ok(parse(&f, ARGS("-d", "10de:")) == 1 && f.has_vendor &&
	       !f.has_device, "-d VENDOR: (any device)");
	tap_ok(parse(&f, ARGS("-d", "zz")) == -1, "-d zz is refused");
	tap_ok(parse(&f, ARGS("-d", "10de0")) == -1, "-d with 5 digits is refused");
	tap_ok(parse(&f, ARGS("-d", ":")) == -1, "-d : (nothing) is refused");
	tap_ok(parse(&f, ARGS("-d", "10de:1:2")) == -1,
	       "-d VENDOR:DEVICE:CLASS is refused");
	tap_ok(parse(&f, ARGS("-d")) == -1, "-d without a value is refused");
	tap_ok(parse(&f, ARGS("--driver")) == -1,
	       "--driver without a value is refused");
	tap_ok(parse(&f, ARGS("--all")) == 0, "--all is not a filter option");

	parse(&f, ARGS("--gpus"));
	tap_ok(dev_filter_match(&f, 0x10de, 0x2330, 0x0302, "nvidia") &&
	       dev_filter_match(&f, 0x1002, 0x74a1, 0x0380, "amdgpu") &&
	       dev_filter_match(&f, 0x1234, 0x11e8, 0x1200, "") &&
	       !dev_filter_match(&f, 0x1af4, 0x1042, 0x0100, "virtio-pci") &&
	       !dev_filter_match(&f, 0x10de, 0x22a3, 0x0680, "nvidia"),
	       "--gpus: display, 3D and accelerator classes only");
	parse(&f, ARGS("--driver", "nvidia", "-d", "10de"));
	tap_ok(dev_filter_match(&f, 0x10de, 0x2330, 0x0302, "nvidia") &&
	       !dev_filter_match(&f, 0x10de, 0x2330, 0x0302, "vfio-pci") &&
	       !dev_filter_match(&f, 0x10de, 0x2330, 0x0302, NULL) &&
	       !dev_filter_match(&f, 0x1002, 0x2330, 0x0302, "nvidia"),
	       "--driver and -d both must match");
	parse(&f, ARGS("--driver", ""));
	tap_ok(dev_filter_match(&f, 1, 2, 3, NULL) &&
	       dev_filter_match(&f, 1, 2, 3, "") &&
	       !dev_filter_match(&f, 1, 2, 3, "nvidia"),
	       "--driver \"\": unbound devices");
	parse(&f, ARGS("-d", ":2330"));
	tap_ok(dev_filter_match(&f, 0x10de, 0x2330, 0, "") &&
	       !dev_filter_match(&f, 0x10de, 0x2331, 0, ""),
	       "-d :DEVICE matches any vendor");
	memset(&f, 0, sizeof(f));
	tap_ok(dev_filter_match(&f, 1, 2, 3, NULL), "no filter: everything");
	return tap_done();
}
